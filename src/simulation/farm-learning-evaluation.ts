// Per-farm learning measured (`evaluateFarmLearning`): a simulated farm unlike the defaults is scored week by week as
// the job scores it, learns from its own records as the job does, and the next period is measured with the defaults
// and with what it learned.
import { HOUR_MS } from '../modules/predictions/hour-summaries.rules.ts'
import { SCORER, settingsWithFactors } from '../modules/predictions/scorer-settings.rules.ts'
import { uncalibrate } from '../modules/predictions/calibration.rules.ts'
import { CLASSIFICATION_TYPES, type ClassificationType } from '../modules/predictions/predictions.rules.ts'
import {
  DEFAULT_FACTORS,
  DEFAULT_GESTATION,
  LEARNING,
  learnGestationFromRecords,
  type ClassLearning,
  type GestationLearning,
  type DayPeak,
  type FarmFactors,
  learnClassFromPeriod,
} from '../modules/predictions/farm-learning.rules.ts'
import {
  DEFAULT_DUE_BAR_LEARNING,
  learnDueBarFromScores,
  type DueBar,
  type DueBarLearning,
} from '../modules/predictions/due-bar.rules.ts'
import type { CycleProfile } from './herd-plan.ts'
import { measure, scoresOf, scorerLevels, type Scores, type VariantReport } from './evaluation.ts'
import { simulateHerdHours, type HerdFamily, type SimulatedAnimalData } from './herd-hours.ts'
import { recordedMoments } from './farm-maps.ts'

export interface LearningReport {
  seed: string
  animals: number
  /** The farm unlike the defaults: the ethogram family's weak nesters (held out), or a cycle family's profile. */
  profile: 'weak-nesters' | CycleProfile
  learningDays: number
  measuredDays: number
  /** What learning chose from the first period's records, per class, and why. */
  learned: Record<ClassificationType, ClassLearning>
  /** The farm's gestation learned from the same records (the birth windows after a service centre on it). */
  gestation: GestationLearning
  /** Birth's bar in the days the farm's sows farrow, learned from the same records and scores. */
  dueBar: DueBarLearning
  /** The second period scored with the default thresholds and with the learned ones. */
  defaults: VariantReport
  afterLearning: VariantReport
  seconds: number
}

/**
 * Per-farm learning on a farm unlike the defaults (every sow a weak nest builder): the first `learningDays` are
 * scored with the defaults, learning reads their alarms and the farm's records as the job does, and the next
 * `measuredDays` are scored with the defaults and with the learned thresholds.
 */
export function evaluateFarmLearning(input: {
  seed: string
  animals: number
  learningDays?: number
  measuredDays?: number
  intervalMs?: number
  /** The family to learn on (default ethogram, held out, its weak-nesters farm); cycle is for tuning the learning. */
  family?: HerdFamily
  /** The cycle family's farm (default late-crates). */
  cycleProfile?: CycleProfile
  /** False: the thresholds alone, the default gestation kept (for comparison). */
  learnGestation?: boolean
  /** False: no due bar learned (for comparison). */
  learnDueBar?: boolean
}): LearningReport {
  const began = performance.now()
  const cycleProfile = input.cycleProfile ?? 'late-crates'
  const profile = input.family === 'cycle' ? cycleProfile : 'weak-nesters'
  const learningDays = input.learningDays ?? LEARNING.periodDays
  const measuredDays = input.measuredDays ?? 60
  const herd = simulateHerdHours({
    ...(input.family === 'cycle'
      ? { family: 'cycle' as const, profile: 'default' as const, cycleProfile }
      : { family: input.family ?? 'ethogram', profile: 'weak-nesters' as const }),
    seed: input.seed,
    animals: input.animals,
    days: learningDays + measuredDays,
    historyDays: 28,
    intervalMs: input.intervalMs ?? 60_000,
    start: Date.UTC(2026, 0, 5),
  })
  const learnFrom = 28 * 24
  const learnTo = learnFrom + learningDays * 24 - 1
  const to = herd[0]!.hours.length - 1
  // As the job does: the days are scored with the factors of then, and every LEARNING.everyDays the farm is learned
  // from the stored scores and the records of the last LEARNING.periodDays.
  const stored: Scores = herd.map(() => ({
    birth: new Array<number>(to + 1).fill(0),
    heat: new Array<number>(to + 1).fill(0),
    lameness: new Array<number>(to + 1).fill(0),
  }))
  let factors: FarmFactors = { ...DEFAULT_FACTORS }
  let learned = {} as Record<ClassificationType, ClassLearning>
  let gestation = DEFAULT_GESTATION
  let dueBar = DEFAULT_DUE_BAR_LEARNING
  const inForce = () => ({ factor: dueBar.factor, fromDay: dueBar.fromDay, toDay: dueBar.toDay })
  const step = LEARNING.everyDays * 24
  for (let weekFrom = learnFrom; weekFrom <= learnTo; weekFrom += step) {
    const weekTo = Math.min(learnTo, weekFrom + step - 1)
    const settings = settingsWithFactors(factors, SCORER, gestation.days, inForce())
    scoresOf(herd, weekFrom, weekTo, true, settings).forEach((s, k) => {
      for (const kind of CLASSIFICATION_TYPES)
        for (let i = weekFrom; i <= weekTo; i++) stored[k]![kind][i] = s[kind][i]!
    })
    const periodFrom = Math.max(learnFrom, weekTo + 1 - LEARNING.periodDays * 24)
    learned = learnFarm(herd, stored, periodFrom, weekTo, factors)
    factors = { birth: learned.birth.factor, heat: learned.heat.factor, lameness: learned.lameness.factor }
    if (input.learnGestation !== false)
      gestation = learnGestationFromRecords(
        herd.map((a) => a.records),
        herd[0]!.hours[periodFrom]!.hour,
        herd[0]!.hours[weekTo]!.hour + HOUR_MS,
      )
    if (input.learnDueBar !== false)
      dueBar = learnFarmDueBar(herd, stored, periodFrom, weekTo, gestation.days, inForce())
  }
  const measureFrom = learnTo + 1
  return {
    seed: input.seed,
    animals: herd.length,
    profile,
    learningDays,
    measuredDays,
    learned,
    gestation,
    dueBar,
    defaults: measure(herd, scoresOf(herd, measureFrom, to, true), measureFrom, to, scorerLevels()),
    afterLearning: measure(
      herd,
      scoresOf(herd, measureFrom, to, true, settingsWithFactors(factors, SCORER, gestation.days, inForce())),
      measureFrom,
      to,
      scorerLevels(),
    ),
    seconds: Math.round((performance.now() - began) / 100) / 10,
  }
}

/** One learning over the stored scores of hours from-to: the job's learnFarmSettings on simulated data. */
function learnFarm(
  herd: readonly SimulatedAnimalData[],
  stored: Scores,
  from: number,
  to: number,
  current: FarmFactors,
): Record<ClassificationType, ClassLearning> {
  const learned = {} as Record<ClassificationType, ClassLearning>
  const periodFrom = herd[0]!.hours[from]!.hour
  const periodTo = herd[0]!.hours[to]!.hour + HOUR_MS
  for (const kind of CLASSIFICATION_TYPES) {
    const dayPeaks: DayPeak[] = []
    herd.forEach((a, k) => {
      if (kind !== 'lameness' && a.sex !== 'female') return
      for (let i = from; i + 23 <= to; i += 24) {
        let peak = 0
        for (let j = i; j < i + 24; j++) peak = Math.max(peak, stored[k]![kind][j] ?? 0)
        dayPeaks.push({ animalId: k, day: a.hours[i]!.hour, peak: uncalibrate(SCORER.calibration?.[kind], peak) })
      }
    })
    const recorded = herd.flatMap((a, k) => recordedMoments(a, kind).map((at) => ({ animalId: k, at })))
    learned[kind] = learnClassFromPeriod(kind, dayPeaks, recorded, { from: periodFrom, to: periodTo }, current[kind])
  }
  return learned
}

/** The due bar learned over the stored scores of hours from-to: the job's learning on simulated data. */
function learnFarmDueBar(
  herd: readonly SimulatedAnimalData[],
  stored: Scores,
  from: number,
  to: number,
  gestationDays: number,
  inForce: DueBar,
): DueBarLearning {
  const sows = herd.flatMap((a, k) => {
    if (a.sex !== 'female') return []
    const hours: { at: number; probability: number }[] = []
    for (let i = from; i <= to; i++) hours.push({ at: a.hours[i]!.hour + HOUR_MS, probability: stored[k]!.birth[i]! })
    return [{ records: a.records, hours }]
  })
  const period = { from: herd[0]!.hours[from]!.hour, to: herd[0]!.hours[to]!.hour + HOUR_MS }
  return learnDueBarFromScores(sows, period, gestationDays, inForce)
}
