// The readings summed up per hour for the predictions scorer (hour-summaries.rules.ts summarizeHours), in SQL over the
// hourly rollups (readings.repository.ts hourlyRows).
import { sql, type Kysely } from 'kysely'
import type { DB } from '../../db/schema.ts'
import { hourlyRows } from './readings.repository.ts'
import { MOVING_THRESHOLD_G, VALID_TEMPERATURE, type HourSummary } from './readings.rules.ts'
import { hourOf, SERIES } from './readings.series.ts'

/**
 * The scorer's figures an hourly summary uses (hour-summaries.rules.ts). The rollups count by the readings' own
 * (readings.rules.ts), which the scorer imports; handing them in checks that they are the same.
 */
export interface SummaryThresholds {
  HOUR_MS: number
  MOVING_THRESHOLD_G: number
  VALID_TEMPERATURE: { min: number; max: number }
}

/**
 * One tag's readings summed up per hour in [from, to): the same figures as summarizeHours in hour-summaries.rules.ts
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
