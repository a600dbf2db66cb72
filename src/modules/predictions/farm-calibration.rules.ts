// Per-farm calibration: the scorer's calibrated probability re-mapped per class from the farm's own records. The
// global calibration (SCORER.calibration) carries the base rates of the herds it was fitted on; on a farm whose events
// are rarer, or whose false alarms last longer, a 0.8 is followed by the event far less often. The farm's records say
// which of its scored hours lay in an event (FIT_WINDOWS: around a birth record, around an insemination), so birth's
// and heat's maps are refitted from them: logit q = intercept + slope · logit p, p the global
// probability, by maximum likelihood over the farm's hours, shrunk toward the identity by the number of events and
// kept within limits. A rising straight line in logit space is strictly monotone, so no alarm moves: an hour alarms
// where its global probability reaches the class's alarm level, and the farm's probability then reaches the image of
// that level. Lameness's map is the farm's own base rate (lamenessPrior): the share of its animal-days in a
// sustained lameness alarm against the share on the farms the global calibration was fitted on, a shift in log-odds
// that needs no lameness record. Pure: the job (src/jobs/predictions.ts) feeds it; docs/predictions.md has the why
// and the figures.
import { MATCH_WINDOWS } from './accuracy.rules.ts'
import { counted, type ClassificationType } from './predictions.rules.ts'

const HOUR_MS = 3_600_000

/** Which hours around a record lay in its event: from beforeMs before it to afterMs after; then to leftOutMs, unknown. */
export interface FitWindow {
  beforeMs: number
  afterMs: number
  leftOutMs: number
}

/**
 * The hours a class's probability is about (the evaluation's windows: 48 h before a farrowing's onset; 12 h before a
 * heat's onset to its end), read from the records. A birth record is the farrowing's onset: the 48 h before it, the
 * day after left out. A sow is inseminated in standing heat, 12-24 h after its onset, and a heat lasts 36-72 h: from
 * 36 h before each service (or return seen) to 24 h after it, the day after that left out (her heat may still last).
 * Lameness: none. A treatment says a lameness was seen, days into it, and many go untreated, so a line fitted to
 * treatments follows the farm's treating, not its lameness: lameness's map is the farm's base rate alone
 * (lamenessPrior).
 */
export const FIT_WINDOWS: Record<ClassificationType, FitWindow | null> = {
  birth: { beforeMs: 48 * HOUR_MS, afterMs: 0, leftOutMs: 24 * HOUR_MS },
  heat: { beforeMs: 36 * HOUR_MS, afterMs: 24 * HOUR_MS, leftOutMs: 48 * HOUR_MS },
  lameness: null,
}

export const FARM_CALIBRATION = {
  /** Fewer recorded events of a class than this in the period: the global calibration alone. */
  minEvents: 5,
  /** Shrinkage: the fitted line is taken events / (events + shrinkEvents) of the way from the identity. */
  shrinkEvents: 5,
  /** The line's limits after shrinking: the slope, and the intercept (log-odds). */
  minSlope: 0.5,
  maxSlope: 2,
  maxIntercept: 2.5,
  /** Probabilities are read within these before their logit is taken. */
  floor: 0.001,
} as const

/**
 * Lameness's prior from the farm's own scores (branch `lameprior`): at one score the odds of a lameness differ with how
 * common lameness is on the farm, and the global calibration carries the base rate of the farms it was fitted on. A
 * lameness persists for weeks, a day-to-day swing does not: the share of the farm's animal-days that lie in a run of
 * at least `sustainedDays` days whose peak reached the alarm level reads the farm's lameness, recording or not.
 */
export const LAMENESS_PRIOR = {
  /** A day counts when it lies in a run of at least this many consecutive days at the alarm level. */
  sustainedDays: 7,
  /**
   * The same share on the farms the global calibration was fitted on (cycle family, seeds tuning-1 and dev-1, profiles
   * default, late-crates, long-gestation and rough, with records, averaged in log-odds with every profile alike, as
   * the fit weighs them): the base rate the knots assume, in this measure.
   */
  knotsShare: 0.0282,
  /** Shrinkage toward no shift: taken animals / (animals + shrinkAnimals) of the way. */
  shrinkAnimals: 30,
  /** The shift stays within ± this (log-odds). */
  maxShift: 1.5,
  /** Fewer scored days than this in the period: no shift. */
  minDays: 14,
  /**
   * Fewer farrowing and weaning records than this in the period: no shift. The lameness rule reads a farm's phases
   * from them; without them a nursing sow's rest reads as a decline, the alarms a recording farm would not have
   * fill the measure, and the knots (fitted with records) are not what such a farm's scores mean.
   */
  minPhaseRecords: 5,
} as const

/** Lameness's prior: the shift added to the logit of every lameness probability, and what it came from. */
export interface LamenessPrior {
  shift: number
  /** Share of the scored animal-days in a sustained alarm; null when not estimated. */
  share: number | null
  animals: number
  days: number
  sustainedDays: number
  phaseRecords: number
  reason: string
}

export const NO_LAMENESS_PRIOR: LamenessPrior = {
  shift: 0,
  share: null,
  animals: 0,
  days: 0,
  sustainedDays: 0,
  phaseRecords: 0,
  reason: 'not estimated yet: no shift',
}

/**
 * The farrowings and weanings a farm recorded in a period (after `from`, up to and including `to`): the records the
 * lameness rule reads a farm's phases from, counted for lamenessPrior's minPhaseRecords.
 */
export function phaseRecordsIn(
  records: Iterable<{ readonly births: readonly number[]; readonly weanings: readonly number[] }>,
  from: number,
  to: number,
): number {
  let n = 0
  for (const r of records) for (const at of [...r.births, ...r.weanings]) if (at > from && at <= to) n++
  return n
}

/**
 * The farm's lameness prior from the scorer's daily lameness peaks (global probabilities) of the period, the class's
 * global alarm level and how many farrowings and weanings the farm recorded in the period. logit(share) -
 * logit(knotsShare), shrunk by the number of animals and kept within ±maxShift.
 */
export function lamenessPrior(
  peaks: readonly { animalId: number; day: number; peak: number }[],
  alarmLevel: number,
  phaseRecords: number,
): LamenessPrior {
  const c = LAMENESS_PRIOR
  const byAnimal = new Map<number, { day: number; peak: number }[]>()
  const days = new Set<number>()
  for (const p of peaks) {
    let list = byAnimal.get(p.animalId)
    if (!list) byAnimal.set(p.animalId, (list = []))
    list.push(p)
    days.add(p.day)
  }
  let animalDays = 0
  let sustained = 0
  for (const list of byAnimal.values()) {
    list.sort((a, b) => a.day - b.day)
    animalDays += list.length
    let run = 0
    let last = Number.NaN
    const close = () => {
      if (run >= c.sustainedDays) sustained += run
      run = 0
    }
    for (const { day, peak } of list) {
      if (day - last !== DAY_MS) close()
      if (peak >= alarmLevel) run++
      else close()
      last = day
    }
    close()
  }
  const counts = { animals: byAnimal.size, days: animalDays, sustainedDays: sustained, phaseRecords }
  if (phaseRecords < c.minPhaseRecords)
    return {
      ...counts,
      shift: 0,
      share: null,
      reason: `${phaseRecords} farrowings and weanings recorded in the period, fewer than ${c.minPhaseRecords}: no shift (without them the scores read nursing sows as declines)`,
    }
  if (days.size < c.minDays)
    return {
      ...counts,
      shift: 0,
      share: null,
      reason: `${counted(days.size, 'day')} scored in the period, fewer than ${c.minDays}: no shift`,
    }
  const share = sustained / animalDays
  const weight = byAnimal.size / (byAnimal.size + c.shrinkAnimals)
  const shift = round(Math.max(-c.maxShift, Math.min(c.maxShift, weight * (logit(share) - logit(c.knotsShare)))), 4)
  const percent = (x: number) => round(x * 100, 2)
  return {
    ...counts,
    shift,
    share: round(share, 4),
    reason:
      `${percent(share)} % of the period's animal-days lay in a lameness alarm held ${c.sustainedDays} days or more ` +
      `(${sustained} of ${animalDays}), ${percent(c.knotsShare)} % on the farms the global calibration was fitted on: ` +
      `lameness's log-odds ${shift >= 0 ? 'raised' : 'lowered'} by ${Math.abs(shift)}, ${round(weight * 100, 0)} % of the way (${byAnimal.size} animals)` +
      (Math.abs(shift) === c.maxShift ? `, at the limit ±${c.maxShift}` : ''),
  }
}

/** The farm's map of one class: logit q = intercept + slope · logit p. Identity: intercept 0, slope 1. */
export interface FarmCalibrationMap {
  intercept: number
  slope: number
}

export const IDENTITY_MAP: FarmCalibrationMap = { intercept: 0, slope: 1 }

export interface FarmCalibrationFit {
  /** The map in use: the identity when events are too few. */
  map: FarmCalibrationMap
  /** The unshrunk maximum-likelihood line, when fitted. */
  fitted: FarmCalibrationMap | null
  events: number
  hours: number
  /** Share of the period's hours that lay in an event's lead window, and the mean global probability of them all. */
  observed: number | null
  meanPredicted: number | null
  /** Lameness: the farm's prior, the map's starting point (absent on fits from before it, and on birth and heat). */
  prior?: LamenessPrior | null
  reason: string
}

const DAY_MS = 86_400_000
const logit = (p: number) => {
  const x = Math.min(1 - FARM_CALIBRATION.floor, Math.max(FARM_CALIBRATION.floor, p))
  return Math.log(x / (1 - x))
}
const expit = (x: number) => 1 / (1 + Math.exp(-x))
const round = (x: number, digits: number) => Math.round(x * 10 ** digits) / 10 ** digits

/** The farm's probability of a global one. Strictly rising in p (the slope is positive). */
export function recalibrate(map: FarmCalibrationMap, p: number): number {
  if (map.intercept === 0 && map.slope === 1) return p
  return expit(map.intercept + map.slope * logit(p))
}

/**
 * The farm's probability of a stored global one, stored to 4 decimals as the global one is, and kept under the image
 * of the class's alarm level while the global probability is under that level: where the map is flat, rounding would
 * otherwise lift it onto the image, and the farm's probabilities would show an alarm the scorer did not raise.
 */
export function farmProbability(map: FarmCalibrationMap, p: number, alarmLevel: number): number {
  const q = round(recalibrate(map, p), 4)
  if (p >= alarmLevel) return q
  const level = round(recalibrate(map, alarmLevel), 4)
  return q < level ? q : round(level - 0.0001, 4)
}

/** Hours of one global probability: how many were scored, and how many of them lay in an event's lead window. */
export interface HourCell {
  probability: number
  hours: number
  inWindow: number
}

/** Labelled hours pooled by their probability (stored to 4 decimals, so few distinct values). */
export function poolHours(hours: readonly (readonly [probability: number, inWindow: boolean])[]): HourCell[] {
  const cells = new Map<number, HourCell>()
  for (const [p, inWindow] of hours) {
    const probability = Math.round(p * 10_000) / 10_000
    const cell = cells.get(probability) ?? { probability, hours: 0, inWindow: 0 }
    cell.hours++
    if (inWindow) cell.inWindow++
    cells.set(probability, cell)
  }
  return [...cells.values()]
}

/**
 * Fits one class's map from the farm's hours, pooled by global probability with how many lay in a recorded event's
 * lead window. `events` is how many events the windows came from (hours of one event are not independent: the
 * shrinkage and the minimum count events, not hours).
 */
export function fitFarmCalibration(
  kind: ClassificationType,
  cells: readonly HourCell[],
  events: number,
  prior: LamenessPrior | null = null,
): FarmCalibrationFit {
  const c = FARM_CALIBRATION
  // Where the map starts from, and what the records' fit is shrunk toward: the prior's shift, or the identity.
  const start: FarmCalibrationMap = { intercept: prior?.shift ?? 0, slope: 1 }
  let hours = 0
  let positives = 0
  let sum = 0
  for (const cell of cells) {
    hours += cell.hours
    positives += cell.inWindow
    sum += cell.probability * cell.hours
  }
  const base = {
    events,
    hours,
    observed: hours === 0 ? null : round(positives / hours, 4),
    meanPredicted: hours === 0 ? null : round(sum / hours, 4),
    ...(prior ? { prior } : {}),
  }
  const startName =
    prior && prior.shift !== 0
      ? `the farm's base rate (the global calibration's log-odds ${prior.shift > 0 ? '+' : ''}${prior.shift}: prior)`
      : 'the global calibration'
  if (FIT_WINDOWS[kind] === null)
    return {
      ...base,
      map: prior && prior.shift !== 0 ? start : IDENTITY_MAP,
      fitted: null,
      reason: `${startName}; ${kind} records are counted (${events} in the period), not fitted: a treatment is recorded days into a lameness, and not every lameness is treated`,
    }
  if (events < c.minEvents)
    return {
      ...base,
      map: prior && prior.shift !== 0 ? start : IDENTITY_MAP,
      fitted: null,
      reason: `${counted(events, `${kind} event`)} recorded in the period, fewer than ${c.minEvents}: ${startName}`,
    }
  if (positives === 0 || positives === hours)
    return {
      ...base,
      map: prior && prior.shift !== 0 ? start : IDENTITY_MAP,
      fitted: null,
      reason: `no hour ${positives === 0 ? 'in' : 'outside'} an event's window: ${startName}`,
    }
  const fitted = logisticLine(cells.map((cell) => ({ x: logit(cell.probability), n: cell.hours, k: cell.inWindow })))
  const weight = events / (events + c.shrinkEvents)
  const intercept = start.intercept + weight * (fitted.intercept - start.intercept)
  const map = {
    intercept: round(Math.max(-c.maxIntercept, Math.min(c.maxIntercept, intercept)), 4),
    slope: round(Math.max(c.minSlope, Math.min(c.maxSlope, 1 + weight * (fitted.slope - 1))), 4),
  }
  return {
    ...base,
    map,
    fitted: { intercept: round(fitted.intercept, 4), slope: round(fitted.slope, 4) },
    reason:
      `${events} ${kind} events: ${round(base.observed! * 100, 2)} % of the period's hours lay in an event's window, ` +
      `the global calibration said ${round(base.meanPredicted! * 100, 2)} %; its line moved ${round(weight * 100, 0)} % ` +
      `of the way from ${startName} (${events} events)`,
  }
}

/**
 * Maximum likelihood of logit P(event) = a + b·x over cells of n hours with k events (Newton's method; a tiny ridge
 * toward the identity keeps it defined when the cells separate).
 */
function logisticLine(cells: readonly { x: number; n: number; k: number }[]): FarmCalibrationMap {
  let a = 0
  let b = 1
  const ridge = 1e-3
  for (let iteration = 0; iteration < 50; iteration++) {
    let ga = -ridge * a
    let gb = -ridge * (b - 1)
    let haa = ridge
    let hab = 0
    let hbb = ridge
    for (const { x, n, k } of cells) {
      const q = expit(a + b * x)
      const w = n * q * (1 - q)
      ga += k - n * q
      gb += (k - n * q) * x
      haa += w
      hab += w * x
      hbb += w * x * x
    }
    const det = haa * hbb - hab * hab
    if (!(det > 0)) break
    const da = (hbb * ga - hab * gb) / det
    const db = (haa * gb - hab * ga) / det
    a += da
    b += db
    if (Math.abs(da) + Math.abs(db) < 1e-9) break
  }
  return { intercept: a, slope: b }
}

/**
 * How many of the farm's events (records merged as the accuracy route merges them) a fit over the period [from, to]
 * counts: those whose hours before it (FIT_WINDOWS; lameness: the accuracy route's lead) lie in the period.
 */
export function eventsInFitPeriod(
  kind: ClassificationType,
  events: readonly { at: number }[],
  from: number,
  to: number,
): number {
  const before = FIT_WINDOWS[kind]?.beforeMs ?? MATCH_WINDOWS[kind].leadMs
  return events.filter((e) => e.at - before >= from && e.at <= to).length
}

/**
 * Each scored hour of one class labelled by the farm's records (FIT_WINDOWS), each record on its own (not merged into
 * events: a sow inseminated at the heat's detection and again a day later is in heat around both): in an event (from
 * beforeMs before a record to afterMs after it), or not; hours from then to leftOutMs after a record are left out
 * (unknown) unless another record puts them in an event. `at` is when the hour's prediction was made (the end of its
 * hour).
 */
export function labelHours(
  hours: readonly { animalId: number; at: number; probability: number }[],
  records: readonly { animalId: number; at: number }[],
  window: FitWindow,
): [number, boolean][] {
  const byAnimal = new Map<number, number[]>()
  for (const r of records) byAnimal.set(r.animalId, [...(byAnimal.get(r.animalId) ?? []), r.at])
  const out: [number, boolean][] = []
  for (const h of hours) {
    const own = byAnimal.get(h.animalId) ?? []
    const inEvent = own.some((at) => h.at >= at - window.beforeMs && h.at <= at + window.afterMs)
    if (!inEvent && own.some((at) => h.at > at + window.afterMs && h.at <= at + window.leftOutMs)) continue
    out.push([h.probability, inEvent])
  }
  return out
}
