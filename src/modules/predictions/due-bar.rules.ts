// Per-farm learning of birth's bar in the days the farm's sows farrow (the due bar): where a farm's sows build weak
// nests, the defaults miss farrowings whose birth score rose in the 48 h before onset, but not to the bar. The farm's
// own records say how high its sows' scores rise before a recorded farrowing, and, with its services and its learned
// gestation, when each sow is due; a lower bar confined to those few days (where an alarm's start counts and quiet
// sows are few) is set just under what most of its farrowings reached, and replayed on the farm's own scored hours:
// kept only where it would have caught more farrowings than it lost to alarms started too early, with at most one
// more false alarm for each farrowing gained. Pure: the job (src/jobs/predictions.ts) and the evaluation
// (src/simulation/farm-learning-evaluation.ts) feed it; docs/predictions.md has the why and the figures.
import { quantile } from './baselines.rules.ts'
import { DEFAULT_GESTATION_DAYS, SCORER, type ScorerSettings } from './scorer-settings.rules.ts'
import type { AnimalRecords } from './reproduction.rules.ts'
import { uncalibrate } from './calibration.rules.ts'
import { counted } from './predictions.rules.ts'

const HOUR_MS = 3_600_000
const DAY_MS = 24 * HOUR_MS

export const DUE_BAR_LEARNING = {
  /** The lowered bar holds from fromDay to toDay around the farm's gestation, after the sow's latest service. */
  fromDay: SCORER.birth.dueBar.fromDay,
  toDay: SCORER.birth.dueBar.toDay,
  /** Fewer recorded farrowings (with their service) than this change nothing. */
  minFarrowings: 5,
  /** The bar moves farrowings / (farrowings + shrinkFarrowings) of the way from the default. */
  shrinkFarrowings: 5,
  /**
   * The bar aims to reach all but this share of the farm's farrowings by their peak score in the 48 h before onset
   * (birth's target sensitivity, 0.9), just under it (`under`), never below minFactor of the default threshold.
   */
  peakQuantile: 0.1,
  under: 0.9,
  minFactor: 0.5,
  /** When the replay refuses a bar, the next one tried is this much higher. */
  step: 0.05,
  /** At most this many more false alarms in the due days for each farrowing the bar gains, over the period. */
  falseAlarmsPerBirthGained: 1,
  /** As the evaluation counts: an alarm's start catches a farrowing from leadHours before onset to onset. */
  leadHours: 48,
  /** Alarms after onset within lateHours are no false alarm; alarm hours less than mergeHours apart are one alarm. */
  lateHours: 24,
  mergeHours: 12,
  /** A window is read when its sow's hours from this many days before it to a day after it lie in the period. */
  beforeDays: 3,
  afterDays: 1,
  /** Its records have this long after the window to say whether she farrowed. */
  recordDays: 2,
} as const

/** What the scorer uses: the factor of birth's thresholds from fromDay to toDay around the farm's gestation. */
export type DueBar = ScorerSettings['birth']['dueBar']

export const NO_DUE_BAR: DueBar = SCORER.birth.dueBar

export interface DueBarLearning extends DueBar {
  /** Recorded farrowings read (a sow's due window in the period, with the farrowing after her service). */
  farrowings: number
  /** Their peak scores' peakQuantile, in units of the threshold without the bar; null without farrowings. */
  peakQuantile: number | null
  /** Over the period's due windows: farrowings caught and false alarms, at the default bar and at the one chosen. */
  caught: number
  caughtAtBar: number
  falseAlarms: number
  falseAlarmsAtBar: number
  reason: string
}

export const DEFAULT_DUE_BAR_LEARNING: DueBarLearning = {
  ...NO_DUE_BAR,
  farrowings: 0,
  peakQuantile: null,
  caught: 0,
  caughtAtBar: 0,
  falseAlarms: 0,
  falseAlarmsAtBar: 0,
  reason: 'not learned yet: the default bar',
}

/** One sow's due window after a service, with her hours around it and the farrowing that followed, if recorded. */
export interface DueWindow {
  /** The days the lowered bar would hold, ms. */
  from: number
  to: number
  /**
   * Each scored hour's end and its score as a multiple of the threshold without the bar (1: at the bar), oldest
   * first, from beforeDays before the window to afterDays after it.
   */
  hours: readonly { at: number; reach: number }[]
  farrowing: number | undefined
}

/** A raw score s / (s + T) as a multiple of its threshold: s / T. */
export const reachOfRaw = (raw: number) => (raw >= 1 ? Infinity : raw <= 0 ? 0 : raw / (1 - raw))

/** The window [from, to] (ms) of a service at the farm's gestation. */
export function dueWindowOf(service: number, gestationDays: number, bar: Pick<DueBar, 'fromDay' | 'toDay'>) {
  return { from: service + (gestationDays + bar.fromDay) * DAY_MS, to: service + (gestationDays + bar.toDay) * DAY_MS }
}

/**
 * The period's due windows: for each recorded service whose window (at the farm's gestation) and the days around it
 * lie in the period, and that is still the sow's latest service with no farrowing recorded before the window, her
 * hourly scores there (raw scores; hours scored with a bar in force are read back through it) and the farrowing
 * recorded after it (105-127 days after the service), if any.
 */
export function dueWindows(
  sows: Iterable<{ records: AnimalRecords; hours: readonly { at: number; raw: number }[] }>,
  period: { from: number; to: number },
  gestationDays: number,
  inForce: DueBar = NO_DUE_BAR,
): DueWindow[] {
  const { beforeDays, afterDays, recordDays } = DUE_BAR_LEARNING
  const out: DueWindow[] = []
  for (const sow of sows) {
    const { services, births } = sow.records
    for (const service of services) {
      const window = dueWindowOf(service, gestationDays, NO_DUE_BAR)
      const spanFrom = window.from - beforeDays * DAY_MS
      const spanTo = window.to + afterDays * DAY_MS
      if (spanFrom < period.from || window.to + recordDays * DAY_MS > period.to) continue
      if (services.some((s) => s > service && s < window.from)) continue
      // Found open before it was due (a negative check, a return): the scorer held no farrowing due from it.
      if (sow.records.failedServices?.some((f) => f.service === service && f.from < window.from)) continue
      if (births.some((b) => b > service && b < window.from - DUE_BAR_LEARNING.leadHours * HOUR_MS)) continue
      const farrowing = births
        .filter((b) => b >= service + 105 * DAY_MS && b <= service + 127 * DAY_MS)
        .reduce<number | undefined>((first, b) => (first === undefined || b < first ? b : first), undefined)
      const barred = dueWindowOf(service, gestationDays, inForce)
      const hours = sow.hours
        .filter((h) => h.at >= spanFrom && h.at <= spanTo)
        .map((h) => ({
          at: h.at,
          reach: reachOfRaw(h.raw) * (h.at >= barred.from && h.at <= barred.to ? inForce.factor : 1),
        }))
      out.push({ ...window, hours, farrowing })
    }
  }
  return out
}

/** The alarms of a window's hours at a bar (1 outside the window): [start, end] of each, merged when close. */
export function dueAlarms(window: DueWindow, bar: number): [number, number][] {
  const alarms: [number, number][] = []
  for (const h of window.hours) {
    const inWindow = h.at >= window.from && h.at <= window.to
    if (h.reach < (inWindow ? bar : 1)) continue
    const last = alarms.at(-1)
    if (last && h.at - last[1] <= DUE_BAR_LEARNING.mergeHours * HOUR_MS) last[1] = h.at
    else alarms.push([h.at, h.at])
  }
  return alarms
}

/** Farrowings caught (an alarm starting in the 48 h before onset) and false alarms of the windows at a bar. */
export function replayDueBar(windows: readonly DueWindow[], bar: number): { caught: number; falseAlarms: number } {
  const { leadHours, lateHours } = DUE_BAR_LEARNING
  let caught = 0
  let falseAlarms = 0
  for (const w of windows) {
    const alarms = dueAlarms(w, bar)
    const onset = w.farrowing
    if (onset !== undefined && alarms.some(([start]) => start >= onset - leadHours * HOUR_MS && start <= onset))
      caught++
    falseAlarms += alarms.filter(
      ([start, end]) => onset === undefined || end < onset - leadHours * HOUR_MS || start > onset + lateHours * HOUR_MS,
    ).length
  }
  return { caught, falseAlarms }
}

/** Each recorded farrowing's highest score (a multiple of the threshold) from leadHours before its onset to it. */
export function farrowingPeaks(windows: readonly DueWindow[]): number[] {
  return windows.flatMap((w) => {
    const onset = w.farrowing
    if (onset === undefined) return []
    const lead = w.hours.filter((h) => h.at >= onset - DUE_BAR_LEARNING.leadHours * HOUR_MS && h.at <= onset)
    return lead.length === 0 ? [] : [Math.max(...lead.map((h) => h.reach))]
  })
}

const round = (x: number, digits: number) => Math.round(x * 10 ** digits) / 10 ** digits

/** The bar in the farm's due days, from its due windows of the period, and why. */
export function learnDueBar(windows: readonly DueWindow[]): DueBarLearning {
  const { minFarrowings, shrinkFarrowings, peakQuantile, under, minFactor, step, falseAlarmsPerBirthGained } =
    DUE_BAR_LEARNING
  const peaks = farrowingPeaks(windows)
  const atDefault = replayDueBar(windows, 1)
  const seen = {
    fromDay: DUE_BAR_LEARNING.fromDay,
    toDay: DUE_BAR_LEARNING.toDay,
    farrowings: peaks.length,
    peakQuantile: peaks.length === 0 ? null : round(quantile(peaks, peakQuantile)!, 3),
    caught: atDefault.caught,
    falseAlarms: atDefault.falseAlarms,
  }
  const unchanged = (reason: string): DueBarLearning => ({
    ...seen,
    factor: 1,
    caughtAtBar: atDefault.caught,
    falseAlarmsAtBar: atDefault.falseAlarms,
    reason,
  })
  if (peaks.length < minFarrowings)
    return unchanged(
      `${peaks.length} farrowings recorded with their sow's due days in the period, fewer than ${minFarrowings}: the default bar`,
    )
  const aim = Math.max(minFactor, under * seen.peakQuantile!)
  if (aim >= 1)
    return unchanged(
      `${round((1 - peakQuantile) * 100, 0)} % of ${peaks.length} farrowings peaked at ${seen.peakQuantile}x the threshold or more in the 48 h before onset: the default bar`,
    )
  // From the aim up: the lowest bar whose replay gains farrowings, at most one more false alarm for each.
  for (let bar = aim; bar < 1 - 1e-9; bar = Math.min(1, bar + step)) {
    const replay = replayDueBar(windows, bar)
    const gained = replay.caught - atDefault.caught
    if (gained <= 0 || replay.falseAlarms - atDefault.falseAlarms > falseAlarmsPerBirthGained * gained) continue
    const weight = peaks.length / (peaks.length + shrinkFarrowings)
    const factor = round(1 - weight * (1 - bar), 3)
    const chosen = replayDueBar(windows, factor)
    return {
      ...seen,
      factor,
      caughtAtBar: chosen.caught,
      falseAlarmsAtBar: chosen.falseAlarms,
      reason:
        `${peaks.length} farrowings: ${round(peakQuantile * 100, 0)} % peaked under ${seen.peakQuantile}x the threshold in the 48 h before onset; ` +
        `at ${round(bar, 2)}x in the days ${seen.fromDay} to +${seen.toDay} around the farm's gestation the period would have caught ` +
        `${replay.caught} of them (${atDefault.caught} at the default), with ${replay.falseAlarms} false alarms there (${atDefault.falseAlarms}); ` +
        `${factor}x, ${round(weight * 100, 0)} % of the way`,
    }
  }
  return unchanged(
    `${counted(peaks.length, 'farrowing')}, caught ${atDefault.caught} in their due days; no lower bar there would have caught more without more than one false alarm for each: the default bar`,
  )
}

/**
 * The due bar learned from a period: each sow's records and the scorer's stored birth hours around her due days (the
 * global probability, stamped at the hour's end), read back as raw scores. The job and the evaluation both learn
 * through it.
 */
export function learnDueBarFromScores(
  sows: Iterable<{ records: AnimalRecords; hours: readonly { at: number; probability: number }[] }>,
  period: { from: number; to: number },
  gestationDays: number,
  inForce: DueBar,
): DueBarLearning {
  const raw = [...sows].map((sow) => ({
    records: sow.records,
    hours: sow.hours.map((h) => ({ at: h.at, raw: uncalibrate(SCORER.calibration?.birth, h.probability) })),
  }))
  return learnDueBar(dueWindows(raw, period, gestationDays, inForce))
}

/** birth's threshold factor at an hour `sinceService` days after the latest service (dueDaysSince applied). */
export function dueBarFactor(dueDays: number | undefined, settings: Pick<ScorerSettings, 'birth'>): number {
  const bar = settings.birth.dueBar
  if (dueDays === undefined || bar.factor === 1) return 1
  const day = dueDays - DEFAULT_GESTATION_DAYS
  return day >= bar.fromDay && day <= bar.toDay ? bar.factor : 1
}
