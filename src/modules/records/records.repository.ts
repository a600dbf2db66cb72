// Farm records as stored, for every collection: a table per collection (its noun names it), each row
// joined to its animal so that the API shows the animal's current MAC. Rows become the collection's API
// shape through its resource's mappers at the route edge. The queries name only the columns every
// record table has (RecordTable); a collection's own columns come from its field table.
import { sql, type Kysely } from 'kysely'
import type { DB } from '../../db/schema.ts'
import { foreignKeyViolation } from '../../db/errors.ts'
import { insertWithTimeId, type IdSource } from '../../db/ids.ts'
import { paginate, type Page, type PageParams } from '../../db/paginate.ts'
import type { FilterValue } from '../../http/list-params.ts'
import type { Row } from '../../resource/resource.ts'
import type { RecordCollection, RecordTable } from './record-collection.ts'
import type { RecordTableName } from './index.ts'

type Collection = RecordCollection<RecordTableName>

/** The database as these queries see it: every record table with the columns they all have. */
type RecordsDb = Kysely<Pick<DB, 'animals'> & { [T in RecordTableName]: RecordTable }>

/** Narrows `DB` to that view: each record table of `DB` has RecordTable's columns and more. */
const recordsView = (db: Kysely<DB>): RecordsDb => db

/** Narrows a query to one animal's records, or leaves it at the whole account. */
export interface RecordScope {
  uid: string
  animalId?: number | undefined
}

function selectRecords(db: Kysely<DB>, collection: Collection, scope: RecordScope) {
  let query = recordsView(db)
    .selectFrom(`${collection.table} as r`)
    .innerJoin('animals as a', (join) => join.onRef('a.uid', '=', 'r.uid').onRef('a.id', '=', 'r.animal_id'))
    .selectAll('r')
    .select('a.mac as mac')
    .where('r.uid', '=', scope.uid)
  if (scope.animalId !== undefined) query = query.where('r.animal_id', '=', scope.animalId)
  return query
}

export interface RecordCriteria {
  archived?: boolean | undefined
  /** API field → value: exact matches, text compared case-insensitively (the search endpoints). */
  matches?: Record<string, FilterValue>
}

/** One page of records; `filters` are the list's filter[Field] pairs, `criteria` the endpoint's own. */
export async function listRecords(
  db: Kysely<DB>,
  collection: Collection,
  scope: RecordScope,
  params: PageParams,
  filters: Record<string, FilterValue>,
  criteria: RecordCriteria = {},
): Promise<Page<Row>> {
  let query = selectRecords(db, collection, scope)
  if (criteria.archived !== undefined) query = query.where('r.archived', '=', criteria.archived)
  for (const [name, value] of Object.entries(collection.resource.filterValues(criteria.matches ?? {}))) {
    const f = collection.resource.fields[name]!
    const column = sql.ref(`${f.joined ? 'a' : 'r'}.${f.column}`)
    query =
      typeof value === 'string' && !f.joined
        ? query.where(sql<boolean>`lower(${column}) = ${value.toLowerCase()}`)
        : query.where(sql<boolean>`${column} = ${value}`)
  }
  return paginate(query, {
    columns: collection.resource.columns({ own: 'r', joined: 'a' }),
    params,
    filters: collection.resource.filterValues(filters),
    tiebreak: 'r.id',
  })
}

export async function findRecord(
  db: Kysely<DB>,
  collection: Collection,
  scope: RecordScope,
  id: number,
): Promise<Row | undefined> {
  return selectRecords(db, collection, scope).where('r.id', '=', id).executeTakeFirst()
}

/** The newest records first (by t, the time they were recorded). */
export async function recentRecords(
  db: Kysely<DB>,
  collection: Collection,
  scope: RecordScope,
  limit: number,
): Promise<Row[]> {
  return selectRecords(db, collection, scope).orderBy('r.t', 'desc').orderBy('r.id', 'desc').limit(limit).execute()
}

/** Most records a range answers: more than any animal has of one kind in its lifetime. */
export const RANGE_MAX = 1000

/** Records whose date column lies in [from, to] (YYYY-MM-DD, both inclusive), oldest first. */
export async function recordsInRange(
  db: Kysely<DB>,
  collection: Collection,
  scope: RecordScope,
  dateColumn: string,
  from: string,
  to: string,
): Promise<Row[]> {
  const column = sql.ref(`r.${dateColumn}`)
  return selectRecords(db, collection, scope)
    .where(column, '>=', from)
    .where(column, '<=', to)
    .orderBy(column, 'asc')
    .orderBy('r.id', 'asc')
    .limit(RANGE_MAX)
    .execute()
}

/** Thrown when the record's animal was deleted while the record was being written. */
export class AnimalGoneError extends Error {}

/** Stores a record of the animal under the next free time id, and returns it as read back. */
export async function insertRecord(
  db: Kysely<DB>,
  collection: Collection,
  uid: string,
  animalId: number,
  columns: Row,
  ids: IdSource,
): Promise<Row> {
  try {
    const id = await insertWithTimeId(ids, async (candidate) => {
      const inserted: { id: number } | undefined = await recordsView(db)
        .insertInto(collection.table)
        .values({ ...columns, uid, id: candidate, t: candidate, animal_id: animalId })
        .onConflict((oc) => oc.columns(['uid', 'id']).doNothing())
        .returning('id')
        .executeTakeFirst()
      return inserted?.id
    })
    return (await findRecord(db, collection, { uid }, id))!
  } catch (err) {
    if (foreignKeyViolation(err) !== undefined) throw new AnimalGoneError()
    throw err
  }
}

/**
 * Changes a record in one transaction. `check` sees the record as stored (locked against concurrent
 * changes); problems it returns leave the record unchanged and are returned instead. undefined when
 * there is no such record.
 */
export async function updateRecord<P>(
  db: Kysely<DB>,
  collection: Collection,
  scope: RecordScope,
  id: number,
  columns: Row,
  now: Date,
  check: (current: Row) => P[],
): Promise<{ row: Row } | { problems: P[] } | undefined> {
  try {
    return await db.transaction().execute(async (trx) => {
      const current = await selectRecords(trx, collection, scope)
        .where('r.id', '=', id)
        .forUpdate('r')
        .executeTakeFirst()
      if (!current) return undefined
      const problems = check(current)
      if (problems.length > 0) return { problems }
      await recordsView(trx)
        .updateTable(collection.table)
        .set({ ...columns, updated_at: now })
        .where('uid', '=', scope.uid)
        .where('id', '=', id)
        .execute()
      return { row: (await findRecord(trx, collection, { uid: scope.uid }, id))! }
    })
  } catch (err) {
    if (foreignKeyViolation(err) !== undefined) throw new AnimalGoneError()
    throw err
  }
}

export async function deleteRecord(
  db: Kysely<DB>,
  collection: Collection,
  scope: RecordScope,
  id: number,
): Promise<boolean> {
  let query = recordsView(db).deleteFrom(collection.table).where('uid', '=', scope.uid).where('id', '=', id)
  if (scope.animalId !== undefined) query = query.where('animal_id', '=', scope.animalId)
  const result = await query.executeTakeFirst()
  return Number(result.numDeletedRows) > 0
}

/**
 * The day (and time of day, when the collection has one) of each of the user's records, archived ones too, with the
 * text of one more field where asked (a check's result).
 */
export async function recordDaysOf(
  db: Kysely<DB>,
  collection: Collection,
  uid: string,
  fields: { day: string; time?: string | undefined; value?: string | undefined },
): Promise<{ animalId: number; day: string; time: string | null; value: string | null }[]> {
  const columnOf = (name: string) => sql.ref(`r.${collection.resource.fields[name]!.column}`)
  const rows = await recordsView(db)
    .selectFrom(`${collection.table} as r`)
    .select([
      'r.animal_id',
      sql<string>`${columnOf(fields.day)}`.as('day'),
      sql<string | null>`${fields.time ? columnOf(fields.time) : null}`.as('time'),
      sql<string | null>`${fields.value ? columnOf(fields.value) : null}`.as('value'),
    ])
    .where('r.uid', '=', uid)
    .execute()
  return rows.map((r) => ({ animalId: Number(r.animal_id), day: r.day, time: r.time, value: r.value }))
}
