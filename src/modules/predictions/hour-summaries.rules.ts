// Hourly summaries of an animal's readings, what every rule of the scorer reads: summed up here over rows in
// memory (the evaluation), and in SQL by the hourly job (readings.summaries.ts) with the same thresholds; and their
// day blocks (the 24 h ending at an hour).
import { MOVING_THRESHOLD_G, VALID_TEMPERATURE, type HourSummary } from '../readings/readings.rules.ts'

/** ms in an hour: summaries are per whole UTC hour. */
export const HOUR_MS = 3_600_000
export const DAY_HOURS = 24
export const DAY_MS = DAY_HOURS * HOUR_MS

/** Pinna samples outside VALID_TEMPERATURE are glitches; a sample is moving beyond MOVING_THRESHOLD_G: the readings' rollups count by them. */
export { MOVING_THRESHOLD_G, VALID_TEMPERATURE }
/** An hour with fewer sensor samples is treated as missing (a tag sampling every 10 minutes sends 6). */
export const MIN_SAMPLES_PER_HOUR = 6

/** What the hourly summaries in SQL (readings.repository.ts) need of the scorer. */
export const SUMMARY_THRESHOLDS = { HOUR_MS, MOVING_THRESHOLD_G, VALID_TEMPERATURE }
/** A day block (the 24 h ending at an hour) needs this many hours with data; its movement this many detections. */
export const DAY_MIN_HOURS = 12
export const DAY_MIN_DETECTIONS = 50

export type { HourSummary }

/** Whether a sample shows movement: its magnitude differs from gravity alone by more than MOVING_THRESHOLD_G. */
export function isMoving(x: number, y: number, z: number): boolean {
  return Math.abs(Math.sqrt(x * x + y * y + z * z) - 1) > MOVING_THRESHOLD_G
}

/**
 * Hourly summaries of readings (what the job computes in SQL, here over rows in memory). Rows may come
 * in any order; node changes follow the detections in time order, the first one counting as no change.
 */
export function summarizeHours(
  sensor: Iterable<{ t: number; c: number; x: number; y: number; z: number }>,
  locations: Iterable<{ t: number; nodeuid: string }>,
): HourSummary[] {
  const hours = new Map<
    number,
    {
      samples: number
      activitySum: number
      temperatureSum: number
      temperatures: number
      detections: number
      nodeChanges: number
    }
  >()
  const bucket = (t: number) => {
    const hour = Math.floor(t / HOUR_MS) * HOUR_MS
    let b = hours.get(hour)
    if (!b)
      hours.set(
        hour,
        (b = { samples: 0, activitySum: 0, temperatureSum: 0, temperatures: 0, detections: 0, nodeChanges: 0 }),
      )
    return b
  }
  for (const r of sensor) {
    const b = bucket(r.t)
    b.samples++
    if (isMoving(r.x, r.y, r.z)) b.activitySum++
    if (r.c >= VALID_TEMPERATURE.min && r.c <= VALID_TEMPERATURE.max) {
      b.temperatureSum += r.c
      b.temperatures++
    }
  }
  let previous: string | undefined
  for (const d of [...locations].sort((a, b) => a.t - b.t)) {
    const b = bucket(d.t)
    b.detections++
    if (previous !== undefined && d.nodeuid !== previous) b.nodeChanges++
    previous = d.nodeuid
  }
  return [...hours]
    .sort(([a], [b]) => a - b)
    .map(([hour, b]) => ({
      hour,
      samples: b.samples,
      activity: b.samples > 0 ? b.activitySum / b.samples : 0,
      temperature: b.temperatures > 0 ? b.temperatureSum / b.temperatures : null,
      detections: b.detections,
      nodeChanges: b.nodeChanges,
    }))
}

/** Summaries laid out hour by hour from `first` to `last` (hour starts), hours without readings empty. */
export function alignHours(summaries: readonly HourSummary[], first: number, last: number): HourSummary[] {
  const byHour = new Map(summaries.map((s) => [s.hour, s]))
  const out: HourSummary[] = []
  for (let hour = first; hour <= last; hour += HOUR_MS) {
    out.push(byHour.get(hour) ?? { hour, samples: 0, activity: 0, temperature: null, detections: 0, nodeChanges: 0 })
  }
  return out
}

/** Whether the tag sent readings in the 24 h up to hour i: a silent tag gets no prediction (the job scores no such hour). */
export function heardFrom(hours: readonly HourSummary[], i: number): boolean {
  for (let j = Math.max(0, i - 23); j <= i; j++) if (hours[j]!.samples >= MIN_SAMPLES_PER_HOUR) return true
  return false
}

/** An hour with enough samples to count (MIN_SAMPLES_PER_HOUR). */
export const hasData = (h: HourSummary | undefined): h is HourSummary =>
  h !== undefined && h.samples >= MIN_SAMPLES_PER_HOUR

/** For each hour e in [from, to], the mean of value over the 24 h ending at e; undefined under DAY_MIN_HOURS values. */
export function dayMeans(value: (i: number) => number | undefined, from: number, to: number): (number | undefined)[] {
  const out = new Array<number | undefined>(to + 1)
  let sum = 0
  let count = 0
  const add = (i: number, sign: number) => {
    const v = i >= 0 ? value(i) : undefined
    if (v === undefined) return
    sum += sign * v
    count += sign
  }
  for (let j = from - DAY_HOURS; j < from; j++) add(j, 1)
  for (let e = from; e <= to; e++) {
    add(e, 1)
    add(e - DAY_HOURS, -1)
    out[e] = count >= DAY_MIN_HOURS ? sum / count : undefined
  }
  return out
}

/** What a day block sums of each hour. */
export interface DayBlock {
  value: (h: HourSummary) => number
  /** A per-hour count. */
  weight: (h: HourSummary) => number
  /** The least sum of the weights for the block to have a value. */
  min: number
  /** The value is a count: the block is sum(value) / sum(weight) rather than value's weighted mean. */
  ratio: boolean
}
/** A day's activity: the mean of the hours with data. */
export const DAY_ACTIVITY: DayBlock = {
  value: (h) => h.activity,
  weight: (h) => (hasData(h) ? 1 : 0),
  min: DAY_MIN_HOURS,
  ratio: false,
}
/** A day's movement: node changes per detection. */
export const DAY_MOVEMENT: DayBlock = {
  value: (h) => h.nodeChanges,
  weight: (h) => h.detections,
  min: DAY_MIN_DETECTIONS,
  ratio: true,
}

/**
 * For each hour e in [from, to], over the 24 h ending at e: the block's value (see DayBlock); undefined when the
 * weights sum to less than its min.
 */
export function dayBlocks(
  hours: readonly HourSummary[],
  from: number,
  to: number,
  { value, weight, min, ratio }: DayBlock,
): (number | undefined)[] {
  const out = new Array<number | undefined>(to + 1)
  let sum = 0
  let weights = 0
  const add = (h: HourSummary | undefined, sign: number) => {
    if (!h) return
    const w = weight(h)
    sum += sign * (ratio ? value(h) : value(h) * w)
    weights += sign * w
  }
  for (let j = from - DAY_HOURS; j < from; j++) add(hours[j], 1)
  for (let e = from; e <= to; e++) {
    add(hours[e], 1)
    add(hours[e - DAY_HOURS], -1)
    out[e] = weights >= min ? sum / weights : undefined
  }
  return out
}
