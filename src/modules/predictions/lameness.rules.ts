// Lameness: activity and movement between nodes declining over about two weeks.
import { SCORER, type ScorerSettings } from './scorer-settings.rules.ts'
import { MOVEMENT_FLOOR, median } from './baselines.rules.ts'

/** Day values of the recent days and of the baseline days, for lamenessDecline. */
export interface DaySeries {
  recent: number[]
  baseline: number[]
}

/**
 * Lameness: how far the recent days fell below the baseline days, 0-1 (0.3 = 30 % less): the recent mean
 * against the baseline median. Activity, and movement between nodes where the tag is detected often enough:
 * both count (their geometric mean), so a decline of one alone must be deeper.
 */
export function lamenessDecline(
  activity: DaySeries,
  movement?: DaySeries,
  settings: ScorerSettings = SCORER,
): number | undefined {
  const level = (series: DaySeries, floor: number) => {
    if (series.recent.length < 3 || series.baseline.length < 4) return undefined
    const recent = series.recent.reduce((a, b) => a + b, 0) / series.recent.length
    return (recent + floor) / (median(series.baseline)! + floor)
  }
  const a = level(activity, settings.activityFloor / 4)
  if (a === undefined) return undefined
  const m = movement ? level(movement, MOVEMENT_FLOOR) : undefined
  return Math.max(0, 1 - (m === undefined ? a : Math.sqrt(a * m)))
}

/** A day's ear temperature against the animal's usual: within the bar, or warmer or cooler by more. */
export type TemperatureShift = 'steady' | 'warm' | 'cool'

/**
 * How each of a lameness decline's days (day blocks' mean ear temperature against the group's, °C; undefined without
 * readings) lies against the median over the days read, by more than maxShiftC or not. A day much warmer than the
 * animal's usual is a sickness (a fever lowers activity as lameness does); much cooler, a tag off the skin (a loose
 * tag reads the air gap and swings at rest, raising the activity it reads); a step, a tag replaced. None of them says
 * how the animal walks. A day without readings is steady (it has no activity either).
 */
export function temperatureShifts(offsets: readonly (number | undefined)[], maxShiftC: number): TemperatureShift[] {
  const usual = median(offsets.filter((o): o is number => o !== undefined))
  return offsets.map((o) => {
    if (o === undefined || usual === undefined || Math.abs(o - usual) <= maxShiftC) return 'steady'
    return o > usual ? 'warm' : 'cool'
  })
}
