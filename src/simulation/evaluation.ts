// Measured, not asserted: scores a simulated herd whose ground truth is known (the simulator's plans)
// and reports, per class, sensitivity, false alarms per animal-month and lead time. Everything runs in
// memory on the same pure functions the hourly job uses (summarizeHours stands in for the job's SQL).
// The rules were tuned on TUNING_SEED; the reported figures come from EVALUATION_SEED, a herd the rules
// never saw.
import {
  planAnimal,
  planFarm,
  simulateReadings,
  simulatedHerd,
  type AnimalPlan,
  type SimulatedAnimal,
} from './herd-simulator.ts'
import type { LocationRow, SensorRow } from '../modules/readings/readings.schemas.ts'
import {
  HOUR_MS,
  NO_RECORDS,
  SCORER,
  alignHours,
  scoreHerd,
  summarizeHours,
  type AnimalHours,
  type AnimalRecords,
  type HourSummary,
  type ScorerSettings,
} from '../modules/predictions/scorer.rules.ts'
import { CLASSIFICATION_TYPES, type ClassificationType } from '../modules/predictions/predictions.rules.ts'

const DAY_MS = 24 * HOUR_MS

export const TUNING_SEED = 'tuning-1'
export const EVALUATION_SEED = 'evaluation-2'

/** The targets of the evaluation: birth and lameness also bound false alarms per animal-month. */
export const TARGETS = {
  birth: { sensitivity: 0.9, medianLeadHours: 6, falseAlarmsPerAnimalMonth: 1 },
  heat: { sensitivity: 0.8 },
  lameness: { sensitivity: 0.7, falseAlarmsPerAnimalMonth: 1 },
} as const

/** An alarm is a probability of at least this; alarms less than ALARM_MERGE_HOURS apart are one alarm. */
export const ALARM_PROBABILITY = 0.5
export const ALARM_MERGE_HOURS = 12

/**
 * An episode is detected by an alarm that starts in its detection window: birth from 48 h before onset to the
 * onset, heat from 12 h before onset to its end, lameness from 2 days after onset (no decline shows sooner) to
 * 21 days after. An alarm overlapping an episode's window or the hours after it (24 h after a farrowing's
 * onset or a heat's end; ever after a lameness's onset) is not a false alarm. Lameness episodes count when
 * at least 14 days of them lie in the evaluated window.
 */
export const DETECTION_WINDOWS = {
  birth: { beforeOnsetHours: 48, excusedAfterHours: 24 },
  heat: { beforeOnsetHours: 12, excusedAfterHours: 24 },
  lameness: { fromDays: 2, toDays: 21, minObservedDays: 14 },
} as const

export interface EvaluationOptions {
  seed: string
  animals: number
  /** Days evaluated; the simulation runs historyDays longer, so that baselines exist on the first evaluated day. */
  days: number
  historyDays?: number
  intervalMs?: number
  /** First simulated instant; a fixed date keeps a seed's herd the same run after run. */
  start?: number
}

export interface ClassReport {
  episodes: number
  detected: number
  sensitivity: number | null
  /** Hours from the first alarm to the episode's onset: before it is positive (birth), after it negative. */
  leadHours: { median: number | null; min: number | null; max: number | null }
  falseAlarms: number
  /** Animal-months the false alarms were counted over (sows only for birth and heat). */
  animalMonths: number
  falseAlarmsPerAnimalMonth: number
}

export type VariantReport = Record<ClassificationType, ClassReport>

export interface EvaluationReport {
  seed: string
  animals: number
  sows: number
  days: number
  historyDays: number
  intervalSeconds: number
  window: { from: string; to: string }
  /** The scorer with the farm's records (inseminations, weanings, births), as the job runs it. */
  scorer: VariantReport
  /** The scorer on activity alone (a farm that records nothing). */
  scorerWithoutRecords: VariantReport
  /** A plain threshold on raw activity, no baseline by hour or group, no records: the bar the rules must clear. */
  plainThreshold: VariantReport
  targets: typeof TARGETS
  met: { birth: boolean; heat: boolean; lameness: boolean }
  seconds: number
}

export interface SimulatedAnimalData {
  animal: SimulatedAnimal
  plan: AnimalPlan
  hours: HourSummary[]
  records: AnimalRecords
}

/** The herd's readings summarized per hour (one animal in memory at a time), with the plans that made them. */
export function simulateHerdHours(options: Required<EvaluationOptions>): SimulatedAnimalData[] {
  const { seed, start } = options
  const end = start + (options.historyDays + options.days) * DAY_MS
  const window = { uid: seed, seed, start, end, intervalMs: options.intervalMs, batchSize: 1_000_000 }
  const farm = planFarm({ seed, start, end })
  return simulatedHerd(seed, options.animals).map((animal) => {
    const plan = planAnimal(animal, { seed, start, end })
    const sensor: SensorRow[] = []
    const locations: LocationRow[] = []
    for (const batch of simulateReadings(animal, window, { animal: plan, farm })) {
      if (batch.kind === 'sensordata') for (const row of batch.rows) sensor.push(row)
      else for (const row of batch.rows) locations.push(row)
    }
    const first = Math.floor(start / HOUR_MS) * HOUR_MS
    const last = Math.floor(end / HOUR_MS) * HOUR_MS - HOUR_MS
    return {
      animal,
      plan,
      hours: alignHours(summarizeHours(sensor, locations), first, last),
      records: { services: plan.services, weanings: plan.weanings, births: plan.farrowings.map((f) => f.onset) },
    }
  })
}

/** Per animal and hour index: the 0-1 score of each class (a plain threshold gives 0 or 1). */
export type Scores = Record<ClassificationType, number[]>[]

export function evaluatePredictions(input: EvaluationOptions): EvaluationReport {
  const began = performance.now()
  const options: Required<EvaluationOptions> = {
    historyDays: 28,
    intervalMs: 60_000,
    start: Date.UTC(2026, 0, 5),
    ...input,
  }
  const herd = simulateHerdHours(options)
  const from = options.historyDays * 24
  const to = (herd[0]?.hours.length ?? 0) - 1
  const scorer = measure(herd, scoresOf(herd, from, to, true), from, to)
  const report: EvaluationReport = {
    seed: options.seed,
    animals: herd.length,
    sows: herd.filter((a) => a.animal.Sex === 'female').length,
    days: options.days,
    historyDays: options.historyDays,
    intervalSeconds: options.intervalMs / 1000,
    window: {
      from: new Date(herd[0]!.hours[from]!.hour).toISOString(),
      to: new Date(herd[0]!.hours[to]!.hour + HOUR_MS).toISOString(),
    },
    scorer,
    scorerWithoutRecords: measure(herd, scoresOf(herd, from, to, false), from, to),
    plainThreshold: measure(
      herd,
      herd.map((a) => plainThresholds(a.hours, from, to)),
      from,
      to,
    ),
    targets: TARGETS,
    met: {
      birth:
        (scorer.birth.sensitivity ?? 0) >= TARGETS.birth.sensitivity &&
        (scorer.birth.leadHours.median ?? 0) >= TARGETS.birth.medianLeadHours &&
        scorer.birth.falseAlarmsPerAnimalMonth <= TARGETS.birth.falseAlarmsPerAnimalMonth,
      heat: (scorer.heat.sensitivity ?? 0) >= TARGETS.heat.sensitivity,
      lameness:
        (scorer.lameness.sensitivity ?? 0) >= TARGETS.lameness.sensitivity &&
        scorer.lameness.falseAlarmsPerAnimalMonth <= TARGETS.lameness.falseAlarmsPerAnimalMonth,
    },
    seconds: 0,
  }
  report.seconds = Math.round((performance.now() - began) / 100) / 10
  return report
}

/** The scorer's hourly scores of the simulated herd (0 outside from-to), with the farm's records or without any. */
export function scoresOf(
  herd: readonly SimulatedAnimalData[],
  from: number,
  to: number,
  withRecords: boolean,
  settings: ScorerSettings = SCORER,
): Scores {
  const hourCount = herd[0]?.hours.length ?? 0
  const animals: AnimalHours<number>[] = herd.map((a) => ({
    key: a.animal.index,
    group: a.animal.Group,
    hours: a.hours,
    records: withRecords ? a.records : NO_RECORDS,
  }))
  return scoreHerd(animals, from, to, settings).map((perHour) => {
    const out = {
      birth: new Array<number>(hourCount).fill(0),
      heat: new Array<number>(hourCount).fill(0),
      lameness: new Array<number>(hourCount).fill(0),
    }
    perHour.forEach((s, n) => {
      out.birth[from + n] = s.birth
      out.heat[from + n] = s.heat
      out.lameness[from + n] = s.lameness
    })
    return out
  })
}

/** The alarms of one score series: [first hour index, last hour index] of each, merged when close. */
export function alarmsOf(scores: readonly number[], from: number, to: number): [number, number][] {
  const alarms: [number, number][] = []
  for (let i = from; i <= to; i++) {
    if ((scores[i] ?? 0) < ALARM_PROBABILITY) continue
    const last = alarms.at(-1)
    if (last && i - last[1] <= ALARM_MERGE_HOURS) last[1] = i
    else alarms.push([i, i])
  }
  return alarms
}

interface Episode {
  animal: number
  onset: number
  detectFrom: number
  detectTo: number
  excuseFrom: number
  excuseTo: number
  counted: boolean
}

/** The ground truth of each class as episodes with their detection and excuse windows (ms). */
function episodesOf(
  herd: readonly SimulatedAnimalData[],
  windowFrom: number,
  windowTo: number,
): Record<ClassificationType, Episode[]> {
  const out: Record<ClassificationType, Episode[]> = { birth: [], heat: [], lameness: [] }
  const inWindow = (t: number) => t >= windowFrom && t < windowTo
  herd.forEach((a, animal) => {
    for (const f of a.plan.farrowings) {
      const w = DETECTION_WINDOWS.birth
      out.birth.push({
        animal,
        onset: f.onset,
        detectFrom: f.onset - w.beforeOnsetHours * HOUR_MS,
        detectTo: f.onset,
        excuseFrom: f.onset - w.beforeOnsetHours * HOUR_MS,
        excuseTo: f.onset + w.excusedAfterHours * HOUR_MS,
        counted: inWindow(f.onset) && f.onset - w.beforeOnsetHours * HOUR_MS >= windowFrom,
      })
    }
    for (const h of a.plan.heats) {
      const w = DETECTION_WINDOWS.heat
      out.heat.push({
        animal,
        onset: h.onset,
        detectFrom: h.onset - w.beforeOnsetHours * HOUR_MS,
        detectTo: h.end,
        excuseFrom: h.onset - w.beforeOnsetHours * HOUR_MS,
        excuseTo: h.end + w.excusedAfterHours * HOUR_MS,
        counted: inWindow(h.onset) && h.end <= windowTo,
      })
    }
    for (const l of a.plan.lameness) {
      const w = DETECTION_WINDOWS.lameness
      out.lameness.push({
        animal,
        onset: l.onset,
        detectFrom: l.onset + w.fromDays * DAY_MS,
        detectTo: Math.min(windowTo, l.onset + w.toDays * DAY_MS),
        excuseFrom: l.onset,
        excuseTo: Infinity,
        counted: inWindow(l.onset) && l.onset + w.minObservedDays * DAY_MS <= windowTo,
      })
    }
  })
  return out
}

export function measure(herd: readonly SimulatedAnimalData[], scores: Scores, from: number, to: number): VariantReport {
  const hourEnd = (i: number) => herd[0]!.hours[i]!.hour + HOUR_MS
  const windowFrom = hourEnd(from) - HOUR_MS
  const windowTo = hourEnd(to)
  const episodes = episodesOf(herd, windowFrom, windowTo)
  const months = (animals: number) => (animals * (windowTo - windowFrom)) / (30 * DAY_MS)
  const sows = herd.filter((a) => a.animal.Sex === 'female').length
  const report = {} as VariantReport
  for (const type of CLASSIFICATION_TYPES) {
    const alarms = scores.map((s) => alarmsOf(s[type], from, to).map(([a, b]) => [hourEnd(a), hourEnd(b)] as const))
    const leads: number[] = []
    let detected = 0
    const counted = episodes[type].filter((e) => e.counted)
    for (const e of counted) {
      const first = alarms[e.animal]!.find(([start]) => start >= e.detectFrom && start <= e.detectTo)
      if (!first) continue
      detected++
      leads.push((e.onset - first[0]) / HOUR_MS)
    }
    let falseAlarms = 0
    alarms.forEach((list, animal) => {
      const own = episodes[type].filter((e) => e.animal === animal)
      falseAlarms += list.filter(([a, b]) => !own.some((e) => b >= e.excuseFrom && a <= e.excuseTo)).length
    })
    const animalMonths = months(type === 'lameness' ? herd.length : sows)
    leads.sort((a, b) => a - b)
    report[type] = {
      episodes: counted.length,
      detected,
      sensitivity: counted.length === 0 ? null : round2(detected / counted.length),
      leadHours: {
        median: leads.length === 0 ? null : round1(medianOf(leads)),
        min: leads.length === 0 ? null : round1(leads[0]!),
        max: leads.length === 0 ? null : round1(leads.at(-1)!),
      },
      falseAlarms,
      animalMonths: round1(animalMonths),
      falseAlarmsPerAnimalMonth: round2(falseAlarms / animalMonths),
    }
  }
  return report
}

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

const medianOf = (sorted: readonly number[]) =>
  sorted.length % 2 === 1
    ? sorted[sorted.length >> 1]!
    : (sorted[sorted.length / 2 - 1]! + sorted[sorted.length / 2]!) / 2
const round1 = (x: number) => Math.round(x * 10) / 10
const round2 = (x: number) => Math.round(x * 100) / 100
