// Per-farm calibration, measured (src/modules/predictions/farm-calibration.rules.ts): a simulated farm's first days
// of records fit its map as the job would fit it, the next days measure the calibration with the global map and with
// the farm's, side by side; the alarms are the same in both (the map rises strictly). Lameness's map starts from the
// farm's own base rate (lamenessPrior), learned from the same days as the job learns it (farm-maps.ts).
// docs/predictions.md has figures.
import { HOUR_MS } from '../modules/predictions/hour-summaries.rules.ts'
import type { CycleProfile } from './herd-plan.ts'
import { CLASSIFICATION_TYPES, type ClassificationType } from '../modules/predictions/predictions.rules.ts'
import { MATCH_WINDOWS } from '../modules/predictions/accuracy.rules.ts'
import {
  FIT_WINDOWS,
  farmProbability,
  labelHours,
  recalibrate,
  type FarmCalibrationFit,
  type FarmCalibrationMap,
} from '../modules/predictions/farm-calibration.rules.ts'
import { farmFit, farmMaps, recordedMoments } from './farm-maps.ts'
import { bootstrapCalibration, reliability, round3, round3Pair, type ReliabilityBin } from './statistics.ts'
import {
  episodesOf,
  measure,
  scoredHours,
  scorerLevels,
  scoresOf,
  type AlarmLevels,
  type Interval95,
  type Scores,
  type VariantReport,
} from './evaluation.ts'
import { TUNING_FAMILY, simulateHerdHours, type HerdFamily } from './herd-hours.ts'

export interface FarmCalibrationReport {
  family: HerdFamily
  tunedOn: boolean
  seed: string
  animals: number
  intervalSeconds: number
  fitDays: number
  measuredDays: number
  /**
   * Each class's map, fitted from the farm's records and scores of the first fitDays; lameness's from the farm's prior
   * (its `prior`), as the job fits it.
   */
  fits: Record<ClassificationType, FarmCalibrationFit>
  /**
   * The measured days with the global calibration and with the farm's: each class's report (alarms, which the farm's
   * map leaves where they were, and the reliability bins), and the calibration error's 95 % interval by resampling
   * animals.
   */
  global: VariantReport
  farm: VariantReport
  calibrationCI: Record<'global' | 'farm', Record<ClassificationType, Interval95>>
  /**
   * The same measured days against the farm's own definition of an event (an hour in a record's lead window, as the
   * accuracy route and the fit read them): calibration error and bins, global and farm.
   */
  byRecords: Record<
    'global' | 'farm',
    Record<ClassificationType, { calibration: number | null; bins: ReliabilityBin[] }>
  >
  /**
   * As the job does it: refitted every LEARNING.everyDays from the records and scores of the LEARNING.periodDays
   * before (from the first evaluated day on), each week of the measured days mapped by the fit of its start.
   */
  weekly: Record<
    ClassificationType,
    { calibration: number | null; ci: Interval95; bins: ReliabilityBin[]; maps: FarmCalibrationMap[] }
  >
  seconds: number
}

/**
 * Per-farm calibration, measured: the farm's first `fitDays` evaluated days are scored (with its records, default
 * thresholds) and its records of them (births, inseminations, lameness treatments, matched as the job matches them)
 * fit each class's map, as the job would from its stored predictions; the next `measuredDays` are measured with the
 * global calibration and with the farm's map on top.
 */
export function evaluateFarmCalibration(input: {
  family: HerdFamily
  /** The cycle family's farm profile (default: the default farm). */
  cycleProfile?: CycleProfile
  seed: string
  animals: number
  fitDays?: number
  measuredDays?: number
  intervalMs?: number
}): FarmCalibrationReport {
  const began = performance.now()
  const fitDays = input.fitDays ?? 30
  const measuredDays = input.measuredDays ?? 30
  const intervalMs = input.intervalMs ?? 60_000
  const herd = simulateHerdHours({
    family: input.family,
    profile: 'default',
    cycleProfile: input.cycleProfile ?? 'default',
    seed: input.seed,
    animals: input.animals,
    days: fitDays + measuredDays,
    historyDays: 28,
    intervalMs,
    start: Date.UTC(2026, 0, 5),
  })
  const from = 28 * 24
  const fitTo = from + fitDays * 24 - 1
  const to = herd[0]!.hours.length - 1
  const scores = scoresOf(herd, from, to, true)
  const hourEnd = (i: number) => herd[0]!.hours[i]!.hour + HOUR_MS
  // As the job: every scored hour of every animal, the records known by the period's end.
  const hoursOf = (s: Scores, kind: ClassificationType, a: number, b: number) =>
    herd.flatMap((_, k) => {
      const out: { animalId: number; at: number; probability: number }[] = []
      for (let i = a; i <= b; i++) out.push({ animalId: k, at: hourEnd(i), probability: s[k]![kind][i]! })
      return out
    })
  const recordsOf = (kind: ClassificationType) =>
    herd.flatMap((a, k) => recordedMoments(a, kind).map((at) => ({ animalId: k, at })))
  const globalLevels = scorerLevels()
  // As the job fits them: lameness's from the farm's own base rate too (its prior of the same hours).
  const fits = {} as Record<ClassificationType, FarmCalibrationFit>
  for (const kind of CLASSIFICATION_TYPES) fits[kind] = farmFit(herd, scores, kind, from, fitTo + 1, true, globalLevels)
  const measureFrom = fitTo + 1
  const mapped: Scores = scores.map((s) => ({
    birth: s.birth.map((p) => farmProbability(fits.birth.map, p, globalLevels.birth)),
    heat: s.heat.map((p) => farmProbability(fits.heat.map, p, globalLevels.heat)),
    lameness: s.lameness.map((p) => farmProbability(fits.lameness.map, p, globalLevels.lameness)),
  }))
  const farmLevels = {} as AlarmLevels
  for (const kind of CLASSIFICATION_TYPES) farmLevels[kind] = roundTo4(recalibrate(fits[kind].map, globalLevels[kind]))
  const interval = (s: Scores) => {
    const episodes = episodesOf(herd, hourEnd(measureFrom) - HOUR_MS, hourEnd(to))
    const out = {} as Record<ClassificationType, Interval95>
    for (const kind of CLASSIFICATION_TYPES) {
      const { byAnimal } = scoredHours(herd, s, kind, episodes[kind], measureFrom, to, Infinity)
      out[kind] = round3Pair(bootstrapCalibration(byAnimal))
    }
    return out
  }
  const byRecords = (s: Scores) => {
    const out = {} as FarmCalibrationReport['byRecords']['farm']
    for (const kind of CLASSIFICATION_TYPES) {
      const { leadMs, lateMs } = MATCH_WINDOWS[kind]
      const window = FIT_WINDOWS[kind] ?? { beforeMs: leadMs, afterMs: 0, leftOutMs: lateMs }
      const pairs = labelHours(hoursOf(s, kind, measureFrom, to), recordsOf(kind), window)
      const r = reliability(pairs)
      out[kind] = {
        calibration: r.meanAbsoluteError === null ? null : round3(r.meanAbsoluteError),
        bins: r.bins.map((b) => ({ ...b, meanPredicted: round3(b.meanPredicted), observed: round3(b.observed) })),
      }
    }
    return out
  }
  const weeklyRefits = () => {
    const episodes = episodesOf(herd, hourEnd(measureFrom) - HOUR_MS, hourEnd(to))
    const weekly = farmMaps(herd, scores, from, to, true, globalLevels, measureFrom)
    const out = {} as FarmCalibrationReport['weekly']
    for (const kind of CLASSIFICATION_TYPES) {
      const { pairs, byAnimal } = scoredHours(herd, weekly.shown, kind, episodes[kind], measureFrom, to, Infinity)
      const r = reliability(pairs)
      out[kind] = {
        calibration: r.meanAbsoluteError === null ? null : round3(r.meanAbsoluteError),
        ci: round3Pair(bootstrapCalibration(byAnimal)),
        bins: r.bins.map((b) => ({ ...b, meanPredicted: round3(b.meanPredicted), observed: round3(b.observed) })),
        maps: weekly.fits[kind].map(({ fit }) => fit.map),
      }
    }
    return out
  }
  return {
    family: input.family,
    tunedOn: input.family === TUNING_FAMILY,
    seed: input.seed,
    animals: herd.length,
    intervalSeconds: intervalMs / 1000,
    fitDays,
    measuredDays,
    fits,
    global: measure(herd, scores, measureFrom, to, globalLevels),
    farm: measure(herd, mapped, measureFrom, to, farmLevels),
    calibrationCI: { global: interval(scores), farm: interval(mapped) },
    byRecords: { global: byRecords(scores), farm: byRecords(mapped) },
    weekly: weeklyRefits(),
    seconds: Math.round((performance.now() - began) / 100) / 10,
  }
}

const roundTo4 = (x: number) => Math.round(x * 10_000) / 10_000
