// Pure rules of the litter-monitoring devices: time windows in Unix seconds, connectivity (Active), and
// the activity rules of the analytics. The database computes the aggregates (litterguards.repository.ts);
// these functions turn them into the API's verdicts.
import { LITTER_BUCKET, type TimeRange } from '../readings/readings.rules.ts'

const MINUTE = 60
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR

export const RANGE_SECONDS: Record<TimeRange, number> = {
  '1h': HOUR,
  '6h': 6 * HOUR,
  '24h': DAY,
  '7d': 7 * DAY,
  '30d': 30 * DAY,
}

export interface Window {
  start: number
  end: number
}

/** The window of `range` ending now, in Unix seconds, both ends inclusive. */
export function deviceWindow(range: TimeRange, nowMs: number): Window {
  const end = Math.floor(nowMs / 1000)
  return { start: end - RANGE_SECONDS[range], end }
}

/**
 * The oldest LastSeen (Unix seconds) that still counts as Active at `nowMs`: a device is Active while its
 * newest reading is at most `windowMinutes` old. Computed when read, so it is never stale.
 */
export function activeSince(nowMs: number, windowMinutes: number): number {
  return Math.ceil((nowMs - windowMinutes * 60_000) / 1000)
}

export function isActive(lastSeen: number | null, nowMs: number, windowMinutes: number): boolean {
  return lastSeen !== null && lastSeen >= activeSince(nowMs, windowMinutes)
}

export interface ReadingsRangeQuery {
  timeRange?: TimeRange | undefined
  startTime?: number | undefined
  endTime?: number | undefined
}

/**
 * The span a sensordata read covers (Unix seconds, both ends inclusive, either end open): `timeRange`
 * ending now, or `startTime`/`endTime`; the two forms do not mix, and the start may not follow the end.
 */
export function readingsRange(
  q: ReadingsRangeQuery,
  nowMs: number,
): { start?: number; end?: number } | { problem: { field: string; message: string } } {
  if (q.timeRange !== undefined) {
    if (q.startTime !== undefined || q.endTime !== undefined) {
      return { problem: { field: 'query:timeRange', message: 'give either timeRange or startTime/endTime, not both' } }
    }
    return deviceWindow(q.timeRange, nowMs)
  }
  if (q.startTime !== undefined && q.endTime !== undefined && q.startTime > q.endTime) {
    return { problem: { field: 'query:startTime', message: 'must not be after endTime' } }
  }
  return {
    ...(q.startTime !== undefined ? { start: q.startTime } : {}),
    ...(q.endTime !== undefined ? { end: q.endTime } : {}),
  }
}

// Activity. A device at rest measures gravity, about 1 g, whatever it is mounted on, so the mean
// magnitude √(x²+y²+z²) barely moves when the litter does: the activity rules use its dynamic part,
// |√(x²+y²+z²) − 1 g| (the overall dynamic body acceleration of animal accelerometry).

/** The device's own baseline: the 7 days before the analysed window. */
export const BASELINE_SECONDS = 7 * DAY
/** Below the activity's `low` ratio to the baseline the level is low, above the `high` one high. */
export const ACTIVITY_RATIOS = { low: 0.8, high: 1.2 }
/** Sensor noise, g: means (and spreads) below it count as this much, so a still device beside a still baseline is normal. */
export const NOISE_FLOOR_G = 0.01
/**
 * Unusual activity: UNUSUAL_RUN_BUCKETS consecutive buckets of BUCKET_SECONDS whose means lie beyond UNUSUAL_SIGMAS
 * baseline standard deviations. One bucket alone is not enough: a window holds 144 of them a day, so even
 * normally distributed bucket means cross ±3σ somewhere on about a third of days (two in a row on about 0.1 %), and
 * a litter's suckling bouts more often (bench/litterguard-unusual.ts, the simulator's quiet pens: 25-36 of 40 days
 * for one bucket, 0-1 for two in a row).
 */
export const BUCKET_SECONDS = LITTER_BUCKET
export const UNUSUAL_SIGMAS = 3
export const UNUSUAL_RUN_BUCKETS = 2
/** Baseline buckets needed before anything is called unusual: 6 hours of data. */
export const MIN_BASELINE_BUCKETS = 36

/** The baseline of a window: [start − 7 days, start), in Unix seconds. */
export function baselineWindow(window: Window): { start: number; endBefore: number } {
  return { start: window.start - BASELINE_SECONDS, endBefore: window.start }
}

/**
 * The summary's window: the 144 whole 10-minute buckets (UTC) ending at the last whole 10 minutes at or before
 * `nowMs`, [start, end) in Unix seconds; its baseline the 7 days before `start`. Both on bucket boundaries, so that
 * the summary reads the hourly rollups' buckets alone, never a reading (the bucket in progress is not in it yet).
 */
export function summaryWindow(nowMs: number): { start: number; endBefore: number; baselineStart: number } {
  const endBefore = Math.floor(nowMs / 1000 / BUCKET_SECONDS) * BUCKET_SECONDS
  const start = endBefore - RANGE_SECONDS['24h']
  return { start, endBefore, baselineStart: start - BASELINE_SECONDS }
}

/** The acceleration beyond gravity of one reading, g. */
export function dynamicAcceleration(x: number, y: number, z: number): number {
  return Math.abs(Math.sqrt(x * x + y * y + z * z) - 1)
}

export type ActivityLevel = 'low' | 'normal' | 'high'

/**
 * The window's mean dynamic acceleration against the baseline's: below 0.8× low, above 1.2× high,
 * else normal. Normal too when either has no readings (there is nothing to compare).
 */
export function activityLevel(windowMean: number | null, baselineMean: number | null): ActivityLevel {
  if (windowMean === null || baselineMean === null) return 'normal'
  const ratio = Math.max(windowMean, NOISE_FLOOR_G) / Math.max(baselineMean, NOISE_FLOOR_G)
  if (ratio < ACTIVITY_RATIOS.low) return 'low'
  if (ratio > ACTIVITY_RATIOS.high) return 'high'
  return 'normal'
}

/** The 10-minute buckets' mean dynamic acceleration: the baseline's distribution and the window's buckets. */
export interface BucketStats {
  baselineBuckets: number
  baselineMean: number | null
  /** Population standard deviation of the baseline buckets. */
  baselineSd: number | null
  /** The window's buckets with readings, in time order; `bucket` numbers them from the epoch (UTC-aligned). */
  windowBuckets: readonly { bucket: number; activity: number }[]
}

/**
 * Unusual when two consecutive buckets of the window (10 minutes each, UTC-aligned, the first cut by the window's
 * start) lie more than
 * 3 standard deviations (at least the noise floor) from the mean of the baseline's buckets, either way;
 * never with fewer than 36 baseline buckets. A bucket without readings breaks a run.
 */
export function unusualActivity(s: BucketStats): boolean {
  if (s.baselineBuckets < MIN_BASELINE_BUCKETS || s.baselineMean === null) return false
  const limit = UNUSUAL_SIGMAS * Math.max(s.baselineSd ?? 0, NOISE_FLOOR_G)
  let run = 0
  let previous = Number.NEGATIVE_INFINITY
  for (const { bucket, activity } of s.windowBuckets) {
    const deviates = Math.abs(activity - s.baselineMean) > limit
    run = !deviates ? 0 : bucket === previous + 1 ? run + 1 : 1
    if (run >= UNUSUAL_RUN_BUCKETS) return true
    previous = bucket
  }
  return false
}
