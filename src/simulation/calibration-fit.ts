// The scorer's calibration fitted on the tuning family only (`jobs fit-calibration`): what a raw score means across
// farms that differ as farms do, measured on simulated herds whose ground truth is known.
import { farmAveragedKnots } from './statistics.ts'
import { HOUR_MS } from '../modules/predictions/hour-summaries.rules.ts'
import { SCORER, type ClassCalibration, type ScorerSettings } from '../modules/predictions/scorer-settings.rules.ts'
import { CLASSIFICATION_TYPES, type ClassificationType } from '../modules/predictions/predictions.rules.ts'
import type { CycleProfile } from './herd-plan.ts'
import { TUNING_SEED, episodesOf, scoredHours, scoresOf } from './evaluation.ts'
import { TUNING_FAMILY, simulateHerdHours, type HerdFamily } from './herd-hours.ts'

/** One herd of the tuning family the calibration is fitted on, scored with the farm's records or without any. */
export interface CalibrationCondition {
  seed: string
  cycleProfile: CycleProfile
  intervalMs: number
  withRecords: boolean
}

/**
 * The tuning family's conditions the calibration is fitted on: farms that differ as farms do (two seeds; every farm
 * profile: the default farrowing unit, late crates, a longer gestation, a rough farm; a sample every 2 minutes and, for
 * three, every minute), each with the farm's records, as the job scores a farm that keeps them. Not the evaluation's
 * seed, so that its tuned-on figures are out of the fit.
 */
export const CALIBRATION_FIT: {
  family: HerdFamily
  animals: number
  days: number
  conditions: readonly CalibrationCondition[]
} = {
  family: TUNING_FAMILY,
  animals: 150,
  days: 60,
  conditions: [
    { seed: TUNING_SEED, cycleProfile: 'default', intervalMs: 120_000, withRecords: true },
    { seed: 'dev-1', cycleProfile: 'default', intervalMs: 120_000, withRecords: true },
    { seed: TUNING_SEED, cycleProfile: 'late-crates', intervalMs: 120_000, withRecords: true },
    { seed: 'dev-1', cycleProfile: 'late-crates', intervalMs: 120_000, withRecords: true },
    { seed: TUNING_SEED, cycleProfile: 'default', intervalMs: 60_000, withRecords: true },
    { seed: 'dev-1', cycleProfile: 'late-crates', intervalMs: 60_000, withRecords: true },
    { seed: TUNING_SEED, cycleProfile: 'long-gestation', intervalMs: 120_000, withRecords: true },
    { seed: 'dev-1', cycleProfile: 'long-gestation', intervalMs: 120_000, withRecords: true },
    { seed: TUNING_SEED, cycleProfile: 'rough', intervalMs: 120_000, withRecords: true },
    { seed: 'dev-1', cycleProfile: 'rough', intervalMs: 120_000, withRecords: true },
    { seed: 'dev-1', cycleProfile: 'rough', intervalMs: 60_000, withRecords: true },
  ],
}

/**
 * Fits each class's calibration on the tuning family only: the raw scores of every scored hour of each condition's
 * herd against whether the hour lies in an episode's detection window, by isotonic regression in which every farm
 * profile counts alike at each score, and every condition alike within its profile (farmAveragedKnots): what a raw
 * score means across farms, not on the farm where the scorer does best. The result is SCORER.calibration.
 */
export function fitCalibration(fit: typeof CALIBRATION_FIT = CALIBRATION_FIT): ClassCalibration {
  const raw: ScorerSettings = { ...SCORER, calibration: null }
  const pairs: Record<ClassificationType, [number, boolean][][]> = { birth: [], heat: [], lameness: [] }
  for (const condition of fit.conditions) {
    const herd = simulateHerdHours({
      family: fit.family,
      profile: 'default',
      cycleProfile: condition.cycleProfile,
      seed: condition.seed,
      animals: fit.animals,
      days: fit.days,
      historyDays: 28,
      intervalMs: condition.intervalMs,
      start: Date.UTC(2026, 0, 5),
    })
    const from = 28 * 24
    const to = herd[0]!.hours.length - 1
    const hourEnd = (i: number) => herd[0]!.hours[i]!.hour + HOUR_MS
    const episodes = episodesOf(herd, hourEnd(from) - HOUR_MS, hourEnd(to))
    const scores = scoresOf(herd, from, to, condition.withRecords, raw)
    for (const type of CLASSIFICATION_TYPES)
      pairs[type].push(scoredHours(herd, scores, type, episodes[type], from, to, Infinity).pairs)
  }
  const profiles = fit.conditions.map((condition) => condition.cycleProfile)
  return {
    birth: farmAveragedKnots(pairs.birth, { kinds: profiles }),
    heat: farmAveragedKnots(pairs.heat, { kinds: profiles }),
    lameness: farmAveragedKnots(pairs.lameness, { kinds: profiles }),
  }
}
