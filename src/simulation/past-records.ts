// A new farm that did not enter its sows' past: the evaluation's herd with its records dated before the evaluated
// days dropped (EvaluationOptions.pastRecords).
import type { AnimalRecords } from '../modules/predictions/reproduction.rules.ts'
import { HOUR_MS } from '../modules/predictions/hour-summaries.rules.ts'

/** The animals as a farm that entered no record dated before `from` (ms) knows them: their records from then on. */
export function withoutPastRecords<
  T extends { records: AnimalRecords; treatments: readonly number[]; heatsSeen: readonly number[] },
>(herd: readonly T[], from: number): T[] {
  const since = (times: readonly number[]) => times.filter((t) => t >= from)
  return herd.map((a) => ({
    ...a,
    records: {
      services: since(a.records.services),
      weanings: since(a.records.weanings),
      births: since(a.records.births),
      ...(a.records.failedServices && {
        failedServices: a.records.failedServices.filter((f) => f.service >= from && f.from >= from),
      }),
    },
    treatments: since(a.treatments),
    heatsSeen: since(a.heatsSeen),
  }))
}

/** The herd as the evaluation's options say the farm entered its records: all, or none before the evaluated days. */
export function asEntered<
  T extends { records: AnimalRecords; treatments: readonly number[]; heatsSeen: readonly number[] },
>(herd: readonly T[], options: { pastRecords?: boolean; start: number; historyDays: number }): T[] {
  if (options.pastRecords !== false) return [...herd]
  return withoutPastRecords(herd, Math.floor(options.start / HOUR_MS) * HOUR_MS + options.historyDays * 24 * HOUR_MS)
}
