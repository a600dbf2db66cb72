// Per-farm learning: each class's alarm threshold adapted from the farm's own records. The farm's births,
// inseminations and lameness treatments say which events came (accuracy.rules.ts matches them with the alarms);
// the scorer's stored hourly probabilities say how close it came before each event and how high it went on the
// days without one. From those, the threshold factor that would have caught enough events without raising the
// false alarms is chosen, shrunk towards the current factor when records are few and kept within limits, so that a
// few records cannot run it away. Pure: the job (src/jobs/predictions.ts) feeds it; docs/predictions.md has the why.
import { counted, type ClassificationType } from './predictions.rules.ts'
import { DEFAULT_GESTATION_DAYS } from './scorer-settings.rules.ts'
import { MATCH_WINDOWS, mergeMoments, type Moment } from './accuracy.rules.ts'
import { median as medianOf } from './baselines.rules.ts'

/** Factors of each class's default threshold, the limits, and what learning aims at. */
export const LEARNING = {
  /** The factor of a threshold stays within these. */
  minFactor: 0.6,
  maxFactor: 1.5,
  /** One learning run moves a factor at most this much (x or /). */
  maxStep: 1.25,
  /** Fewer events than this in the period change nothing. */
  minEvents: 5,
  /**
   * A raise keeps every caught event's peak score at least this many times the new threshold: the next period's
   * events are not the ones learned from, and a missed event costs more than a false alarm.
   */
  raiseMargin: 1.25,
  /** Shrinkage: a run moves events / (events + shrinkEvents) of the way to the factor the records ask for. */
  shrinkEvents: 10,
  /** Days of records and predictions one learning run reads, and days between runs. */
  periodDays: 60,
  everyDays: 7,
  /** Aims: sensitivity wanted, and false alarms per animal-month allowed (never more than the current ones). */
  targets: {
    birth: { sensitivity: 0.9, falseAlarms: 0.5 },
    heat: { sensitivity: 0.8, falseAlarms: 1 },
    lameness: { sensitivity: 0.7, falseAlarms: 1 },
  } satisfies Record<ClassificationType, { sensitivity: number; falseAlarms: number }>,
} as const

/** An event the farm recorded, and the scorer's highest probability in the lead window before it. */
export interface LearningEvent {
  peakBefore: number
}

export interface ClassLearningInput {
  /** The factor the stored probabilities were scored with. */
  currentFactor: number
  events: readonly LearningEvent[]
  /** The highest probability of each animal-day outside every event's window (what false alarms come from). */
  quietDayPeaks: readonly number[]
  animalMonths: number
}

export interface ClassLearning {
  factor: number
  events: number
  /** Events the current factor caught (peak ≥ 0.5), and would catch at the new factor. */
  detected: number
  detectedAtFactor: number
  /** Quiet days with a peak at the alarm level, per animal-month, now and at the new factor. */
  falseAlarmsPerAnimalMonth: number | null
  falseAlarmsAtFactor: number | null
  reason: string
}

/**
 * With a stored probability p scored at factor f (p = s / (s + f·T)), the rule alarms at factor g when
 * s ≥ g·T, i.e. when p ≥ g / (g + f).
 */
export const alarmsAt = (p: number, scoredAt: number, factor: number) => p > 0 && p >= factor / (factor + scoredAt)

/** The highest factor at which a stored probability p, scored at factor f, still alarms: s / T = f·p / (1 − p). */
export const reachOf = (p: number, scoredAt: number) => (p >= 1 ? Infinity : (scoredAt * p) / (1 - p))

const round = (x: number, digits: number) => Math.round(x * 10 ** digits) / 10 ** digits

/**
 * One class learned from a period [from, to] (ms): the days' peak raw scores and the farm's recorded events of the
 * class, merged and matched as the accuracy route matches them. The job and the evaluation both learn through it.
 */
export function learnClassFromPeriod(
  kind: ClassificationType,
  rawDayPeaks: readonly DayPeak[],
  recorded: readonly Moment[],
  period: { from: number; to: number },
  currentFactor: number,
): ClassLearning {
  const window = MATCH_WINDOWS[kind]
  const events = mergeMoments(recorded, window.eventMergeMs).filter(
    (e) => e.at - window.leadMs >= period.from && e.at <= period.to,
  )
  return learnClass(kind, learningInput(rawDayPeaks, events, window, currentFactor))
}

/** The factor a class's threshold should have on this farm, and why. */
export function learnClass(kind: ClassificationType, input: ClassLearningInput): ClassLearning {
  const { currentFactor, events, quietDayPeaks, animalMonths } = input
  const target = LEARNING.targets[kind]
  const caught = (factor: number) => events.filter((e) => alarmsAt(e.peakBefore, currentFactor, factor)).length
  const falseRate = (factor: number) =>
    animalMonths > 0 ? quietDayPeaks.filter((p) => alarmsAt(p, currentFactor, factor)).length / animalMonths : null
  const now = { detected: caught(currentFactor), falseAlarms: falseRate(currentFactor) }
  const result = (factor: number, reason: string): ClassLearning => ({
    factor: round(factor, 3),
    events: events.length,
    detected: now.detected,
    detectedAtFactor: caught(factor),
    falseAlarmsPerAnimalMonth: now.falseAlarms === null ? null : round(now.falseAlarms, 2),
    falseAlarmsAtFactor: falseRate(factor) === null ? null : round(falseRate(factor)!, 2),
    reason,
  })
  if (events.length < LEARNING.minEvents)
    return result(
      currentFactor,
      `${counted(events.length, 'event')} recorded in the period, fewer than ${LEARNING.minEvents}: unchanged`,
    )
  // The candidates: factors within the limits and one step of the current one, from the highest (fewest alarms).
  const lowest = Math.max(LEARNING.minFactor, currentFactor / LEARNING.maxStep)
  const highest = Math.min(LEARNING.maxFactor, currentFactor * LEARNING.maxStep)
  const candidates: number[] = []
  for (let f = highest; f >= lowest - 1e-9; f -= 0.025) candidates.push(f)
  // A lower threshold may cost false alarms, at most one more quiet day at the alarm level for each event more it catches.
  const quietAlarms = (f: number) => quietDayPeaks.filter((p) => alarmsAt(p, currentFactor, f)).length
  const quietEnough = (f: number) =>
    quietAlarms(f) - quietAlarms(currentFactor) <= Math.max(0, caught(f) - caught(currentFactor))
  const wanted = Math.ceil(target.sensitivity * events.length)
  let aim = currentFactor
  let why: string
  if (now.detected < wanted) {
    // Missing events: the highest factor that catches enough of them without more false alarms, else the lowest
    // that keeps the false alarms where they are.
    const enough = candidates.find((f) => caught(f) >= wanted && quietEnough(f))
    const best = enough ?? [...candidates].reverse().find((f) => quietEnough(f) && caught(f) > now.detected)
    aim = best ?? currentFactor
    why =
      best === undefined
        ? `caught ${now.detected} of ${counted(events.length, 'event')}, but a lower threshold would raise the false alarms more than the events caught: unchanged`
        : `caught ${now.detected} of ${counted(events.length, 'event')}; at ${round(best, 2)}x the default threshold it would have caught ${caught(best)}, with at most one more false alarm for each`
  } else if (now.falseAlarms !== null && now.falseAlarms > target.falseAlarms) {
    // Enough caught but too many false alarms: the highest factor that still catches every event caught now (the
    // farm's records confirmed them; a factor that gives one up, run week after week, walks sensitivity down), and
    // with a margin under the lowest of their peaks: an event caught just above the new bar is, in the next period,
    // as likely just under it.
    const ceiling =
      Math.min(
        ...events
          .filter((e) => alarmsAt(e.peakBefore, currentFactor, currentFactor))
          .map((e) => reachOf(e.peakBefore, currentFactor)),
      ) / LEARNING.raiseMargin
    const best = candidates.find(
      (f) =>
        f > currentFactor && f <= ceiling + 1e-9 && caught(f) >= now.detected && (falseRate(f) ?? 0) < now.falseAlarms!,
    )
    aim = best ?? currentFactor
    why =
      best === undefined
        ? `${round(now.falseAlarms, 2)} false alarms per animal-month, but a higher threshold would miss events or come within ${LEARNING.raiseMargin}x of the lowest caught event's peak: unchanged`
        : `${round(now.falseAlarms, 2)} false alarms per animal-month with ${now.detected} of ${counted(events.length, 'event')} caught; at ${round(best, 2)}x it would still catch ${caught(best)}, each at least ${LEARNING.raiseMargin}x above it`
  } else {
    why = `caught ${now.detected} of ${counted(events.length, 'event')} at ${round(now.falseAlarms ?? 0, 2)} false alarms per animal-month: on target, unchanged`
  }
  const weight = events.length / (events.length + LEARNING.shrinkEvents)
  const factor = Math.min(
    LEARNING.maxFactor,
    Math.max(LEARNING.minFactor, currentFactor + weight * (aim - currentFactor)),
  )
  return result(
    factor,
    factor === currentFactor ? why : `${why} (moved ${round(weight * 100, 0)} % of the way: ${events.length} events)`,
  )
}

/** The factors of each class's default threshold for one farm (1 = the defaults). */
export type FarmFactors = Record<ClassificationType, number>
export const DEFAULT_FACTORS: FarmFactors = { birth: 1, heat: 1, lameness: 1 }

const DAY_MS = 86_400_000

/** One animal-day's highest stored probability of a class. */
export interface DayPeak {
  animalId: number
  /** Start of the UTC day, ms. */
  day: number
  peak: number
}

/**
 * What learnClass reads, from the farm's days and events of one class: each event's highest probability over the
 * days its lead window touches, and the peaks of the days no event's window (lead before, late after) touches.
 */
export function learningInput(
  dayPeaks: readonly DayPeak[],
  events: readonly { animalId: number; at: number }[],
  window: { leadMs: number; lateMs: number },
  currentFactor: number,
): ClassLearningInput {
  const byAnimal = new Map<number, DayPeak[]>()
  for (const d of dayPeaks) byAnimal.set(d.animalId, [...(byAnimal.get(d.animalId) ?? []), d])
  const touches = (d: DayPeak, from: number, to: number) => d.day + DAY_MS > from && d.day <= to
  const learningEvents = events.map((e) => ({
    peakBefore: (byAnimal.get(e.animalId) ?? [])
      .filter((d) => touches(d, e.at - window.leadMs, e.at))
      .reduce((max, d) => Math.max(max, d.peak), 0),
  }))
  const quietDayPeaks = dayPeaks
    .filter(
      (d) => !events.some((e) => e.animalId === d.animalId && touches(d, e.at - window.leadMs, e.at + window.lateMs)),
    )
    .map((d) => d.peak)
  return { currentFactor, events: learningEvents, quietDayPeaks, animalMonths: dayPeaks.length / 30.44 }
}

/**
 * The farm's gestation, from its own records: each recorded farrowing of the period and the latest service before it
 * (the one the birth rules count from). Breeds and lines differ by days; a farm whose sows farrow later than the
 * defaults assume has its lower birth threshold and shorter CUSUM running in the days before its sows farrow, and
 * their nest building after them. Limits, so a few records cannot run it away: pairs outside minDays-maxDays are no
 * pair (a return, a missing record), nothing below minPairs, the median (an odd pair moves it little) taken
 * pairs / (pairs + shrinkPairs) of the way from the default, within ± maxShiftDays of it. Each learning reads its
 * period afresh: the records, not the scores, say when sows farrow, so nothing it learned feeds the next learning.
 */
export const GESTATION_LEARNING = {
  defaultDays: DEFAULT_GESTATION_DAYS,
  minDays: 105,
  maxDays: 127,
  minPairs: 5,
  shrinkPairs: 5,
  maxShiftDays: 5,
} as const

export interface GestationLearning {
  /** The gestation the birth windows centre on for this farm, days after the service. */
  days: number
  /** Service-to-farrowing pairs in the period, and their median (null without any). */
  pairs: number
  medianDays: number | null
  /** The shortest and longest gestation of those pairs (null without any). */
  range: [number, number] | null
  reason: string
}

export const DEFAULT_GESTATION: GestationLearning = {
  days: GESTATION_LEARNING.defaultDays,
  pairs: 0,
  medianDays: null,
  range: null,
  reason: 'not learned yet: the default gestation',
}

/** Days from each farrowing in [from, to] to the latest service before it, when within minDays-maxDays. */
export function gestationPairs(
  records: Iterable<{ services: readonly number[]; births: readonly number[] }>,
  from: number,
  to: number,
): number[] {
  const out: number[] = []
  for (const r of records)
    for (const birth of r.births) {
      if (birth < from || birth > to) continue
      const service = r.services.reduce<number | undefined>(
        (latest, s) => (s < birth && (latest === undefined || s > latest) ? s : latest),
        undefined,
      )
      if (service === undefined) continue
      const days = (birth - service) / DAY_MS
      if (days >= GESTATION_LEARNING.minDays && days <= GESTATION_LEARNING.maxDays) out.push(days)
    }
  return out
}

/** The farm's gestation learned from the farrowings its records hold in [from, to] and their services. */
export function learnGestationFromRecords(
  records: Iterable<{ services: readonly number[]; births: readonly number[] }>,
  from: number,
  to: number,
): GestationLearning {
  return learnGestation(gestationPairs(records, from, to))
}

/** The gestation the birth windows should centre on for this farm, from its pairs, and why. */
export function learnGestation(pairs: readonly number[]): GestationLearning {
  const { defaultDays, minPairs, shrinkPairs, maxShiftDays } = GESTATION_LEARNING
  if (pairs.length === 0)
    return {
      ...DEFAULT_GESTATION,
      reason: 'no farrowing with its service recorded in the period: the default gestation',
    }
  const median = medianOf(pairs)!
  const seen = {
    pairs: pairs.length,
    medianDays: round(median, 1),
    range: [round(Math.min(...pairs), 1), round(Math.max(...pairs), 1)] as [number, number],
  }
  if (pairs.length < minPairs)
    return {
      ...seen,
      days: defaultDays,
      reason: `${pairs.length} farrowings with their service recorded in the period, fewer than ${minPairs}: the default gestation (${defaultDays} days)`,
    }
  const weight = pairs.length / (pairs.length + shrinkPairs)
  const shift = Math.max(-maxShiftDays, Math.min(maxShiftDays, weight * (median - defaultDays)))
  const days = round(defaultDays + shift, 1)
  return {
    ...seen,
    days,
    reason:
      `${pairs.length} farrowings came a median ${seen.medianDays} days (${seen.range[0]}-${seen.range[1]}) after their service; ` +
      `the birth windows centre on ${days} days (the default ${defaultDays}), ${round(weight * 100, 0)} % of the way` +
      (Math.abs(weight * (median - defaultDays)) > maxShiftDays
        ? `, held within ${maxShiftDays} days of the default`
        : ''),
  }
}
