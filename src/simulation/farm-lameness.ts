// Lameness's probabilities as a farm that keeps records is shown them: the global probabilities shifted by the farm's
// own base rate (lamenessPrior in farm-calibration.rules.ts), learned as the predictions job learns it. The evaluation
// measures calibration on them; alarms stay on the global probabilities.
import { HOUR_MS, heardFrom, type HourSummary } from '../modules/predictions/hour-summaries.rules.ts'
import { LEARNING } from '../modules/predictions/farm-learning.rules.ts'
import {
  farmProbability,
  lamenessPrior,
  phaseRecordsIn,
  type LamenessPrior,
} from '../modules/predictions/farm-calibration.rules.ts'
import type { AnimalRecords } from '../modules/predictions/reproduction.rules.ts'
import type { ClassificationType } from '../modules/predictions/predictions.rules.ts'

const DAY_MS = 24 * HOUR_MS

/** What the prior reads of a simulated animal (evaluation.ts SimulatedAnimalData): when its tag was heard, its records. */
interface AnimalHoursAndRecords {
  hours: readonly HourSummary[]
  records: Pick<AnimalRecords, 'births' | 'weanings'>
}
/** Per animal and hour index, each class's probability (evaluation.ts Scores). */
type Scores = Record<ClassificationType, number[]>[]

/**
 * Lameness's probabilities with the farm's prior applied as the job applies it: learned every LEARNING.everyDays days
 * from the first scored day, from the daily peaks of the hours scored in the LEARNING.periodDays before (an hour is
 * scored, as in the job, when its tag was heard in the 24 h up to it) and the farrowings and weanings recorded then;
 * each learning's shift maps the hours until the next. Returns the mapped scores and each learning's prior.
 */
export function farmLameness(
  herd: readonly AnimalHoursAndRecords[],
  scores: Scores,
  from: number,
  to: number,
  withRecords: boolean,
  levels: { lameness: number },
): { shown: Scores; priors: { at: string; prior: LamenessPrior }[] } {
  const heard = heardHours(herd)
  const shown: Scores = scores.map((s) => ({ birth: s.birth, heat: s.heat, lameness: [...s.lameness] }))
  const priors: { at: string; prior: LamenessPrior }[] = []
  const step = LEARNING.everyDays * 24
  for (let at = from; at <= to; at += step) {
    const periodFrom = Math.max(from, at - LEARNING.periodDays * 24)
    const prior = simulatedLamenessPrior(herd, scores, periodFrom, at, withRecords, levels.lameness, heard)
    priors.push({ at: new Date(herd[0]!.hours[at]!.hour).toISOString(), prior })
    if (prior.shift === 0) continue
    const map = { intercept: prior.shift, slope: 1 }
    shown.forEach((s, k) => {
      for (let i = at; i < Math.min(to + 1, at + step); i++)
        s.lameness[i] = farmProbability(map, scores[k]!.lameness[i] ?? 0, levels.lameness)
    })
  }
  return { shown, priors }
}

/** Per animal and hour: whether the hour is scored, as in the job (heardFrom: its tag was heard in the 24 h up to it). */
export function heardHours(herd: readonly AnimalHoursAndRecords[]): boolean[][] {
  return herd.map((a) => a.hours.map((_, i) => heardFrom(a.hours, i)))
}

/**
 * The lameness prior the job would learn at the start of hour `at` from the hours periodFrom..at-1: the daily peaks of
 * the scored hours' lameness probabilities (global) and the farrowings and weanings recorded in the period (none when
 * the farm keeps no records), through lamenessPrior and phaseRecordsIn as the job calls them.
 */
export function simulatedLamenessPrior(
  herd: readonly AnimalHoursAndRecords[],
  scores: Scores,
  periodFrom: number,
  at: number,
  withRecords: boolean,
  alarmLevel: number,
  heard: readonly (readonly boolean[])[] = heardHours(herd),
): LamenessPrior {
  const hourStart = (i: number) => herd[0]!.hours[i]!.hour
  const peaks = new Map<string, { animalId: number; day: number; peak: number }>()
  herd.forEach((_, k) => {
    for (let i = periodFrom; i < at; i++) {
      if (!heard[k]![i]) continue
      const day = Math.floor(hourStart(i) / DAY_MS) * DAY_MS
      const key = `${k} ${day}`
      const p = scores[k]!.lameness[i] ?? 0
      const peak = peaks.get(key)
      if (!peak) peaks.set(key, { animalId: k, day, peak: p })
      else peak.peak = Math.max(peak.peak, p)
    }
  })
  const phaseRecords = withRecords
    ? phaseRecordsIn(
        herd.map((a) => a.records),
        hourStart(periodFrom),
        hourStart(at),
      )
    : 0
  return lamenessPrior([...peaks.values()], alarmLevel, phaseRecords)
}
