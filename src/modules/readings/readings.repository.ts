// Time series: bulk idempotent ingestion of every series (ear-tag sensor readings and location
// detections, litter-device readings), and the ear-tag reads, latest samples and analytics, all in SQL.
import { sql, type Kysely, type RawBuilder } from 'kysely'
import type { DB } from '../../db/schema.ts'
import { pruneBefore, type PruneTarget } from '../../db/prune.ts'
import { LITTER_BUCKET, MOVING_THRESHOLD_G, VALID_TEMPERATURE, type HourSummary } from './readings.rules.ts'
import type { DeviceRow, LocationRow, SensorAnalyticsBody, SensorRow } from './readings.schemas.ts'

/** The series a batch belongs to: an animal's sensor readings or locations, or a litter device's readings. */
export type ReadingKind = 'sensordata' | 'locations' | 'devicedata'

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

/** How a packed row keeps a column: scaled to a small integer (exact: value = integer / scale), or as an index into the row's dictionary. */
type Packing = { scale: number } | { dictionary: 'nodes'; index: 'node' }

/**
 * One column of an hourly rollup: its aggregate over one hour's readings `r` (`r.hour`, `r.t`, the series'
 * columns and the rollup's `derived` ones), and how two sums of the same hour combine; a column without `merge`
 * does not add up, and an hour of its rollup is summed up again from all its readings when one arrives.
 */
export interface RollupColumn {
  of: RawBuilder<unknown>
  merge?: 'sum' | 'min' | 'max'
}

/** A series' hourly rollup (docs/storage.md#hourly-rollups): one row per tag and hour, keyed (uid, mac, hour). */
export interface Rollup {
  table: 'animal_sensor_hourly' | 'animal_location_hourly' | 'litterguard_hourly'
  /** What each reading gets before it is summed up, computed over the readings of its hour (window functions). */
  derived: RawBuilder<unknown>
  columns: Record<string, RollupColumn>
}

/** Where a series is stored and what its newest row updates. */
export interface Series {
  /** The recent part: one row a reading, as it arrives. */
  table: 'animal_sensor_readings' | 'animal_location_readings' | 'litterguard_readings'
  /** The packed part: one row of arrays per tag and closed hour (docs/storage.md#readings). */
  packed: 'animal_sensor_packed' | 'animal_location_packed' | 'litterguard_packed'
  /** The registry whose row (uid, mac) the readings belong to. */
  owner: 'animals' | 'litterguards'
  /** The unit of t: 1 for ms (ear tags), 1000 for Unix seconds (litter devices). */
  msPerT: 1 | 1000
  /** Columns besides uid, mac and t, with the SQL type of their unnest() array. */
  columns: Record<string, 'float8' | 'text'>
  /** How each column is packed. */
  packing: Record<string, Packing>
  /** The hourly rollup, kept by storeReadings. */
  rollup: Rollup
  /**
   * Brings the owner's latest state up to the newest stored row stamped at most `until` (the series' unit of t);
   * an older batch arriving late never moves it back.
   */
  updateOwnerLatest: (uid: string, mac: string, until: number) => RawBuilder<unknown>
}

/** The packed arrays' element bounds (smallint). */
const SMALLINT_MAX = 32767

/**
 * The magnitude sqrt(x² + y² + z²) of a reading's acceleration, of the row `alias` (or unqualified columns). A component
 * whose square underflows float8 counts as 0: PostgreSQL refuses such a product with an error, and the value lies far
 * below any tag's resolution.
 */
export function magnitudeSql(alias?: string): RawBuilder<unknown> {
  const square = (axis: 'x' | 'y' | 'z') => {
    const v = sql.ref(alias ? `${alias}.${axis}` : axis)
    return sql`CASE WHEN abs(${v}) < 1e-150 THEN 0 ELSE ${v} * ${v} END`
  }
  return sql`sqrt(${square('x')} + ${square('y')} + ${square('z')})`
}

const isValidTemperature = sql`r.c >= ${sql.lit(VALID_TEMPERATURE.min)} AND r.c <= ${sql.lit(VALID_TEMPERATURE.max)}`

/**
 * An hour of acceleration and temperature readings (ear tags and litter devices): sums of each value's decimal
 * (exact, so the same in any order), min and max, with m the magnitude sqrt(x² + y² + z²), and the scorer's
 * counts (readings.rules.ts): readings moving, and readings with a valid temperature and their sum.
 */
const sensorRollup = (
  table: 'animal_sensor_hourly' | 'litterguard_hourly',
  extra: Pick<Rollup, 'derived' | 'columns'> = { derived: sql``, columns: {} },
): Rollup => ({
  table,
  // Each value's decimal computed once a reading (the conversion costs more than the sums).
  derived: sql`${magnitudeSql('r')} AS m, r.c::numeric AS c_decimal,
    ${magnitudeSql('r')}::numeric AS m_decimal ${extra.derived}`,
  columns: {
    n: { of: sql`count(*)`, merge: 'sum' },
    c_sum: { of: sql`sum(r.c_decimal)`, merge: 'sum' },
    c_sumsq: { of: sql`sum(r.c_decimal * r.c_decimal)`, merge: 'sum' },
    c_min: { of: sql`min(r.c)`, merge: 'min' },
    c_max: { of: sql`max(r.c)`, merge: 'max' },
    m_sum: { of: sql`sum(r.m_decimal)`, merge: 'sum' },
    m_sumsq: { of: sql`sum(r.m_decimal * r.m_decimal)`, merge: 'sum' },
    m_min: { of: sql`min(r.m)`, merge: 'min' },
    m_max: { of: sql`max(r.m)`, merge: 'max' },
    moving_n: { of: sql`count(*) FILTER (WHERE abs(r.m - 1) > ${sql.lit(MOVING_THRESHOLD_G)}::float8)`, merge: 'sum' },
    valid_n: { of: sql`count(*) FILTER (WHERE ${isValidTemperature})`, merge: 'sum' },
    valid_c_sum: { of: sql`coalesce(sum(r.c_decimal) FILTER (WHERE ${isValidTemperature}), 0)`, merge: 'sum' },
    ...extra.columns,
  },
})

/** A litter device's 10-minute activity bucket (UTC-aligned, LITTER_BUCKET of its hour) of a reading `r`. */
const litterBucket = sql`((r.t - r.hour) / ${sql.lit(LITTER_BUCKET)})`
const litterActivity = sql`abs(${magnitudeSql('r')} - 1)::numeric`
/** A bucket's mean activity (exact: numeric). */
const bucketMean = sql`(r.bucket_a / r.bucket_n)`

/**
 * A litter device's hour also keeps what its activity rules read (docs/litterguards.md#activity): the sum of the
 * readings' dynamic acceleration |m - 1|, and of its 10-minute buckets (UTC-aligned, six an hour) the count with
 * readings, the sum and sum of squares of their means, and each bucket's number within the hour and mean. The
 * bucket figures do not add up when a late reading lands in a bucket: the hour is summed up again.
 */
const LITTER_ACTIVITY: Pick<Rollup, 'derived' | 'columns'> = {
  derived: sql`, count(*) OVER (PARTITION BY r.hour, ${litterBucket}) AS bucket_n,
    sum(${litterActivity}) OVER (PARTITION BY r.hour, ${litterBucket}) AS bucket_a,
    row_number() OVER (PARTITION BY r.hour, ${litterBucket} ORDER BY r.t) = 1 AS bucket_first`,
  columns: {
    a_sum: { of: sql`sum(abs(r.m - 1)::numeric)` },
    act_n: { of: sql`count(*) FILTER (WHERE r.bucket_first)` },
    act_mean_sum: { of: sql`sum(${bucketMean}) FILTER (WHERE r.bucket_first)` },
    act_mean_sumsq: { of: sql`sum(${bucketMean} * ${bucketMean}) FILTER (WHERE r.bucket_first)` },
    act_bucket: { of: sql`array_agg(${litterBucket}::smallint ORDER BY r.t) FILTER (WHERE r.bucket_first)` },
    act_mean: { of: sql`array_agg(${bucketMean}::float8 ORDER BY r.t) FILTER (WHERE r.bucket_first)` },
  },
}

/**
 * An hour of location detections: by node, and the node changes within it with its first and last node, so that
 * the changes across hours follow (a detection from another node than the hour before's last). Node changes do
 * not add up when a late detection lands mid-hour: the hour is summed up again.
 */
const LOCATION_ROLLUP: Rollup = {
  table: 'animal_location_hourly',
  derived: sql`lag(r.nodeuid) OVER (PARTITION BY r.hour ORDER BY r.t) AS previous,
    (count(*) OVER (PARTITION BY r.hour, r.nodeuid))::integer AS node_count,
    row_number() OVER (PARTITION BY r.hour, r.nodeuid ORDER BY r.t) = 1 AS node_first`,
  columns: {
    n: { of: sql`count(*)` },
    nodes: { of: sql`array_agg(r.nodeuid ORDER BY r.nodeuid) FILTER (WHERE r.node_first)` },
    node_n: { of: sql`array_agg(r.node_count ORDER BY r.nodeuid) FILTER (WHERE r.node_first)` },
    changes: { of: sql`count(*) FILTER (WHERE r.previous <> r.nodeuid)` },
    first_node: { of: sql`(array_agg(r.nodeuid ORDER BY r.t))[1]` },
    last_node: { of: sql`(array_agg(r.nodeuid ORDER BY r.t DESC))[1]` },
  },
}

export const SERIES: Record<ReadingKind, Series> = {
  sensordata: {
    table: 'animal_sensor_readings',
    packed: 'animal_sensor_packed',
    owner: 'animals',
    msPerT: 1,
    columns: { c: 'float8', x: 'float8', y: 'float8', z: 'float8' },
    packing: { c: { scale: 100 }, x: { scale: 1000 }, y: { scale: 1000 }, z: { scale: 1000 } },
    rollup: sensorRollup('animal_sensor_hourly'),
    updateOwnerLatest: (uid, mac, until) => sql`
      UPDATE animals a SET current_temperature = r.c, t = r.t, last_sensor_t = r.t, updated_at = now()
      FROM (SELECT t, c FROM animal_sensor_readings WHERE uid = ${uid} AND mac = ${mac} AND t <= ${until} ORDER BY t DESC LIMIT 1) r
      WHERE a.uid = ${uid} AND a.mac = ${mac} AND (a.last_sensor_t IS NULL OR a.last_sensor_t < r.t)`,
  },
  locations: {
    table: 'animal_location_readings',
    packed: 'animal_location_packed',
    owner: 'animals',
    msPerT: 1,
    columns: { rssi: 'float8', nodeuid: 'text' },
    packing: { rssi: { scale: 10 }, nodeuid: { dictionary: 'nodes', index: 'node' } },
    rollup: LOCATION_ROLLUP,
    updateOwnerLatest: (uid, mac, until) => sql`
      UPDATE animals a SET node = r.nodeuid, signal_strength = r.rssi, last_location_t = r.t, updated_at = now()
      FROM (SELECT t, rssi, nodeuid FROM animal_location_readings WHERE uid = ${uid} AND mac = ${mac} AND t <= ${until} ORDER BY t DESC LIMIT 1) r
      WHERE a.uid = ${uid} AND a.mac = ${mac} AND (a.last_location_t IS NULL OR a.last_location_t < r.t)`,
  },
  devicedata: {
    table: 'litterguard_readings',
    packed: 'litterguard_packed',
    owner: 'litterguards',
    msPerT: 1000,
    columns: { c: 'float8', x: 'float8', y: 'float8', z: 'float8' },
    packing: { c: { scale: 100 }, x: { scale: 1000 }, y: { scale: 1000 }, z: { scale: 1000 } },
    rollup: sensorRollup('litterguard_hourly', LITTER_ACTIVITY),
    updateOwnerLatest: (uid, mac, until) => sql`
      UPDATE litterguards d SET last_seen = r.t, current_temperature = r.c, updated_at = now()
      FROM (SELECT t, c FROM litterguard_readings WHERE uid = ${uid} AND mac = ${mac} AND t <= ${until} ORDER BY t DESC LIMIT 1) r
      WHERE d.uid = ${uid} AND d.mac = ${mac} AND (d.last_seen IS NULL OR d.last_seen < r.t)`,
  },
}

/** An hour in the series' unit of t. */
export const hourOf = (series: Series) => 3_600_000 / series.msPerT

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
 * `afterStore` runs in the same transaction once new rows are in and the owner's latest state is updated
 * (event derivation).
 */
export async function storeReadings(
  db: Kysely<DB>,
  uid: string,
  mac: string,
  batch: IngestBatch,
  currentUntil: number,
  keptFrom?: number,
  afterStore?: (trx: Kysely<DB>) => Promise<void>,
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
    const owner = await sql`SELECT 1 FROM ${sql.table(series.owner)} WHERE uid = ${uid} AND mac = ${mac}
      FOR ${sql.raw(merged ? 'KEY SHARE' : 'NO KEY UPDATE')}`.execute(trx)
    if (owner.rows.length === 0) return undefined
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
    if (stored > 0) {
      await series.updateOwnerLatest(uid, mac, currentUntil).execute(trx)
      await afterStore?.(trx)
    }
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

/**
 * The scorer's figures an hourly summary uses (scorer.rules.ts). The rollups count by the readings' own
 * (readings.rules.ts), which the scorer imports; handing them in checks that they are the same.
 */
export interface SummaryThresholds {
  HOUR_MS: number
  MOVING_THRESHOLD_G: number
  VALID_TEMPERATURE: { min: number; max: number }
}

/**
 * One tag's readings summed up per hour in [from, to): the same figures as summarizeHours in scorer.rules.ts
 * (samples, share moving, mean valid temperature, detections and node changes); herdHourlySummaries of one tag.
 */
export async function hourlySummaries(
  db: Kysely<DB>,
  uid: string,
  mac: string,
  from: number,
  to: number,
  thresholds: SummaryThresholds,
): Promise<HourSummary[]> {
  return (await herdHourlySummaries(db, uid, [mac], from, to, thresholds)).get(mac) ?? []
}

/**
 * Tags' readings summed up per hour in [from, to), by MAC, in one statement: from the rollups (hourlyRows: an
 * hour the span cuts from its readings). A detection from another node than the one before it in the span is a
 * node change: an hour's changes within it, and one more when its first node is not the last node of the
 * span's hour before it with detections.
 */
export async function herdHourlySummaries(
  db: Kysely<DB>,
  uid: string,
  macs: readonly string[],
  from: number,
  to: number,
  thresholds: SummaryThresholds,
): Promise<Map<string, HourSummary[]>> {
  if (
    thresholds.HOUR_MS !== hourOf(SERIES.sensordata) ||
    thresholds.MOVING_THRESHOLD_G !== MOVING_THRESHOLD_G ||
    thresholds.VALID_TEMPERATURE.min !== VALID_TEMPERATURE.min ||
    thresholds.VALID_TEMPERATURE.max !== VALID_TEMPERATURE.max
  )
    throw new Error('hourly summaries: the thresholds are not those the rollups count by (readings.rules.ts)')
  const span = { start: from, end: to - 1 }
  const mac = sql.ref('m.mac')
  // Each tag's hours as a few arrays (a JSON value a row cost several times more to build), the sensor and the
  // location hours apart, merged by hour here. The arrays take their rows in the order of the sorted subquery
  // they aggregate (one sort a tag and series; an ORDER BY in each aggregate sorted once per array).
  const { rows } = await sql<{ mac: string; sensor: string; locations: string }>`
    SELECT m.mac, s.sensor, l.locations
    FROM unnest(${macs}::text[]) AS m (mac)
    CROSS JOIN LATERAL (
      SELECT json_build_array(array_agg(s.hour), array_agg(s.n), array_agg(s.moving_n),
               array_agg(CASE WHEN s.valid_n > 0 THEN (s.valid_c_sum / s.valid_n)::float8 END))::text AS sensor
      FROM (SELECT s.hour, s.n, s.moving_n, s.valid_n, s.valid_c_sum FROM ${hourlyRows(SERIES.sensordata, uid, mac, span)} s
            ORDER BY s.hour) s) s
    CROSS JOIN LATERAL (
      SELECT json_build_array(array_agg(l.hour), array_agg(l.n), array_agg(l.node_changes))::text AS locations
      FROM (SELECT l.hour, l.n, l.changes + CASE WHEN lag(l.last_node) OVER (ORDER BY l.hour) <> l.first_node THEN 1 ELSE 0 END AS node_changes
            FROM ${hourlyRows(SERIES.locations, uid, mac, span)} l ORDER BY l.hour) l) l`.execute(db)
  const byMac = new Map<string, HourSummary[]>()
  for (const r of rows) {
    const [sensorHours, samples, moving, temperatures] = JSON.parse(r.sensor) as [
      number[] | null,
      number[],
      number[],
      (number | null)[],
    ]
    const [locationHours, detections, nodeChanges] = JSON.parse(r.locations) as [number[] | null, number[], number[]]
    const [sh, lh] = [sensorHours ?? [], locationHours ?? []]
    const hours: HourSummary[] = []
    let i = 0
    let j = 0
    while (i < sh.length || j < lh.length) {
      const hour = Math.min(sh[i] ?? Infinity, lh[j] ?? Infinity)
      const sensor = sh[i] === hour ? i++ : -1
      const location = lh[j] === hour ? j++ : -1
      const n = sensor < 0 ? 0 : samples[sensor]!
      hours.push({
        hour,
        samples: n,
        activity: n > 0 ? moving[sensor]! / n : 0,
        temperature: sensor < 0 ? null : temperatures[sensor]!,
        detections: location < 0 ? 0 : detections[location]!,
        nodeChanges: location < 0 ? 0 : nodeChanges[location]!,
      })
    }
    byMac.set(r.mac, hours)
  }
  return byMac
}
