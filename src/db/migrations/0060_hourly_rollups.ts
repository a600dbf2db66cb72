// Hourly rollups of the three readings series (docs/storage.md#hourly-rollups): one row per tag and hour,
// summing up the readings of both parts (recent and packed), kept up to date by ingestion in the transaction
// that stores the readings (readings.repository.ts storeReadings). Keyed (uid, mac, hour), the tenant first,
// like the readings they summarise, and like them removed with the account (the foreign key) and moved or
// removed with their tag by the application (a MAC change, an animal's or device's deletion).
// Sums are `numeric`: each value enters as its decimal (PostgreSQL's float8 to numeric), so a sum is exact
// and the same in whatever order or batches the readings came. Existing readings are summed up here, with a
// copy of the readings module's SQL and thresholds as they are today (a migration never changes once run).
import { sql, type Kysely, type RawBuilder } from 'kysely'
import { MAGNITUDE, TENANT_KEY } from './building-blocks.ts'

/** The scorer's thresholds the sensor rollups count by (readings.rules.ts ROLLUP_THRESHOLDS; a test checks they agree). */
export const BACKFILL_THRESHOLDS = { MOVING_THRESHOLD_G: 0.1, VALID_TEMPERATURE: { min: 25, max: 42 } }

const SENSOR_COLUMNS = `
  n integer NOT NULL,
  c_sum numeric NOT NULL, c_sumsq numeric NOT NULL, c_min double precision NOT NULL, c_max double precision NOT NULL,
  m_sum numeric NOT NULL, m_sumsq numeric NOT NULL, m_min double precision NOT NULL, m_max double precision NOT NULL,
  moving_n integer NOT NULL, valid_n integer NOT NULL, valid_c_sum numeric NOT NULL`

const LOCATION_COLUMNS = `
  n integer NOT NULL,
  nodes text[] NOT NULL, node_n integer[] NOT NULL,
  changes integer NOT NULL, first_node text NOT NULL, last_node text NOT NULL`

/** The rollup tables, the series each sums up, and the series' hour in its unit of t. */
const ROLLUPS = [
  {
    table: 'animal_sensor_hourly',
    readings: 'animal_sensor_readings',
    packed: 'animal_sensor_packed',
    hour: 3_600_000,
    columns: SENSOR_COLUMNS,
  },
  {
    table: 'litterguard_hourly',
    readings: 'litterguard_readings',
    packed: 'litterguard_packed',
    hour: 3600,
    columns: SENSOR_COLUMNS,
  },
  {
    table: 'animal_location_hourly',
    readings: 'animal_location_readings',
    packed: 'animal_location_packed',
    hour: 3_600_000,
    columns: LOCATION_COLUMNS,
  },
] as const

/** Every reading of a sensor series, both parts (as readingRows reads them), with its hour and magnitude m. */
function sensorReadings(readings: string, packed: string, hour: number, only: RawBuilder<unknown>) {
  return sql`
    SELECT uid, mac, t - t % ${sql.lit(hour)} AS hour, t, c, sqrt(${MAGNITUDE}) AS m
    FROM (SELECT uid, mac, t, c, x, y, z FROM ${sql.table(readings)} WHERE ${only}
          UNION ALL
          SELECT p.uid, p.mac, p.hour + u.dt, u.c::float8 / 100, u.x::float8 / 1000, u.y::float8 / 1000, u.z::float8 / 1000
          FROM ${sql.table(packed)} p CROSS JOIN LATERAL unnest(p.dt, p.c, p.x, p.y, p.z) AS u (dt, c, x, y, z) WHERE ${only}) r`
}

function backfillSensor(table: string, readings: string, packed: string, hour: number, only: RawBuilder<unknown>) {
  const { MOVING_THRESHOLD_G: moving, VALID_TEMPERATURE: valid } = BACKFILL_THRESHOLDS
  const isValid = sql`r.c >= ${sql.lit(valid.min)} AND r.c <= ${sql.lit(valid.max)}`
  return sql`
    INSERT INTO ${sql.table(table)} (uid, mac, hour, n, c_sum, c_sumsq, c_min, c_max, m_sum, m_sumsq, m_min, m_max, moving_n, valid_n, valid_c_sum)
    SELECT r.uid, r.mac, r.hour, count(*),
           sum(r.c::numeric), sum(r.c::numeric * r.c::numeric), min(r.c), max(r.c),
           sum(r.m::numeric), sum(r.m::numeric * r.m::numeric), min(r.m), max(r.m),
           count(*) FILTER (WHERE abs(r.m - 1) > ${sql.lit(moving)}::float8),
           count(*) FILTER (WHERE ${isValid}),
           coalesce(sum(r.c::numeric) FILTER (WHERE ${isValid}), 0)
    FROM (${sensorReadings(readings, packed, hour, only)}) r
    GROUP BY r.uid, r.mac, r.hour`
}

function backfillLocations(table: string, readings: string, packed: string, hour: number, only: RawBuilder<unknown>) {
  return sql`
    INSERT INTO ${sql.table(table)} (uid, mac, hour, n, nodes, node_n, changes, first_node, last_node)
    SELECT r.uid, r.mac, r.hour, count(*),
           array_agg(r.nodeuid ORDER BY r.nodeuid) FILTER (WHERE r.node_first),
           array_agg(r.node_n ORDER BY r.nodeuid) FILTER (WHERE r.node_first),
           count(*) FILTER (WHERE r.previous <> r.nodeuid),
           (array_agg(r.nodeuid ORDER BY r.t))[1], (array_agg(r.nodeuid ORDER BY r.t DESC))[1]
    FROM (SELECT r.*,
                 lag(r.nodeuid) OVER (PARTITION BY r.uid, r.mac, r.hour ORDER BY r.t) AS previous,
                 (count(*) OVER (PARTITION BY r.uid, r.mac, r.hour, r.nodeuid))::integer AS node_n,
                 row_number() OVER (PARTITION BY r.uid, r.mac, r.hour, r.nodeuid ORDER BY r.t) = 1 AS node_first
          FROM (SELECT uid, mac, t - t % ${sql.lit(hour)} AS hour, t, nodeuid
                FROM (SELECT uid, mac, t, nodeuid FROM ${sql.table(readings)} WHERE ${only}
                      UNION ALL
                      SELECT p.uid, p.mac, p.hour + u.dt, p.nodes[u.node]
                      FROM ${sql.table(packed)} p CROSS JOIN LATERAL unnest(p.dt, p.node) AS u (dt, node) WHERE ${only}) r) r) r
    GROUP BY r.uid, r.mac, r.hour`
}

/** Sums up the readings stored (of one account: the test of this migration) into the empty rollup tables. */
export async function backfill(db: Kysely<unknown>, uid?: string): Promise<void> {
  const only = uid === undefined ? sql`true` : sql`uid = ${uid}`
  for (const { table, readings, packed, hour, columns } of ROLLUPS)
    await (
      columns === LOCATION_COLUMNS
        ? backfillLocations(table, readings, packed, hour, only)
        : backfillSensor(table, readings, packed, hour, only)
    ).execute(db)
}

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const { table, columns } of ROLLUPS) {
    await sql`
      CREATE TABLE ${sql.table(table)} (
        ${TENANT_KEY},
        mac text NOT NULL,
        hour bigint NOT NULL,
        ${sql.raw(columns)},
        CONSTRAINT ${sql.raw(`${table}_pkey`)} PRIMARY KEY (uid, mac, hour)
      )`.execute(db)
    // The current hour's row is updated by every batch: room on its page keeps those updates HOT (no index entry).
    await sql`ALTER TABLE ${sql.table(table)} SET (fillfactor = 70, parallel_workers = 0)`.execute(db)
  }
  await backfill(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const { table } of ROLLUPS) await db.schema.dropTable(table).ifExists().execute()
}
