// The scorer's calibration fitted on the tuning family only (`jobs fit-calibration`): what a raw score means across
// farms that differ as farms do, measured on simulated herds whose ground truth is known.
import { farmAveragedKnots } from './statistics.ts'
import { simulatedLamenessPrior } from './farm-lameness.ts'
import { HOUR_MS } from '../modules/predictions/hour-summaries.rules.ts'
import {
  SCORER,
  type Calibration,
  type ClassCalibration,
  type ScorerSettings,
} from '../modules/predictions/scorer-settings.rules.ts'
import {
  RAW_ALARM,
  alarmLevel,
  calibrate,
  roundProbability,
  uncalibrate,
} from '../modules/predictions/calibration.rules.ts'
import { DEFAULT_THRESHOLDS } from '../modules/events/alert-rules.rules.ts'
import { CLASSIFICATION_TYPES, type ClassificationType } from '../modules/predictions/predictions.rules.ts'
import type { CycleProfile } from './herd-simulator.ts'
import {
  TUNING_FAMILY,
  TUNING_SEED,
  episodesOf,
  scoredHours,
  scoresOf,
  simulateHerdHours,
  type HerdFamily,
} from './evaluation.ts'

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
 * Lameness's fit at a farm's prevalence (branch `lamefit`): on the clean profiles about half the animals go lame in
 * the simulated 88 days, on the rough one about one in eight, and a map fitted with them as they are carries their
 * base rate. Each herd's lame animals (a lameness onset in its plan) are weighed so that they make `prevalence` of
 * the herd (never weighed up: the rough herds keep theirs); the prior's reference share (LAMENESS_PRIOR.knotsShare)
 * is measured on the fit's herds under the same weights (fitLameness).
 */
export const LAMENESS_FIT = { prevalence: 0.3 } as const

/**
 * The weight of a herd's lame animals in lameness's fit: such that `lame` of `animals` make `prevalence` of the
 * weighed herd, at most 1 (a herd at or under the prevalence keeps its own); 1 without lame animals.
 */
export function lameAnimalWeight(lame: number, animals: number, prevalence: number): number {
  if (lame === 0 || lame >= animals) return 1
  return Math.min(1, (prevalence * (animals - lame)) / (lame * (1 - prevalence)))
}

/**
 * Knots whose alerts clear where the released knots' did: a knot at the raw score where `released` falls to its
 * alarm level less the alert rules' hysteresis, at the new level less the hysteresis (an alert clears below its
 * threshold - hysteresis, in probability; without this knot a refit that changes the map's slope there moves the
 * clearing hour, and with it when an alarm may sound again). Both coordinates must stay rising.
 */
export function keepClearing(
  knots: Calibration,
  released: Calibration,
  hysteresis: number = DEFAULT_THRESHOLDS.probabilityHysteresis,
): [number, number][] {
  const raw =
    Math.round(uncalibrate(released, roundProbability(calibrate(released, RAW_ALARM)) - hysteresis) * 1e5) / 1e5
  const at = roundProbability(roundProbability(calibrate(knots, RAW_ALARM)) - hysteresis)
  const out: [number, number][] = knots.filter(([r]) => r !== raw).map(([r, p]) => [r, p])
  const k = out.findIndex(([r]) => r > raw)
  out.splice(k === -1 ? out.length : k, 0, [raw, at])
  out.forEach(([r, p], i) => {
    if (i > 0 && !(r > out[i - 1]![0] && p > out[i - 1]![1]))
      throw new Error(`keepClearing: the knot [${raw}, ${at}] breaks the rising knots`)
  })
  return out
}

/**
 * Fits each class's calibration on the tuning family only: the raw scores of every scored hour of each condition's
 * herd against whether the hour lies in an episode's detection window, by isotonic regression in which every farm
 * profile counts alike at each score, and every condition alike within its profile (farmAveragedKnots): what a raw
 * score means across farms, not on the farm where the scorer does best. Lameness's hours weighed to LAMENESS_FIT's
 * prevalence, its knots clearing alerts where the knots in use do (keepClearing), and the prior's reference share
 * measured under the same weights: the share of the 2-minute herds' scored animal-days in an alarm held 7 days or
 * more, lame animals weighed, averaged in log-odds per profile and then over profiles. The result is
 * SCORER.calibration and LAMENESS_PRIOR.knotsShare.
 */
export function fitCalibration(fit: typeof CALIBRATION_FIT = CALIBRATION_FIT): ClassCalibration & {
  lamenessKnotsShare: number
} {
  const raw: ScorerSettings = { ...SCORER, calibration: null }
  const pairs: Record<ClassificationType, [number, boolean, number][][]> = { birth: [], heat: [], lameness: [] }
  const shares: { profile: string; logOdds: number }[] = []
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
    const lame = herd.map((a) => a.truth.lameness.length > 0)
    const weight = lameAnimalWeight(lame.filter(Boolean).length, herd.length, LAMENESS_FIT.prevalence)
    for (const type of CLASSIFICATION_TYPES) {
      const weights = herd.map((_, k) => (type === 'lameness' && lame[k] ? weight : 1))
      const { byAnimal } = scoredHours(herd, scores, type, episodes[type], from, to, Infinity)
      const animals = herd.map((_, k) => k).filter((k) => type === 'lameness' || herd[k]!.sex === 'female')
      pairs[type].push(
        byAnimal.flatMap((hours, j) =>
          hours.map(([p, e]) => [p, e, weights[animals[j]!]!] as [number, boolean, number]),
        ),
      )
    }
    if (condition.intervalMs !== 120_000) continue
    // The prior's share under the same weights, over the evaluated days up to their last hour (raw 0.5 is the alarm
    // level, whatever the knots).
    const level = alarmLevel('lameness', SCORER)
    const shown = scores.map((s) => ({ ...s, lameness: s.lameness.map((p) => (p >= RAW_ALARM ? level : 0)) }))
    const part = (keep: boolean) => {
      const k = herd.map((_, i) => i).filter((i) => lame[i] === keep)
      const prior = simulatedLamenessPrior(
        k.map((i) => herd[i]!),
        k.map((i) => shown[i]!),
        from,
        to,
        true,
        level,
      )
      return { days: prior.days, sustained: prior.sustainedDays }
    }
    const [l, n] = [part(true), part(false)]
    const share = (weight * l.sustained + n.sustained) / (weight * l.days + n.days)
    shares.push({ profile: condition.cycleProfile, logOdds: Math.log(share / (1 - share)) })
  }
  const profiles = fit.conditions.map((condition) => condition.cycleProfile)
  const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length
  const logOdds = mean(
    [...new Set(shares.map((s) => s.profile))].map((p) =>
      mean(shares.filter((s) => s.profile === p).map((s) => s.logOdds)),
    ),
  )
  return {
    birth: farmAveragedKnots(pairs.birth, { kinds: profiles }),
    heat: farmAveragedKnots(pairs.heat, { kinds: profiles }),
    lameness: keepClearing(farmAveragedKnots(pairs.lameness, { kinds: profiles }), SCORER.calibration!.lameness),
    lamenessKnotsShare: Math.round((1 / (1 + Math.exp(-logOdds))) * 10_000) / 10_000,
  }
}
