// What the rollups stand in for, computed from the raw readings (both parts, readingRows) in SQL: the tests
// compare the service's answers with these.
import { sql, type Kysely } from 'kysely'
import type { DB } from '../../src/db/schema.ts'
import { firstSensorReading, readingRows } from '../../src/modules/readings/readings.repository.ts'
import { SERIES } from '../../src/modules/readings/readings.series.ts'
import type { SensorAnalyticsBody } from '../../src/modules/readings/readings.schemas.ts'
import { HOUR_MS, MOVING_THRESHOLD_G, VALID_TEMPERATURE } from '../../src/modules/predictions/hour-summaries.rules.ts'
import type { HourSummary } from '../../src/modules/readings/readings.rules.ts'

/** The analytics of [start, end] over every reading: exact sums of the values' decimals, divided once (avg of numeric). */
export async function rawSensorAnalytics(
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
    SELECT count(*) AS n, avg(c::numeric)::float8 AS avg_c, min(c) AS min_c, max(c) AS max_c,
           avg(m::numeric)::float8 AS avg_m, min(m) AS min_m, max(m) AS max_m
    FROM (SELECT c, sqrt(x * x + y * y + z * z) AS m FROM ${readingRows(SERIES.sensordata, uid, mac, { start, end })} r) r`.execute(
    db,
  )
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

/** The hourly summaries of [from, to) as the job computed them before the rollups (doubles summed in scan order). */
export async function rawHourlySummaries(
  db: Kysely<DB>,
  uid: string,
  mac: string,
  from: number,
  to: number,
): Promise<HourSummary[]> {
  const sensor = await sql<{ hour: number; samples: number; activity: number; temperature: number | null }>`
    SELECT (t / ${HOUR_MS}) * ${HOUR_MS} AS hour, count(*) AS samples,
           avg(CASE WHEN abs(sqrt(x * x + y * y + z * z) - 1) > ${MOVING_THRESHOLD_G} THEN 1 ELSE 0 END) AS activity,
           avg(c) FILTER (WHERE c >= ${VALID_TEMPERATURE.min} AND c <= ${VALID_TEMPERATURE.max}) AS temperature
    FROM ${readingRows(SERIES.sensordata, uid, mac, { start: from, end: to - 1 })} r
    GROUP BY 1`.execute(db)
  const locations = await sql<{ hour: number; detections: number; node_changes: number }>`
    SELECT (t / ${HOUR_MS}) * ${HOUR_MS} AS hour, count(*) AS detections,
           count(*) FILTER (WHERE previous IS NOT NULL AND previous <> nodeuid) AS node_changes
    FROM (SELECT t, nodeuid, lag(nodeuid) OVER (ORDER BY t) AS previous
          FROM ${readingRows(SERIES.locations, uid, mac, { start: from, end: to - 1 })} r) d
    GROUP BY 1`.execute(db)
  const byHour = new Map<number, HourSummary>()
  const empty = (hour: number) => ({ hour, samples: 0, activity: 0, temperature: null, detections: 0, nodeChanges: 0 })
  for (const r of sensor.rows) {
    const hour = Number(r.hour)
    byHour.set(hour, {
      ...empty(hour),
      samples: Number(r.samples),
      activity: Number(r.activity),
      temperature: r.temperature === null ? null : Number(r.temperature),
    })
  }
  for (const r of locations.rows) {
    const hour = Number(r.hour)
    const summary = byHour.get(hour) ?? empty(hour)
    summary.detections = Number(r.detections)
    summary.nodeChanges = Number(r.node_changes)
    byHour.set(hour, summary)
  }
  return [...byHour.values()].sort((a, b) => a.hour - b.hour)
}

/**
 * Per animal of the user: its first reading's t, and the count and median of its valid readings in (from, to], from
 * every reading (what the reference-temperature job read before the rollups).
 */
export async function sensorWindowStats(
  db: Kysely<DB>,
  uid: string,
  window: { from: number; to: number; validMin: number; validMax: number; staleBefore?: number | undefined },
): Promise<{ id: number; first_t: number | null; n: number; med: number | null }[]> {
  const { rows } = await sql<{ id: number; first_t: number | null; n: number; med: number | null }>`
    SELECT a.id, f.first_t, s.n, s.med
    FROM animals a
    CROSS JOIN LATERAL ${firstSensorReading} f
    CROSS JOIN LATERAL (
      SELECT count(*) AS n, percentile_cont(0.5) WITHIN GROUP (ORDER BY r.c) AS med
      FROM ${readingRows(SERIES.sensordata, uid, sql.ref('a.mac'), { start: window.from + 1, end: window.to })} r
      WHERE r.c >= ${window.validMin} AND r.c <= ${window.validMax}
    ) s
    WHERE a.uid = ${uid}
      ${window.staleBefore !== undefined ? sql`AND (a.reference_temperature_updated_at IS NULL OR a.reference_temperature_updated_at < ${window.staleBefore})` : sql``}`.execute(
    db,
  )
  return rows
}
