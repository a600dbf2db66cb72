// The stored series (docs/storage.md#readings): where each kind of reading lives (its recent rows and its
// packed hours), how its columns pack, what its newest row updates, and its hourly rollup. The statements
// over them are in readings.repository.ts.
import { sql, type RawBuilder } from 'kysely'
import { LITTER_BUCKET, MOVING_THRESHOLD_G, VALID_TEMPERATURE } from './readings.rules.ts'

/** The series a batch belongs to: an animal's sensor readings or locations, or a litter device's readings. */
export type ReadingKind = 'sensordata' | 'locations' | 'devicedata'

/** How a packed row keeps a column: scaled to a small integer (exact: value = integer / scale), or as an index into the row's dictionary. */
export type Packing = { scale: number } | { dictionary: 'nodes'; index: 'node' }

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

/** The columns of a temperature and acceleration reading and how they pack: ear tags' and litter devices' alike. */
const SENSOR_COLUMNS: Pick<Series, 'columns' | 'packing'> = {
  columns: { c: 'float8', x: 'float8', y: 'float8', z: 'float8' },
  packing: { c: { scale: 100 }, x: { scale: 1000 }, y: { scale: 1000 }, z: { scale: 1000 } },
}

export const SERIES: Record<ReadingKind, Series> = {
  sensordata: {
    table: 'animal_sensor_readings',
    packed: 'animal_sensor_packed',
    owner: 'animals',
    msPerT: 1,
    ...SENSOR_COLUMNS,
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
    ...SENSOR_COLUMNS,
    rollup: sensorRollup('litterguard_hourly', LITTER_ACTIVITY),
    updateOwnerLatest: (uid, mac, until) => sql`
      UPDATE litterguards d SET last_seen = r.t, current_temperature = r.c, updated_at = now()
      FROM (SELECT t, c FROM litterguard_readings WHERE uid = ${uid} AND mac = ${mac} AND t <= ${until} ORDER BY t DESC LIMIT 1) r
      WHERE d.uid = ${uid} AND d.mac = ${mac} AND (d.last_seen IS NULL OR d.last_seen < r.t)`,
  },
}

/**
 * Every table that holds an owner's readings: the recent and packed parts and the hourly rollup of each of its series
 * (docs/storage.md#readings). They follow a tag's MAC and go with the animal or device.
 */
export function readingTablesOf(owner: Series['owner']) {
  return Object.values(SERIES)
    .filter((series) => series.owner === owner)
    .flatMap((series) => [series.table, series.packed, series.rollup.table])
}

/** An hour in the series' unit of t. */
export const hourOf = (series: Series) => 3_600_000 / series.msPerT
