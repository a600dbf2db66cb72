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
