// An animal measured against its own usual: medians and quantiles, its usual activity at an hour of day, its usual
// movement between nodes over a day.
import { DAY_HOURS, hasData, type HourSummary } from './hour-summaries.rules.ts'
import { SCORER, type ScorerSettings } from './scorer-settings.rules.ts'

/**
 * The values in ascending order, a copy. The rules sort a few dozen values at a time, thousands of times an hour
 * scored: an insertion sort into a reused buffer beats Array.prototype.sort with a comparator there, and puts
 * equal values (0 and -0 alike) in the same order.
 */
function sortedCopy(values: readonly number[]): ArrayLike<number> {
  const n = values.length
  if (n > SORT_BUFFER.length) return [...values].sort((a, b) => a - b)
  const sorted = SORT_BUFFER
  for (let i = 0; i < n; i++) {
    const v = values[i]!
    let j = i - 1
    while (j >= 0 && sorted[j]! > v) {
      sorted[j + 1] = sorted[j]!
      j--
    }
    sorted[j + 1] = v
  }
  return sorted
}
const SORT_BUFFER = new Float64Array(64)

export function median(values: readonly number[]): number | undefined {
  const n = values.length
  if (n === 0) return undefined
  const sorted = sortedCopy(values)
  const mid = n >> 1
  return n % 2 === 1 ? sorted[mid] : (sorted[mid - 1]! + sorted[mid]!) / 2
}

/** The q-quantile (0-1) of values, interpolated; undefined without any. */
export function quantile(values: readonly number[], q: number): number | undefined {
  if (values.length === 0) return undefined
  const n = values.length
  const sorted = sortedCopy(values)
  const at = q * (n - 1)
  const low = Math.floor(at)
  return sorted[low]! + (sorted[Math.min(low + 1, n - 1)]! - sorted[low]!) * (at - low)
}

/** The activity an animal usually has at hour i: the median of the same hour of day (±1 h) on the baseline days. */
export function expectedActivity(
  hours: readonly HourSummary[],
  i: number,
  settings: ScorerSettings = SCORER,
): number | undefined {
  const values: number[] = []
  for (let day = settings.baseline.fromDay; day <= settings.baseline.toDay; day++) {
    for (let shift = -1; shift <= 1; shift++) {
      const h = hours[i - day * DAY_HOURS + shift]
      if (hasData(h)) values.push(h.activity)
    }
  }
  return values.length >= settings.baseline.minHours ? median(values) : undefined
}

/** Activity of hour i relative to the animal's baseline (1 = as usual); undefined without data or baseline. */
export function activityRatio(
  hours: readonly HourSummary[],
  i: number,
  settings: ScorerSettings = SCORER,
): number | undefined {
  const h = hours[i]
  const expected = hasData(h) ? expectedActivity(hours, i, settings) : undefined
  return expected === undefined
    ? undefined
    : (h!.activity + settings.activityFloor) / (expected + settings.activityFloor)
}

/** Added to both sides of a movement ratio (node changes per detection), so that a crate's near-zero does not divide. */
export const MOVEMENT_FLOOR = 0.02

/**
 * A day block's usual (movement, ear temperature): the median of the same block on days 2-8 before hour index `e`;
 * undefined with fewer than 4 of them.
 */
export function usualDayBlock(blocks: readonly (number | undefined)[], e: number): number | undefined {
  const before: number[] = []
  for (let d = 2; d <= 8; d++) {
    const value = blocks[e - d * DAY_HOURS]
    if (value !== undefined) before.push(value)
  }
  return before.length >= 4 ? median(before) : undefined
}

/**
 * A new tag's usual day block where usualDayBlock has none yet (it needs 4 of the blocks 2-8 days back): the median of
 * the blocks 1-8 days before `e` that lie wholly at or after the tag's first hour with data `first`, at least one of
 * them. A sow moved into the crate in the days after her tag went on drops below it; undefined before a whole block
 * of hers precedes `e`.
 */
export function newTagDayBlock(blocks: readonly (number | undefined)[], e: number, first: number): number | undefined {
  const before: number[] = []
  for (let d = 1; d <= 8; d++) {
    const b = e - d * DAY_HOURS
    if (b - DAY_HOURS + 1 < first) break
    const value = blocks[b]
    if (value !== undefined) before.push(value)
  }
  return median(before)
}

/** The index of an animal's first hour with data (its tag's first), or undefined. */
export function firstDataIndex(hours: readonly HourSummary[]): number | undefined {
  const i = hours.findIndex((h) => hasData(h))
  return i < 0 ? undefined : i
}

/** A usual built from what a new tag has, and the baseline days it counts as (its rise is shrunk by them). */
export interface NewTagUsual {
  usual: number
  days: number
}

/**
 * A new tag's usual activity at hour j for heat, while its own baseline days (from `fromDay` back) cannot exist yet:
 * j less than fromDay + 1 days after its first hour with data `first`. Its group's median activity at hour j
 * (`groupActivity`) times her own level against the group: the ratio of their sums (each with the activity floor)
 * over her hours with data at least a day before j and no earlier than `start` (her phase), at least levelHours of
 * them. What the whole pen does at that hour (a meal, the night) is in the group's activity; her heat is not in the
 * hours her level is read from. Undefined outside those days or without enough data.
 */
export function newTagUsual(
  hours: readonly HourSummary[],
  j: number,
  first: number | undefined,
  start: number,
  groupActivity: readonly (number | undefined)[],
  settings: ScorerSettings = SCORER,
): NewTagUsual | undefined {
  const newTag = settings.newTag
  if (newTag === null || first === undefined || j < first) return undefined
  if (j - first >= (settings.baseline.fromDay + 1) * DAY_HOURS) return undefined
  const group = groupActivity[j]
  if (group === undefined) return undefined
  let own = 0
  let theirs = 0
  let n = 0
  for (let b = first; b <= j - DAY_HOURS; b++) {
    const h = hours[b]
    const g = groupActivity[b]
    if (!hasData(h) || h.hour < start || g === undefined) continue
    own += h.activity
    theirs += g
    n++
  }
  if (n < newTag.levelHours) return undefined
  const floor = settings.activityFloor
  return { usual: Math.max(0, (group + floor) * ((own + n * floor) / (theirs + n * floor)) - floor), days: newTag.days }
}
