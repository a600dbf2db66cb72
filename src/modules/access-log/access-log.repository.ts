// SQL of the access log: batched inserts, one account's page of records, an integrator's day, pruning.
import { sql, type Insertable, type Kysely, type Selectable } from 'kysely'
import type { AccessLogTable, DB } from '../../db/schema.ts'
import { foreignKeyViolation } from '../../db/errors.ts'
import { deleteInBatches } from '../../db/prune.ts'
import { paginate, type ColumnMapping, type Page, type PageParams } from '../../db/paginate.ts'

export type AccessLogRow = Selectable<AccessLogTable>
export type NewAccessLogRow = Insertable<AccessLogTable>

/** The columns a log row fills, with the SQL type of their unnest() array. */
const INSERTED_COLUMNS = {
  uid: 'text',
  integrator_uid: 'text',
  at: 'timestamptz',
  method: 'text',
  endpoint: 'text',
  response_code: 'int2',
  response_time_ms: 'float8',
  data_size: 'int4',
  user_agent: 'text',
  ip_address: 'text',
} as const satisfies Partial<Record<keyof NewAccessLogRow, string>>

/**
 * One statement per batch, whatever its size: the rows travel as one array per column through unnest(),
 * which costs far less to build and to parse than a VALUES list of 10 parameters a row.
 *
 * Rows wait in the process for up to a flush interval, so an account or an integrator may be deleted
 * meanwhile (deleting it deletes its log). Its rows would fail the whole batch on a foreign key, and the
 * batch would be retried and refused forever; so such a batch is written again without the rows of
 * accounts and integrators that are gone. The first attempt skips that check: it is rarely needed.
 */
export async function insertAccessLogRows(db: Kysely<DB>, rows: NewAccessLogRow[]): Promise<void> {
  if (rows.length === 0) return
  const columns = Object.keys(INSERTED_COLUMNS) as (keyof typeof INSERTED_COLUMNS)[]
  const insert = (onlyExisting: boolean) =>
    sql`
    INSERT INTO access_log (${sql.join(columns.map((c) => sql.ref(c)))})
    SELECT * FROM unnest(${sql.join(columns.map((c) => sql`${rows.map((row) => row[c] ?? null)}::${sql.raw(`${INSERTED_COLUMNS[c]}[]`)}`))})
      AS r (${sql.join(columns.map((c) => sql.ref(c)))})
    ${
      onlyExisting
        ? sql`WHERE (r.uid IS NULL OR EXISTS (SELECT 1 FROM users u WHERE u.uid = r.uid))
      AND EXISTS (SELECT 1 FROM integrators i WHERE i.uid = r.integrator_uid)`
        : sql``
    }`.execute(db)
  try {
    await insert(false)
  } catch (err) {
    if (foreignKeyViolation(err) === undefined) throw err
    await insert(true)
  }
}

/** API field → column, for sorting and filtering an account's access log. */
export const ACCESS_LOG_COLUMNS: Record<string, ColumnMapping> = {
  timestamp: { column: 'at' },
  integratorUID: { column: 'integrator_uid' },
  method: { column: 'method', caseInsensitive: true },
  endpoint: { column: 'endpoint' },
  responseCode: { column: 'response_code' },
}

export interface TimeBounds {
  from?: Date | undefined
  to?: Date | undefined
}

const FIRST_INSTANT = Date.parse('0001-01-01T00:00:00.000Z')
const LAST_INSTANT = Date.parse('9999-12-31T23:59:59.999Z')

/**
 * A bound a client gave, within years 1-9999: PostgreSQL refuses year 0 and the +010000 that a later
 * Date is written as. No record lies outside them, so the answer is the same.
 */
function storableInstant(date: Date): Date {
  return new Date(Math.min(Math.max(date.getTime(), FIRST_INSTANT), LAST_INSTANT))
}

export async function listAccountAccessLog(
  db: Kysely<DB>,
  uid: string,
  params: PageParams,
  filters: Record<string, string | number | boolean>,
  bounds: TimeBounds,
): Promise<Page<AccessLogRow>> {
  let query = db.selectFrom('access_log').selectAll().where('uid', '=', uid)
  if (bounds.from) query = query.where('at', '>=', storableInstant(bounds.from))
  if (bounds.to) query = query.where('at', '<', storableInstant(bounds.to))
  return paginate(query, { columns: ACCESS_LOG_COLUMNS, params, filters, tiebreak: 'id' })
}

export interface EndpointUsage {
  method: string
  endpoint: string
  requests: number
  errors: number
  averageResponseTime: number
  dataSize: number
}

/** One integrator's requests in [from, to), per endpoint, busiest first. */
export async function integratorUsage(
  db: Kysely<DB>,
  integratorUid: string,
  from: Date,
  to: Date,
): Promise<EndpointUsage[]> {
  const rows = await db
    .selectFrom('access_log')
    .select([
      'method',
      'endpoint',
      sql<number>`count(*)`.as('requests'),
      sql<number>`count(*) filter (where response_code >= 400)`.as('errors'),
      sql<number>`avg(response_time_ms)`.as('average_response_time'),
      sql<number>`coalesce(sum(data_size), 0)`.as('data_size'),
    ])
    .where('integrator_uid', '=', integratorUid)
    .where('at', '>=', storableInstant(from))
    .where('at', '<', storableInstant(to))
    .groupBy(['method', 'endpoint'])
    .orderBy(sql`count(*)`, 'desc')
    .orderBy('endpoint')
    .orderBy('method')
    .execute()
  return rows.map((r) => ({
    method: r.method,
    endpoint: r.endpoint,
    requests: Number(r.requests),
    errors: Number(r.errors),
    averageResponseTime: Math.round(Number(r.average_response_time) * 100) / 100,
    dataSize: Number(r.data_size),
  }))
}

/** Deletes records older than the retention, at most `batchRows` a statement, so that no delete holds its locks for long. */
export async function pruneAccessLog(db: Kysely<DB>, olderThan: Date, batchRows: number): Promise<number> {
  return deleteInBatches(batchRows, async () => {
    const result = await db
      .deleteFrom('access_log')
      .where('id', 'in', (q) =>
        q.selectFrom('access_log').select('id').where('at', '<', olderThan).orderBy('at').limit(batchRows),
      )
      .executeTakeFirst()
    return Number(result.numDeletedRows)
  })
}
