// The reference (baseline) pinna temperature of the spec's Animal model, as pure rules:
// the median of the valid samples of the last 7 days, or null while the tag has under 7 days of data
// or under 100 valid samples in the window.

export const WINDOW_DAYS = 7
export const DAY_MS = 86_400_000
export const WINDOW_MS = WINDOW_DAYS * DAY_MS
/** Pinna samples outside this range (°C, both ends valid) are glitches or a tag off the ear. */
export const VALID_MIN_C = 25.0
export const VALID_MAX_C = 42.0
export const MIN_VALID_SAMPLES = 100

export function isValidSample(c: number): boolean {
  return c >= VALID_MIN_C && c <= VALID_MAX_C
}

/** The window ending at `now`: (now - 7 days, now]. */
export function inWindow(t: number, now: number): boolean {
  return t > now - WINDOW_MS && t <= now
}

/** "7 days of data": the tag's first reading is at least 7 days before now. */
export function hasFullWindow(firstReadingT: number | null, now: number): boolean {
  return firstReadingT !== null && now - firstReadingT >= WINDOW_MS
}

export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

/** Baselines are reported to 0.01 °C, finer than any tag resolves. */
export function roundReference(value: number): number {
  return Math.round(value * 100) / 100
}

export interface WindowStats {
  /** Time of the tag's first reading ever, or null when it has none. */
  firstReadingT: number | null
  /** Valid samples in the window. */
  validSamples: number
  /** Median of those samples (null when there are none). */
  validMedian: number | null
}

/** The decision, given the window's statistics (which the job computes in SQL). */
export function referenceFromStats(stats: WindowStats, now: number): number | null {
  if (!hasFullWindow(stats.firstReadingT, now)) return null
  if (stats.validSamples < MIN_VALID_SAMPLES || stats.validMedian === null) return null
  return roundReference(stats.validMedian)
}

/** The same rule over raw readings: the reference the SQL path must agree with. */
export function referenceFromReadings(readings: readonly { t: number; c: number }[], now: number): number | null {
  const firstReadingT = readings.length === 0 ? null : Math.min(...readings.map((r) => r.t))
  const valid = readings.filter((r) => inWindow(r.t, now) && isValidSample(r.c)).map((r) => r.c)
  return referenceFromStats({ firstReadingT, validSamples: valid.length, validMedian: median(valid) }, now)
}

/** The next 00:00 UTC strictly after `now`. */
export function nextUtcMidnight(now: number): number {
  return (Math.floor(now / DAY_MS) + 1) * DAY_MS
}

/** The latest 00:00 UTC at or before `now`. */
export function lastUtcMidnight(now: number): number {
  return Math.floor(now / DAY_MS) * DAY_MS
}
