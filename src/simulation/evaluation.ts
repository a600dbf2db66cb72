// Measured, not asserted: scores simulated herds whose ground truth is known and reports, per class, sensitivity,
// lead, false alarms per animal-month, AUC and calibration, each with a 95 % interval. Everything runs in memory on
// the same pure functions the hourly job uses (summarizeHours stands in for the job's SQL). Two families of herds,
// written apart: the rules are tuned on the cycle family (herd-simulator.ts) and measured on the ethogram family
// (ethogram-herd.ts) too, which they were not tuned on.
import {
  TUNING_FAMILY,
  simulateHerdHours,
  type HerdFamily,
  type HerdOptions,
  type SimulatedAnimalData,
} from './herd-hours.ts'
import {
  auc,
  bootstrapCalibration,
  bootstrapMedian,
  medianOf,
  poissonRate,
  reliability,
  round1,
  round1Pair,
  round2,
  round2Pair,
  round3,
  round3Pair,
  wilson,
  type ReliabilityBin,
} from './statistics.ts'
import { HOUR_MS } from '../modules/predictions/hour-summaries.rules.ts'
import { farmMaps } from './farm-maps.ts'
import { alarmRuns } from '../modules/events/events.rules.ts'
import { DEFAULT_THRESHOLDS } from '../modules/events/alert-rules.rules.ts'
import { SCORER, type ScorerSettings } from '../modules/predictions/scorer-settings.rules.ts'
import { alarmLevel } from '../modules/predictions/calibration.rules.ts'
import { NO_RECORDS, reproductiveState, type AnimalRecords } from '../modules/predictions/reproduction.rules.ts'
import { scoreHerd, type AnimalHours } from '../modules/predictions/scorer.rules.ts'
import { CLASSIFICATION_TYPES, type ClassificationType } from '../modules/predictions/predictions.rules.ts'
import { plainThresholds } from './plain-thresholds.ts'
import { asEntered } from './past-records.ts'

const DAY_MS = 24 * HOUR_MS

export const TUNING_SEED = 'tuning-1'
export const EVALUATION_SEED = 'evaluation-2'

/** The targets, on a family the rules were not tuned on (issue 28). */
export const TARGETS = {
  birth: { sensitivity: 0.9, medianLeadHours: 6, falseAlarmsPerAnimalMonth: 0.5, confounderFalseAlarms: 1 },
  heat: { withRecord: 0.8, withoutRecord: 0.5 },
  lameness: { sensitivity: 0.7, falseAlarmsPerAnimalMonth: 1 },
  calibration: 0.1,
} as const

/**
 * A plain threshold's alarm level. An alarm is what the prediction events raise at the default alert rules
 * (alarmRuns): from a rising edge at the level to the hour before the probability falls under it by the hysteresis,
 * and not raised again within the cooldown after it cleared.
 */
export const ALARM_PROBABILITY = 0.5

/**
 * An episode is detected by an alarm that starts in its detection window: birth from 48 h before onset to the
 * onset, heat from 12 h before onset to its end, lameness from 2 days after onset (no decline shows sooner) to
 * 21 days after. An alarm overlapping an episode's window or the hours after it (24 h after a farrowing's
 * onset or a heat's end; ever after a lameness's onset) is not a false alarm. Lameness episodes count when
 * at least 14 days of them lie in the evaluated window. For calibration, an hour's event is the same window.
 */
export const DETECTION_WINDOWS = {
  birth: { beforeOnsetHours: 48, excusedAfterHours: 24 },
  heat: { beforeOnsetHours: 12, excusedAfterHours: 24 },
  lameness: { fromDays: 2, toDays: 21, minObservedDays: 14 },
} as const

/**
 * Earliness apart from the detection window: the share of lameness episodes whose first alarm after onset starts
 * within this many days of it (a farmer wants a lame animal seen in days). Unlike the detection window it counts an
 * alarm in the first 2 days too: an acute lameness can show that soon.
 */
export const EARLY_LAMENESS_DAYS = 7

/**
 * A heat has a record when a weaning 2-10 days or a service 15-30 days before its onset makes it expected, or a
 * record before it showed her latest service had failed (foundOpenBefore).
 */
export function heatHasRecord(records: AnimalRecords, onset: number): boolean {
  const since = (times: readonly number[]) => times.map((t) => (onset - t) / DAY_MS)
  return (
    since(records.weanings).some((d) => d >= 2 && d <= 10) ||
    since(records.services).some((d) => d >= 15 && d <= 30) ||
    foundOpenBefore(records, onset)
  )
}

/**
 * Whether her records showed, by t, that her latest service had failed (a negative pregnancy check, or a return some
 * days back) and no service followed: she is open (reproductiveState's sinceFoundOpen), and a heat is what comes next.
 */
export function foundOpenBefore(records: AnimalRecords, t: number): boolean {
  return reproductiveState(records, t).sinceFoundOpen !== undefined
}

export interface EvaluationOptions extends HerdOptions {
  /**
   * Whether the farm's records dated before the evaluated days (its sows' earlier services, farrowings, weanings and
   * treatments) were entered (default: yes). No: a new farm (`historyDays: 0`) that records from the day its tags went
   * on, so its first farrowings come without a service record.
   */
  pastRecords?: boolean
}

export type Interval95 = [number, number] | null

export interface ClassReport {
  episodes: number
  /** An alarm starting in the detection window. */
  detected: number
  sensitivity: number | null
  sensitivityCI: Interval95
  /** An alarm at any time from the detection window's start to the episode's end (late alarms count). */
  perEpisode: number | null
  /** Hours from the first alarm to the episode's onset: before it is positive (birth), after it negative. */
  leadHours: { median: number | null; ci: Interval95; min: number | null; max: number | null }
  /** Lameness: episodes whose first alarm after onset starts within EARLY_LAMENESS_DAYS of it (null otherwise). */
  early: { withinDays: number; detected: number; share: number | null; ci: Interval95 } | null
  falseAlarms: number
  /** Animal-months the false alarms were counted over (sows only for birth and heat), outside confounders. */
  animalMonths: number
  falseAlarmsPerAnimalMonth: number
  falseAlarmsCI: Interval95
  /** Alarms while (or a day after) a tag was loose or torn or the animal was sick, per animal-month of that. */
  confounders: { falseAlarms: number; animalMonths: number; perAnimalMonth: number | null; ci: Interval95 }
  /** An episode's highest score in its detection window against a block of time's outside every episode. */
  auc: number | null
  /**
   * Mean |predicted − observed| over probability bins with 30 hours or more, its 95 % interval (whole animals
   * resampled: an animal's hours are not independent), and the bins.
   */
  calibration: number | null
  calibrationCI: Interval95
  reliability: ReliabilityBin[]
  /** The same error of the global probabilities, before any farm's map (equal to `calibration` when none moved). */
  globalCalibration: number | null
  /** Sensitivity of subsets: heat with and without a record, weak nesters; silent heats are counted apart. */
  subsets: Record<string, { episodes: number; detected: number; sensitivity: number | null; ci: Interval95 }>
}

export type VariantReport = Record<ClassificationType, ClassReport>

export interface EvaluationReport {
  family: HerdFamily
  tunedOn: boolean
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
  seconds: number
}

/** Per animal and hour index: the 0-1 score of each class (a plain threshold gives 0 or 1). */
export type Scores = Record<ClassificationType, number[]>[]

export function evaluatePredictions(input: EvaluationOptions, settings: ScorerSettings = SCORER): EvaluationReport {
  const began = performance.now()
  const options: Required<Omit<EvaluationOptions, 'pastRecords'>> & EvaluationOptions = {
    family: TUNING_FAMILY,
    profile: 'default',
    cycleProfile: 'default',
    historyDays: 28,
    intervalMs: 60_000,
    start: Date.UTC(2026, 0, 5),
    ...input,
  }
  const from = options.historyDays * 24
  const herd = asEntered(simulateHerdHours(options), options)
  const to = (herd[0]?.hours.length ?? 0) - 1
  // As a farm reads its scores: alarms (and the AUC) from the global probabilities; calibration and reliability from
  // what the farm is shown, each class's through the farm's own map as the job fits it week by week (farmMaps).
  const levels = scorerLevels(settings)
  const measureShown = (withRecords: boolean) => {
    const scores = scoresOf(herd, from, to, withRecords, settings)
    return measure(herd, scores, from, to, levels, farmMaps(herd, scores, from, to, withRecords, levels).shown)
  }
  const report: EvaluationReport = {
    family: options.family,
    tunedOn: options.family === TUNING_FAMILY,
    seed: options.seed,
    animals: herd.length,
    sows: herd.filter((a) => a.sex === 'female').length,
    days: options.days,
    historyDays: options.historyDays,
    intervalSeconds: options.intervalMs / 1000,
    window: {
      from: new Date(herd[0]!.hours[from]!.hour).toISOString(),
      to: new Date(herd[0]!.hours[to]!.hour + HOUR_MS).toISOString(),
    },
    scorer: measureShown(true),
    scorerWithoutRecords: measureShown(false),
    plainThreshold: measure(
      herd,
      herd.map((a) => plainThresholds(a.hours, from, to)),
      from,
      to,
    ),
    targets: TARGETS,
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
    key: a.index,
    group: a.group,
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

/**
 * The alarms of one score series as a farm at the default alert rules is alerted (alarmRuns, the prediction events'
 * own rule: hysteresis and cooldown from DEFAULT_THRESHOLDS): [raise hour index, last hour index on] of each.
 */
export function alarmsOf(
  scores: readonly number[],
  from: number,
  to: number,
  level: number = ALARM_PROBABILITY,
): [number, number][] {
  return alarmRuns(scores, from, to, {
    threshold: level,
    hysteresis: DEFAULT_THRESHOLDS.probabilityHysteresis,
    cooldownHours: DEFAULT_THRESHOLDS.alarmCooldownHours,
  })
}

export interface Episode {
  animal: number
  onset: number
  detectFrom: number
  detectTo: number
  excuseFrom: number
  excuseTo: number
  counted: boolean
  /** Subsets the episode belongs to (heat: withRecord / withoutRecord / silent, foundOpen; birth: weak). */
  tags: string[]
}

/** A birth's or a heat's detection and excuse windows (DETECTION_WINDOWS); a farrowing ends at its onset. */
function leadWindows(
  w: { beforeOnsetHours: number; excusedAfterHours: number },
  onset: number,
  end: number,
): Pick<Episode, 'detectFrom' | 'detectTo' | 'excuseFrom' | 'excuseTo'> {
  const detectFrom = onset - w.beforeOnsetHours * HOUR_MS
  return { detectFrom, detectTo: end, excuseFrom: detectFrom, excuseTo: end + w.excusedAfterHours * HOUR_MS }
}

/** The ground truth of each class as episodes with their detection and excuse windows (ms). */
export function episodesOf(
  herd: readonly SimulatedAnimalData[],
  windowFrom: number,
  windowTo: number,
): Record<ClassificationType, Episode[]> {
  const out: Record<ClassificationType, Episode[]> = { birth: [], heat: [], lameness: [] }
  const inWindow = (t: number) => t >= windowFrom && t < windowTo
  herd.forEach((a, animal) => {
    for (const f of a.truth.farrowings) {
      const windows = leadWindows(DETECTION_WINDOWS.birth, f.onset, f.onset)
      const counted = inWindow(f.onset) && windows.detectFrom >= windowFrom
      out.birth.push({ animal, onset: f.onset, ...windows, counted, tags: f.weak ? ['weakNesters'] : [] })
    }
    for (const h of a.truth.heats) {
      const windows = leadWindows(DETECTION_WINDOWS.heat, h.onset, h.end)
      const counted = inWindow(h.onset) && h.end <= windowTo
      const tags = h.silent ? ['silent'] : [heatHasRecord(a.records, h.onset) ? 'withRecord' : 'withoutRecord']
      if (!h.silent && foundOpenBefore(a.records, h.onset)) tags.push('foundOpen')
      out.heat.push({ animal, onset: h.onset, ...windows, counted, tags })
    }
    for (const l of a.truth.lameness) {
      const w = DETECTION_WINDOWS.lameness
      out.lameness.push({
        animal,
        onset: l.onset,
        detectFrom: l.onset + w.fromDays * DAY_MS,
        detectTo: Math.min(windowTo, l.onset + w.toDays * DAY_MS),
        excuseFrom: l.onset,
        excuseTo: Infinity,
        counted: inWindow(l.onset) && l.onset + w.minObservedDays * DAY_MS <= windowTo,
        tags: [],
      })
    }
  })
  return out
}

const CONFOUNDER_AFTER_MS = DAY_MS

/** The probability at which each class alarms: the scorer's calibrated levels, or 0.5 (a plain threshold's 1). */
export type AlarmLevels = Record<ClassificationType, number>
const PLAIN_LEVELS: AlarmLevels = { birth: ALARM_PROBABILITY, heat: ALARM_PROBABILITY, lameness: ALARM_PROBABILITY }
export const scorerLevels = (settings: ScorerSettings = SCORER): AlarmLevels =>
  Object.fromEntries(CLASSIFICATION_TYPES.map((type) => [type, alarmLevel(type, settings)])) as AlarmLevels

export function measure(
  herd: readonly SimulatedAnimalData[],
  scores: Scores,
  from: number,
  to: number,
  levels: AlarmLevels = PLAIN_LEVELS,
  /** The probabilities the farm is shown, when they differ from `scores` (calibration reads them; alarms do not). */
  shown: Scores = scores,
): VariantReport {
  const hourEnd = (i: number) => herd[0]!.hours[i]!.hour + HOUR_MS
  const windowFrom = hourEnd(from) - HOUR_MS
  const windowTo = hourEnd(to)
  const episodes = episodesOf(herd, windowFrom, windowTo)
  const month = 30 * DAY_MS
  const report = {} as VariantReport
  for (const type of CLASSIFICATION_TYPES) {
    const scoredAnimals = herd.map((a) => type === 'lameness' || a.sex === 'female')
    const alarms = scores.map((s) =>
      alarmsOf(s[type], from, to, levels[type]).map(([a, b]) => [hourEnd(a), hourEnd(b)] as const),
    )
    const leads: number[] = []
    let detected = 0
    let late = 0
    let early = 0
    const counted = episodes[type].filter((e) => e.counted && !e.tags.includes('silent'))
    const subsets: ClassReport['subsets'] = {}
    const subset = (tag: string, hit: boolean) => {
      const s = (subsets[tag] ??= { episodes: 0, detected: 0, sensitivity: null, ci: null })
      s.episodes++
      if (hit) s.detected++
    }
    for (const e of episodes[type].filter((x) => x.counted)) {
      const list = alarms[e.animal]!
      const first = list.find(([start]) => start >= e.detectFrom && start <= e.detectTo)
      for (const tag of e.tags) subset(tag, first !== undefined)
      if (e.tags.includes('silent')) continue
      const earlyTo = e.onset + EARLY_LAMENESS_DAYS * DAY_MS
      if (list.some(([start]) => start >= e.onset && start <= earlyTo)) early++
      if (first) {
        detected++
        leads.push((e.onset - first[0]) / HOUR_MS)
      }
      if (first || list.some(([a, b]) => b >= e.detectFrom && a <= Math.min(e.excuseTo, windowTo))) late++
    }
    for (const s of Object.values(subsets)) {
      s.sensitivity = round2(s.detected / s.episodes)
      s.ci = round2Pair(wilson(s.detected, s.episodes))
    }
    // False alarms: outside every episode; those overlapping a confounder (or the day after it) are counted apart.
    let falseAlarms = 0
    let confounderAlarms = 0
    let confounderMs = 0
    let scoredMs = 0
    alarms.forEach((list, animal) => {
      if (!scoredAnimals[animal]) return
      const own = episodes[type].filter((e) => e.animal === animal)
      const spans = herd[animal]!.confounders.map((c) => ({
        from: Math.max(windowFrom, c.from),
        to: Math.min(windowTo, c.to + CONFOUNDER_AFTER_MS),
      })).filter((c) => c.to > c.from)
      const confounded = spans.reduce((s, c) => s + (c.to - c.from), 0)
      confounderMs += confounded
      scoredMs += windowTo - windowFrom - confounded
      for (const [a, b] of list) {
        if (own.some((e) => b >= e.excuseFrom && a <= e.excuseTo)) continue
        if (spans.some((c) => b >= c.from && a <= c.to)) confounderAlarms++
        else falseAlarms++
      }
    })
    // AUC: each episode's highest score in its detection window against the highest score of each block of time
    // (48 h; 7 days for lameness) outside every episode. Reliability: hour by hour, the event being the same window.
    const block = (type === 'lameness' ? 7 * 24 : 48) * HOUR_MS
    const positives = counted.map((e) => {
      let max = 0
      for (let i = from; i <= to; i++) {
        const t = hourEnd(i)
        if (t >= e.detectFrom && t <= e.detectTo) max = Math.max(max, scores[e.animal]![type][i] ?? 0)
      }
      return max
    })
    const global = scoredHours(herd, scores, type, episodes[type], from, to, block)
    const { pairs, byAnimal } = shown.every((s, k) => s[type] === scores[k]![type])
      ? global
      : scoredHours(herd, shown, type, episodes[type], from, to, block)
    const calibration = reliability(pairs)
    const globalError = (pairs === global.pairs ? calibration : reliability(global.pairs)).meanAbsoluteError
    leads.sort((a, b) => a - b)
    const animalMonths = scoredMs / month
    report[type] = {
      episodes: counted.length,
      detected,
      sensitivity: counted.length === 0 ? null : round2(detected / counted.length),
      sensitivityCI: round2Pair(wilson(detected, counted.length)),
      perEpisode: counted.length === 0 ? null : round2(late / counted.length),
      leadHours: {
        median: leads.length === 0 ? null : round1(medianOf(leads)!),
        ci: round1Pair(bootstrapMedian(leads)),
        min: leads.length === 0 ? null : round1(leads[0]!),
        max: leads.length === 0 ? null : round1(leads.at(-1)!),
      },
      early:
        type === 'lameness'
          ? {
              withinDays: EARLY_LAMENESS_DAYS,
              detected: early,
              share: counted.length === 0 ? null : round2(early / counted.length),
              ci: round2Pair(wilson(early, counted.length)),
            }
          : null,
      falseAlarms,
      animalMonths: round1(animalMonths),
      falseAlarmsPerAnimalMonth: round2(falseAlarms / animalMonths),
      falseAlarmsCI: round2Pair(poissonRate(falseAlarms, animalMonths)),
      confounders: {
        falseAlarms: confounderAlarms,
        animalMonths: round2(confounderMs / month),
        perAnimalMonth: confounderMs === 0 ? null : round2(confounderAlarms / (confounderMs / month)),
        ci: round2Pair(poissonRate(confounderAlarms, confounderMs / month)),
      },
      auc: (() => {
        const value = auc(positives, global.negatives)
        return value === null ? null : round3(value)
      })(),
      calibration: calibration.meanAbsoluteError === null ? null : round3(calibration.meanAbsoluteError),
      calibrationCI: round3Pair(bootstrapCalibration(byAnimal)),
      reliability: calibration.bins.map((b) => ({
        from: b.from,
        hours: b.hours,
        meanPredicted: round3(b.meanPredicted),
        observed: round3(b.observed),
      })),
      globalCalibration: globalError === null ? null : round3(globalError),
      subsets,
    }
  }
  return report
}

/**
 * Hour by hour, each scored hour's probability and whether it lies in an episode's detection window (hours excused
 * after an episode left out): what reliability and calibration read; and each block of time's highest probability
 * outside every episode (the AUC's negatives).
 */
export function scoredHours(
  herd: readonly SimulatedAnimalData[],
  scores: Scores,
  type: ClassificationType,
  episodes: readonly Episode[],
  from: number,
  to: number,
  block: number,
): { negatives: number[]; pairs: [number, boolean][]; byAnimal: [number, boolean][][] } {
  const hourEnd = (i: number) => herd[0]!.hours[i]!.hour + HOUR_MS
  const windowFrom = hourEnd(from) - HOUR_MS
  const negatives: number[] = []
  const pairs: [number, boolean][] = []
  const byAnimal: [number, boolean][][] = []
  herd.forEach((a, animal) => {
    if (type !== 'lameness' && a.sex !== 'female') return
    const start = pairs.length
    const own = episodes.filter((e) => e.animal === animal)
    let blockMax: number | undefined
    let blockStart = windowFrom
    for (let i = from; i <= to; i++) {
      const t = hourEnd(i)
      if (t - blockStart > block) {
        if (blockMax !== undefined) negatives.push(blockMax)
        blockMax = undefined
        blockStart = t
      }
      const p = scores[animal]![type][i] ?? 0
      const inEpisode = own.some((e) => t >= e.detectFrom && t <= e.detectTo)
      const excused = own.some((e) => t >= e.excuseFrom && t <= e.excuseTo)
      if (!excused) blockMax = Math.max(blockMax ?? 0, p)
      if (inEpisode || !excused) pairs.push([p, inEpisode])
    }
    byAnimal.push(pairs.slice(start))
  })
  return { negatives, pairs, byAnimal }
}
