// Time series: bulk idempotent ingestion of every series (ear-tag sensor readings and location
// detections, litter-device readings), and the ear-tag reads, latest samples and analytics, all in SQL.
// The series and their rollups are declared in readings.series.ts; the scorer's hourly summaries are in
// readings.summaries.ts.
import { sql, type Kysely, type RawBuilder } from 'kysely'
import type { DB } from '../../db/schema.ts'
import { pruneBefore, type PruneTarget } from '../../db/prune.ts'
import type { DeviceRow, LocationRow, SensorAnalyticsBody, SensorRow } from './readings.schemas.ts'
import { hourOf, SERIES, type Packing, type Rollup, type Series } from './readings.series.ts'

export type IngestBatch =
  | { kind: 'sensordata'; rows: readonly SensorRow[] }
  | { kind: 'locations'; rows: readonly LocationRow[] }
  | { kind: 'devicedata'; rows: readonly DeviceRow[] }

export interface IngestCounts {
  received: number
  stored: number
  duplicates: number
}

export interface TimeQuery {
  startTime?: number | undefined
  endTime?: number | undefined
  limit: number
  sortOrder: 'asc' | 'desc'
}

/** The packed arrays' element bounds (smallint). */
const SMALLINT_MAX = 32767

/** The packed arrays unnest() reads, and their names as unnested (`u.<name>`). */
function packedArrays(series: Series): string[] {
  return ['dt', ...Object.entries(series.packing).map(([column, p]) => ('scale' in p ? column : p.index))]
}

/** A packed row `p` unnested as `u`, with the series' columns as read: `t, <columns>`. */
function unpackedColumns(series: Series): RawBuilder<unknown> {
  return sql.join([
    sql`p.hour + u.dt AS t`,
    ...Object.entries(series.packing).map(([column, p]) =>
      'scale' in p
        ? sql`${sql.ref(`u.${column}`)}::float8 / ${sql.lit(p.scale)} AS ${sql.ref(column)}`
        : sql`${sql.ref(`p.${p.dictionary}`)}[${sql.ref(`u.${p.index}`)}] AS ${sql.ref(column)}`,
    ),
  ])
}

const unnestPacked = (series: Series) => {
  const arrays = packedArrays(series)
  return sql`CROSS JOIN LATERAL unnest(${sql.join(arrays.map((a) => sql.ref(`p.${a}`)))}) AS u (${sql.join(arrays.map((a) => sql.ref(a)))})`
}

/** A span of t (the series' unit), both ends inclusive, either end open. */
export interface Span {
  start?: number | undefined
  end?: number | undefined
}

/**
 * One tag's readings in `span` from both parts, recent and packed, as a subquery of `t` and the series'
 * columns. With `top`, only the `limit` first in `order`: each part gives at most that many (the packed
 * part the fewest hours that hold them: the running count of readings per hour, `n`, read from the key).
 */
export function readingRows(
  series: Series,
  uid: string,
  /** The tag's MAC, or a reference to it (a lateral join's column). */
  mac: string | RawBuilder<unknown>,
  span: Span,
  top?: { order: 'asc' | 'desc'; limit: number },
): RawBuilder<unknown> {
  const hour = hourOf(series)
  const columns = ['t', ...Object.keys(series.columns)]
  const inSpan = (t: RawBuilder<unknown>) =>
    sql.join(
      [
        ...(span.start === undefined ? [] : [sql`${t} >= ${span.start}`]),
        ...(span.end === undefined ? [] : [sql`${t} <= ${span.end}`]),
      ],
      sql` AND `,
    )
  const spanFilter = (t: RawBuilder<unknown>) =>
    span.start === undefined && span.end === undefined ? sql`` : sql`AND ${inSpan(t)}`
  const hourFilter = sql`${span.start === undefined ? sql`` : sql`AND p.hour >= ${span.start - (span.start % hour)}`}
    ${span.end === undefined ? sql`` : sql`AND p.hour <= ${span.end}`}`
  const order = sql.raw(top?.order === 'asc' ? 'ASC' : 'DESC')
  const recentLimit = top ? sql`ORDER BY t ${order} LIMIT ${top.limit}` : sql``
  // Hours in order until they hold `limit` readings, the first hour not counted (the span's end or start may cut it).
  const hours = top
    ? sql`(SELECT * FROM (SELECT p.*, sum(p.n) OVER (ORDER BY p.hour ${order}) - p.n - first_value(p.n) OVER (ORDER BY p.hour ${order}) AS before
             FROM (SELECT * FROM ${sql.table(series.packed)} p WHERE p.uid = ${uid} AND p.mac = ${mac} ${hourFilter}
                   ORDER BY p.hour ${order} LIMIT ${top.limit + 1}) p) h WHERE h.before < ${top.limit})`
    : sql`(SELECT * FROM ${sql.table(series.packed)} p WHERE p.uid = ${uid} AND p.mac = ${mac} ${hourFilter})`
  return sql`((SELECT ${sql.join(columns.map((c) => sql.ref(c)))} FROM ${sql.table(series.table)}
      WHERE uid = ${uid} AND mac = ${mac} ${spanFilter(sql.ref('t'))} ${recentLimit})
    UNION ALL
    (SELECT * FROM (SELECT ${unpackedColumns(series)} FROM ${hours} p ${unnestPacked(series)}) u
      WHERE true ${spanFilter(sql.ref('u.t'))}))`
}

/** Whether a rollup adds up: each batch's new readings summed up and merged into their hours' rows. */
const mergesIn = (rollup: Rollup) => Object.values(rollup.columns).every((c) => c.merge !== undefined)

/**
 * `rows` (a subquery or CTE of `t` and the series' columns, one tag's) summed up per hour as the rollup's
 * rows are: `hour` and the rollup's columns, in their declared order.
 */
export function summedUp(series: Series, rows: RawBuilder<unknown>): RawBuilder<unknown> {
  const { derived, columns } = series.rollup
  return sql`SELECT r.hour, ${sql.join(Object.entries(columns).map(([name, c]) => sql`${c.of} AS ${sql.ref(name)}`))}
    FROM (SELECT r.*, ${derived} FROM (SELECT r.*, r.t - r.t % ${sql.lit(hourOf(series))} AS hour FROM ${rows} r) r OFFSET 0) r
    GROUP BY r.hour`
}

/**
 * Sums up one tag's hourly rollups from all its stored readings, for readings written around ingestion (a bulk
 * load, a benchmark's or a test's seed); ingestion keeps them itself. The tag must have no rollup rows yet.
 */
export async function sumUpRollups(db: Kysely<DB>, series: Series, uid: string, mac: string): Promise<void> {
  const { rollup } = series
  const columns = sql.join(['hour', ...Object.keys(rollup.columns)].map((c) => sql.ref(c)))
  await sql`INSERT INTO ${sql.table(rollup.table)} (uid, mac, ${columns})
    SELECT ${uid}, ${mac}, h.* FROM (${summedUp(series, readingRows(series, uid, mac, {}))}) h`.execute(db)
}

/**
 * One tag's rollup rows of `span` (the series' unit of t, both ends inclusive) as a subquery of `hour` and the
 * rollup's columns: the whole hours inside the span from the rollup table, an hour the span cuts summed up from
 * its readings in the span (readingRows), so that the rows sum up exactly the readings in the span.
 */
export function hourlyRows(
  series: Series,
  uid: string,
  /** The tag's MAC, or a reference to it (a lateral join's column). */
  mac: string | RawBuilder<unknown>,
  span: Span,
): RawBuilder<unknown> {
  const hour = hourOf(series)
  const { table, columns } = series.rollup
  const wholeFrom = span.start === undefined ? undefined : Math.ceil(span.start / hour) * hour
  const wholeTo = span.end === undefined ? undefined : Math.floor((span.end + 1) / hour) * hour
  if (wholeFrom !== undefined && wholeTo !== undefined && wholeFrom >= wholeTo)
    return sql`(${summedUp(series, readingRows(series, uid, mac, span))})`
  const parts = [
    sql`SELECT hour, ${sql.join(Object.keys(columns).map((c) => sql.ref(c)))} FROM ${sql.table(table)}
        WHERE uid = ${uid} AND mac = ${mac}
          ${wholeFrom === undefined ? sql`` : sql`AND hour >= ${wholeFrom}`} ${wholeTo === undefined ? sql`` : sql`AND hour < ${wholeTo}`}`,
  ]
  if (span.start !== undefined && span.start < wholeFrom!)
    parts.push(summedUp(series, readingRows(series, uid, mac, { start: span.start, end: wholeFrom! - 1 })))
  if (span.end !== undefined && wholeTo! <= span.end)
    parts.push(summedUp(series, readingRows(series, uid, mac, { start: wholeTo, end: span.end })))
  return sql`(${sql.join(
    parts.map((p) => sql`(${p})`),
    sql` UNION ALL `,
  )})`
}

/**
 * Locks the row of the tag's or device's owner (`series.owner`, by uid and MAC) until the transaction ends; false
 * when the account has none. Ingestion holds it KEY SHARE (NO KEY UPDATE) until its rows are in; packing and
 * deleting a device hold it FOR UPDATE, so they wait for an ingestion in flight and keep the next one out.
 */
export async function lockOwner(
  trx: Kysely<DB>,
  series: Series,
  uid: string,
  mac: string,
  strength: 'UPDATE' | 'NO KEY UPDATE' | 'KEY SHARE',
): Promise<boolean> {
  const { rows } = await sql`SELECT 1 FROM ${sql.table(series.owner)} WHERE uid = ${uid} AND mac = ${mac}
    FOR ${sql.raw(strength)}`.execute(trx)
  return rows.length > 0
}

/** Whether a column's value packs exactly: for a scaled column, value = round(value × scale) / scale within smallint. */
function packsExactly(column: string, packing: Packing): RawBuilder<boolean> {
  if (!('scale' in packing)) return sql<boolean>`true`
  const ref = sql.ref(`r.${column}`)
  const scale = sql.lit(packing.scale)
  return sql<boolean>`(round(${ref} * ${scale}) / ${scale} = ${ref} AND abs(round(${ref} * ${scale})) <= ${sql.lit(SMALLINT_MAX)})`
}

/**
 * Packs one tag's closed hours (every reading before `before`) into the packed part, merging readings that
 * arrived late for an hour already packed. Runs in the caller's transaction, which holds the owner's row
 * (FOR UPDATE) so that no ingestion of this tag runs meanwhile. An hour with a value that does not pack
 * exactly stays as rows. Returns the readings moved.
 */
export async function packTag(
  db: Kysely<DB>,
  series: Series,
  uid: string,
  mac: string,
  before: number,
): Promise<number> {
  const hour = hourOf(series)
  const columns = Object.keys(series.columns)
  const exact = sql.join(
    Object.entries(series.packing).map(([column, p]) => packsExactly(column, p)),
    sql` AND `,
  )
  const aggregates = Object.entries(series.packing).map(([column, p]) =>
    'scale' in p
      ? sql`array_agg(round(${sql.ref(`m.${column}`)} * ${sql.lit(p.scale)})::smallint ORDER BY m.t) AS ${sql.ref(column)}`
      : sql`d.${sql.ref(p.dictionary)}, array_agg(array_position(d.${sql.ref(p.dictionary)}, ${sql.ref(`m.${column}`)})::smallint ORDER BY m.t) AS ${sql.ref(p.index)}`,
  )
  const dictionary = Object.entries(series.packing).find(([, p]) => !('scale' in p)) as
    [string, { dictionary: string; index: string }] | undefined
  const packedColumns = packedArrays(series).slice(1)
  const insertColumns = [
    'dt',
    ...packedColumns.flatMap((c) => (dictionary && c === dictionary[1].index ? [dictionary[1].dictionary, c] : [c])),
  ]
  const { rows } = await sql<{ moved: number }>`
    WITH closed AS (
      SELECT r.t - r.t % ${hour} AS hour FROM ${sql.table(series.table)} r
      WHERE r.uid = ${uid} AND r.mac = ${mac} AND r.t < ${before}
      GROUP BY 1 HAVING bool_and(${exact})
    ), moved AS (
      DELETE FROM ${sql.table(series.table)} r USING closed
      WHERE r.uid = ${uid} AND r.mac = ${mac} AND r.t >= closed.hour AND r.t < closed.hour + ${hour}
      RETURNING r.t, ${sql.join(columns.map((c) => sql.ref(`r.${c}`)))}
    ), merged AS (
      SELECT t - t % ${hour} AS hour, t, ${sql.join(columns.map((c) => sql.ref(c)))} FROM moved
      UNION ALL
      SELECT p.hour, ${unpackedColumns(series)}
      FROM ${sql.table(series.packed)} p JOIN closed ON closed.hour = p.hour ${unnestPacked(series)}
      WHERE p.uid = ${uid} AND p.mac = ${mac}
    ), dictionary AS (
      SELECT hour, ${dictionary ? sql`array_agg(DISTINCT ${sql.ref(dictionary[0])} ORDER BY ${sql.ref(dictionary[0])})` : sql`NULL::text[]`} AS nodes
      FROM merged GROUP BY hour
    ), packed AS (
      INSERT INTO ${sql.table(series.packed)} (uid, mac, hour, n, ${sql.join(insertColumns.map((c) => sql.ref(c)))})
      SELECT ${uid}, ${mac}, m.hour, count(*), array_agg((m.t - m.hour)::integer ORDER BY m.t), ${sql.join(aggregates)}
      FROM merged m JOIN dictionary d ON d.hour = m.hour
      GROUP BY m.hour, d.nodes
      ON CONFLICT (uid, mac, hour) DO UPDATE SET n = excluded.n, ${sql.join(insertColumns.map((c) => sql`${sql.ref(c)} = ${sql.ref(`excluded.${c}`)}`))}
    )
    SELECT count(*) AS moved FROM moved`.execute(db)
  return Number(rows[0]?.moved ?? 0)
}

/**
 * Stores a batch in one transaction: all rows or none. Rows whose (uid, mac, t) is already stored are
 * skipped (ON CONFLICT DO NOTHING), so a re-sent batch stores nothing twice. The rows travel as one array
 * per column through unnest(): one statement whatever the batch size, and no 65,535-parameter limit.
 * Returns undefined when the user has no animal (or device, for devicedata) with this MAC. The owner's latest
 * state moves only to rows stamped at most `currentUntil` (the series' unit of t). Rows stamped before `keptFrom`
 * (the retention's first kept hour, docs/operations.md#retention) are not stored: their hour's readings are gone, so
 * nothing would tell a re-sent one from a new one, and its rollup would count it twice.
 * `latest` (event derivation) wraps the statement that moves the owner's latest state in a query over it, and
 * then runs what follows from its rows, last in the same transaction.
 */
export async function storeReadings(
  db: Kysely<DB>,
  uid: string,
  mac: string,
  batch: IngestBatch,
  currentUntil: number,
  keptFrom?: number,
  latest?: {
    select: (update: RawBuilder<unknown>) => RawBuilder<Record<string, unknown>>
    then: (trx: Kysely<DB>, rows: Record<string, unknown>[]) => Promise<void>
  },
): Promise<IngestCounts | undefined> {
  const series = SERIES[batch.kind]
  const rows = batch.rows as readonly Record<string, unknown>[]
  const columns = ['t', ...Object.keys(series.columns)]
  const arrayType = (column: string) => sql.raw(column === 't' ? 'bigint[]' : `${series.columns[column]}[]`)
  const rollup = series.rollup
  const merged = mergesIn(rollup)
  const rollupColumns = Object.keys(rollup.columns)
  return db.transaction().execute(async (trx) => {
    // KEY SHARE holds off a concurrent delete (or animal MAC change) of the owner until these rows are in. A rollup
    // whose hours are summed up again takes the row for itself (NO KEY UPDATE): two batches of the tag in turn, so
    // that the second sums up the first's readings too.
    if (!(await lockOwner(trx, series, uid, mac, merged ? 'KEY SHARE' : 'NO KEY UPDATE'))) return undefined
    const hour = hourOf(series)
    // The rollup from exactly the rows stored (RETURNING): a duplicate adds nothing. A merged rollup adds the new
    // rows' sums to their hours; another sums their hours up again from the readings stored before this statement
    // (its snapshot) and the new ones.
    const summed = merged
      ? summedUp(series, sql`stored`)
      : summedUp(
          series,
          sql`(SELECT * FROM ${readingRows(series, uid, mac, batchHours(rows, hour))} r
               WHERE r.t - r.t % ${sql.lit(hour)} IN (SELECT t - t % ${sql.lit(hour)} FROM stored)
               UNION ALL SELECT * FROM stored)`,
        )
    // An hour summed up again replaces every column, those that would add up too.
    const update = Object.entries(rollup.columns).map(([name, c]) => {
      const [stored, added] = [sql.ref(`h.${name}`), sql.ref(`excluded.${name}`)]
      const value = !merged
        ? added
        : c.merge === 'sum'
          ? sql`${stored} + ${added}`
          : c.merge === 'min'
            ? sql`least(${stored}, ${added})`
            : c.merge === 'max'
              ? sql`greatest(${stored}, ${added})`
              : added
      return sql`${sql.ref(name)} = ${value}`
    })
    // A reading already packed (its hour closed) is a duplicate too: idempotent across both parts.
    const { rows: result } = await sql<{ stored: number }>`
      WITH stored AS (
        INSERT INTO ${sql.table(series.table)} (uid, mac, ${sql.join(columns.map((c) => sql.ref(c)))})
        SELECT ${uid}, ${mac}, ${sql.join(columns.map((c) => sql.ref(`r.${c}`)))}
        FROM unnest(${sql.join(columns.map((c) => sql`${rows.map((row) => row[c])}::${arrayType(c)}`))}) AS r (${sql.join(columns.map((c) => sql.ref(c)))})
        WHERE ${keptFrom === undefined ? sql`true` : sql`r.t >= ${keptFrom}`}
          AND NOT EXISTS (SELECT 1 FROM ${sql.table(series.packed)} p
                          WHERE p.uid = ${uid} AND p.mac = ${mac} AND p.hour = r.t - r.t % ${hour} AND (r.t - p.hour)::integer = ANY (p.dt))
        ON CONFLICT (uid, mac, t) DO NOTHING
        RETURNING ${sql.join(columns.map((c) => sql.ref(c)))}
      ), rolled AS (
        INSERT INTO ${sql.table(rollup.table)} AS h (uid, mac, hour, ${sql.join(rollupColumns.map((c) => sql.ref(c)))})
        SELECT ${uid}, ${mac}, s.hour, ${sql.join(rollupColumns.map((c) => sql.ref(`s.${c}`)))} FROM (${summed}) s
        ON CONFLICT (uid, mac, hour) DO UPDATE SET ${sql.join(update)}
      )
      SELECT count(*) AS stored FROM stored`.execute(trx)
    const stored = Number(result[0]?.stored ?? 0)
    if (stored > 0 && latest) {
      const { rows: moved } = await latest.select(series.updateOwnerLatest(uid, mac, currentUntil)).execute(trx)
      await latest.then(trx, moved)
    } else if (stored > 0) await series.updateOwnerLatest(uid, mac, currentUntil).execute(trx)
    return { received: rows.length, stored, duplicates: rows.length - stored }
  })
}

/** The span of whole hours a batch's readings fall in. */
function batchHours(rows: readonly Record<string, unknown>[], hour: number): Span {
  if (rows.length === 0) return { start: 0, end: -1 }
  let [first, last] = [Infinity, -Infinity]
  for (const row of rows) {
    const t = row.t as number
    if (t < first) first = t
    if (t > last) last = t
  }
  return { start: first - (first % hour), end: last - (last % hour) + hour - 1 }
}

export async function latestSensorData(db: Kysely<DB>, uid: string, mac: string, count: number): Promise<SensorRow[]> {
  return newestReadings<SensorRow>(db, SERIES.sensordata, uid, mac, {}, count)
}

/** One tag's newest `limit` readings in `span`, newest first, from both parts. */
export async function newestReadings<Row>(
  db: Kysely<DB>,
  series: Series,
  uid: string,
  mac: string,
  span: Span,
  limit: number,
): Promise<Row[]> {
  const { rows } = await sql<Row>`
    SELECT * FROM ${readingRows(series, uid, mac, span, { order: 'desc', limit })} r ORDER BY t DESC LIMIT ${limit}`.execute(
    db,
  )
  return rows
}

/**
 * Aggregates of one tag's readings in [start, end], computed by the database: the whole hours from the rollup,
 * the hours the window cuts from their readings (hourlyRows). The averages divide the exact sums once, so the
 * answer is the same whichever part each reading is in.
 */
export async function sensorAnalytics(
  db: Kysely<DB>,
  uid: string,
  mac: string,
  start: number,
  end: number,
): Promise<SensorAnalyticsBody> {
  const { rows } = await sql<{
    n: number
    avg_c: number | null
    min_c: number | null
    max_c: number | null
    avg_m: number | null
    min_m: number | null
    max_m: number | null
  }>`
    SELECT coalesce(sum(h.n), 0) AS n,
           (sum(h.c_sum) / sum(h.n))::float8 AS avg_c, min(h.c_min) AS min_c, max(h.c_max) AS max_c,
           (sum(h.m_sum) / sum(h.n))::float8 AS avg_m, min(h.m_min) AS min_m, max(h.m_max) AS max_m
    FROM ${hourlyRows(SERIES.sensordata, uid, mac, { start, end })} h`.execute(db)
  const s = rows[0]!
  return {
    averageTemperature: s.avg_c,
    averageAccelerationMagnitude: s.avg_m,
    temperatureRange: { min: s.min_c, max: s.max_c },
    accelerationMagnitudeRange: { min: s.min_m, max: s.max_m },
    dataPointsCount: Number(s.n),
    timeRange: { start, end },
  }
}

/**
 * The first sensor reading's t of the animal `a` (a lateral subquery giving first_t): the recent part's, or the first
 * packed hour's first offset (dt ascends).
 */
export const firstSensorReading = sql`(SELECT least(
      (SELECT min(r.t) FROM animal_sensor_readings r WHERE r.uid = a.uid AND r.mac = a.mac),
      (SELECT p.hour + p.dt[1] FROM animal_sensor_packed p WHERE p.uid = a.uid AND p.mac = a.mac ORDER BY p.hour LIMIT 1)
    ) AS first_t)`

/**
 * Per animal of the account, from the hourly rollups of [from, to) (whole hours): the first reading's time, the
 * valid samples (VALID_TEMPERATURE) and their median with each sample counted at its hour's mean of valid samples
 * (the hours ordered by that mean, the middle one or two samples' hours; docs/animals-and-readings.md). Reads
 * 168 rows a tag for a week, whatever its reading rate.
 */
export async function hourlyTemperatureStats(
  db: Kysely<DB>,
  uid: string,
  window: { from: number; to: number; staleBefore?: number | undefined },
): Promise<{ id: number; first_t: number | null; n: number; med: number | null }[]> {
  const hour = hourOf(SERIES.sensordata)
  if (window.from % hour !== 0 || window.to % hour !== 0)
    throw new Error('hourlyTemperatureStats: the window must start and end on whole hours')
  const { rows } = await sql<{ id: number; first_t: number | null; n: number | null; med: number | null }>`
    SELECT a.id, f.first_t, s.n, s.med
    FROM animals a
    CROSS JOIN LATERAL ${firstSensorReading} f
    -- The k-th smallest sample is the mean of the first hour (by mean) whose running count reaches k.
    CROSS JOIN LATERAL (
      SELECT max(h.total) AS n,
             ((min(h.mean) FILTER (WHERE h.upto >= (h.total + 1) / 2) + min(h.mean) FILTER (WHERE h.upto >= h.total / 2 + 1)) / 2)::float8 AS med
      FROM (SELECT h.valid_c_sum / h.valid_n AS mean,
                   sum(h.valid_n) OVER (ORDER BY h.valid_c_sum / h.valid_n ROWS UNBOUNDED PRECEDING) AS upto,
                   sum(h.valid_n) OVER () AS total
            FROM animal_sensor_hourly h
            WHERE h.uid = a.uid AND h.mac = a.mac AND h.hour >= ${window.from} AND h.hour < ${window.to} AND h.valid_n > 0) h
    ) s
    WHERE a.uid = ${uid}
      ${window.staleBefore !== undefined ? sql`AND (a.reference_temperature_updated_at IS NULL OR a.reference_temperature_updated_at < ${window.staleBefore})` : sql``}`.execute(
    db,
  )
  return rows.map((r) => ({ ...r, n: Number(r.n ?? 0) }))
}

/** A tag's rows of a table keyed (uid, mac, <time>), for pruneBefore. */
const byTag = (table: PruneTarget['table'], time: 't' | 'hour'): PruneTarget => ({
  table,
  group: ['uid', 'mac'],
  time,
  row: time,
})

/**
 * Deletes a series' readings before `before` (the series' unit of t, the start of an hour), recent rows and
 * packed hours, at most `batchRows` rows a statement. Returns the rows deleted per table. The owner's latest
 * state lives on its own row and stays.
 */
export async function pruneReadings(
  db: Kysely<DB>,
  series: Series,
  before: number,
  batchRows: number,
): Promise<Record<string, number>> {
  return {
    [series.table]: await pruneBefore(db, byTag(series.table, 't'), before, batchRows),
    [series.packed]: await pruneBefore(db, byTag(series.packed, 'hour'), before, batchRows),
  }
}

/** Deletes a series' rollup hours before `before` (the start of an hour), at most `batchRows` rows a statement. */
export async function pruneRollups(
  db: Kysely<DB>,
  series: Series,
  before: number,
  batchRows: number,
): Promise<Record<string, number>> {
  return { [series.rollup.table]: await pruneBefore(db, byTag(series.rollup.table, 'hour'), before, batchRows) }
}

/** The embedded store has no autovacuum; without it the visibility map goes stale and reads stop being index-only. */
export async function vacuumReadings(db: Kysely<DB>): Promise<void> {
  const tables = Object.values(SERIES).flatMap((series) => [series.table, series.packed, series.rollup.table])
  await sql`VACUUM (ANALYZE) ${sql.join(tables.map((table) => sql.table(table)))}`.execute(db)
}
