// The plain thresholds the evaluation measures beside the scorer: what a first attempt on raw activity would alarm at.
import type { HourSummary } from '../modules/predictions/hour-summaries.rules.ts'
import type { ClassificationType } from '../modules/predictions/predictions.rules.ts'

/**
 * The plain thresholds a first attempt would use, on raw activity: birth when an hour is 3x the mean hour of
 * the week before, heat when the last 24 h are 1.3x the mean day of days 2-8 back, lameness when the last
 * 5 days are 25 % below days 14-20 back.
 */
export function plainThresholds(
  hours: readonly HourSummary[],
  from: number,
  to: number,
): Record<ClassificationType, number[]> {
  const n = hours.length
  const out = {
    birth: new Array<number>(n).fill(0),
    heat: new Array<number>(n).fill(0),
    lameness: new Array<number>(n).fill(0),
  }
  const meanActivity = (a: number, b: number) => {
    let sum = 0
    let count = 0
    for (let j = Math.max(0, a); j <= b; j++) {
      if (hours[j]!.samples > 0) {
        sum += hours[j]!.activity
        count++
      }
    }
    return count === 0 ? undefined : sum / count
  }
  for (let i = from; i <= to; i++) {
    const h = hours[i]!
    const week = meanActivity(i - 168, i - 24)
    if (h.samples > 0 && week !== undefined && h.activity > 3 * week) out.birth[i] = 1
    const day = meanActivity(i - 23, i)
    const usual = meanActivity(i - 8 * 24, i - 2 * 24)
    if (day !== undefined && usual !== undefined && day > 1.3 * usual) out.heat[i] = 1
    const recent = meanActivity(i - 5 * 24 + 1, i)
    const before = meanActivity(i - 21 * 24 + 1, i - 14 * 24)
    if (recent !== undefined && before !== undefined && recent < 0.75 * before) out.lameness[i] = 1
  }
  return out
}
