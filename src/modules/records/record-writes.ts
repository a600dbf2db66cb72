// What a record's create, change and delete do beyond the SQL: the body's problems (its schema's, its
// MAC's, its Uid's, the collection's rules), all reported at once, and the 404s of a missing record.
import type { FastifyRequest } from 'fastify'
import type { Kysely } from 'kysely'
import type { DB } from '../../db/schema.ts'
import type { IdSource } from '../../db/ids.ts'
import { ok, okMessage } from '../../http/envelope.ts'
import { notFound, validationFailed, type FieldProblem } from '../../http/errors.ts'
import { uniqueByField, validationDetails, type AjvIssue } from '../../http/validation-details.ts'
import type { ApiObject, Row } from '../../resource/resource.ts'
import type { Clock } from '../../types.ts'
import { findAnimalByMac, type AnimalRow } from '../animals/animals.repository.ts'
import type { RecordTableName } from './index.ts'
import type { RecordCollection } from './record-collection.ts'
import {
  AnimalGoneError,
  deleteRecord,
  findRecord,
  insertRecord,
  updateRecord,
  type RecordScope,
} from './records.repository.ts'
import { recordIdOf } from './records.rules.ts'

export type Collection = RecordCollection<RecordTableName>

/** The body as an object: a body that failed validation may be null, absent or an array (its errors say so). */
export function bodyOf(req: FastifyRequest): ApiObject {
  return req.body !== null && typeof req.body === 'object' && !Array.isArray(req.body) ? (req.body as ApiObject) : {}
}

/** The body's schema errors (with attachValidation they reach the handler), to report with the rules' own. */
function bodyProblems(req: FastifyRequest): FieldProblem[] {
  const error = req.validationError as (Error & { validation?: AjvIssue[]; validationContext?: string }) | undefined
  if (!error) return []
  if (error.validationContext !== 'body' || !error.validation) throw error
  return validationDetails(error.validation, 'body')
}

/** The reads and writes of one collection's routes, over one database. `afterWrite` follows a create or change (due events). */
export function recordWrites(
  collection: Collection,
  db: Kysely<DB>,
  ids: IdSource,
  clock: Clock,
  afterWrite: (uid: string, animalId: number) => Promise<void> = async () => {},
) {
  const { resource, names, macField } = collection
  const toApi = (row: Row) => resource.toApi(row)
  const notAnimal = () => validationFailed([{ field: macField, message: "is not one of the user's animals" }])

  /** The collection's rules on a whole record, but for those that read a field with a problem of its own. */
  function checkRules(record: ApiObject, flagged: (field: string) => boolean = () => false): FieldProblem[] {
    return (collection.rules ?? []).filter((rule) => !rule.fields.some(flagged)).flatMap((rule) => rule.check(record))
  }

  /** Problems a body has beyond its schema: its MAC, its Uid, the collection's rules. */
  async function crossChecks(
    req: FastifyRequest,
    uid: string,
    pathAnimal: AnimalRow | undefined,
  ): Promise<{ problems: FieldProblem[]; animal: AnimalRow | undefined }> {
    const problems = bodyProblems(req)
    const body = bodyOf(req)
    const flagged = (field: string) => problems.some((p) => p.field === field)
    let animal = pathAnimal
    const mac = body[macField]
    if (typeof mac === 'string' && !flagged(macField)) {
      if (pathAnimal) {
        if (mac.toUpperCase() !== pathAnimal.mac)
          problems.push({
            field: macField,
            message: `must be the MAC of the animal in the path (${pathAnimal.mac}), or be left out`,
          })
      } else {
        animal = await findAnimalByMac(db, uid, mac)
        if (!animal) problems.push({ field: macField, message: "is not one of the user's animals" })
      }
    }
    if (body.Uid !== undefined && body.Uid !== uid && !flagged('Uid'))
      problems.push({ field: 'Uid', message: 'must equal the user id of the path' })
    problems.push(...checkRules(body, flagged))
    return { problems: uniqueByField(problems), animal }
  }

  return {
    toApi,

    async find(scope: RecordScope, idText: string): Promise<Row> {
      const id = recordIdOf(idText)
      const row = id === undefined ? undefined : await findRecord(db, collection, scope, id)
      if (!row) throw notFound(names.label)
      return row
    },

    /** Stores the body as a record of the path's animal, or of the animal its MAC names. */
    async create(req: FastifyRequest, uid: string, pathAnimal: AnimalRow | undefined): Promise<Row> {
      const { problems, animal } = await crossChecks(req, uid, pathAnimal)
      if (problems.length > 0 || !animal) throw validationFailed(problems)
      let record
      try {
        record = await insertRecord(db, collection, uid, animal.id, resource.toColumns(bodyOf(req)), ids)
      } catch (err) {
        if (err instanceof AnimalGoneError) throw notAnimal()
        throw err
      }
      await afterWrite(uid, animal.id)
      return record
    },

    async update(req: FastifyRequest, scope: RecordScope, idText: string) {
      const id = recordIdOf(idText)
      if (id === undefined) throw notFound(names.label)
      const { problems, animal } = await crossChecks(req, scope.uid, undefined)
      if (problems.length > 0) throw validationFailed(problems)
      const columns = { ...resource.toColumns(bodyOf(req)), ...(animal ? { animal_id: animal.id } : {}) }
      let result
      try {
        // The rules see the record as it would be stored: the current one with the change applied.
        result = await updateRecord(db, collection, scope, id, columns, new Date(clock()), (current) =>
          checkRules({ ...toApi(current), ...bodyOf(req) }),
        )
      } catch (err) {
        if (err instanceof AnimalGoneError) throw notAnimal()
        throw err
      }
      if (!result) throw notFound(names.label)
      if ('problems' in result) throw validationFailed(result.problems)
      await afterWrite(scope.uid, Number(result.row.animal_id))
      return ok(toApi(result.row), `${names.label} updated`)
    },

    async remove(scope: RecordScope, idText: string) {
      const id = recordIdOf(idText)
      if (id === undefined || !(await deleteRecord(db, collection, scope, id))) throw notFound(names.label)
      return okMessage(`${names.label} deleted`)
    },
  }
}
