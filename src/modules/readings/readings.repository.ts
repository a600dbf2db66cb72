// Time series: bulk idempotent ingestion of every series (ear-tag sensor readings and location
// detections, litter-device readings), and the ear-tag reads, latest samples and analytics, all in SQL.
import { sql, type Kysely, type RawBuilder } from 'kysely'
import type { DB } from '../../db/schema.ts'
import type { HourSummary } from './readings.rules.ts'
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

/** Where a series is stored and what its newest row updates. */
interface Series {
  table: string
  /** The registry whose row (uid, mac) the readings belong to. */
  owner: 'animals' | 'litterguards'
  /** The unit of t: 1 for ms (ear tags), 1000 for Unix seconds (litter devices). */
  msPerT: 1 | 1000
  /** Columns besides uid, mac and t, with the SQL type of their unnest() array. */
  columns: Record<string, 'float8' | 'text'>
  /**
   * Brings the owner's latest state up to the newest stored row stamped at most `until` (the series' unit of t);
   * an older batch arriving late never moves it back.
   */
  updateOwnerLatest: (uid: string, mac: string, until: number) => RawBuilder<unknown>
}

export const SERIES: Record<ReadingKind, Series> = {
  sensordata: {
    table: 'animal_sensor_readings',
    owner: 'animals',
    msPerT: 1,
    columns: { c: 'float8', x: 'float8', y: 'float8', z: 'float8' },
    updateOwnerLatest: (uid, mac, until) => sql`
      UPDATE animals a SET current_temperature = r.c, t = r.t, last_sensor_t = r.t, updated_at = now()
      FROM (SELECT t, c FROM animal_sensor_readings WHERE uid = ${uid} AND mac = ${mac} AND t <= ${until} ORDER BY t DESC LIMIT 1) r
      WHERE a.uid = ${uid} AND a.mac = ${mac} AND (a.last_sensor_t IS NULL OR a.last_sensor_t < r.t)`,
  },
  locations: {
    table: 'animal_location_readings',
    owner: 'animals',
    msPerT: 1,
    columns: { rssi: 'float8', nodeuid: 'text' },
    updateOwnerLatest: (uid, mac, until) => sql`
      UPDATE animals a SET node = r.nodeuid, signal_strength = r.rssi, last_location_t = r.t, updated_at = now()
      FROM (SELECT t, rssi, nodeuid FROM animal_location_readings WHERE uid = ${uid} AND mac = ${mac} AND t <= ${until} ORDER BY t DESC LIMIT 1) r
      WHERE a.uid = ${uid} AND a.mac = ${mac} AND (a.last_location_t IS NULL OR a.last_location_t < r.t)`,
  },
  devicedata: {
    table: 'litterguard_readings',
    owner: 'litterguards',
    msPerT: 1000,
    columns: { c: 'float8', x: 'float8', y: 'float8', z: 'float8' },
    updateOwnerLatest: (uid, mac, until) => sql`
      UPDATE litterguards d SET last_seen = r.t, current_temperature = r.c, updated_at = now()
      FROM (SELECT t, c FROM litterguard_readings WHERE uid = ${uid} AND mac = ${mac} AND t <= ${until} ORDER BY t DESC LIMIT 1) r
      WHERE d.uid = ${uid} AND d.mac = ${mac} AND (d.last_seen IS NULL OR d.last_seen < r.t)`,
  },
}

/**
 * Stores a batch in one transaction: all rows or none. Rows whose (uid, mac, t) is already stored are
 * skipped (ON CONFLICT DO NOTHING), so a re-sent batch stores nothing twice. The rows travel as one array
 * per column through unnest(): one statement whatever the batch size, and no 65,535-parameter limit.
 * Returns undefined when the user has no animal (or device, for devicedata) with this MAC. The owner's latest
 * state moves only to rows stamped at most `currentUntil` (the series' unit of t).
 * `afterStore` runs in the same transaction once new rows are in and the owner's latest state is updated
 * (event derivation).
 */
export async function storeReadings(
  db: Kysely<DB>,
  uid: string,
  mac: string,
  batch: IngestBatch,
  currentUntil: number,
  afterStore?: (trx: Kysely<DB>) => Promise<void>,
): Promise<IngestCounts | undefined> {
  const series = SERIES[batch.kind]
  const rows = batch.rows as readonly Record<string, unknown>[]
  const columns = ['t', ...Object.keys(series.columns)]
  const arrayType = (column: string) => sql.raw(column === 't' ? 'bigint[]' : `${series.columns[column]}[]`)
  return db.transaction().execute(async (trx) => {
    // KEY SHARE holds off a concurrent delete (or animal MAC change) of the owner until these rows are in.
    const owner =
      await sql`SELECT 1 FROM ${sql.table(series.owner)} WHERE uid = ${uid} AND mac = ${mac} FOR KEY SHARE`.execute(trx)
    if (owner.rows.length === 0) return undefined
    const result = await sql`
      INSERT INTO ${sql.table(series.table)} (uid, mac, ${sql.join(columns.map((c) => sql.ref(c)))})
      SELECT ${uid}, ${mac}, ${sql.join(columns.map((c) => sql.ref(`r.${c}`)))}
      FROM unnest(${sql.join(columns.map((c) => sql`${rows.map((row) => row[c])}::${arrayType(c)}`))}) AS r (${sql.join(columns.map((c) => sql.ref(c)))})
      ON CONFLICT (uid, mac, t) DO NOTHING`.execute(trx)
    const stored = Number(result.numAffectedRows ?? 0n)
    if (stored > 0) {
      await series.updateOwnerLatest(uid, mac, currentUntil).execute(trx)
      await afterStore?.(trx)
    }
    return { received: rows.length, stored, duplicates: rows.length - stored }
  })
}

/** Readings per piece of a page's JSON: each piece stays below V8's large-object size (128 kB). */
const ITEMS_PER_PIECE = 500

/**
 * A page of readings as the items of a JSON array (`{"t":...},{"t":...}`), written by the database: text
 * instead of up to 10,000 row objects to decode in this process and serialize again (docs/performance.md).
 * The text comes in pieces of ITEMS_PER_PIECE items, to be joined with commas, because one string of a whole
 * page goes straight to V8's old generation. The keys come in the selected column order, the schema's;
 * numbers in PostgreSQL's shortest exact form (1e-07 where JavaScript writes 1e-7).
 */
async function jsonItems(
  db: Kysely<DB>,
  table: 'animal_sensor_readings' | 'animal_location_readings',
  columns: readonly string[],
  uid: string,
  mac: string,
  q: TimeQuery,
): Promise<string[]> {
  const order = sql.raw(q.sortOrder === 'asc' ? 'ASC' : 'DESC')
  // One sorted array of the items' texts, cut into slices: the cheapest way to pieces that was measured
  // (docs/performance.md), cheaper than numbering the rows and grouping them.
  const { rows } = await sql<{ items: string }>`
    SELECT array_to_string(page.items[k * ${sql.lit(ITEMS_PER_PIECE)} + 1 : (k + 1) * ${sql.lit(ITEMS_PER_PIECE)}], ',') AS items
    FROM (SELECT array_agg(row_to_json(r)::text ORDER BY r.t ${order}) AS items
          FROM (SELECT ${sql.join(columns.map((c) => sql.ref(c)))} FROM ${sql.table(table)}
                WHERE uid = ${uid} AND mac = ${mac}
                  ${q.startTime === undefined ? sql`` : sql`AND t >= ${q.startTime}`}
                  ${q.endTime === undefined ? sql`` : sql`AND t <= ${q.endTime}`}
                ORDER BY t ${order} LIMIT ${q.limit}) r) page,
         generate_series(0, (cardinality(page.items) - 1) / ${sql.lit(ITEMS_PER_PIECE)}) k
    ORDER BY k`.execute(db)
  return rows.map((row) => row.items)
}

/** An animal's sensor readings in [startTime, endTime], as pieces of JSON array items (jsonItems). */
export function readSensorData(db: Kysely<DB>, uid: string, mac: string, q: TimeQuery): Promise<string[]> {
  return jsonItems(db, 'animal_sensor_readings', ['t', 'c', 'x', 'y', 'z'], uid, mac, q)
}

/** An animal's location detections in [startTime, endTime], as pieces of JSON array items (jsonItems). */
export function readLocations(db: Kysely<DB>, uid: string, mac: string, q: TimeQuery): Promise<string[]> {
  return jsonItems(db, 'animal_location_readings', ['t', 'rssi', 'nodeuid'], uid, mac, q)
}

export async function latestSensorData(db: Kysely<DB>, uid: string, mac: string, count: number): Promise<SensorRow[]> {
  return db
    .selectFrom('animal_sensor_readings')
    .select(['t', 'c', 'x', 'y', 'z'])
    .where('uid', '=', uid)
    .where('mac', '=', mac)
    .orderBy('t', 'desc')
    .limit(count)
    .execute()
}

/** Aggregates of one tag's readings in [start, end], computed by the database. */
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
    SELECT count(*) AS n, avg(c) AS avg_c, min(c) AS min_c, max(c) AS max_c, avg(m) AS avg_m, min(m) AS min_m, max(m) AS max_m
    FROM (SELECT c, sqrt(x * x + y * y + z * z) AS m FROM animal_sensor_readings
          WHERE uid = ${uid} AND mac = ${mac} AND t >= ${start} AND t <= ${end}) r`.execute(db)
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

/** Per animal of the user: its first reading's t, and the count and median of its valid readings in (from, to]. */
export async function sensorWindowStats(
  db: Kysely<DB>,
  uid: string,
  window: { from: number; to: number; validMin: number; validMax: number; staleBefore?: number | undefined },
): Promise<{ id: number; first_t: number | null; n: number; med: number | null }[]> {
  const { rows } = await sql<{ id: number; first_t: number | null; n: number; med: number | null }>`
    SELECT a.id, f.first_t, s.n, s.med
    FROM animals a
    CROSS JOIN LATERAL (SELECT min(r.t) AS first_t FROM animal_sensor_readings r WHERE r.uid = a.uid AND r.mac = a.mac) f
    CROSS JOIN LATERAL (
      SELECT count(*) AS n, percentile_cont(0.5) WITHIN GROUP (ORDER BY r.c) AS med
      FROM animal_sensor_readings r
      WHERE r.uid = a.uid AND r.mac = a.mac AND r.t > ${window.from} AND r.t <= ${window.to}
        AND r.c >= ${window.validMin} AND r.c <= ${window.validMax}
    ) s
    WHERE a.uid = ${uid}
      ${window.staleBefore !== undefined ? sql`AND (a.reference_temperature_updated_at IS NULL OR a.reference_temperature_updated_at < ${window.staleBefore})` : sql``}`.execute(
    db,
  )
  return rows
}

/** The embedded store has no autovacuum; without it the visibility map goes stale and reads stop being index-only. */
export async function vacuumReadings(db: Kysely<DB>): Promise<void> {
  await sql`VACUUM (ANALYZE) animal_sensor_readings, animal_location_readings`.execute(db)
}

/** The scorer's figures an hourly summary uses (scorer.rules.ts), handed in so readings know nothing of the scorer. */
export interface SummaryThresholds {
  HOUR_MS: number
  MOVING_THRESHOLD_G: number
  VALID_TEMPERATURE: { min: number; max: number }
}

/**
 * One tag's readings summed up per hour in [from, to): the same figures as summarizeHours in scorer.rules.ts
 * (samples, share moving, mean valid temperature, detections and node changes), computed by the database.
 */
export async function hourlySummaries(
  db: Kysely<DB>,
  uid: string,
  mac: string,
  from: number,
  to: number,
  thresholds: SummaryThresholds,
): Promise<HourSummary[]> {
  const { HOUR_MS, MOVING_THRESHOLD_G, VALID_TEMPERATURE } = thresholds
  const sensor = await sql<{ hour: number; samples: number; activity: number; temperature: number | null }>`
    SELECT (t / ${HOUR_MS}) * ${HOUR_MS} AS hour, count(*) AS samples,
           avg(CASE WHEN abs(sqrt(x * x + y * y + z * z) - 1) > ${MOVING_THRESHOLD_G} THEN 1 ELSE 0 END) AS activity,
           avg(c) FILTER (WHERE c >= ${VALID_TEMPERATURE.min} AND c <= ${VALID_TEMPERATURE.max}) AS temperature
    FROM animal_sensor_readings
    WHERE uid = ${uid} AND mac = ${mac} AND t >= ${from} AND t < ${to}
    GROUP BY 1`.execute(db)
  const locations = await sql<{ hour: number; detections: number; node_changes: number }>`
    SELECT (t / ${HOUR_MS}) * ${HOUR_MS} AS hour, count(*) AS detections,
           count(*) FILTER (WHERE previous IS NOT NULL AND previous <> nodeuid) AS node_changes
    FROM (SELECT t, nodeuid, lag(nodeuid) OVER (ORDER BY t) AS previous
          FROM animal_location_readings WHERE uid = ${uid} AND mac = ${mac} AND t >= ${from} AND t < ${to}) d
    GROUP BY 1`.execute(db)
  const byHour = new Map<number, HourSummary>()
  for (const r of sensor.rows) {
    const hour = Number(r.hour)
    byHour.set(hour, {
      hour,
      samples: Number(r.samples),
      activity: Number(r.activity),
      temperature: r.temperature === null ? null : Number(r.temperature),
      detections: 0,
      nodeChanges: 0,
    })
  }
  for (const r of locations.rows) {
    const hour = Number(r.hour)
    const summary = byHour.get(hour) ?? {
      hour,
      samples: 0,
      activity: 0,
      temperature: null,
      detections: 0,
      nodeChanges: 0,
    }
    summary.detections = Number(r.detections)
    summary.nodeChanges = Number(r.node_changes)
    byHour.set(hour, summary)
  }
  return [...byHour.values()].sort((a, b) => a.hour - b.hour)
}
