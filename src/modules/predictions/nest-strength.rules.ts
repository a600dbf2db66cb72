// Per-farm learning of the farm's nest-building strength (birth's CUSUM references in the days its sows farrow): where
// a farm's sows build weak nests, their activity rises too little over the references (1.6x her usual for the long
// CUSUM, 1.4x her crate days' for the short one) for the CUSUMs to grow, so their missed farrowings score near 0 and
// no lower bar (due-bar.rules.ts) reaches them. The farm's own recorded farrowings say how weak a nest its sows'
// rises support: each farrowing's highest strength (both references' excess over 1 times it) at which its score
// reached the bar in the 48 h before onset. A lower strength confined to the due days is replayed on the farm's own
// hours, as the due bar is, and kept only where it catches more farrowings with at most one more false alarm for
// each. Replaying a reference needs each hour's activity ratios as the CUSUMs read them, not only the stored score:
// the scorer's birth trace (scoreHerd's birthTrace). Pure: the job (src/jobs/predictions.ts) and the evaluation
// (src/simulation/farm-learning-evaluation.ts) feed it; docs/predictions.md has the why and the figures.
import { quantile } from './baselines.rules.ts'
import { birthCusum } from './birth.rules.ts'
import { SCORER } from './scorer-settings.rules.ts'
import type { AnimalRecords } from './reproduction.rules.ts'
import {
  DUE_BAR_LEARNING,
  NO_DUE_BAR,
  dueWindows,
  farrowingPeaks,
  reachOfRaw,
  replayDueBar,
  type DueWindow,
} from './due-bar.rules.ts'

export const NEST_STRENGTH_LEARNING = {
  /** No strength below this: the short CUSUM's reference then 1.25x her crate days' (the long one's 1.375x). */
  minStrength: 0.625,
  /** The strengths tried, this far apart, from 1 down. */
  step: 0.0625,
  /** Fewer recorded farrowings (with their service and due days in the period) than this change nothing. */
  minFarrowings: 5,
  /** The strength moves farrowings / (farrowings + shrinkFarrowings) of the way from 1. */
  shrinkFarrowings: 5,
  /** The strength aims to reach all but this share of the farm's farrowings (birth's target sensitivity, 0.9). */
  supportQuantile: 0.1,
  /** At most this many more false alarms in the due days for each farrowing the strength gains, over the period. */
  falseAlarmsPerBirthGained: 1,
} as const

/** A CUSUM's reference at a nest-building strength: its excess over 1 times the strength. */
export const strengthReference = (reference: number, strength: number) => 1 + (reference - 1) * strength

/** One scored hour's birth inputs, as the scorer read them (scoreHerd's birthTrace). */
export interface BirthTraceHour {
  /** The hour's end, ms. */
  at: number
  /** Its raw birth score as scored. */
  raw: number
  /** The long CUSUM's ratio of this hour (against her usual, less her group's; undefined: no data or a meal hour). */
  ratio: number | undefined
  /** The short CUSUM's (against her crate days'); undefined outside its due days or without data. */
  shortRatio: number | undefined
  /** No birth alarm possible (a recorded farrowing too recent, a rise lasting over a day, a tag off the skin). */
  blocked: boolean
  /** The long and short CUSUMs' thresholds in force (the due bar included). */
  threshold: number
  shortThreshold: number
  /** The last-day CUSUM's raw score. */
  lastDay: number
  /** The due bar in force at this hour (1 outside the due days), and whether the hour lies in the due days. */
  bar: number
  due: boolean
}

export interface NestStrengthLearning {
  /** Both CUSUMs' references' excess over 1 times this in the due days (the due bar's days); 1: the defaults. */
  strength: number
  fromDay: number
  toDay: number
  /** Recorded farrowings read (a sow's due window in the period, with the farrowing after her service). */
  farrowings: number
  /**
   * The strength under which the lowest supportQuantile of them reached the bar in the 48 h before onset (each
   * farrowing's highest strength tried at which it did; minStrength for one that did at none); null without any.
   */
  supported: number | null
  /** Over the period's due windows, at the farm's due bar: farrowings caught and false alarms, at strength 1 and at the one chosen. */
  caught: number
  caughtAtStrength: number
  falseAlarms: number
  falseAlarmsAtStrength: number
  reason: string
}

export const DEFAULT_NEST_STRENGTH_LEARNING: NestStrengthLearning = {
  strength: 1,
  fromDay: DUE_BAR_LEARNING.fromDay,
  toDay: DUE_BAR_LEARNING.toDay,
  farrowings: 0,
  supported: null,
  caught: 0,
  caughtAtStrength: 0,
  falseAlarms: 0,
  falseAlarmsAtStrength: 0,
  reason: "not learned yet: the defaults' references",
}

const round = (x: number, digits: number) => Math.round(x * 10 ** digits) / 10 ** digits

/** The strengths tried, from 1 down to minStrength. */
export function strengthsTried(): number[] {
  const { minStrength, step } = NEST_STRENGTH_LEARNING
  const out: number[] = []
  for (let s = 1; s >= minStrength - 1e-9; s -= step) out.push(round(s, 4))
  return out
}

const cusumAt = (ratios: (number | undefined)[], reference: number) =>
  birthCusum(ratios, { ...SCORER, birth: { ...SCORER.birth, reference } })

/**
 * Hour n of a sow's trace (hours oldest first, one per hour; undefined: not scored) as a multiple of its threshold
 * without the due bar, with both CUSUMs at `strength` in the due days: as the scorer would have scored it.
 */
export function traceReach(trace: readonly (BirthTraceHour | undefined)[], n: number, strength: number): number {
  const h = trace[n]
  if (!h) return 0
  if (!h.due) return reachOfRaw(h.raw) * h.bar
  if (h.blocked) return 0
  const window = (hours: number, read: (x: BirthTraceHour | undefined) => number | undefined) => {
    const out: (number | undefined)[] = []
    for (let j = Math.max(0, n - hours + 1); j <= n; j++) out.push(read(trace[j]))
    return out
  }
  const long = cusumAt(
    window(SCORER.birth.hours, (x) => x?.ratio),
    strengthReference(SCORER.birth.reference, strength),
  )
  const short = cusumAt(
    window(SCORER.birth.short.hours, (x) => x?.shortRatio),
    strengthReference(SCORER.birth.short.reference, strength),
  )
  return Math.max(long / h.threshold, short / h.shortThreshold, reachOfRaw(h.lastDay)) * h.bar
}

/**
 * The period's due windows (as the due bar reads them) with every sow's hours scored at `strength` in her due days
 * and at the defaults elsewhere, from her trace. The trace must be scored at strength 1 outside the due days (the
 * scorer applies a strength only in them).
 */
export function traceWindows(
  sows: readonly { records: AnimalRecords; trace: readonly (BirthTraceHour | undefined)[] }[],
  period: { from: number; to: number },
  gestationDays: number,
  strength: number,
): DueWindow[] {
  const raw = sows.map((sow) => ({
    records: sow.records,
    hours: sow.trace.flatMap((h, n) => {
      if (!h || h.at < period.from || h.at > period.to) return []
      const reach = traceReach(sow.trace, n, strength)
      return [{ at: h.at, raw: reach === Infinity ? 1 : reach / (1 + reach) }]
    }),
  }))
  return dueWindows(raw, period, gestationDays, NO_DUE_BAR)
}

/**
 * The farm's nest-building strength from the period's due windows at each strength tried (`windowsAt`, the same
 * windows in the same order), replayed at the farm's due bar `bar`, and why.
 */
export function learnNestStrength(
  windowsAt: (strength: number) => readonly DueWindow[],
  bar: number,
): NestStrengthLearning {
  const { minStrength, step, minFarrowings, shrinkFarrowings, supportQuantile, falseAlarmsPerBirthGained } =
    NEST_STRENGTH_LEARNING
  const tried = strengthsTried()
  const peaksAt = new Map(tried.map((s) => [s, farrowingPeaks(windowsAt(s))]))
  const farrowings = peaksAt.get(1)!.length
  // Each farrowing's highest strength at which its score reached the bar in the 48 h before onset.
  const supportedEach = Array.from(
    { length: farrowings },
    (_, f) => tried.find((s) => peaksAt.get(s)![f]! >= bar) ?? minStrength,
  )
  const atDefault = replayDueBar(windowsAt(1), bar)
  const seen = {
    fromDay: DUE_BAR_LEARNING.fromDay,
    toDay: DUE_BAR_LEARNING.toDay,
    farrowings,
    supported: farrowings === 0 ? null : round(quantile(supportedEach, supportQuantile)!, 3),
    caught: atDefault.caught,
    falseAlarms: atDefault.falseAlarms,
  }
  const unchanged = (reason: string): NestStrengthLearning => ({
    ...seen,
    strength: 1,
    caughtAtStrength: atDefault.caught,
    falseAlarmsAtStrength: atDefault.falseAlarms,
    reason,
  })
  if (farrowings < minFarrowings)
    return unchanged(
      `${farrowings} farrowings recorded with their sow's due days in the period, fewer than ${minFarrowings}: the defaults' references`,
    )
  const aim = Math.max(minStrength, seen.supported!)
  if (aim >= 1 - 1e-9)
    return unchanged(
      `${round((1 - supportQuantile) * 100, 0)} % of ${farrowings} farrowings reached the bar at the defaults' references: strength 1`,
    )
  // From the aim up: the lowest strength whose replay gains farrowings, at most one more false alarm for each.
  for (let s = aim; s < 1 - 1e-9; s = round(s + step, 4)) {
    const replay = replayDueBar(windowsAt(s), bar)
    const gained = replay.caught - atDefault.caught
    if (gained <= 0 || replay.falseAlarms - atDefault.falseAlarms > falseAlarmsPerBirthGained * gained) continue
    const weight = farrowings / (farrowings + shrinkFarrowings)
    const strength = round(1 - weight * (1 - s), 3)
    const chosen = replayDueBar(windowsAt(strength), bar)
    const refs = (x: number) =>
      `${round(strengthReference(SCORER.birth.reference, x), 3)}x and ${round(strengthReference(SCORER.birth.short.reference, x), 3)}x`
    return {
      ...seen,
      strength,
      caughtAtStrength: chosen.caught,
      falseAlarmsAtStrength: chosen.falseAlarms,
      reason:
        `${farrowings} farrowings: ${round(supportQuantile * 100, 0)} % reached the bar in the 48 h before onset only under strength ${seen.supported}; ` +
        `at ${round(s, 3)} (references ${refs(s)}) in the days ${seen.fromDay} to +${seen.toDay} around the farm's gestation the period would have caught ${replay.caught} of them ` +
        `(${atDefault.caught} at the defaults'), with ${replay.falseAlarms} false alarms there (${atDefault.falseAlarms}); ` +
        `${strength} (${refs(strength)}), ${round(weight * 100, 0)} % of the way`,
    }
  }
  return unchanged(
    `${farrowings} farrowings, caught ${atDefault.caught} in their due days; no weaker strength there would have caught more without more than one false alarm for each: strength 1`,
  )
}

/** Farrowings the period's records hold with their sow's due days (and the days around them) in the period. */
export function recordedDueFarrowings(
  sows: readonly { records: AnimalRecords }[],
  period: { from: number; to: number },
  gestationDays: number,
): number {
  return dueWindows(
    sows.map((sow) => ({ records: sow.records, hours: [] })),
    period,
    gestationDays,
    NO_DUE_BAR,
  ).filter((w) => w.farrowing !== undefined).length
}

/**
 * The farm's nest-building strength learned from a period: each sow's records and birth trace over it (scored hours,
 * oldest first), at the farm's gestation and due bar. The job and the evaluation both learn through it.
 */
export function learnNestStrengthFromTrace(
  sows: readonly { records: AnimalRecords; trace: readonly (BirthTraceHour | undefined)[] }[],
  period: { from: number; to: number },
  gestationDays: number,
  bar: number,
): NestStrengthLearning {
  const cache = new Map<number, DueWindow[]>()
  const windowsAt = (s: number) => {
    let windows = cache.get(s)
    if (!windows) cache.set(s, (windows = traceWindows(sows, period, gestationDays, s)))
    return windows
  }
  return learnNestStrength(windowsAt, bar)
}
