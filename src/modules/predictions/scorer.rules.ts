// Our own prediction model: transparent rules over hourly summaries of each animal's readings, each
// animal measured against its own baseline and, hour by hour, against its group (so that what the whole
// pen does at once, a late feeding or a hot afternoon, is no alarm). Pure functions: the hourly job
// (src/jobs/predictions.ts) feeds them summaries computed in SQL, the evaluation (src/simulation/evaluation.ts) feeds
// them summaries of simulated readings computed here. docs/predictions.md gives every threshold's reason, the
// literature behind each rule, and the rules' sensitivity and false alarms measured on simulated herds.
//
// - birth: nest building, a sustained rise of activity over the sow's own baseline in the hours before farrowing.
// - heat: a rise of activity for a day or two, expected after weaning and after a service that did not hold.
// - lameness: activity and movement between nodes declining over about two weeks.
import { MOVING_THRESHOLD_G, VALID_TEMPERATURE, type HourSummary } from '../readings/readings.rules.ts'

/** ms in an hour: summaries are per whole UTC hour. */
export const HOUR_MS = 3_600_000
const DAY_HOURS = 24
const DAY_MS = DAY_HOURS * HOUR_MS

/** Pinna samples outside VALID_TEMPERATURE are glitches; a sample is moving beyond MOVING_THRESHOLD_G: the readings' rollups count by them. */
export { MOVING_THRESHOLD_G, VALID_TEMPERATURE }
/** An hour with fewer sensor samples is treated as missing (a tag sampling every 10 minutes sends 6). */
export const MIN_SAMPLES_PER_HOUR = 6

/** What the hourly summaries in SQL (readings.repository.ts) need of the scorer. */
export const SUMMARY_THRESHOLDS = { HOUR_MS, MOVING_THRESHOLD_G, VALID_TEMPERATURE }
/** A day block (the 24 h ending at an hour) needs this many hours with data; its movement this many detections. */
export const DAY_MIN_HOURS = 12
export const DAY_MIN_DETECTIONS = 50

/** Every threshold of the rules; docs/predictions.md gives each one's reason. Tuned on the evaluation's tuning seed. */
export interface ScorerSettings {
  /** Added to both sides of an activity ratio (a share of the hour), so that quiet nights do not divide by ~0. */
  activityFloor: number
  /** The hourly baseline: the same hour of day (±1 h) on these days back; it needs minHours hours with data. */
  baseline: { fromDay: number; toDay: number; minHours: number }
  /** Group correction: the group's median needs this many animals with data that hour, else the farm's, else none. */
  groupMinAnimals: number
  /**
   * CUSUM of ln(ratio / reference) over the last `hours`, each hour's ratio capped at `cap`; alarm (p = 0.5) at
   * `threshold`, or at threshold x warmFactor while the ear is `warmC` warmer than usual (over 6 h, less its group's).
   */
  birth: {
    reference: number
    cap: number
    hours: number
    threshold: number
    warmC: number
    warmFactor: number
    /** An hour whose usual activity is peakFactor x the animal's usual day (a meal) neither adds nor removes. */
    peakFactor: number
    /** Activity above `reference` for persistentShare of the hours 24-48 h back is no nest building (a loose tag, a move). */
    persistentShare: number
    /** An ear this much cooler than usual over 6 h (less its group's) has a tag off the skin: no birth alarm. */
    tagOffC: number
    /**
     * A second, shorter CUSUM for weak or short nest building, only while a recorded service makes farrowing due
     * (dueFromDay-dueToDay after it): over `hours` hours, ln(ratio / reference), alarm at `threshold`.
     */
    short: {
      hours: number
      reference: number
      threshold: number
      dueFromDay: number
      dueToDay: number
      /**
       * Its usual is the same hours (±1 h) on days baseline.fromDay-recentToDay back only: a sow moved into the crate
       * a few days before farrowing is far less active there than in the pen, and the pen's days would hide her rise.
       */
      recentToDay: number
      /** When at least this share of its group's animals with data are due too (a batch), the group takes no rise away. */
      batchShare: number
      /**
       * Once a move into the crate shows (crateEntryIndex, from fromDay after the service), the usual is the
       * same hours on days 1-recentToDay back that lie in the crate, settleHours after the move (the move's own
       * unrest left out): a move 1-2 days before farrowing leaves days 2-4 back in the pen. Null: days 2-4 always.
       */
      crate: { fromDay: number; settleHours: number } | null
      /**
       * Meal hours count here: each is compared with the same meal of her last (crate) days, so a nest builder
       * restless at a meal rises above it. False: left out, as in the long CUSUM (whose pen days' meals differ).
       */
      meals: boolean
    }
  }
  /** The group's level is this quantile of its animals' (not the median), so that a share of a group can share an event. */
  groupQuantile: number
  /**
   * Activity of the last `hours` hours against the same hours on baseline days (hours without data on either side
   * left out); alarm when `threshold` above it (0.3 = 1.3x), threshold x expectedFactor after a weaning,
   * x returnFactor when a return is possible, x unlikelyFactor while pregnant or nursing.
   */
  heat: {
    hours: number
    threshold: number
    expectedFactor: number
    returnFactor: number
    unlikelyFactor: number
    /**
     * Where the records make a heat likely (see heatLikely), also the last shortHours hours, alarm at the threshold x
     * shortFactor (a shorter window is noisier, but alarms sooner after the rise begins).
     */
    shortHours: number
    shortFactor: number
    /**
     * In the return window (heatShortFactor) that shorter window's bar is the threshold x returnShortFactor: most
     * services hold, so its noise raised more false alarms on pregnant sows than it found returns.
     */
    returnShortFactor: number
    /** No heat alarm in the first quietLactationDays after a recorded farrowing (lactational anoestrus). */
    quietLactationDays: number
    /**
     * A weaning the farm did not record, read from the data: movement between nodes risen to weaningRise x its usual
     * (days 2-8 before) in a day, as when a sow leaves the farrowing crate; it counts as a weaning from then on.
     */
    weaningRise: number
  }
  /** The last recentDays days against days baselineFromDay-baselineToDay back; alarm at a decline of `threshold`. */
  lameness: {
    recentDays: number
    baselineFromDay: number
    baselineToDay: number
    threshold: number
    /** The decline scored is the least over the last persistHours hours (a lameness persists). */
    persistHours: number
  }
  /**
   * Each class's raw score (score / (score + threshold): 0.5 at the alarm threshold) mapped to a probability, so that
   * a probability says how often such an hour lies in the event's window; null keeps the raw scores (for fitting).
   */
  calibration: ClassCalibration | null
}

export type ClassCalibration = Record<keyof ClassScores, Calibration>

/**
 * A calibration: knots [raw score, probability], both strictly rising; linear between knots, the end knots' values
 * beyond them. Fitted by isotonic regression on the tuning family (fitCalibration in src/simulation/evaluation.ts).
 */
export type Calibration = readonly (readonly [raw: number, probability: number])[]

/** The probability of a raw score under a calibration (the raw score itself without one). */
export function calibrate(knots: Calibration | undefined, raw: number): number {
  if (knots === undefined || knots.length === 0) return raw
  return interpolate(knots, raw, 0, 1)
}

/** The raw score of a calibrated probability: calibrate's inverse (per-farm learning reads stored probabilities). */
export function uncalibrate(knots: Calibration | undefined, probability: number): number {
  if (knots === undefined || knots.length === 0) return probability
  return interpolate(knots, probability, 1, 0)
}

function interpolate(knots: Calibration, x: number, from: 0 | 1, to: 0 | 1): number {
  if (x <= knots[0]![from]) return knots[0]![to]
  for (let k = 1; k < knots.length; k++) {
    const [a, b] = [knots[k - 1]!, knots[k]!]
    if (x <= b[from]) return a[to] + ((b[to] - a[to]) * (x - a[from])) / (b[from] - a[from])
  }
  return knots.at(-1)![to]
}

/** A raw score at which a rule alarms: its threshold. */
export const RAW_ALARM = 0.5

/**
 * The probability at which a class alarms: its raw alarm score calibrated (a stored probability at or above it is an
 * alarm; rounded as the stored probabilities are).
 */
export function alarmLevel(kind: keyof ClassScores, settings: ScorerSettings = SCORER): number {
  return roundProbability(calibrate(settings.calibration?.[kind], RAW_ALARM))
}

export const SCORER: ScorerSettings = {
  activityFloor: 0.03,
  baseline: { fromDay: 2, toDay: 8, minHours: 8 },
  groupMinAnimals: 5,
  birth: {
    reference: 1.6,
    cap: 6,
    hours: 36,
    threshold: 4,
    warmC: 0.3,
    warmFactor: 0.6,
    peakFactor: 1.8,
    persistentShare: 0.5,
    tagOffC: -0.8,
    short: {
      hours: 6,
      reference: 1.4,
      threshold: 2,
      dueFromDay: 111,
      dueToDay: 119,
      recentToDay: 4,
      batchShare: 0.5,
      crate: { fromDay: 100, settleHours: 12 },
      meals: true,
    },
  },
  groupQuantile: 0.4,
  heat: {
    hours: 24,
    threshold: 0.4,
    expectedFactor: 0.4,
    returnFactor: 0.9,
    unlikelyFactor: 2,
    shortHours: 12,
    shortFactor: 1.4,
    returnShortFactor: 2,
    quietLactationDays: 18,
    weaningRise: 2.5,
  },
  lameness: { recentDays: 4, baselineFromDay: 12, baselineToDay: 20, threshold: 0.18, persistHours: 12 },
  // fitCalibration() (src/simulation/evaluation.ts) on the tuning family; refit whenever a rule changes.
  // prettier-ignore
  calibration: {
    birth: [[0.009, 0.0063], [0.099, 0.0068], [0.149, 0.0163], [0.198, 0.0182], [0.248, 0.0277], [0.299, 0.0528], [0.348, 0.0622], [0.399, 0.0849], [0.449, 0.1041], [0.499, 0.1071], [0.548, 0.1401], [0.598, 0.1958], [0.647, 0.3106], [0.7, 0.6469], [0.752, 0.8978], [0.799, 0.9552], [0.856, 1]],
    heat: [[0.004, 0.0064], [0.1, 0.0075], [0.15, 0.009], [0.199, 0.0104], [0.249, 0.0146], [0.299, 0.0209], [0.348, 0.0363], [0.398, 0.0586], [0.448, 0.1225], [0.498, 0.2331], [0.548, 0.3256], [0.599, 0.4732], [0.649, 0.5371], [0.699, 0.5838], [0.75, 0.5946], [0.807, 0.6288]],
    lameness: [[0, 0.0598], [0.05, 0.0776], [0.099, 0.1036], [0.149, 0.1156], [0.2, 0.1286], [0.249, 0.1579], [0.3, 0.2118], [0.349, 0.2545], [0.399, 0.3987], [0.449, 0.528], [0.5, 0.7442], [0.55, 0.9448], [0.6, 0.9848], [0.669, 1]],
  },
}

/** The settings with each class's alarm threshold multiplied by a farm's factor (per-farm learning). */
export function settingsWithFactors(
  factors: { birth: number; heat: number; lameness: number },
  settings: ScorerSettings = SCORER,
): ScorerSettings {
  return {
    ...settings,
    birth: {
      ...settings.birth,
      threshold: settings.birth.threshold * factors.birth,
      short: { ...settings.birth.short, threshold: settings.birth.short.threshold * factors.birth },
    },
    heat: { ...settings.heat, threshold: settings.heat.threshold * factors.heat },
    lameness: { ...settings.lameness, threshold: settings.lameness.threshold * factors.lameness },
  }
}

/** Hours of summaries before the first scored hour that the rules need. */
export const LOOKBACK_HOURS = (SCORER.lameness.baselineToDay + 8) * DAY_HOURS

const { baseline, birth, heat, lameness } = SCORER
export const SCORER_SUMMARY =
  'Predictions come from an external model (POST) or from our own transparent, rule-based scorer, ' +
  'which runs hourly and stores one prediction per active animal, class and hour. Its probabilities are calibrated: ' +
  "the share of such hours that lay in the event's window (48 h before a farrowing, 12 h before a heat to its end, " +
  `2-21 days into a lameness) on the simulated herds it was tuned on; a class alarms from the probability of its rule's ` +
  `threshold (birth ${alarmLevel('birth')}, heat ${alarmLevel('heat')}, lameness ${alarmLevel('lameness')}). It measures each animal against its own baseline (the same hours of day on days ` +
  `${baseline.fromDay}-${baseline.toDay} back) and against its group at the same hour. ` +
  `birth: a CUSUM of hourly activity above ${birth.reference}x the sow's baseline over ${birth.hours} h, meal hours left out, alarm at ${birth.threshold} ` +
  `(${birth.threshold * birth.warmFactor} while her ear is ${birth.warmC} °C warmer than usual), none while the rise has lasted over a day ` +
  'or the tag reads cooler than the ear (a loose tag); 111-119 days after a recorded service also a shorter CUSUM ' +
  `over ${birth.short.hours} h above ${birth.short.reference}x the same hours on days ${baseline.fromDay}-${birth.short.recentToDay} back (the crate, not the pen before the move), ` +
  'once the move into the crate shows in her movement between nodes the same hours of her crate days only (a move 1-2 days before farrowing), ' +
  'meal hours included (each against the same meal of those days), ' +
  `alarm at ${birth.short.threshold} (weak or short nest building), not corrected away while most of her group is due too (a batch) ` +
  '(nest building lasts 14-17 h and peaks about 9 h before farrowing; Cornou 2012: CUSUM sensitivity 100 %, specificity 95-100 %; ' +
  'Oczak 2020: ear-tag alarms a median 8 h 51 min before onset). ' +
  `heat: activity over the last ${heat.hours} h at least ${1 + heat.threshold}x the same hours on days ${baseline.fromDay}-${baseline.toDay} back (heats run about 1.3x for 24-48 h), ` +
  `a far lower bar 3-8 days after a recorded weaning and a somewhat lower one 17-25 days after a recorded insemination, where the last ${heat.shortHours} h count too (an earlier alarm; after an insemination at a higher bar, most services hold), ` +
  'a higher one in the days after an insemination and while pregnant or lactating, none early in lactation or while a farrowing is due; ' +
  'a rise most of a group weaned together shares is not corrected away. ' +
  `lameness: activity (and movement between nodes) of the last ${lameness.recentDays} days ${Math.round(lameness.threshold * 100)} % or more below ` +
  `days ${lameness.baselineFromDay}-${lameness.baselineToDay} back, held for ${lameness.persistHours} h, the move into the farrowing crate read from the data. Measured on simulated herds: docs/predictions.md.`

export type { HourSummary }

/** Whether a sample shows movement: its magnitude differs from gravity alone by more than MOVING_THRESHOLD_G. */
export function isMoving(x: number, y: number, z: number): boolean {
  return Math.abs(Math.sqrt(x * x + y * y + z * z) - 1) > MOVING_THRESHOLD_G
}

/**
 * Hourly summaries of readings (what the job computes in SQL, here over rows in memory). Rows may come
 * in any order; node changes follow the detections in time order, the first one counting as no change.
 */
export function summarizeHours(
  sensor: Iterable<{ t: number; c: number; x: number; y: number; z: number }>,
  locations: Iterable<{ t: number; nodeuid: string }>,
): HourSummary[] {
  const hours = new Map<
    number,
    {
      samples: number
      activitySum: number
      temperatureSum: number
      temperatures: number
      detections: number
      nodeChanges: number
    }
  >()
  const bucket = (t: number) => {
    const hour = Math.floor(t / HOUR_MS) * HOUR_MS
    let b = hours.get(hour)
    if (!b)
      hours.set(
        hour,
        (b = { samples: 0, activitySum: 0, temperatureSum: 0, temperatures: 0, detections: 0, nodeChanges: 0 }),
      )
    return b
  }
  for (const r of sensor) {
    const b = bucket(r.t)
    b.samples++
    if (isMoving(r.x, r.y, r.z)) b.activitySum++
    if (r.c >= VALID_TEMPERATURE.min && r.c <= VALID_TEMPERATURE.max) {
      b.temperatureSum += r.c
      b.temperatures++
    }
  }
  let previous: string | undefined
  for (const d of [...locations].sort((a, b) => a.t - b.t)) {
    const b = bucket(d.t)
    b.detections++
    if (previous !== undefined && d.nodeuid !== previous) b.nodeChanges++
    previous = d.nodeuid
  }
  return [...hours]
    .sort(([a], [b]) => a - b)
    .map(([hour, b]) => ({
      hour,
      samples: b.samples,
      activity: b.samples > 0 ? b.activitySum / b.samples : 0,
      temperature: b.temperatures > 0 ? b.temperatureSum / b.temperatures : null,
      detections: b.detections,
      nodeChanges: b.nodeChanges,
    }))
}

/** Summaries laid out hour by hour from `first` to `last` (hour starts), hours without readings empty. */
export function alignHours(summaries: readonly HourSummary[], first: number, last: number): HourSummary[] {
  const byHour = new Map(summaries.map((s) => [s.hour, s]))
  const out: HourSummary[] = []
  for (let hour = first; hour <= last; hour += HOUR_MS) {
    out.push(byHour.get(hour) ?? { hour, samples: 0, activity: 0, temperature: null, detections: 0, nodeChanges: 0 })
  }
  return out
}

/** What the farm recorded of an animal, ms since epoch: the rules only look at records dated before the hour they score. */
export interface AnimalRecords {
  services: number[]
  weanings: number[]
  births: number[]
}

export const NO_RECORDS: AnimalRecords = { services: [], weanings: [], births: [] }

/** One animal as the herd scorer takes it: its hours (aligned with every other animal's), its group and records. */
export interface AnimalHours<K = string | number> {
  key: K
  group: string | null
  hours: readonly HourSummary[]
  records: AnimalRecords
}

export interface ClassScores {
  birth: number
  heat: number
  lameness: number
}

/**
 * The values in ascending order, a copy. The rules sort a few dozen values at a time, thousands of times an hour
 * scored: an insertion sort into a reused buffer beats Array.prototype.sort with a comparator there, and puts
 * equal values (0 and -0 alike) in the same order.
 */
function sortedCopy(values: readonly number[]): ArrayLike<number> {
  const n = values.length
  if (n > SORT_BUFFER.length) return [...values].sort((a, b) => a - b)
  const sorted = SORT_BUFFER
  for (let i = 0; i < n; i++) {
    const v = values[i]!
    let j = i - 1
    while (j >= 0 && sorted[j]! > v) {
      sorted[j + 1] = sorted[j]!
      j--
    }
    sorted[j + 1] = v
  }
  return sorted
}
const SORT_BUFFER = new Float64Array(64)

export function median(values: readonly number[]): number | undefined {
  const n = values.length
  if (n === 0) return undefined
  const sorted = sortedCopy(values)
  const mid = n >> 1
  return n % 2 === 1 ? sorted[mid] : (sorted[mid - 1]! + sorted[mid]!) / 2
}

/** The q-quantile (0-1) of values, interpolated; undefined without any. */
export function quantile(values: readonly number[], q: number): number | undefined {
  if (values.length === 0) return undefined
  const n = values.length
  const sorted = sortedCopy(values)
  const at = q * (n - 1)
  const low = Math.floor(at)
  return sorted[low]! + (sorted[Math.min(low + 1, n - 1)]! - sorted[low]!) * (at - low)
}

const hasData = (h: HourSummary | undefined): h is HourSummary => h !== undefined && h.samples >= MIN_SAMPLES_PER_HOUR

/** The activity an animal usually has at hour i: the median of the same hour of day (±1 h) on the baseline days. */
export function expectedActivity(
  hours: readonly HourSummary[],
  i: number,
  settings: ScorerSettings = SCORER,
): number | undefined {
  const values: number[] = []
  for (let day = settings.baseline.fromDay; day <= settings.baseline.toDay; day++) {
    for (let shift = -1; shift <= 1; shift++) {
      const h = hours[i - day * DAY_HOURS + shift]
      if (hasData(h)) values.push(h.activity)
    }
  }
  return values.length >= settings.baseline.minHours ? median(values) : undefined
}

/** Activity of hour i relative to the animal's baseline (1 = as usual); undefined without data or baseline. */
export function activityRatio(
  hours: readonly HourSummary[],
  i: number,
  settings: ScorerSettings = SCORER,
): number | undefined {
  const h = hours[i]
  const expected = hasData(h) ? expectedActivity(hours, i, settings) : undefined
  return expected === undefined
    ? undefined
    : (h!.activity + settings.activityFloor) / (expected + settings.activityFloor)
}

/**
 * Birth: a one-sided CUSUM (Page 1954) of ln(ratio / reference) over hourly ratios (oldest first; undefined =
 * no data, which neither adds nor removes), each capped, so that one wild hour cannot alarm alone. Returns
 * its final level: it grows only while activity stays above `reference` times the baseline, as in nest building.
 */
export function birthCusum(ratios: readonly (number | undefined)[], settings: ScorerSettings = SCORER): number {
  let level = 0
  for (const r of ratios) {
    if (r === undefined) continue
    level = Math.max(0, level + Math.log(Math.min(r, settings.birth.cap) / settings.birth.reference))
  }
  return level
}

/**
 * Heat: the share of time active over the last 24 h against its mean over the same 24 h on the baseline days
 * (at least 2), minus 1 (0.3 = 30 % above). A mean, not a median: a heat is a sustained rise that a typical
 * day must not hide.
 */
export function heatExcess(
  recent: number,
  baselineDays: readonly number[],
  settings: ScorerSettings = SCORER,
): number | undefined {
  if (baselineDays.length < 2) return undefined
  const usual = baselineDays.reduce((a, b) => a + b, 0) / baselineDays.length
  return (recent + settings.activityFloor / 4) / (usual + settings.activityFloor / 4) - 1
}

/** Day values of the recent days and of the baseline days, for lamenessDecline. */
export interface DaySeries {
  recent: number[]
  baseline: number[]
}

/**
 * Lameness: how far the recent days fell below the baseline days, 0-1 (0.3 = 30 % less): the recent mean
 * against the baseline median. Activity, and movement between nodes where the tag is detected often enough:
 * both count (their geometric mean), so a decline of one alone must be deeper.
 */
export function lamenessDecline(
  activity: DaySeries,
  movement?: DaySeries,
  settings: ScorerSettings = SCORER,
): number | undefined {
  const level = (series: DaySeries, floor: number) => {
    if (series.recent.length < 3 || series.baseline.length < 4) return undefined
    const recent = series.recent.reduce((a, b) => a + b, 0) / series.recent.length
    return (recent + floor) / (median(series.baseline)! + floor)
  }
  const a = level(activity, settings.activityFloor / 4)
  if (a === undefined) return undefined
  const m = movement ? level(movement, MOVEMENT_FLOOR) : undefined
  return Math.max(0, 1 - (m === undefined ? a : Math.sqrt(a * m)))
}

/** A rule's score as a probability: 0.5 at the rule's threshold, rising towards 1 above it, 0 at or below 0. */
export function probabilityOf(score: number, threshold: number): number {
  return score <= 0 ? 0 : score / (score + threshold)
}

const latestBefore = (times: readonly number[], t: number) =>
  times.reduce<number | undefined>(
    (latest, x) => (x <= t && (latest === undefined || x > latest) ? x : latest),
    undefined,
  )

/** What the records say about the animal at t, in days since each event (undefined: none recorded before t). */
export function reproductiveState(records: AnimalRecords, t: number) {
  const service = latestBefore(records.services, t)
  const weaning = latestBefore(records.weanings, t)
  const birth = latestBefore(records.births, t)
  const days = (x: number | undefined) => (x === undefined ? undefined : (t - x) / DAY_MS)
  // A service counts while nothing followed it: a later farrowing or weaning closes it.
  const openService =
    service !== undefined && (birth === undefined || service > birth) && (weaning === undefined || service > weaning)
      ? days(service)
      : undefined
  const lactatingDays =
    birth !== undefined && (weaning === undefined || weaning < birth) && days(birth)! < 35 ? days(birth) : undefined
  return { sinceService: openService, sinceWeaning: days(weaning), sinceBirth: days(birth), lactatingDays }
}

/**
 * When the animal's current phase of life began, by its records: the latest weaning or farrowing; undefined
 * without any. A baseline never reaches back past it: a nursing sow is less active, a weaned one more, and
 * none of that is a heat or a lameness.
 */
export function phaseStart(records: AnimalRecords, t: number): number | undefined {
  const starts = [latestBefore(records.weanings, t), latestBefore(records.births, t)].filter(
    (x): x is number => x !== undefined,
  )
  return starts.length === 0 ? undefined : Math.max(...starts)
}

/** The CUSUM level at which birth alarms: lower near the recorded service's expected farrowing (114 days), higher far before it. */
export function birthThreshold(records: AnimalRecords, t: number, settings: ScorerSettings = SCORER): number {
  const { sinceService } = reproductiveState(records, t)
  if (sinceService === undefined) return settings.birth.threshold
  if (sinceService >= 108 && sinceService <= 122) return settings.birth.threshold * 0.75
  if (sinceService < 100) return settings.birth.threshold * 2.5
  return settings.birth.threshold
}

/** Whether the records make a heat expected at t: 3-8 days after a weaning, before any service (most sows come on heat then). */
export function heatExpected(records: AnimalRecords, t: number): boolean {
  const { sinceService, sinceWeaning } = reproductiveState(records, t)
  return sinceWeaning !== undefined && sinceWeaning >= 3 && sinceWeaning <= 8 && sinceService === undefined
}

/**
 * Whether the records rule a heat out at t: early in lactation (lactational anoestrus; later, a weaning the farm did
 * not record may already have happened), and while a farrowing is due (from the crate window after a service).
 */
export function heatRuledOut(records: AnimalRecords, t: number, settings: ScorerSettings = SCORER): boolean {
  const { sinceService, lactatingDays } = reproductiveState(records, t)
  return (
    (lactatingDays !== undefined && lactatingDays < settings.heat.quietLactationDays) ||
    (sinceService !== undefined && sinceService >= CRATE_WINDOW_DAYS.from && sinceService <= CRATE_WINDOW_DAYS.to)
  )
}

/** Whether a return to heat is possible at t: 17-25 days after a service (one oestrous cycle), though most services hold. */
function returnPossible(records: AnimalRecords, t: number): boolean {
  const { sinceService } = reproductiveState(records, t)
  return sinceService !== undefined && sinceService >= 17 && sinceService <= 25
}

/** Whether the records make a heat likely at t: expected after a weaning, or a return possible after a service. */
export function heatLikely(records: AnimalRecords, t: number): boolean {
  return heatExpected(records, t) || returnPossible(records, t)
}

/**
 * Heat's threshold: far lower 3-8 days after a weaning (most sows come on heat then), somewhat lower 17-25 days
 * after a service (a return is possible, but most services hold), higher while nursing, in the days after a service
 * before a return could come (the luteal phase: no oestrus) and while pregnant.
 */
export function heatThreshold(records: AnimalRecords, t: number, settings: ScorerSettings = SCORER): number {
  const { sinceService, lactatingDays } = reproductiveState(records, t)
  const { threshold, expectedFactor, returnFactor, unlikelyFactor } = settings.heat
  if (lactatingDays !== undefined) return threshold * unlikelyFactor
  if (heatExpected(records, t)) return threshold * expectedFactor
  if (returnPossible(records, t)) return threshold * returnFactor
  if (sinceService !== undefined && sinceService >= 3 && sinceService <= 125) return threshold * unlikelyFactor
  return threshold
}

/**
 * The factor of the heat threshold for the shorter window, where the records make a heat likely: shortFactor after
 * a weaning, returnShortFactor when a return is possible; undefined elsewhere (no shorter window).
 */
export function heatShortFactor(
  records: AnimalRecords,
  t: number,
  settings: ScorerSettings = SCORER,
): number | undefined {
  if (heatExpected(records, t)) return settings.heat.shortFactor
  if (returnPossible(records, t)) return settings.heat.returnShortFactor
  return undefined
}

/** One hour of a heat window: the animal's activity, its usual at that hour and over how many baseline days. */
export interface HeatHour {
  activity: number
  usual: number
  usualDays: number
}

/**
 * Heat: the activity of a window's hours against their usual (the ratio of the sums, 1 = as usual), needing data in
 * half of its `hours`. A usual of few days (shortly after a weaning) is itself uncertain: the rise is shrunk by
 * how much that widens its spread, taking a day's and a window's variation alike (none with every baseline day).
 */
export function heatRatio(
  window: readonly HeatHour[],
  hours: number,
  fullBaselineDays: number,
  settings: ScorerSettings = SCORER,
): number | undefined {
  if (window.length === 0 || window.length < hours / 2) return undefined
  const floor = (window.length * settings.activityFloor) / 4
  const ratio = (window.reduce((a, h) => a + h.activity, 0) + floor) / (window.reduce((a, h) => a + h.usual, 0) + floor)
  const days = window.reduce((a, h) => a + h.usualDays, 0) / window.length
  const widen = Math.sqrt((1 + 1 / days) / (1 + 1 / fullBaselineDays))
  return 1 + (ratio - 1) / widen
}

/** Whether a group shares a heat its records expect: at least half of its animals with data (flags) expect one. */
export function groupSharesHeat(expected: readonly boolean[]): boolean {
  return expected.length > 0 && expected.filter(Boolean).length >= expected.length / 2
}

/** Days after a service in which a sow may be moved into the farrowing crate (farrowing comes 112-118 days after). */
export const CRATE_WINDOW_DAYS = { from: 100, to: 125 } as const

/**
 * The move into the crate, read from the data rather than assumed: the last day block in the crate window whose
 * movement between nodes fell below half its usual (days 2-8 before it); undefined without one. `movement` holds
 * day blocks per hour index; returns the index of the first hour of that block.
 */
export function crateMoveIndex(
  movement: readonly (number | undefined)[],
  fromIndex: number,
  toIndex: number,
): number | undefined {
  for (let e = toIndex; e >= Math.max(fromIndex, 8 * DAY_HOURS); e--) {
    const now = movement[e]
    if (now === undefined) continue
    const usual = usualMovement(movement, e)
    if (usual !== undefined && usual > 0 && now < 0.5 * usual) return e - DAY_HOURS + 1
  }
  return undefined
}

/**
 * The move into the crate as soon as it shows: the first day block (24 h ending at an hour) from `fromIndex` whose
 * movement between nodes fell below half its usual (days 2-8 before it). A block falls below half once most of it
 * lies in the crate, so the move is dated half a day before the block's end. Undefined without one.
 */
export function crateEntryIndex(
  movement: readonly (number | undefined)[],
  fromIndex: number,
  toIndex: number,
): number | undefined {
  for (let e = Math.max(fromIndex, 8 * DAY_HOURS); e <= toIndex; e++) {
    const now = movement[e]
    if (now === undefined) continue
    const usual = usualMovement(movement, e)
    if (usual !== undefined && usual > 0 && now < 0.5 * usual) return e - DAY_HOURS / 2 + 1
  }
  return undefined
}

/** Added to both sides of a movement ratio (node changes per detection), so that a crate's near-zero does not divide. */
const MOVEMENT_FLOOR = 0.02

/** The median movement of the same day block on days 2-8 before hour index `e`; undefined with fewer than 4 of them. */
function usualMovement(movement: readonly (number | undefined)[], e: number): number | undefined {
  const before: number[] = []
  for (let d = 2; d <= 8; d++) {
    const value = movement[e - d * DAY_HOURS]
    if (value !== undefined) before.push(value)
  }
  return before.length >= 4 ? median(before) : undefined
}

/**
 * Weanings the records do not hold, read from the data: the first day block (the 24 h ending at an hour) of a rise
 * of movement between nodes to `rise` x its usual (days 2-8 before it), as when a sow leaves the farrowing crate.
 * Dated at the end of that block (when it shows), none within 14 days of another, none where a weaning was recorded
 * in the 30 days before nor while a recorded service may have held (125 days, no farrowing since). Returns
 * the records with these weanings added.
 */
export function withInferredWeanings(
  records: AnimalRecords,
  movement: readonly (number | undefined)[],
  hours: readonly HourSummary[],
  from: number,
  to: number,
  rise: number,
): AnimalRecords {
  const inferred: number[] = []
  for (let e = Math.max(from, 8 * DAY_HOURS); e <= to; e++) {
    const now = movement[e]
    if (now === undefined) continue
    const usual = usualMovement(movement, e)
    if (usual === undefined || now + MOVEMENT_FLOOR < rise * (usual + MOVEMENT_FLOOR)) continue
    const t = hours[e]!.hour + HOUR_MS
    const last = inferred.at(-1)
    if (last !== undefined && t - last < 14 * DAY_MS) continue
    if (records.weanings.some((w) => w <= t && t - w < 30 * DAY_MS)) continue
    const service = latestBefore(records.services, t)
    const birth = latestBefore(records.births, t)
    if (service !== undefined && t - service < 125 * DAY_MS && (birth === undefined || birth < service)) continue
    inferred.push(t)
  }
  return inferred.length === 0
    ? records
    : { ...records, weanings: [...records.weanings, ...inferred].sort((a, b) => a - b) }
}

/**
 * Hourly scores of every animal for the hours `from`-`to` (indices into the aligned hours; the hour scored is
 * the one ending at its index's end). The herd matters: each hour is also compared with the animal's group.
 */
export function scoreHerd<K>(
  herd: readonly AnimalHours<K>[],
  from: number,
  to: number,
  settings: ScorerSettings = SCORER,
): ClassScores[][] {
  const first = Math.max(0, from - Math.max(settings.birth.hours, 48 + 24))
  const ratioFrom = Math.max(0, first - 7 * DAY_HOURS)
  const dayFrom = Math.max(0, from - (settings.lameness.baselineToDay + 7) * DAY_HOURS)
  const floor = settings.activityFloor
  const { birth: birthSettings, heat: heatSettings } = settings

  // 1. Each hour's activity against the animal's own baseline, then against its group's level at that hour.
  const expected = herd.map((a) => {
    const out = new Array<number | undefined>(to + 1)
    for (let i = ratioFrom; i <= to; i++) out[i] = expectedActivity(a.hours, i, settings)
    return out
  })
  // An hour whose usual level is far above the animal's usual day is a daily peak (a meal): see birth below.
  const peak = expected.map((e) => {
    const out = new Array<boolean>(to + 1).fill(false)
    for (let i = first; i <= to; i++) {
      const day: number[] = []
      for (let j = i - DAY_HOURS + 1; j <= i; j++) if (e[j] !== undefined) day.push(e[j]!)
      const usual = median(day)
      out[i] = e[i] !== undefined && usual !== undefined && e[i]! + floor > birthSettings.peakFactor * (usual + floor)
    }
    return out
  })
  const ratio = (k: number, i: number) => {
    const e = expected[k]![i]
    const h = herd[k]!.hours[i]
    return e === undefined || !hasData(h) ? undefined : (h.activity + floor) / (e + floor)
  }
  const groupFactor = groupMedians(herd, first, to, ratio, settings, 1, settings.groupQuantile, 7 * DAY_HOURS)
  // Ear-skin warming: each hour's mean pinna temperature above the same hours of days 2-8 back, less the group's.
  const warming = herd.map((a) => {
    const out = new Array<number | undefined>(to + 1)
    for (let i = first; i <= to; i++) {
      const h = a.hours[i]
      if (!hasData(h) || h.temperature === null) continue
      const values: number[] = []
      for (let day = settings.baseline.fromDay; day <= settings.baseline.toDay; day++) {
        const b = a.hours[i - day * DAY_HOURS]
        if (hasData(b) && b.temperature !== null) values.push(b.temperature)
      }
      if (values.length >= 4) out[i] = h.temperature - median(values)!
    }
    return out
  })
  const groupWarming = groupMedians(herd, first, to, (k, i) => warming[k]![i], settings, 0, 0.5)

  // 2. Day blocks (the 24 h ending at an hour): share of moving samples and node changes per detection, the
  //    activity corrected by how its group's level that day compares with the group's week before.
  const dayActivity = herd.map((a) =>
    dayBlocks(
      a.hours,
      dayFrom,
      to,
      (h) => h.activity,
      (h) => (hasData(h) ? 1 : 0),
      DAY_MIN_HOURS,
    ),
  )
  const dayMovement = herd.map((a) =>
    dayBlocks(
      a.hours,
      dayFrom,
      to,
      (h) => h.nodeChanges,
      (h) => h.detections,
      DAY_MIN_DETECTIONS,
      true,
    ),
  )
  // The records, with the weanings the farm did not record read from the data.
  const records = herd.map((a, k) =>
    withInferredWeanings(a.records, dayMovement[k]!, a.hours, dayFrom, to, heatSettings.weaningRise),
  )
  const groupLevel = groupMedians(herd, dayFrom, to, (k, e) => dayActivity[k]![e], settings, undefined)
  // The animals of a group share their group's levels (one array): its factors are computed once.
  const factorsOf = new Map<(number | undefined)[], number[]>()
  const dayFactor = groupLevel.map((levels) => {
    let factors = factorsOf.get(levels)
    if (!factors)
      factorsOf.set(
        levels,
        (factors = levels.map((level, e) => {
          const week: number[] = []
          for (let d = 1; d <= 7; d++)
            if (levels[e - d * DAY_HOURS] !== undefined) week.push(levels[e - d * DAY_HOURS]!)
          const usual = median(week)
          return level === undefined || usual === undefined || usual <= 0 ? 1 : (level + floor) / (usual + floor)
        })),
      )
    return factors
  })

  // 3. Heat, hour by hour: the animal's activity and its usual at that hour (the mean of the same hour on the baseline
  //    days in its current phase, with how many days that mean has); over a window, the ratio of their sums (an hour
  //    without data leaves both sides, so a night-time dropout leaves no daytime-only average).
  const heatFrom = Math.max(0, from - Math.max(heatSettings.hours, heatSettings.shortHours) + 1)
  const heatHourly = herd.map((a, k) => {
    const now = new Array<number | undefined>(to + 1)
    const usual = new Array<number | undefined>(to + 1)
    const usualDays = new Array<number>(to + 1).fill(0)
    const phase = new Array<number>(to + 1).fill(-Infinity)
    for (let j = heatFrom; j <= to; j++) {
      const h = a.hours[j]!
      phase[j] = phaseStart(records[k]!, h.hour + HOUR_MS) ?? -Infinity
      if (!hasData(h) || h.hour < phase[j]!) continue
      const same: number[] = []
      for (let d = settings.baseline.fromDay; d <= settings.baseline.toDay; d++) {
        const b = a.hours[j - d * DAY_HOURS]
        if (hasData(b) && b.hour >= phase[j]!) same.push(b.activity)
      }
      if (same.length < 2) continue
      now[j] = h.activity
      usual[j] = same.reduce((x, y) => x + y, 0) / same.length
      usualDays[j] = same.length
    }
    return { now, usual, usualDays, phase }
  })
  const fullBaselineDays = settings.baseline.toDay - settings.baseline.fromDay + 1
  const heatRise = (k: number, i: number, hours: number) => {
    const { now, usual, usualDays, phase } = heatHourly[k]!
    const window: HeatHour[] = []
    for (let j = i - hours + 1; j <= i; j++)
      if (now[j] !== undefined && herd[k]!.hours[j]!.hour >= phase[i]!)
        window.push({ activity: now[j]!, usual: usual[j]!, usualDays: usualDays[j]! })
    return heatRatio(window, hours, fullBaselineDays, settings)
  }
  // When most of an animal's group is expected on heat with it (a batch weaned together), the group's rise is that
  // heat: no upward correction then.
  const expectedOnHeat = herd.map((a, k) => {
    const out = new Array<boolean>(to + 1).fill(false)
    for (let i = from; i <= to; i++) out[i] = heatExpected(records[k]!, a.hours[i]!.hour + HOUR_MS)
    return out
  })
  const members = new Map<string, number[]>()
  herd.forEach((a, k) => members.set(a.group ?? '', [...(members.get(a.group ?? '') ?? []), k]))
  const heatFactor = (k: number, i: number) => {
    const factor = dayFactor[k]![i] ?? 1
    if (factor <= 1 || !expectedOnHeat[k]![i]) return factor
    const mates = members.get(herd[k]!.group ?? '')!.filter((m) => hasData(herd[m]!.hours[i]))
    return groupSharesHeat(mates.map((m) => expectedOnHeat[m]![i]!)) ? 1 : factor
  }

  // Lameness at hour i: how far the recent days' activity and movement fell below the baseline days, both in the
  // animal's current phase (its records, and in the crate window after a service a move into the crate read from
  // the data: fewer node changes at once).
  const declines = herd.map(() => new Map<number, number | undefined>())
  const declineAt = (k: number, i: number): number | undefined => {
    if (i < 0) return undefined
    const cached = declines[k]!
    if (cached.has(i)) return cached.get(i)
    const animal = herd[k]!
    const t = animal.hours[i]!.hour + HOUR_MS
    let phase = phaseStart(records[k]!, t) ?? -Infinity
    const { sinceService } = reproductiveState(records[k]!, t)
    if (sinceService !== undefined && sinceService >= CRATE_WINDOW_DAYS.from && sinceService <= CRATE_WINDOW_DAYS.to) {
      const windowStart = i - Math.floor(((sinceService - CRATE_WINDOW_DAYS.from) * DAY_MS) / HOUR_MS)
      const move = crateMoveIndex(dayMovement[k]!, windowStart, i)
      if (move !== undefined) phase = Math.max(phase, animal.hours[Math.max(0, move)]!.hour)
    }
    // Day blocks `fromDay`-`toDay` back that lie wholly in the animal's current phase (see phaseStart).
    const days = (series: (number | undefined)[], fromDay: number, toDay: number, correct: boolean) => {
      const out: number[] = []
      for (let d = fromDay; d <= toDay; d++) {
        const e = i - d * DAY_HOURS
        const v = series[e]
        if (v !== undefined && e - DAY_HOURS + 1 >= 0 && animal.hours[e - DAY_HOURS + 1]!.hour >= phase)
          out.push(correct ? v / dayFactor[k]![e]! : v)
      }
      return out
    }
    // Shortly after a phase change the baseline days may be the last few before today.
    const baselineDays = (
      series: (number | undefined)[],
      fromDay: number,
      toDay: number,
      closest: number,
      correct: boolean,
    ) => {
      const chosen = days(series, fromDay, toDay, correct)
      return chosen.length >= 4 ? chosen : days(series, closest, toDay, correct)
    }
    const { recentDays, baselineFromDay, baselineToDay } = settings.lameness
    const movement = {
      recent: days(dayMovement[k]!, 0, recentDays - 1, false),
      baseline: baselineDays(dayMovement[k]!, baselineFromDay, baselineToDay, recentDays, false),
    }
    const decline = lamenessDecline(
      {
        recent: days(dayActivity[k]!, 0, recentDays - 1, true),
        baseline: baselineDays(dayActivity[k]!, baselineFromDay, baselineToDay, recentDays, true),
      },
      movement.recent.length >= 3 && movement.baseline.length >= 4 ? movement : undefined,
      settings,
    )
    cached.set(i, decline)
    return decline
  }

  // The short birth CUSUM, while farrowing is due: each hour against the same hours of the last few days, and no
  // upward group correction while most of the group is due with her (a batch farrowing together).
  const short = birthSettings.short
  const shortFrom = Math.max(0, from - short.hours + 1)
  const dueAt = herd.map((a, k) => {
    const out = new Array<boolean>(to + 1).fill(false)
    for (let i = shortFrom; i <= to; i++) {
      const { sinceService } = reproductiveState(records[k]!, a.hours[i]!.hour + HOUR_MS)
      out[i] = sinceService !== undefined && sinceService >= short.dueFromDay && sinceService <= short.dueToDay
    }
    return out
  })
  const recentBaseline = { ...settings, baseline: { ...settings.baseline, toDay: short.recentToDay, minHours: 3 } }
  // The move into the crate before each recorded service's farrowing, from the data (the first from crate.fromDay).
  const crateEntries = herd.map((a, k) => {
    const entries = new Map<number, number>()
    if (!short.crate || !dueAt[k]!.some(Boolean)) return entries
    const indexOf = (t: number) => Math.ceil((t - a.hours[0]!.hour) / HOUR_MS)
    for (const service of records[k]!.services) {
      const start = indexOf(service + short.crate.fromDay * DAY_MS)
      const end = Math.min(to, indexOf(service + (short.dueToDay + 1) * DAY_MS))
      if (end < from - DAY_HOURS || start > to) continue
      const entry = crateEntryIndex(dayMovement[k]!, Math.max(dayFrom, start), end)
      if (entry !== undefined) entries.set(service, entry)
    }
    return entries
  })
  const crateExpected = (k: number, j: number) => {
    const service = latestBefore(records[k]!.services, herd[k]!.hours[j]!.hour + HOUR_MS)
    const entry = service === undefined ? undefined : crateEntries[k]!.get(service)
    if (entry === undefined || entry > j || !short.crate) return undefined
    const values: number[] = []
    for (let day = 1; day <= short.recentToDay; day++)
      for (let shift = -1; shift <= 1; shift++) {
        const b = j - day * DAY_HOURS + shift
        const h = herd[k]!.hours[b]
        if (b >= entry + short.crate.settleHours && hasData(h)) values.push(h.activity)
      }
    return values.length >= 3 ? median(values) : undefined
  }
  const shortRatio = (k: number, j: number) => {
    const h = herd[k]!.hours[j]
    const e = hasData(h) ? (crateExpected(k, j) ?? expectedActivity(herd[k]!.hours, j, recentBaseline)) : undefined
    if (e === undefined) return undefined
    let factor = groupFactor[k]![j]!
    if (factor > 1) {
      const mates = members.get(herd[k]!.group ?? '')!.filter((m) => hasData(herd[m]!.hours[j]))
      if (mates.filter((m) => dueAt[m]![j]).length >= short.batchShare * mates.length) factor = 1
    }
    return (h!.activity + floor) / (e + floor) / factor
  }

  return herd.map((animal, k) => {
    const scores: ClassScores[] = []
    const adjusted = (j: number) => {
      const r = ratio(k, j)
      return r === undefined ? undefined : r / groupFactor[k]![j]!
    }
    for (let i = from; i <= to; i++) {
      const t = animal.hours[i]!.hour + HOUR_MS

      // Birth: the CUSUM of the last hours, daily peaks (meals) left out; none while the rise has lasted more than a
      // day (no nest building does) or the tag reads cooler than the ear (off the skin, a loose or torn tag).
      const recent: (number | undefined)[] = []
      for (let j = Math.max(0, i - birthSettings.hours + 1); j <= i; j++)
        recent.push(peak[k]![j] ? undefined : adjusted(j))
      let raised = 0
      let known = 0
      for (let j = i - 47; j <= i - 24; j++) {
        const r = j >= 0 ? adjusted(j) : undefined
        if (r === undefined) continue
        known++
        if (r >= birthSettings.reference) raised++
      }
      const persistent = known >= 12 && raised >= birthSettings.persistentShare * known
      const recentWarming: number[] = []
      for (let j = Math.max(0, i - 5); j <= i; j++)
        if (warming[k]![j] !== undefined) recentWarming.push(warming[k]![j]! - groupWarming[k]![j]!)
      const meanWarming =
        recentWarming.length >= 3 ? recentWarming.reduce((a, b) => a + b, 0) / recentWarming.length : undefined
      const tagOff = meanWarming !== undefined && meanWarming <= birthSettings.tagOffC
      const warm = meanWarming !== undefined && meanWarming >= birthSettings.warmC
      const birthThresholdNow = birthThreshold(records[k]!, t, settings) * (warm ? birthSettings.warmFactor : 1)
      const { sinceBirth } = reproductiveState(records[k]!, t)
      const shortRecent: (number | undefined)[] = []
      if (dueAt[k]![i])
        for (let j = Math.max(0, i - short.hours + 1); j <= i; j++)
          shortRecent.push(peak[k]![j] && !short.meals ? undefined : shortRatio(k, j))
      const shortP = dueAt[k]![i]
        ? probabilityOf(
            birthCusum(shortRecent, {
              ...settings,
              birth: { ...birthSettings, reference: short.reference },
            }),
            short.threshold * (warm ? birthSettings.warmFactor : 1),
          )
        : 0
      const birthP =
        (sinceBirth !== undefined && sinceBirth < 14) || persistent || tagOff
          ? 0
          : Math.max(probabilityOf(birthCusum(recent, settings), birthThresholdNow), shortP)

      // Heat: the rise of activity over the last day, and where the records make a heat likely over a shorter
      // window too (an earlier alarm), against the animal's usual at the same hours, less its group's rise; none
      // where the records rule a heat out.
      let heatP = 0
      if (!heatRuledOut(records[k]!, t, settings)) {
        const bar = heatThreshold(records[k]!, t, settings)
        const factor = heatFactor(k, i)
        const excess = (ratio: number | undefined) => (ratio === undefined ? 0 : ratio / factor - 1)
        heatP = probabilityOf(excess(heatRise(k, i, heatSettings.hours)), bar)
        const shortFactor = heatShortFactor(records[k]!, t, settings)
        if (shortFactor !== undefined)
          heatP = Math.max(heatP, probabilityOf(excess(heatRise(k, i, heatSettings.shortHours)), bar * shortFactor))
      }

      // Lameness: the decline that held over the last persistHours (its least), so that a mean brushing past the
      // threshold for an hour or two is no alarm; a lameness persists.
      let decline: number | undefined
      for (let j = i - settings.lameness.persistHours + 1; j <= i; j++) {
        const d = declineAt(k, j)
        if (d === undefined) continue
        decline = decline === undefined ? d : Math.min(decline, d)
      }
      const lamenessP = decline === undefined ? 0 : probabilityOf(decline, settings.lameness.threshold)
      const c = settings.calibration
      scores.push({
        birth: roundProbability(calibrate(c?.birth, birthP)),
        heat: roundProbability(calibrate(c?.heat, heatP)),
        lameness: roundProbability(calibrate(c?.lameness, lamenessP)),
      })
    }
    return scores
  })
}

/** Probabilities are stored to 4 decimals: a calibrated probability near the alarm level keeps its order. */
function roundProbability(p: number): number {
  return Math.round(p * 10_000) / 10_000
}

/**
 * For each animal and index, the group's level: the `quantile` of value(animal, index) over its group's animals
 * that have one (at least groupMinAnimals), else over the farm's, else `fallback`. Below the median, so that
 * what a share of the group does together (a room farrowing together) stays each animal's own; with
 * `usualHours`, divided by its median at the same hour of the days in that many hours before (its usual level).
 */
function groupMedians<K>(
  herd: readonly AnimalHours<K>[],
  from: number,
  to: number,
  value: (k: number, i: number) => number | undefined,
  settings: ScorerSettings,
  fallback: number | undefined,
  q = settings.groupQuantile,
  usualHours = 0,
): (number | undefined)[][] {
  const groups = new Map<string, number[]>()
  herd.forEach((a, k) => groups.set(a.group ?? '', [...(groups.get(a.group ?? '') ?? []), k]))
  const start = Math.max(0, from - usualHours)
  const levels = new Map<string, (number | undefined)[]>([...groups.keys()].map((g) => [g, new Array(to + 1)]))
  // Each group's values of an index in an array reused from index to index; the farm's level only when a group
  // has too few values of its own.
  const memberLists = [...groups.values()]
  const series = [...levels.values()]
  const byGroup = memberLists.map(() => [] as number[])
  for (let i = start; i <= to; i++) {
    let count = 0
    memberLists.forEach((members, g) => {
      const values = byGroup[g]!
      values.length = 0
      for (const k of members) {
        const v = value(k, i)
        if (v !== undefined) values.push(v)
      }
      count += values.length
    })
    let farm: number | undefined | null = null
    byGroup.forEach((values, g) => {
      if (values.length >= settings.groupMinAnimals) series[g]![i] = quantile(values, q)
      else {
        if (farm === null) farm = count >= settings.groupMinAnimals ? quantile(byGroup.flat(), q) : undefined
        series[g]![i] = farm
      }
    })
  }
  const out = herd.map(() => new Array<number | undefined>(to + 1))
  for (const [name, members] of groups) {
    const series = levels.get(name)!
    const level = new Array<number | undefined>(to + 1)
    for (let i = from; i <= to; i++) {
      const v = series[i]
      if (v === undefined || usualHours === 0) {
        level[i] = v ?? fallback
        continue
      }
      const before: number[] = []
      for (let j = i - DAY_HOURS; j >= Math.max(start, i - usualHours); j -= DAY_HOURS)
        if (series[j] !== undefined) before.push(series[j]!)
      const usual = before.length >= 3 ? median(before) : undefined
      level[i] = usual === undefined || usual <= 0 ? fallback : v / usual
    }
    for (const k of members) out[k] = level
  }
  return out
}

/**
 * For each hour e in [from, to], over the 24 h ending at e: the mean of value weighted by weight (a per-hour
 * count), or with `ratio` sum(value) / sum(weight); undefined when the weights sum to less than min.
 */
function dayBlocks(
  hours: readonly HourSummary[],
  from: number,
  to: number,
  value: (h: HourSummary) => number,
  weight: (h: HourSummary) => number,
  min: number,
  ratio = false,
): (number | undefined)[] {
  const out = new Array<number | undefined>(to + 1)
  let sum = 0
  let weights = 0
  const add = (h: HourSummary | undefined, sign: number) => {
    if (!h) return
    const w = weight(h)
    sum += sign * (ratio ? value(h) : value(h) * w)
    weights += sign * w
  }
  for (let j = from - DAY_HOURS; j < from; j++) add(hours[j], 1)
  for (let e = from; e <= to; e++) {
    add(hours[e], 1)
    add(hours[e - DAY_HOURS], -1)
    out[e] = weights >= min ? sum / weights : undefined
  }
  return out
}
