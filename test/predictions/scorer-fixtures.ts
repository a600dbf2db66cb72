// Fixtures of the scorer's rule tests: synthetic hourly summaries and records dated before an instant.
import { HOUR_MS, type HourSummary } from '../../src/modules/predictions/hour-summaries.rules.ts'
import type { AnimalRecords } from '../../src/modules/predictions/reproduction.rules.ts'

export const DAY = 86_400_000
export const T0 = Date.UTC(2026, 0, 5)

/** `days` of hourly summaries from T0, activity (share moving) from a function of the hour index. */
export function series(
  days: number,
  activity: (i: number) => number,
  extra: (i: number) => Partial<HourSummary> = () => ({}),
): HourSummary[] {
  return Array.from({ length: days * 24 }, (_, i) => ({
    hour: T0 + i * HOUR_MS,
    samples: 60,
    activity: activity(i),
    temperature: 37,
    detections: 12,
    nodeChanges: 3,
    ...extra(i),
  }))
}
/** A steady animal: 12 % of its time moving by day (06-18 UTC), 4 % by night. */
export const steady = (i: number) => (i % 24 >= 6 && i % 24 < 18 ? 0.12 : 0.04)

/** Records dated in days before t. */
export const recordsBefore =
  (t: number) =>
  (days: Partial<Record<keyof AnimalRecords, number[]>>): AnimalRecords => ({
    services: (days.services ?? []).map((d) => t - d * DAY),
    weanings: (days.weanings ?? []).map((d) => t - d * DAY),
    births: (days.births ?? []).map((d) => t - d * DAY),
  })
