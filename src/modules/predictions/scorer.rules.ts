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

/** ms in an hour: summaries are per whole UTC hour. */
export const HOUR_MS = 3_600_000
const DAY_HOURS = 24
const DAY_MS = DAY_HOURS * HOUR_MS

/** Pinna samples outside this range are glitches (as for the reference temperature). */
export const VALID_TEMPERATURE = { min: 25, max: 42 } as const
/** An hour with fewer sensor samples is treated as missing (a tag sampling every 10 minutes sends 6). */
export const MIN_SAMPLES_PER_HOUR = 6

/** A sample is moving when its acceleration's magnitude is this far from gravity alone (a resting tag's noise is ~0.01 g). */
export const MOVING_THRESHOLD_G = 0.1
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
  birth: { reference: number; cap: number; hours: number; threshold: number; warmC: number; warmFactor: number }
  /**
   * Activity of the last 24 h against the mean of the same 24 h on baseline days; alarm when `threshold` above it
   * (0.25 = 1.25x), threshold x expectedFactor where the records make a heat likely, x unlikelyFactor while
   * pregnant or nursing.
   */
  heat: { threshold: number; expectedFactor: number; unlikelyFactor: number }
  /** The last recentDays days against days baselineFromDay-baselineToDay back; alarm at a decline of `threshold`. */
  lameness: { recentDays: number; baselineFromDay: number; baselineToDay: number; threshold: number }
}

export const SCORER: ScorerSettings = {
  activityFloor: 0.03,
  baseline: { fromDay: 2, toDay: 8, minHours: 8 },
  groupMinAnimals: 5,
  birth: { reference: 1.6, cap: 6, hours: 36, threshold: 4, warmC: 0.3, warmFactor: 0.6 },
  heat: { threshold: 0.45, expectedFactor: 0.25, unlikelyFactor: 2 },
  lameness: { recentDays: 4, baselineFromDay: 12, baselineToDay: 20, threshold: 0.2 },
}

/** Hours of summaries before the first scored hour that the rules need. */
export const LOOKBACK_HOURS = (SCORER.lameness.baselineToDay + 8) * DAY_HOURS

const { baseline, birth, heat, lameness } = SCORER
export const SCORER_SUMMARY =
  'Predictions come from an external model (POST) or from our own transparent, rule-based scorer, ' +
  'which runs hourly and stores one prediction per active animal, class and hour; its probability is 0.5 where a rule ' +
  'reaches its alarm threshold. It measures each animal against its own baseline (the same hours of day on days ' +
  `${baseline.fromDay}-${baseline.toDay} back) and against its group at the same hour. ` +
  `birth: a CUSUM of hourly activity above ${birth.reference}x the sow's baseline over ${birth.hours} h, alarm at ${birth.threshold} ` +
  `(${birth.threshold * birth.warmFactor} while her ear is ${birth.warmC} °C warmer than usual) ` +
  '(nest building lasts 14-17 h and peaks about 9 h before farrowing; Cornou 2012: CUSUM sensitivity 100 %, specificity 95-100 %; ' +
  'Oczak 2020: ear-tag alarms a median 8 h 51 min before onset). ' +
  `heat: activity over 24 h at least ${1 + heat.threshold}x the same 24 h on days ${baseline.fromDay}-${baseline.toDay} back (heats run about 1.3x for 24-48 h), ` +
  'a lower bar 3-8 days after a recorded weaning and 17-25 days after a recorded insemination, a higher one while pregnant or lactating. ' +
  `lameness: activity (and movement between nodes) of the last ${lameness.recentDays} days ${lameness.threshold * 100} % or more below ` +
  `days ${lameness.baselineFromDay}-${lameness.baselineToDay} back. Measured on simulated herds: see the README.`

/** One hour of one animal's readings, as the rules see them. */
export interface HourSummary {
  /** Start of the hour, ms since epoch. */
  hour: number
  /** Sensor samples in the hour; an hour with fewer than MIN_SAMPLES_PER_HOUR counts as missing. */
  samples: number
  /** Share of the samples that were moving (0-1): |‖(x, y, z)‖ - 1 g| above MOVING_THRESHOLD_G. */
  activity: number
  /** Mean of the valid pinna samples, °C; null without any. */
  temperature: number | null
  /** Location detections in the hour, and how many came from another node than the detection before. */
  detections: number
  nodeChanges: number
}

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

export function median(values: readonly number[]): number | undefined {
  if (values.length === 0) return undefined
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1]! + sorted[mid]!) / 2
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
  const m = movement ? level(movement, 0.02) : undefined
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

/** How many days after a service a sow moves into the farrowing crate, at the earliest (farrowing ~114 days after). */
export const CRATE_AFTER_SERVICE_DAYS = 105

/**
 * When the animal's current phase of life began, by its records: the latest weaning, farrowing, or move into
 * the farrowing crate (CRATE_AFTER_SERVICE_DAYS after an open service); undefined without any. A baseline
 * never reaches back past it: a crated or nursing sow is less active, a weaned one more, and none of that is
 * a heat or a lameness.
 */
export function phaseStart(records: AnimalRecords, t: number): number | undefined {
  const { sinceService } = reproductiveState(records, t)
  const crate =
    sinceService !== undefined && sinceService >= CRATE_AFTER_SERVICE_DAYS
      ? t - (sinceService - CRATE_AFTER_SERVICE_DAYS) * DAY_MS
      : undefined
  const starts = [latestBefore(records.weanings, t), latestBefore(records.births, t), crate].filter(
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

/** Heat's threshold: lower where a heat is expected (3-8 days after weaning, 17-25 after service), higher while pregnant or lactating. */
export function heatThreshold(records: AnimalRecords, t: number, settings: ScorerSettings = SCORER): number {
  const { sinceService, sinceWeaning, lactatingDays } = reproductiveState(records, t)
  const { threshold, expectedFactor, unlikelyFactor } = settings.heat
  if (lactatingDays !== undefined) return threshold * unlikelyFactor
  if (sinceWeaning !== undefined && sinceWeaning >= 3 && sinceWeaning <= 8) return threshold * expectedFactor
  if (sinceService !== undefined && sinceService >= 17 && sinceService <= 25) return threshold * expectedFactor
  if (sinceService !== undefined && sinceService > 25 && sinceService <= 125) return threshold * unlikelyFactor
  return threshold
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
  const first = Math.max(0, from - settings.birth.hours)
  const dayFrom = Math.max(0, from - (settings.lameness.baselineToDay + 7) * DAY_HOURS)
  const floor = settings.activityFloor

  // 1. Each hour's activity against the animal's own baseline, then against its group's median at that hour.
  const expected = herd.map((a) => {
    const out = new Array<number | undefined>(to + 1)
    for (let i = first; i <= to; i++) out[i] = hasData(a.hours[i]) ? expectedActivity(a.hours, i, settings) : undefined
    return out
  })
  const ratio = (k: number, i: number) => {
    const e = expected[k]![i]
    return e === undefined ? undefined : (herd[k]!.hours[i]!.activity + floor) / (e + floor)
  }
  const groupFactor = groupMedians(herd, first, to, ratio, settings, 1)
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
  const groupWarming = groupMedians(herd, first, to, (k, i) => warming[k]![i], settings, 0)

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
  const groupLevel = groupMedians(herd, dayFrom, to, (k, e) => dayActivity[k]![e], settings, undefined)
  const dayFactor = groupLevel.map((levels) =>
    levels.map((level, e) => {
      const week: number[] = []
      for (let d = 1; d <= 7; d++) if (levels[e - d * DAY_HOURS] !== undefined) week.push(levels[e - d * DAY_HOURS]!)
      const usual = median(week)
      return level === undefined || usual === undefined || usual <= 0 ? 1 : (level + floor) / (usual + floor)
    }),
  )

  return herd.map((animal, k) => {
    const scores: ClassScores[] = []
    for (let i = from; i <= to; i++) {
      const t = animal.hours[i]!.hour + HOUR_MS
      const adjusted: (number | undefined)[] = []
      for (let j = Math.max(0, i - settings.birth.hours + 1); j <= i; j++) {
        const r = ratio(k, j)
        adjusted.push(r === undefined ? undefined : r / groupFactor[k]![j]!)
      }
      const { sinceBirth } = reproductiveState(animal.records, t)
      const recentWarming: number[] = []
      for (let j = Math.max(0, i - 5); j <= i; j++)
        if (warming[k]![j] !== undefined) recentWarming.push(warming[k]![j]! - groupWarming[k]![j]!)
      const warm =
        recentWarming.length >= 3 &&
        recentWarming.reduce((a, b) => a + b, 0) / recentWarming.length >= settings.birth.warmC
      const birthThresholdNow = birthThreshold(animal.records, t, settings) * (warm ? settings.birth.warmFactor : 1)
      const birthP =
        sinceBirth !== undefined && sinceBirth < 14
          ? 0
          : probabilityOf(birthCusum(adjusted, settings), birthThresholdNow)

      // Day blocks `fromDay`-`toDay` back that lie wholly in the animal's current phase (see phaseStart).
      const phase = phaseStart(animal.records, t) ?? -Infinity
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
      const today = dayActivity[k]![i]
      const heatBaseline = baselineDays(dayActivity[k]!, settings.baseline.fromDay, settings.baseline.toDay, 1, false)
      const excess =
        today === undefined || animal.hours[Math.max(0, i - DAY_HOURS + 1)]!.hour < phase
          ? undefined
          : heatExcess(today / dayFactor[k]![i]!, heatBaseline, settings)
      const heatP =
        excess === undefined ? 0 : probabilityOf(excess, heatThreshold(animal.records, t, settings)) * (1 - birthP)

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
      const lamenessP = decline === undefined ? 0 : probabilityOf(decline, settings.lameness.threshold)
      scores.push({ birth: round3(birthP), heat: round3(heatP), lameness: round3(lamenessP) })
    }
    return scores
  })
}

const round3 = (p: number) => Math.round(p * 1000) / 1000

/**
 * For each animal and index, the median of value(animal, index) over its group's animals that have one
 * (at least groupMinAnimals), else over the farm's, else `fallback`.
 */
function groupMedians<K>(
  herd: readonly AnimalHours<K>[],
  from: number,
  to: number,
  value: (k: number, i: number) => number | undefined,
  settings: ScorerSettings,
  fallback: number | undefined,
): (number | undefined)[][] {
  const groups = new Map<string, number[]>()
  herd.forEach((a, k) => groups.set(a.group ?? '', [...(groups.get(a.group ?? '') ?? []), k]))
  const out = herd.map(() => new Array<number | undefined>(to + 1))
  for (let i = from; i <= to; i++) {
    const all: number[] = []
    const byGroup = new Map<string, number[]>()
    for (const [name, members] of groups) {
      const values = members.map((k) => value(k, i)).filter((v): v is number => v !== undefined)
      byGroup.set(name, values)
      all.push(...values)
    }
    const farm = all.length >= settings.groupMinAnimals ? median(all) : fallback
    for (const [name, members] of groups) {
      const values = byGroup.get(name)!
      const factor = values.length >= settings.groupMinAnimals ? median(values) : farm
      for (const k of members) out[k]![i] = factor
    }
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
