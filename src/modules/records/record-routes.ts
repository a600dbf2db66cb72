// The routes of a record collection, from its declaration: at user level (list, search, active,
// archived, get, create, patch, delete) and per animal (list, recent, range, get, create, patch, delete).
// One store, two views: a record created at one level is read, changed and deleted at either.
import type { FastifyRequest } from 'fastify'
import Type, { type TSchema } from 'typebox'
import { createIdSource } from '../../db/ids.ts'
import { MAX_PATH_SEGMENT } from '../../http/route-policy.ts'
import { defineModule, type ApiModule } from '../../http/api-module.ts'
import { created } from '../../http/created.ts'
import { Envelope, MessageEnvelope, PageEnvelope, ok, okMessage, page } from '../../http/envelope.ts'
import { notFound, validationFailed, type FieldProblem } from '../../http/errors.ts'
import { listQueryOptions, listQueryProperties, parseFilters } from '../../http/list-params.ts'
import { EXAMPLE, Integer } from '../../http/schema-types.ts'
import { uniqueByField, validationDetails, type AjvIssue } from '../../http/validation-details.ts'
import type { ApiObject, Row } from '../../resource/resource.ts'
import type { App } from '../../types.ts'
import { findAnimalByMac, type AnimalRow } from '../animals/animals.repository.ts'
import { AnimalMacPath, UserPath } from '../animals/animals.resource.ts'
import { UID_PATTERN } from '../users/users.rules.ts'
import type { RecordCollection } from './record-collection.ts'
import type { RecordTableName } from './index.ts'
import {
  AnimalGoneError,
  RANGE_MAX,
  deleteRecord,
  findRecord,
  insertRecord,
  listRecords,
  recentRecords,
  recordsInRange,
  updateRecord,
  type RecordScope,
} from './records.repository.ts'
import { ISO_8601_PATTERN, calendarDay, recordIdOf } from './records.rules.ts'

const Uid = Type.String({
  pattern: UID_PATTERN,
  maxLength: 128,
  description: "The account's Uid",
  examples: [EXAMPLE.uid],
})
const RecordId = (label: string) =>
  Type.String({
    minLength: 1,
    maxLength: MAX_PATH_SEGMENT,
    description: `The ${label.toLowerCase()}'s ID`,
    examples: [String(EXAMPLE.ms)],
  })
const IsoDate = (description: string) =>
  Type.String({
    pattern: ISO_8601_PATTERN,
    maxLength: 40,
    description: `${description}: ISO 8601, a date or a date and time (compared by UTC calendar day)`,
    examples: ['2026-11-01'],
  })

/** The examples a field's schema gives, for a parameter that takes the same values. */
function examplesOf(schema: TSchema): unknown[] | undefined {
  return (schema as { examples?: unknown[] }).examples
}

/** The body as an object: a body that failed validation may be null, absent or an array (its errors say so). */
function bodyOf(req: FastifyRequest): ApiObject {
  return req.body !== null && typeof req.body === 'object' && !Array.isArray(req.body) ? (req.body as ApiObject) : {}
}

/** The body's schema errors (with attachValidation they reach the handler), to report with the rules' own. */
function bodyProblems(req: FastifyRequest): FieldProblem[] {
  const error = req.validationError as (Error & { validation?: AjvIssue[]; validationContext?: string }) | undefined
  if (!error) return []
  if (error.validationContext !== 'body' || !error.validation) throw error
  return validationDetails(error.validation, 'body')
}

export function recordModule(collection: RecordCollection<RecordTableName>): ApiModule {
  const { resource, segment, idParam, names, macField = 'MAC' } = collection
  return defineModule({
    tag: segment,
    description: collection.description,
    schemas: [resource.item],
    routes: async (app: App) => {
      const db = app.database.db
      const { limits } = app.config
      const ids = createIdSource(app.clock)
      const toApi = (row: Row) => resource.toApi(row)
      const listProperties = () =>
        listQueryProperties(limits, resource.sortFields, 't', resource.filterFields, resource.filterSchemas)
      const ListQuery = (extra: Record<string, TSchema> = {}, description?: string) =>
        Type.Object({ ...listProperties(), ...extra }, { ...listQueryOptions, ...(description ? { description } : {}) })
      const notFoundResponse = {
        404: Type.Ref('ErrorEnvelope', { description: `No such ${names.label.toLowerCase()} (or animal) of the user` }),
      }

      async function requireAnimal(uid: string, mac: string): Promise<AnimalRow> {
        const animal = await findAnimalByMac(db, uid, mac)
        if (!animal) throw notFound('Animal')
        return animal
      }

      async function requireRecord(scope: RecordScope, idText: string): Promise<Row> {
        const id = recordIdOf(idText)
        const row = id === undefined ? undefined : await findRecord(db, collection, scope, id)
        if (!row) throw notFound(names.label)
        return row
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

      /** The collection's rules on a whole record, but for those that read a field with a problem of its own. */
      function checkRules(record: ApiObject, flagged: (field: string) => boolean = () => false): FieldProblem[] {
        return (collection.rules ?? [])
          .filter((rule) => !rule.fields.some(flagged))
          .flatMap((rule) => rule.check(record))
      }

      async function create(req: FastifyRequest, uid: string, pathAnimal: AnimalRow | undefined) {
        const { problems, animal } = await crossChecks(req, uid, pathAnimal)
        if (problems.length > 0 || !animal) throw validationFailed(problems)
        try {
          return await insertRecord(db, collection, uid, animal.id, resource.toColumns(bodyOf(req)), ids)
        } catch (err) {
          if (err instanceof AnimalGoneError)
            throw validationFailed([{ field: macField, message: "is not one of the user's animals" }])
          throw err
        }
      }

      async function update(req: FastifyRequest, scope: RecordScope, idText: string) {
        const id = recordIdOf(idText)
        if (id === undefined) throw notFound(names.label)
        const { problems, animal } = await crossChecks(req, scope.uid, undefined)
        if (problems.length > 0) throw validationFailed(problems)
        const columns = { ...resource.toColumns(bodyOf(req)), ...(animal ? { animal_id: animal.id } : {}) }
        let result
        try {
          // The rules see the record as it would be stored: the current one with the change applied.
          result = await updateRecord(db, collection, scope, id, columns, new Date(app.clock()), (current) =>
            checkRules({ ...toApi(current), ...bodyOf(req) }),
          )
        } catch (err) {
          if (err instanceof AnimalGoneError)
            throw validationFailed([{ field: macField, message: "is not one of the user's animals" }])
          throw err
        }
        if (!result) throw notFound(names.label)
        if ('problems' in result) throw validationFailed(result.problems)
        return ok(toApi(result.row), `${names.label} updated`)
      }

      async function remove(scope: RecordScope, idText: string) {
        const id = recordIdOf(idText)
        if (id === undefined || !(await deleteRecord(db, collection, scope, id))) throw notFound(names.label)
        return okMessage(`${names.label} deleted`)
      }

      const rulesNote = 'Every problem of the body is reported at once, one `details` entry per field.'
      const patchDescription =
        `Archive or unarchive (\`Archived\`), or correct fields; null clears an optional field. A new ${macField} ` +
        `moves the record to that animal (one of the user's). ${rulesNote}`
      const deleteDescription = 'Owner, or an integrator with the delete permission.'
      const getDescription = `The ${names.label.toLowerCase()} with this ID, as stored (its MAC is the animal's current one); 404 unless it is one of the user's.`

      if (collection.extraRoutes) await collection.extraRoutes(app)

      const user = collection.userLevel
      if (user) {
        const base = `/users/:userId/${segment}`
        const ItemPath = Type.Object({ userId: Uid, [idParam]: RecordId(names.label) })
        const idOf = (req: FastifyRequest) => (req.params as Record<string, string>)[idParam]!
        const uidOf = (req: FastifyRequest) => (req.params as { userId: string }).userId
        /** A page of the list, of its active or archived part, or of the search's matches. */
        const listOne = (view: { archived?: boolean; search?: true }) => async (req: FastifyRequest) => {
          const query = req.query as Record<string, unknown> & {
            page: number
            limit: number
            sortBy: string
            sortOrder: 'asc' | 'desc'
          }
          const matches: Record<string, string | boolean> = {}
          for (const [param, fieldName] of Object.entries(view.search ? user.search : {})) {
            const value = query[param]
            if (typeof value === 'string' || typeof value === 'boolean') matches[fieldName] = value
          }
          const { rows, total } = await listRecords(
            db,
            collection,
            { uid: uidOf(req) },
            query,
            parseFilters(query, resource.filterFields),
            { archived: view.archived, matches },
          )
          return page(rows.map(toApi), query.page, query.limit, total)
        }
        const searchParams: Record<string, TSchema> = {}
        for (const [param, fieldName] of Object.entries(user.search)) {
          const f = resource.fields[fieldName]!
          searchParams[param] = Type.Optional(
            f.kind === 'boolean'
              ? Type.Boolean({ description: `${fieldName}: true or false` })
              : f.joined
                ? f.schema({ description: `${fieldName}, either case` })
                : Type.String({
                    minLength: 1,
                    maxLength: 2000,
                    description: `${fieldName}: exact, case-insensitive`,
                    examples: examplesOf(f.schema()),
                  }),
          )
        }

        app.get(
          base,
          {
            schema: {
              operationId: `list${names.plural}`,
              summary: `List the user's ${names.plural.toLowerCase()}`,
              description:
                'Common list parameters: `sortBy` any scalar field (default `t`, when recorded), `filter[Field]=value` exact matches.',
              params: UserPath,
              querystring: ListQuery(),
              response: { 200: PageEnvelope(resource.ref) },
            },
            config: { access: 'own' },
          },
          listOne({}),
        )

        app.get(
          `${base}/search`,
          {
            schema: {
              operationId: `search${names.plural}`,
              summary: `Search the user's ${names.plural.toLowerCase()}`,
              description:
                `Every given criterion must match: ${Object.keys(user.search).join(', ')}. Text matches exactly but ` +
                'case-insensitively, a MAC in either case. Paginated like every list.',
              params: UserPath,
              querystring: ListQuery(searchParams),
              response: { 200: PageEnvelope(resource.ref) },
            },
            config: { access: 'own' },
          },
          listOne({ search: true }),
        )

        for (const [view, archived] of [
          ['active', false],
          ['archived', true],
        ] as const) {
          app.get(
            `${base}/${view}`,
            {
              schema: {
                operationId: `list${view === 'active' ? 'Active' : 'Archived'}${names.plural}`,
                summary: `The user's ${view} ${names.plural.toLowerCase()}`,
                description: `Records with Archived ${archived}. Common list parameters.`,
                params: UserPath,
                querystring: ListQuery(),
                response: { 200: PageEnvelope(resource.ref) },
              },
              config: { access: 'own' },
            },
            listOne({ archived }),
          )
        }

        app.get(
          `${base}/:${idParam}`,
          {
            schema: {
              operationId: `get${names.singular}`,
              summary: `Get one ${names.label.toLowerCase()}`,
              description: getDescription,
              params: ItemPath,
              response: { 200: Envelope(resource.ref) },
            },
            config: { access: 'own' },
          },
          async (req) => ok(toApi(await requireRecord({ uid: uidOf(req) }, idOf(req)))),
        )

        app.post(
          base,
          {
            schema: {
              operationId: `create${names.singular}`,
              summary: `Record a ${names.label.toLowerCase()}`,
              description:
                `${macField} must be one of the user's animals. Answers 201 with the stored record (ID and t generated) ` +
                `and a Location header. ${rulesNote}`,
              params: UserPath,
              body: resource.createBody(user.create),
              response: { 201: Envelope(resource.ref, 'The stored record', `${names.label} created`) },
            },
            attachValidation: true,
            config: { access: 'own', idempotent: true },
          },
          async (req, reply) => {
            const row = await create(req, req.params.userId, undefined)
            return created(
              reply,
              `/users/${req.params.userId}/${segment}/${String(row.id)}`,
              ok(toApi(row), `${names.label} created`),
            )
          },
        )

        app.patch(
          `${base}/:${idParam}`,
          {
            schema: {
              operationId: `update${names.singular}`,
              summary: `Change a ${names.label.toLowerCase()}`,
              description: patchDescription,
              params: ItemPath,
              body: resource.patchBody(),
              response: {
                200: Envelope(resource.ref, 'The record as stored now', `${names.label} updated`),
                ...notFoundResponse,
              },
            },
            attachValidation: true,
            config: { access: 'own' },
          },
          async (req) => update(req, { uid: uidOf(req) }, idOf(req)),
        )

        app.delete(
          `${base}/:${idParam}`,
          {
            schema: {
              operationId: `delete${names.singular}`,
              summary: `Delete a ${names.label.toLowerCase()}`,
              description: deleteDescription,
              params: ItemPath,
              response: { 200: MessageEnvelope('Deleted', `${names.label} deleted`) },
            },
            config: { access: 'own' },
          },
          async (req) => remove({ uid: uidOf(req) }, idOf(req)),
        )
      }

      const animalLevel = collection.animalLevel
      if (animalLevel) {
        const base = `/users/:userId/animals/:animalMac/${segment}`
        const ItemPath = Type.Object({ ...AnimalMacPath.properties, [idParam]: RecordId(names.label) })
        const idOf = (req: FastifyRequest) => (req.params as Record<string, string>)[idParam]!
        const scopeOf = async (req: FastifyRequest) => {
          const { userId, animalMac } = req.params as { userId: string; animalMac: string }
          const animal = await requireAnimal(userId, animalMac)
          return { scope: { uid: userId, animalId: animal.id }, animal }
        }

        app.get(
          base,
          {
            schema: {
              operationId: `listAnimal${names.plural}`,
              summary: `The animal's ${names.plural.toLowerCase()}`,
              description:
                'Common list parameters: `sortBy` any scalar field (default `t`, when recorded), `filter[Field]=value` exact matches.',
              params: AnimalMacPath,
              querystring: ListQuery(),
              response: { 200: PageEnvelope(resource.ref) },
            },
            config: { access: 'own' },
          },
          async (req) => {
            const { scope } = await scopeOf(req)
            const { rows, total } = await listRecords(
              db,
              collection,
              scope,
              req.query,
              parseFilters(req.query, resource.filterFields),
            )
            return page(rows.map(toApi), req.query.page, req.query.limit, total)
          },
        )

        app.get(
          `${base}/recent`,
          {
            schema: {
              operationId: `recentAnimal${names.plural}`,
              summary: `The animal's latest ${names.plural.toLowerCase()}`,
              description: 'The newest `limit` records, newest first by t (when they were recorded).',
              params: AnimalMacPath,
              querystring: Type.Object({
                limit: Integer({
                  minimum: 1,
                  maximum: limits.recentLimitMax,
                  default: limits.recentLimitDefault,
                  description: `Records, 1-${limits.recentLimitMax}`,
                  examples: [Math.min(5, limits.recentLimitMax)],
                }),
              }),
              response: { 200: Envelope(Type.Array(resource.ref, { maxItems: limits.recentLimitMax })) },
            },
            config: { access: 'own' },
          },
          async (req) =>
            ok((await recentRecords(db, collection, (await scopeOf(req)).scope, req.query.limit)).map(toApi)),
        )

        const rangeField = animalLevel.rangeField
        if (rangeField) {
          const column = resource.fields[rangeField]!.column
          app.get(
            `${base}/range`,
            {
              schema: {
                operationId: `animal${names.plural}InRange`,
                summary: `The animal's ${names.plural.toLowerCase()} between two dates`,
                description: `Records whose ${rangeField} lies between startDate and endDate, both inclusive, oldest first (at most ${RANGE_MAX}).`,
                params: AnimalMacPath,
                querystring: Type.Object({ startDate: IsoDate('First day'), endDate: IsoDate('Last day') }),
                response: { 200: Envelope(Type.Array(resource.ref, { maxItems: RANGE_MAX })) },
              },
              config: { access: 'own' },
            },
            async (req) => {
              const from = calendarDay(req.query.startDate)
              const to = calendarDay(req.query.endDate)
              const problems = [
                ...(from ? [] : [{ field: 'query:startDate', message: 'is not a real date' }]),
                ...(to ? [] : [{ field: 'query:endDate', message: 'is not a real date' }]),
              ]
              if (from && to && from > to)
                problems.push({ field: 'query:startDate', message: 'must not be after endDate' })
              if (problems.length > 0) throw validationFailed(problems)
              return ok(
                (await recordsInRange(db, collection, (await scopeOf(req)).scope, column, from!, to!)).map(toApi),
              )
            },
          )
        }

        app.get(
          `${base}/:${idParam}`,
          {
            schema: {
              operationId: `getAnimal${names.singular}`,
              summary: `Get one of the animal's ${names.plural.toLowerCase()}`,
              description: `${getDescription} It must be one of the path animal's.`,
              params: ItemPath,
              response: { 200: Envelope(resource.ref) },
            },
            config: { access: 'own' },
          },
          async (req) => ok(toApi(await requireRecord((await scopeOf(req)).scope, idOf(req)))),
        )

        app.post(
          base,
          {
            schema: {
              operationId: `createAnimal${names.singular}`,
              summary: `Record a ${names.label.toLowerCase()} of the animal`,
              description:
                `The animal is the path's; ${macField} may be left out, and when sent must be its MAC. Answers 201 with the ` +
                `stored record (ID and t generated) and a Location header. ${rulesNote}`,
              params: AnimalMacPath,
              body: resource.createBody(animalLevel.create),
              response: { 201: Envelope(resource.ref, 'The stored record', `${names.label} created`) },
            },
            attachValidation: true,
            config: { access: 'own', idempotent: true },
          },
          async (req, reply) => {
            const { animal } = await scopeOf(req)
            const row = await create(req, req.params.userId, animal)
            return created(
              reply,
              `/users/${req.params.userId}/animals/${animal.mac}/${segment}/${String(row.id)}`,
              ok(toApi(row), `${names.label} created`),
            )
          },
        )

        app.patch(
          `${base}/:${idParam}`,
          {
            schema: {
              operationId: `updateAnimal${names.singular}`,
              summary: `Change one of the animal's ${names.plural.toLowerCase()}`,
              description: patchDescription,
              params: ItemPath,
              body: resource.patchBody(),
              response: {
                200: Envelope(resource.ref, 'The record as stored now', `${names.label} updated`),
                ...notFoundResponse,
              },
            },
            attachValidation: true,
            config: { access: 'own' },
          },
          async (req) => update(req, (await scopeOf(req)).scope, idOf(req)),
        )

        app.delete(
          `${base}/:${idParam}`,
          {
            schema: {
              operationId: `deleteAnimal${names.singular}`,
              summary: `Delete one of the animal's ${names.plural.toLowerCase()}`,
              description: deleteDescription,
              params: ItemPath,
              response: { 200: MessageEnvelope('Deleted', `${names.label} deleted`) },
            },
            config: { access: 'own' },
          },
          async (req) => remove((await scopeOf(req)).scope, idOf(req)),
        )
      }
    },
  })
}
