// Animals as stored. Rows become the spec's Animal through the resource's mappers (animals.resource.ts).
import { sql, type Insertable, type Kysely, type Selectable, type Updateable } from 'kysely'
import type { AnimalsTable, DB } from '../../db/schema.ts'
import { foreignKeyViolation, uniqueViolation } from '../../db/errors.ts'
import { insertWithTimeId, type IdSource } from '../../db/ids.ts'
import { paginate, type Page, type PageParams } from '../../db/paginate.ts'
import { preparedQuery } from '../../db/prepared.ts'
import type { FilterValue } from '../../http/list-params.ts'
import type { ApiObject } from '../../resource/resource.ts'
import { animals } from './animals.resource.ts'
import { isMac, normalizeMac } from './animals.rules.ts'
import { readingTablesOf } from '../readings/readings.series.ts'

const ANIMAL_READING_TABLES = readingTablesOf('animals')

export type AnimalRow = Selectable<AnimalsTable>

declare module 'fastify' {
  interface FastifyInstance {
    /** The farm-record tables whose rows hang off an animal, named by their collections (app.ts gives them). */
    animalRecordTables: readonly RecordTable[]
  }
  interface FastifyRequest {
    /** The animal of :userId/:animalMac on routes that declare `config: { animal: 'path' }` (plugins/path-animal.ts). */
    pathAnimal: AnimalRow
  }
}

/** Thrown when a MAC is already taken among the user's animals. */
export class DuplicateMacError extends Error {
  constructor(mac: string) {
    super(`An animal with MAC ${mac} already exists`)
    this.name = 'DuplicateMacError'
  }
}

function rethrowDuplicateMac(err: unknown, mac: string | undefined): never {
  if (uniqueViolation(err) === 'animals_uid_mac_key') throw new DuplicateMacError(mac ?? '')
  throw err
}

export const toApiAnimal = (row: AnimalRow): ApiObject => animals.toApi(row)

/** Every column of an animal's row, named for the prepared point reads (AnimalRow, their result, needs them all). */
const ANIMAL_COLUMNS = [
  'uid',
  'id',
  'mac',
  'sex',
  'active',
  'battery',
  'current_activity',
  'current_temperature',
  'reference_temperature',
  'reference_temperature_updated_at',
  'reference_temperature_window_days',
  'eartag_start',
  'father',
  'mother',
  'group_name',
  'node',
  'node_weight',
  'signal_strength',
  'watchdog_weight',
  't',
  'suspicious',
  'health_score',
  'diagnosed',
  'last_sensor_t',
  'last_location_t',
  'created_at',
  'updated_at',
] as const satisfies readonly (keyof AnimalsTable)[]

const animalById = preparedQuery('animal_by_id', (db, uid: string, id: number) =>
  db.selectFrom('animals').select(ANIMAL_COLUMNS).where('uid', '=', uid).where('id', '=', id),
)
const animalByMac = preparedQuery('animal_by_mac', (db, uid: string, mac: string) =>
  db.selectFrom('animals').select(ANIMAL_COLUMNS).where('uid', '=', uid).where('mac', '=', mac),
)

/** An animal by its ID, or by its tag MAC (either case); undefined for anything else. */
export async function findAnimal(db: Kysely<DB>, uid: string, idOrMac: string): Promise<AnimalRow | undefined> {
  if (/^[0-9]{1,16}$/.test(idOrMac)) return (await animalById(db, uid, Number(idOrMac)))[0]
  if (isMac(idOrMac)) return findAnimalByMac(db, uid, idOrMac)
  return undefined
}

/** An animal by its tag MAC (either case); undefined when the MAC is malformed or none of the user's. */
export async function findAnimalByMac(db: Kysely<DB>, uid: string, mac: string): Promise<AnimalRow | undefined> {
  if (!isMac(mac)) return undefined
  return (await animalByMac(db, uid, normalizeMac(mac)))[0]
}

export async function listAnimals(
  db: Kysely<DB>,
  uid: string,
  params: PageParams,
  filters: Record<string, FilterValue>,
  onlyIds?: readonly number[],
): Promise<Page<AnimalRow>> {
  let query = db.selectFrom('animals').selectAll().where('uid', '=', uid)
  if (onlyIds !== undefined)
    query = onlyIds.length > 0 ? query.where('id', 'in', onlyIds) : query.where(sql<boolean>`false`)
  return paginate(query, {
    columns: animals.columns(),
    params,
    filters: animals.filterValues(filters),
    tiebreak: 'id',
  })
}

export interface AnimalSearch {
  group?: string | undefined
  sex?: string | undefined
  active?: boolean | undefined
  suspicious?: boolean | undefined
  mac?: string | undefined
}

/** The matching animals, oldest first, at most `max`. */
export async function searchAnimals(
  db: Kysely<DB>,
  uid: string,
  criteria: AnimalSearch,
  max: number,
): Promise<AnimalRow[]> {
  let query = db.selectFrom('animals').selectAll().where('uid', '=', uid)
  if (criteria.group !== undefined) query = query.where('group_name', '=', criteria.group)
  if (criteria.sex !== undefined) query = query.where('sex', '=', criteria.sex as AnimalRow['sex'])
  if (criteria.active !== undefined) query = query.where('active', '=', criteria.active)
  if (criteria.suspicious !== undefined) query = query.where('suspicious', '=', criteria.suspicious)
  if (criteria.mac !== undefined) query = query.where('mac', '=', normalizeMac(criteria.mac))
  return query.orderBy('id').limit(max).execute()
}

/** Inserts an animal under the next free time id; a MAC the user already has is a DuplicateMacError. */
export async function insertAnimal(db: Kysely<DB>, uid: string, body: ApiObject, ids: IdSource): Promise<AnimalRow> {
  const columns = animals.toColumns(body) as Insertable<AnimalsTable>
  try {
    return await insertWithTimeId(ids, (id) =>
      db
        .insertInto('animals')
        .values({ ...columns, uid, id, t: id })
        .onConflict((oc) => oc.columns(['uid', 'id']).doNothing())
        .returningAll()
        .executeTakeFirst(),
    )
  } catch (err) {
    rethrowDuplicateMac(err, columns.mac)
  }
}

/**
 * Applies a partial update. A new MAC carries the tag's readings along (same transaction), so the
 * animal keeps its history; its farm records reference the animal itself and need no change.
 */
export async function updateAnimal(
  db: Kysely<DB>,
  uid: string,
  id: number,
  body: ApiObject,
  now: Date,
): Promise<AnimalRow | undefined> {
  const columns = animals.toColumns(body) as Updateable<AnimalsTable>
  try {
    return await db.transaction().execute(async (trx) => {
      const current = await lockAnimal(trx, uid, id)
      if (!current) return undefined
      const row = await trx
        .updateTable('animals')
        .set({ ...columns, updated_at: now })
        .where('uid', '=', uid)
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirstOrThrow()
      if (row.mac !== current.mac) {
        for (const table of ANIMAL_READING_TABLES) {
          await trx
            .updateTable(table)
            .set({ mac: row.mac })
            .where('uid', '=', uid)
            .where('mac', '=', current.mac)
            .execute()
        }
      }
      return row
    })
  } catch (err) {
    rethrowDuplicateMac(err, columns.mac)
  }
}

/** The animal's MAC, its row locked (FOR UPDATE) until the transaction ends; undefined when there is no such animal. */
function lockAnimal(trx: Kysely<DB>, uid: string, id: number): Promise<{ mac: string } | undefined> {
  return trx
    .selectFrom('animals')
    .select('mac')
    .where('uid', '=', uid)
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst()
}

/** A table of farm records that hang off an animal, and the collection's name in the API. */
export interface RecordTable {
  table: string
  name: string
}

export type DeleteOutcome =
  { deleted: true } | { deleted: false; missing: true } | { deleted: false; records: Record<string, number> }

/**
 * Deletes an animal and its tag's readings. Farm records (the tables in `recordTables`, each with an
 * animal_id) are never lost silently: unless `withRecords`, an animal that has any is kept and their
 * counts are returned. The foreign keys of those tables back this up against a record created meanwhile.
 */
export async function deleteAnimal(
  db: Kysely<DB>,
  uid: string,
  id: number,
  recordTables: readonly RecordTable[],
  withRecords: boolean,
): Promise<DeleteOutcome> {
  try {
    return await db.transaction().execute(async (trx): Promise<DeleteOutcome> => {
      const animal = await lockAnimal(trx, uid, id)
      if (!animal) return { deleted: false, missing: true }
      if (recordTables.length > 0) {
        if (withRecords) {
          for (const { table } of recordTables)
            await sql`DELETE FROM ${sql.table(table)} WHERE uid = ${uid} AND animal_id = ${id}`.execute(trx)
        } else {
          const counts = await recordCounts(trx, uid, id, recordTables)
          if (Object.keys(counts).length > 0) return { deleted: false, records: counts }
        }
      }
      for (const table of ANIMAL_READING_TABLES)
        await trx.deleteFrom(table).where('uid', '=', uid).where('mac', '=', animal.mac).execute()
      await trx.deleteFrom('animals').where('uid', '=', uid).where('id', '=', id).execute()
      return { deleted: true }
    })
  } catch (err) {
    // A record created for the animal between the count and the delete.
    if (foreignKeyViolation(err) !== undefined)
      return { deleted: false, records: await recordCounts(db, uid, id, recordTables) }
    throw err
  }
}

/** How many records of each table belong to the animal; tables without any are left out. */
async function recordCounts(
  db: Kysely<DB>,
  uid: string,
  animalId: number,
  tables: readonly RecordTable[],
): Promise<Record<string, number>> {
  const parts = tables.map(
    ({ table, name }) =>
      sql`SELECT ${name} AS collection, count(*)::int AS n FROM ${sql.table(table)} WHERE uid = ${uid} AND animal_id = ${animalId}`,
  )
  const { rows } = await sql<{ collection: string; n: number }>`${sql.join(parts, sql` UNION ALL `)}`.execute(db)
  return Object.fromEntries(rows.filter((r) => r.n > 0).map((r) => [r.collection, r.n]))
}

/** The users that have animals (active ones only, or any), or just `uid` when given and it has. */
export async function uidsWithAnimals(
  db: Kysely<DB>,
  options: { activeOnly: boolean; uid?: string | undefined },
): Promise<string[]> {
  let users = db.selectFrom('animals').select('uid').distinct()
  if (options.activeOnly) users = users.where('active', '=', true)
  if (options.uid !== undefined) users = users.where('uid', '=', options.uid)
  return (await users.orderBy('uid').execute()).map((u) => u.uid)
}

/** The user's active animals, in id order. */
export async function activeAnimalsOf(
  db: Kysely<DB>,
  uid: string,
): Promise<{ id: number; mac: string; group_name: string | null }[]> {
  return db
    .selectFrom('animals')
    .select(['id', 'mac', 'group_name'])
    .where('uid', '=', uid)
    .where('active', '=', true)
    .orderBy('id')
    .execute()
}

/** Sets each animal's CurrentActivity (the share of an hour's samples in which its tag moved), in one statement. */
export async function setCurrentActivities(
  db: Kysely<DB>,
  uid: string,
  values: readonly { id: number; activity: number }[],
): Promise<void> {
  if (values.length === 0) return
  await sql`
    UPDATE animals a SET current_activity = v.activity, updated_at = now()
    FROM unnest(${values.map((v) => v.id)}::bigint[], ${values.map((v) => v.activity)}::float8[]) AS v (id, activity)
    WHERE a.uid = ${uid} AND a.id = v.id`.execute(db)
}

/** Sets each animal's ReferenceTemperature (null: not enough readings) as computed at `at` over `windowDays`. */
export async function setReferenceTemperatures(
  db: Kysely<DB>,
  uid: string,
  values: readonly { id: number; value: number | null }[],
  at: number,
  windowDays: number,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    for (const { id, value } of values) {
      await trx
        .updateTable('animals')
        .set({
          reference_temperature: value,
          reference_temperature_updated_at: at,
          reference_temperature_window_days: windowDays,
        })
        .where('uid', '=', uid)
        .where('id', '=', id)
        .execute()
    }
  })
}
