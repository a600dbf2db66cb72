// Pure rules of the ear-tag time series: plausible values, the analytics windows, clock skew.

/** ms since epoch; earlier values are almost always Unix seconds sent by mistake. */
export const T_MIN = Date.UTC(2000, 0, 1)
export const T_MAX = Date.UTC(2100, 0, 1)

/** Unix seconds (the litter devices' readings); later values are almost always ms sent by mistake. */
export const T_MIN_SECONDS = T_MIN / 1000
export const T_MAX_SECONDS = T_MAX / 1000

/** Physical bounds a tag can report (glitches inside them are stored: the reference temperature filters them). */
export const TEMPERATURE_BOUNDS = { minimum: -60, maximum: 150 }
export const ACCELERATION_BOUNDS = { minimum: -64, maximum: 64 }
export const RSSI_BOUNDS = { minimum: -150, maximum: 30 }

/** How far ahead of the service's clock a reading may be stamped (gateway clocks drift). */
export const FUTURE_SKEW_MS = 15 * 60_000

/**
 * How far ahead a reading may be stamped and still become the animal's (or device's) current state: a reading
 * stamped further ahead is stored but would otherwise pin CurrentTemperature until the clock reaches it.
 */
export const CURRENT_SKEW_MS = 2 * 60_000

/** The latest t (in the series' unit: `msPerUnit` 1 for ms, 1000 for Unix seconds) that may set the current state. */
export function currentStateUntil(now: number, msPerUnit: 1 | 1000 = 1): number {
  return Math.floor((now + CURRENT_SKEW_MS) / msPerUnit)
}

export const TIME_RANGES = ['1h', '6h', '24h', '7d', '30d'] as const
export type TimeRange = (typeof TIME_RANGES)[number]

const HOUR = 3_600_000
const RANGE_MS: Record<TimeRange, number> = {
  '1h': HOUR,
  '6h': 6 * HOUR,
  '24h': 24 * HOUR,
  '7d': 7 * 24 * HOUR,
  '30d': 30 * 24 * HOUR,
}

/** The analytics window ending now; both ends inclusive. */
export function analyticsWindow(range: TimeRange, now: number): { start: number; end: number } {
  return { start: now - RANGE_MS[range], end: now }
}

/** Index of the first row stamped beyond the allowed skew, or -1. `msPerUnit`: 1 for t in ms, 1000 for t in seconds. */
export function firstFutureRow(rows: readonly { t: number }[], now: number, msPerUnit: 1 | 1000 = 1): number {
  const limit = now + FUTURE_SKEW_MS
  return rows.findIndex((row) => row.t * msPerUnit > limit)
}

/** Euclidean magnitude of an acceleration vector, in g. */
export function magnitude(x: number, y: number, z: number): number {
  return Math.sqrt(x * x + y * y + z * z)
}

/** One hour of one animal's readings, as the rules see them. */
export interface HourSummary {
  /** Start of the hour, ms since epoch. */
  hour: number
  /** Sensor samples in the hour; an hour with fewer than the scorer's minimum counts as missing. */
  samples: number
  /** Share of the samples that were moving (0-1): |‖(x, y, z)‖ - 1 g| above the scorer's moving threshold. */
  activity: number
  /** Mean of the valid pinna samples, °C; null without any. */
  temperature: number | null
  /** Location detections in the hour, and how many came from another node than the detection before. */
  detections: number
  nodeChanges: number
}
