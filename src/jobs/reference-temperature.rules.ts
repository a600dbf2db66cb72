// The reference (baseline) pinna temperature of the spec's Animal model, as pure rules: the median of the valid
// samples of the last 7 days' whole hours, each sample counted at its hour's mean of valid samples (what the hourly
// rollups keep: docs/animals-and-readings.md), or null while the tag has under 7 days of data or under 100 valid
// samples in the window.

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

export const HOUR_MS = 3_600_000

/** The window's hours: the 7 days of whole hours before the last whole hour at or before `now`, [from, to). */
export function windowHours(now: number): { from: number; to: number } {
  const to = Math.floor(now / HOUR_MS) * HOUR_MS
  return { from: to - WINDOW_MS, to }
}

/** Whether a reading at t is in the window of `now` (windowHours). */
export function inWindow(t: number, now: number): boolean {
  const { from, to } = windowHours(now)
  return t >= from && t < to
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

/** An hour of the window as the rollups keep it: its valid samples and their mean. */
export interface ValidHour {
  samples: number
  mean: number
}

/**
 * The median of the hours' samples, each sample counted at its hour's mean: the hours ordered by their mean, the
 * k-th smallest sample is the mean of the first hour whose running count of samples reaches k; the middle one, or
 * the mean of the middle two. The median of the samples themselves wherever an hour's samples lie on one side of it.
 */
export function medianOfHours(hours: readonly ValidHour[]): number | null {
  const sorted = hours.filter((h) => h.samples > 0).sort((a, b) => a.mean - b.mean)
  const total = sorted.reduce((n, h) => n + h.samples, 0)
  if (total === 0) return null
  const kth = (k: number) => {
    let upto = 0
    for (const h of sorted) {
      upto += h.samples
      if (upto >= k) return h.mean
    }
    return sorted.at(-1)!.mean
  }
  return (kth(Math.floor((total + 1) / 2)) + kth(Math.floor(total / 2) + 1)) / 2
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

/** The same rule over raw readings (their valid samples summed up per hour here): what the job must agree with. */
export function referenceFromReadings(readings: readonly { t: number; c: number }[], now: number): number | null {
  const firstReadingT = readings.length === 0 ? null : Math.min(...readings.map((r) => r.t))
  const hours = new Map<number, { samples: number; sum: number }>()
  for (const r of readings) {
    if (!inWindow(r.t, now) || !isValidSample(r.c)) continue
    const hour = Math.floor(r.t / HOUR_MS) * HOUR_MS
    const h = hours.get(hour) ?? { samples: 0, sum: 0 }
    hours.set(hour, { samples: h.samples + 1, sum: h.sum + r.c })
  }
  const valid = [...hours.values()].map((h) => ({ samples: h.samples, mean: h.sum / h.samples }))
  const validSamples = valid.reduce((n, h) => n + h.samples, 0)
  return referenceFromStats({ firstReadingT, validSamples, validMedian: medianOfHours(valid) }, now)
}

/** The next 00:00 UTC strictly after `now`. */
export function nextUtcMidnight(now: number): number {
  return (Math.floor(now / DAY_MS) + 1) * DAY_MS
}

/** The latest 00:00 UTC at or before `now`. */
export function lastUtcMidnight(now: number): number {
  return Math.floor(now / DAY_MS) * DAY_MS
}
