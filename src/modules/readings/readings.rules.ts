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

// Downsampled series (GET .../sensordata/aggregate): buckets of a fixed interval, aligned to UTC.

export const AGGREGATE_INTERVALS = ['5m', '15m', '1h', '6h', '1d'] as const
export type AggregateInterval = (typeof AGGREGATE_INTERVALS)[number]
export const AGGREGATE_DEFAULT_INTERVAL: AggregateInterval = '1h'
export const INTERVAL_MS: Record<AggregateInterval, number> = {
  '5m': 5 * 60_000,
  '15m': 15 * 60_000,
  '1h': HOUR,
  '6h': 6 * HOUR,
  '1d': 24 * HOUR,
}
/** The most buckets one request may span (a 5-minute series of about 34 days, an hourly one of 416). */
export const AGGREGATE_MAX_BUCKETS = 10_000
/** Without startTime the span is the day before endTime. */
export const AGGREGATE_DEFAULT_SPAN_MS = 24 * HOUR

export interface AggregateParams {
  interval: AggregateInterval
  startTime?: number | undefined
  endTime?: number | undefined
}

/** A resolved aggregate span, in the series' unit of t (both ends inclusive), and its bucket size in that unit. */
export interface AggregateSpan {
  interval: AggregateInterval
  start: number
  end: number
  size: number
}

/** Whether buckets of this interval are sums of whole hours, summed from the hourly rollups rather than the readings. */
export function fromRollups(interval: AggregateInterval): boolean {
  return INTERVAL_MS[interval] % HOUR === 0
}

/** An aggregate over more hours than this reads as many rollup rows as a long series reads readings: it is expensive. */
export const AGGREGATE_EXPENSIVE_HOURS = 1000

/**
 * Whether an aggregate request is expensive (it counts against the caller's bound, plugins/expensive-requests.ts):
 * buckets summed from the readings always, buckets of rollups over more than AGGREGATE_EXPENSIVE_HOURS. A request
 * whose span is refused is not (it never reaches the store).
 */
export function aggregateIsExpensive(q: AggregateParams, nowMs: number, msPerUnit: 1 | 1000 = 1): boolean {
  const span = aggregateSpan(q, nowMs, msPerUnit)
  if ('problem' in span) return false
  return !fromRollups(span.interval) || ((span.end - span.start) * msPerUnit) / HOUR > AGGREGATE_EXPENSIVE_HOURS
}

/** The bucket (its start, a multiple of `size` since the epoch) that holds t. */
export function bucketOf(t: number, size: number): number {
  return t - (t % size)
}

/**
 * The span an aggregate covers: endTime (default now) and startTime (default the day before endTime), in the
 * series' unit (`msPerUnit` 1 for ms, 1000 for Unix seconds). A start after the end, or a span of more than
 * AGGREGATE_MAX_BUCKETS buckets, is a problem for a 400.
 */
export function aggregateSpan(
  q: AggregateParams,
  nowMs: number,
  msPerUnit: 1 | 1000 = 1,
): AggregateSpan | { problem: { field: string; message: string } } {
  const size = INTERVAL_MS[q.interval] / msPerUnit
  const end = q.endTime ?? Math.floor(nowMs / msPerUnit)
  const start = q.startTime ?? Math.max(0, end - AGGREGATE_DEFAULT_SPAN_MS / msPerUnit)
  if (start > end) {
    return {
      problem: {
        field: 'query:startTime',
        message: q.endTime === undefined ? 'must not be after endTime (default now)' : 'must not be after endTime',
      },
    }
  }
  const buckets = (bucketOf(end, size) - bucketOf(start, size)) / size + 1
  if (buckets > AGGREGATE_MAX_BUCKETS) {
    return {
      problem: {
        field: 'query:interval',
        message:
          `the span from startTime to endTime holds ${buckets} buckets of ${q.interval}; at most ${AGGREGATE_MAX_BUCKETS} a request ` +
          '(narrow the span or take a longer interval)',
      },
    }
  }
  return { interval: q.interval, start, end, size }
}

/** Index of the first row stamped beyond the allowed skew, or -1. `msPerUnit`: 1 for t in ms, 1000 for t in seconds. */
export function firstFutureRow(rows: readonly { t: number }[], now: number, msPerUnit: 1 | 1000 = 1): number {
  const limit = now + FUTURE_SKEW_MS
  return rows.findIndex((row) => row.t * msPerUnit > limit)
}

/**
 * What the sensor rollups count, for the scorer's hourly summaries (docs/storage.md#hourly-rollups). They are
 * stored facts: the rollups hold the counts by these values, so a change means summing the rollups up again.
 * A reading is moving when its acceleration's magnitude differs from gravity alone by more than
 * MOVING_THRESHOLD_G (a resting tag's noise is ~0.01 g); a pinna temperature outside VALID_TEMPERATURE is a
 * glitch (as for the reference temperature).
 */
export const MOVING_THRESHOLD_G = 0.1
export const VALID_TEMPERATURE = { min: 25, max: 42 } as const

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

/**
 * The first t kept (in the series' unit: `msPerT` ms) when a retention keeps `days` days at `at` (ms): the start
 * of the hour `days` days before, so that an hour of readings, packed or not, is wholly kept or wholly gone.
 */
export function retainedFrom(msPerT: number, at: number, days: number): number {
  const hour = 3_600_000 / msPerT
  return Math.floor((at - days * 86_400_000) / msPerT / hour) * hour
}

/** A litter device's activity bucket, seconds: its hourly rollup keeps six an hour, aligned to UTC (docs/litterguards.md#activity). */
export const LITTER_BUCKET = 600
