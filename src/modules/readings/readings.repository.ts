// Ear-tag readings: bulk idempotent ingestion, time-range reads, latest samples and analytics, all in SQL.
import { sql, type Kysely } from 'kysely'
import type { DB } from '../../db/schema.ts'
import type { LocationRow, SensorAnalyticsBody, SensorRow } from './readings.schemas.ts'

export type ReadingKind = 'sensordata' | 'locations'

export interface IngestCounts { received: number; stored: number; duplicates: number }

export interface TimeQuery { startTime?: number | undefined; endTime?: number | undefined; limit: number; sortOrder: 'asc' | 'desc' }

/**
 * Stores a batch in one transaction: all rows or none. Rows whose (uid, mac, t) is already stored are
 * skipped (ON CONFLICT DO NOTHING), so a re-sent batch stores nothing twice. The rows travel as one array
 * per column through unnest(): one statement whatever the batch size, and no 65,535-parameter limit.
 * Returns undefined when the user has no animal with this MAC.
 */
export async function storeReadings(db: Kysely<DB>, uid: string, mac: string, batch:
  | { kind: 'sensordata'; rows: readonly SensorRow[] }
  | { kind: 'locations'; rows: readonly LocationRow[] },
): Promise<IngestCounts | undefined> {
  return db.transaction().execute(async (trx) => {
    // KEY SHARE holds off a concurrent delete or MAC change of the animal until these rows are in.
    const animal = await trx.selectFrom('animals').select('id').where('uid', '=', uid).where('mac', '=', mac).forKeyShare().executeTakeFirst()
    if (!animal) return undefined
    let stored: number
    if (batch.kind === 'sensordata') {
      const { rows } = batch
      const result = await sql`
        INSERT INTO animal_sensor_readings (uid, mac, t, c, x, y, z)
        SELECT ${uid}, ${mac}, r.t, r.c, r.x, r.y, r.z
        FROM unnest(${rows.map((r) => r.t)}::bigint[], ${rows.map((r) => r.c)}::float8[], ${rows.map((r) => r.x)}::float8[],
                    ${rows.map((r) => r.y)}::float8[], ${rows.map((r) => r.z)}::float8[]) AS r (t, c, x, y, z)
        ON CONFLICT (uid, mac, t) DO NOTHING`.execute(trx)
      stored = Number(result.numAffectedRows ?? 0n)
      if (stored > 0) {
        await sql`
          UPDATE animals a SET current_temperature = r.c, t = r.t, last_sensor_t = r.t, updated_at = now()
          FROM (SELECT t, c FROM animal_sensor_readings WHERE uid = ${uid} AND mac = ${mac} ORDER BY t DESC LIMIT 1) r
          WHERE a.uid = ${uid} AND a.mac = ${mac} AND (a.last_sensor_t IS NULL OR a.last_sensor_t < r.t)`.execute(trx)
      }
    } else {
      const { rows } = batch
      const result = await sql`
        INSERT INTO animal_location_readings (uid, mac, t, rssi, nodeuid)
        SELECT ${uid}, ${mac}, r.t, r.rssi, r.nodeuid
        FROM unnest(${rows.map((r) => r.t)}::bigint[], ${rows.map((r) => r.rssi)}::float8[], ${rows.map((r) => r.nodeuid)}::text[]) AS r (t, rssi, nodeuid)
        ON CONFLICT (uid, mac, t) DO NOTHING`.execute(trx)
      stored = Number(result.numAffectedRows ?? 0n)
      if (stored > 0) {
        await sql`
          UPDATE animals a SET node = r.nodeuid, signal_strength = r.rssi, last_location_t = r.t, updated_at = now()
          FROM (SELECT t, rssi, nodeuid FROM animal_location_readings WHERE uid = ${uid} AND mac = ${mac} ORDER BY t DESC LIMIT 1) r
          WHERE a.uid = ${uid} AND a.mac = ${mac} AND (a.last_location_t IS NULL OR a.last_location_t < r.t)`.execute(trx)
      }
    }
    return { received: batch.rows.length, stored, duplicates: batch.rows.length - stored }
  })
}

export async function readSensorData(db: Kysely<DB>, uid: string, mac: string, q: TimeQuery): Promise<SensorRow[]> {
  let query = db.selectFrom('animal_sensor_readings').select(['t', 'c', 'x', 'y', 'z']).where('uid', '=', uid).where('mac', '=', mac)
  if (q.startTime !== undefined) query = query.where('t', '>=', q.startTime)
  if (q.endTime !== undefined) query = query.where('t', '<=', q.endTime)
  return query.orderBy('t', q.sortOrder).limit(q.limit).execute()
}

export async function readLocations(db: Kysely<DB>, uid: string, mac: string, q: TimeQuery): Promise<LocationRow[]> {
  let query = db.selectFrom('animal_location_readings').select(['t', 'rssi', 'nodeuid']).where('uid', '=', uid).where('mac', '=', mac)
  if (q.startTime !== undefined) query = query.where('t', '>=', q.startTime)
  if (q.endTime !== undefined) query = query.where('t', '<=', q.endTime)
  return query.orderBy('t', q.sortOrder).limit(q.limit).execute()
}

export async function latestSensorData(db: Kysely<DB>, uid: string, mac: string, count: number): Promise<SensorRow[]> {
  return db.selectFrom('animal_sensor_readings').select(['t', 'c', 'x', 'y', 'z'])
    .where('uid', '=', uid).where('mac', '=', mac).orderBy('t', 'desc').limit(count).execute()
}

/** Aggregates of one tag's readings in [start, end], computed by the database. */
export async function sensorAnalytics(db: Kysely<DB>, uid: string, mac: string, start: number, end: number): Promise<SensorAnalyticsBody> {
  const { rows } = await sql<{ n: number; avg_c: number | null; min_c: number | null; max_c: number | null; avg_m: number | null; min_m: number | null; max_m: number | null }>`
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
