// Farm records as stored, for every collection: a table per collection (record-collection.ts names it),
// each row joined to its animal so that the API shows the animal's current MAC. Rows become the
// collection's API shape through its resource's mappers at the route edge.
import { sql, type Kysely, type SelectQueryBuilder } from 'kysely'
import type { DB } from '../../db/schema.ts'
import { foreignKeyViolation } from '../../db/errors.ts'
import { insertWithTimeId, type IdSource } from '../../db/ids.ts'
import { paginate, type Page, type PageParams } from '../../db/paginate.ts'
import type { FilterValue } from '../../http/list-params.ts'
import type { Resource, Row } from '../../resource/resource.ts'

// Collection tables are named by their declaration, so queries here go through an untyped view of the
// database; the resource's field table is what types a record.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type RecordQuery = SelectQueryBuilder<any, any, Row>

/** Narrows a query to one animal's records, or leaves it at the whole account. */
export interface RecordScope {
  uid: string
  animalId?: number | undefined
}

function selectRecords(db: Kysely<DB>, resource: Resource, scope: RecordScope): RecordQuery {
  let query = (db as AnyDb)
    .selectFrom(`${resource.table} as r`)
    .innerJoin('animals as a', (join) => join.onRef('a.uid', '=', 'r.uid').onRef('a.id', '=', 'r.animal_id'))
    .selectAll('r')
    .select('a.mac as mac')
    .where('r.uid', '=', scope.uid) as RecordQuery
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
  resource: Resource,
  scope: RecordScope,
  params: PageParams,
  filters: Record<string, FilterValue>,
  criteria: RecordCriteria = {},
): Promise<Page<Row>> {
  let query = selectRecords(db, resource, scope)
  if (criteria.archived !== undefined) query = query.where('r.archived', '=', criteria.archived)
  for (const [name, value] of Object.entries(resource.filterValues(criteria.matches ?? {}))) {
    const f = resource.fields[name]!
    const column = sql.ref(`${f.joined ? 'a' : 'r'}.${f.column}`)
    query =
      typeof value === 'string' && !f.joined
        ? query.where(sql<boolean>`lower(${column}) = ${value.toLowerCase()}`)
        : query.where(sql<boolean>`${column} = ${value}`)
  }
  return paginate(query, {
    columns: resource.columns({ own: 'r', joined: 'a' }),
    params,
    filters: resource.filterValues(filters),
    tiebreak: 'r.id',
  })
}

export async function findRecord(
  db: Kysely<DB>,
  resource: Resource,
  scope: RecordScope,
  id: number,
): Promise<Row | undefined> {
  return selectRecords(db, resource, scope).where('r.id', '=', id).executeTakeFirst()
}

/** The newest records first (by t, the time they were recorded). */
export async function recentRecords(
  db: Kysely<DB>,
  resource: Resource,
  scope: RecordScope,
  limit: number,
): Promise<Row[]> {
  return selectRecords(db, resource, scope).orderBy('r.t', 'desc').orderBy('r.id', 'desc').limit(limit).execute()
}

/** Most records a range answers: more than any animal has of one kind in its lifetime. */
export const RANGE_MAX = 1000

/** Records whose date column lies in [from, to] (YYYY-MM-DD, both inclusive), oldest first. */
export async function recordsInRange(
  db: Kysely<DB>,
  resource: Resource,
  scope: RecordScope,
  dateColumn: string,
  from: string,
  to: string,
): Promise<Row[]> {
  const column = `r.${dateColumn}`
  return selectRecords(db, resource, scope)
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
  resource: Resource,
  uid: string,
  animalId: number,
  columns: Row,
  ids: IdSource,
): Promise<Row> {
  try {
    const id = await insertWithTimeId(ids, async (candidate) => {
      const inserted: { id: number } | undefined = await (db as AnyDb)
        .insertInto(resource.table)
        .values({ ...columns, uid, id: candidate, t: candidate, animal_id: animalId })
        .onConflict((oc) => oc.columns(['uid', 'id']).doNothing())
        .returning('id')
        .executeTakeFirst()
      return inserted?.id
    })
    return (await findRecord(db, resource, { uid }, id))!
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
  resource: Resource,
  scope: RecordScope,
  id: number,
  columns: Row,
  now: Date,
  check: (current: Row) => P[],
): Promise<{ row: Row } | { problems: P[] } | undefined> {
  try {
    return await db.transaction().execute(async (trx) => {
      const current = await selectRecords(trx, resource, scope).where('r.id', '=', id).forUpdate('r').executeTakeFirst()
      if (!current) return undefined
      const problems = check(current)
      if (problems.length > 0) return { problems }
      await (trx as AnyDb)
        .updateTable(resource.table)
        .set({ ...columns, updated_at: now })
        .where('uid', '=', scope.uid)
        .where('id', '=', id)
        .execute()
      return { row: (await findRecord(trx, resource, { uid: scope.uid }, id))! }
    })
  } catch (err) {
    if (foreignKeyViolation(err) !== undefined) throw new AnimalGoneError()
    throw err
  }
}

export async function deleteRecord(
  db: Kysely<DB>,
  resource: Resource,
  scope: RecordScope,
  id: number,
): Promise<boolean> {
  let query = (db as AnyDb).deleteFrom(resource.table).where('uid', '=', scope.uid).where('id', '=', id)
  if (scope.animalId !== undefined) query = query.where('animal_id', '=', scope.animalId)
  const result = await query.executeTakeFirst()
  return Number(result.numDeletedRows) > 0
}
