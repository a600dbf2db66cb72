// The probabilities a farm that keeps records is shown: each class's global probabilities through the farm's own map
// (farm-calibration.rules.ts), fitted as the predictions job fits it, every LEARNING.everyDays days from the hours it
// scored in the LEARNING.periodDays before and the records known by then (farrowings for birth, services for heat),
// lameness's from the farm's own base rate (lamenessPrior). The evaluation measures calibration on them; alarms stay
// on the global probabilities (a map rises strictly).
import { HOUR_MS, heardFrom, type HourSummary } from '../modules/predictions/hour-summaries.rules.ts'
import { LEARNING } from '../modules/predictions/farm-learning.rules.ts'
import { MATCH_WINDOWS, mergeMoments } from '../modules/predictions/accuracy.rules.ts'
import {
  FIT_WINDOWS,
  eventsInFitPeriod,
  farmProbability,
  fitFarmCalibration,
  labelHours,
  lamenessPrior,
  phaseRecordsIn,
  poolHours,
  type FarmCalibrationFit,
  type LamenessPrior,
} from '../modules/predictions/farm-calibration.rules.ts'
import type { AnimalRecords } from '../modules/predictions/reproduction.rules.ts'
import { CLASSIFICATION_TYPES, type ClassificationType } from '../modules/predictions/predictions.rules.ts'

const DAY_MS = 24 * HOUR_MS

/** What the fits read of a simulated animal (evaluation.ts SimulatedAnimalData): when its tag was heard, its records. */
interface AnimalHoursAndRecords {
  hours: readonly HourSummary[]
  records: Pick<AnimalRecords, 'births' | 'weanings' | 'services'>
  /** Lameness treatments the farm recorded. */
  treatments: readonly number[]
  /** Returns to estrus the farm recorded: heats it saw. */
  heatsSeen: readonly number[]
}
/** Per animal and hour index, each class's probability (evaluation.ts Scores). */
type Scores = Record<ClassificationType, number[]>[]

/** Each learning's fit of one class: when it was learned and what it fitted. */
export type FarmMapFits = Record<ClassificationType, { at: string; fit: FarmCalibrationFit }[]>

/**
 * Every class's probabilities as the farm is shown them: refitted every LEARNING.everyDays days from `firstFit` on,
 * from the hours scored since `from`, each fit (farmFit) mapping the hours until the next. Without records only
 * lameness's prior could move, and it needs the farrowings and weanings recorded, so nothing does. Returns the mapped
 * scores and each fit.
 */
export function farmMaps(
  herd: readonly AnimalHoursAndRecords[],
  scores: Scores,
  from: number,
  to: number,
  withRecords: boolean,
  levels: Record<ClassificationType, number>,
  /** The hour of the first fit (default `from`): the hours before it are shown as scored. */
  firstFit: number = from,
): { shown: Scores; fits: FarmMapFits } {
  const heard = heardHours(herd)
  const shown: Scores = scores.map((s) => ({ birth: [...s.birth], heat: [...s.heat], lameness: [...s.lameness] }))
  const fits: FarmMapFits = { birth: [], heat: [], lameness: [] }
  const step = LEARNING.everyDays * 24
  for (let at = firstFit; at <= to; at += step) {
    const periodFrom = Math.max(from, at - LEARNING.periodDays * 24)
    for (const kind of CLASSIFICATION_TYPES) {
      const fit = farmFit(herd, scores, kind, periodFrom, at, withRecords, levels, heard)
      fits[kind].push({ at: new Date(herd[0]!.hours[at]!.hour).toISOString(), fit })
      shown.forEach((s, k) => {
        for (let i = at; i < Math.min(to + 1, at + step); i++)
          s[kind][i] = farmProbability(fit.map, scores[k]![kind][i] ?? 0, levels[kind])
      })
    }
  }
  return { shown, fits }
}

/**
 * One class's map as the job would fit it at the start of hour `at` from the scored hours periodFrom..at-1 (their
 * global probabilities; an hour is scored when its tag was heard in the 24 h up to it) and the farm's records known by
 * then, merged as the job merges them (MATCH_WINDOWS) and labelled by FIT_WINDOWS; lameness's from the farm's prior.
 */
export function farmFit(
  herd: readonly AnimalHoursAndRecords[],
  scores: Scores,
  kind: ClassificationType,
  periodFrom: number,
  at: number,
  withRecords: boolean,
  levels: Record<ClassificationType, number>,
  heard: readonly (readonly boolean[])[] = heardHours(herd),
): FarmCalibrationFit {
  const hourEnd = (i: number) => herd[0]!.hours[i]!.hour + HOUR_MS
  const [start, end] = [herd[0]!.hours[periodFrom]!.hour, herd[0]!.hours[at]!.hour]
  const window = FIT_WINDOWS[kind]
  const hours: { animalId: number; at: number; probability: number }[] = []
  const recorded: { animalId: number; at: number }[] = []
  herd.forEach((animal, k) => {
    if (window)
      for (let i = periodFrom; i < at; i++)
        if (heard[k]![i]) hours.push({ animalId: k, at: hourEnd(i), probability: scores[k]![kind][i] ?? 0 })
    if (!withRecords) return
    for (const moment of recordedMoments(animal, kind)) if (moment <= end) recorded.push({ animalId: k, at: moment })
  })
  const events = mergeMoments(recorded, MATCH_WINDOWS[kind].eventMergeMs)
  const inPeriod = eventsInFitPeriod(kind, events, start, end)
  const prior =
    kind === 'lameness'
      ? simulatedLamenessPrior(herd, scores, periodFrom, at, withRecords, levels.lameness, heard)
      : null
  const cells = window ? poolHours(labelHours(hours, recorded, window)) : []
  return fitFarmCalibration(kind, cells, inPeriod, prior)
}

/**
 * The records that say an animal had an event of the class, as the accuracy route reads them: farrowings, services
 * and returns seen (a heat), lameness treatments.
 */
export function recordedMoments(
  animal: Pick<AnimalHoursAndRecords, 'records' | 'treatments' | 'heatsSeen'>,
  kind: ClassificationType,
): readonly number[] {
  if (kind === 'birth') return animal.records.births
  return kind === 'heat' ? [...animal.records.services, ...animal.heatsSeen] : animal.treatments
}

/** Per animal and hour: whether the hour is scored, as in the job (heardFrom: its tag was heard in the 24 h up to it). */
export function heardHours(herd: readonly Pick<AnimalHoursAndRecords, 'hours'>[]): boolean[][] {
  return herd.map((a) => a.hours.map((_, i) => heardFrom(a.hours, i)))
}

/**
 * The lameness prior the job would learn at the start of hour `at` from the hours periodFrom..at-1: the daily peaks of
 * the scored hours' lameness probabilities (global) and the farrowings and weanings recorded in the period (none when
 * the farm keeps no records), through lamenessPrior and phaseRecordsIn as the job calls them.
 */
export function simulatedLamenessPrior(
  herd: readonly Pick<AnimalHoursAndRecords, 'hours' | 'records'>[],
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
