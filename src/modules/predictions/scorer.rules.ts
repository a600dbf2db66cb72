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
//
// The rules' parts, each in its own file: scorer-settings.rules.ts (every threshold), hour-summaries.rules.ts,
// baselines.rules.ts, reproduction.rules.ts (what the records say), birth.rules.ts, heat.rules.ts, lameness.rules.ts
// and calibration.rules.ts (scores as probabilities). This file scores a herd hour by hour with them.
import {
  DAY_ACTIVITY,
  DAY_HOURS,
  DAY_MOVEMENT,
  DAY_MS,
  HOUR_MS,
  dayBlocks,
  dayMeans,
  hasData,
  type HourSummary,
} from './hour-summaries.rules.ts'
import {
  DEFAULT_GESTATION_DAYS,
  SCORER,
  dueDaysSince,
  type ClassScores,
  type ScorerSettings,
} from './scorer-settings.rules.ts'
import { alarmLevel, calibratedProbability, probabilityOf } from './calibration.rules.ts'
import { expectedActivity, firstDataIndex, median, newTagUsual } from './baselines.rules.ts'
import {
  CRATE_WINDOW_DAYS,
  crateEntryIndex,
  crateMoveIndex,
  latestBefore,
  phaseStart,
  reproductiveState,
  withInferredWeanings,
  type AnimalRecords,
} from './reproduction.rules.ts'
import {
  birthCusum,
  birthRuledOut,
  birthSummary,
  birthThreshold,
  lastDayProbability,
  unrecordedBirthFactor,
  unrecordedBirthState,
} from './birth.rules.ts'
import {
  cycleUnrecorded,
  heatBars,
  heatBaselineStart,
  HEAT_EXPECTED_DAYS,
  OPEN_HEAT_DUE_DAYS,
  heatExpected,
  heatRatio,
  heldShortRise,
  shortHoldHours,
  heatRuledOut,
  latestHeldRise,
  ownHeatDue,
  recordlessHeatSummary,
  weaningUnsettled,
  type HeatHour,
} from './heat.rules.ts'
import { lamenessDecline, temperatureShifts } from './lameness.rules.ts'
import { groupMedians } from './group-levels.rules.ts'
import { birthDataReaders, unrecordedBirths, unrecordedCycle } from './unrecorded-births.rules.ts'
import { dueBarFactor } from './due-bar.rules.ts'

const { baseline, heat, lameness } = SCORER
export const SCORER_SUMMARY =
  'Predictions come from an external model (POST) or from our own transparent, rule-based scorer, ' +
  'which runs hourly and stores one prediction per active animal, class and hour. Its probabilities are calibrated: ' +
  "the share of such hours that lay in the event's window (48 h before a farrowing, 12 h before a heat to its end, " +
  `2-21 days into a lameness) on the simulated herds it was tuned on; a class alarms from the probability of its rule's ` +
  `threshold (birth ${alarmLevel('birth')}, heat ${alarmLevel('heat')}, lameness ${alarmLevel('lameness')}). It measures each animal against its own baseline (the same hours of day on days ` +
  `${baseline.fromDay}-${baseline.toDay} back) and against its group at the same hour. ` +
  birthSummary(SCORER) +
  `heat: activity over the last ${heat.hours} h at least ${1 + heat.threshold}x the same hours on days ${baseline.fromDay}-${baseline.toDay} back (heats run about 1.3x for 24-48 h), ` +
  `${HEAT_EXPECTED_DAYS.from}-${HEAT_EXPECTED_DAYS.to} days after a recorded weaning ${round2(1 + heat.threshold * heat.expectedFactor)}x over ${heat.hours} h or ${round2(1 + heat.threshold * heat.shortFactor)}x over the last ${heat.shortHours} h (an earlier alarm where a heat is expected), ` +
  `17-25 days after a recorded insemination ${round2(1 + heat.threshold * heat.returnFactor)}x over ${heat.hours} h or ${round2(1 + heat.threshold * heat.returnShortFactor)}x over the last ${heat.shortHours} h (a return is possible, but most services hold), ` +
  (heat.shortHold === null
    ? ''
    : `the ${heat.shortHours}-h window's rise held ${heat.shortHold.hours} h (${heat.shortHold.returnHours} h where a return is possible) unless ${heat.shortHold.clearFactor}x over its bar, `) +
  (heat.servedHours === null
    ? 'a higher bar in the days after an insemination'
    : `no higher a bar in the ${heat.servedHours} h after an insemination than without it (she was served in that heat), a higher one in the days after`) +
  ` and while pregnant or lactating, none in the first ${heat.quietLactationDays} days of lactation (no weaning since, recorded or read from the data) or while a farrowing is due; ` +
  `a sow her records show open (a negative pregnancy check, or a return two days on) until served again: ${OPEN_HEAT_DUE_DAYS.from}-${OPEN_HEAT_DUE_DAYS.to} days after the failed service (two cycles: a return passed unseen) as 3-8 days after a weaning over ${heat.hours} h and as where a return is possible over ${heat.shortHours} h, before then as after an insemination, later at the plain bar; ` +
  'a sow her records expect on heat (3-8 days after a weaning) has no rise of her group corrected away (her batch-mates come on heat with her); ' +
  (SCORER.newTag === null
    ? ''
    : `in a new tag's first ${baseline.fromDay + 1} days, before its own baseline days exist, its usual is its group's median activity at the same hour times its own level against the group over its hours at least a day earlier, a rise shrunk as against one baseline day; `) +
  `a weaned sow more active in the ${heat.settleHours} h after her weaning than ${heat.settleRise}x since (moved out of the crate, fights of mixing) is compared with her days from then on; ` +
  recordlessHeatSummary(SCORER) +
  `lameness: activity (and movement between nodes) of the last ${lameness.recentDays} days ${Math.round(lameness.threshold * 100)} % or more below ` +
  `days ${lameness.baselineFromDay}-${lameness.baselineToDay} back, held for ${lameness.persistHours} h, the move into the farrowing crate read from the data, days whose ear temperature (against the group's) lies over ${lameness.temperatureShiftC} °C from the animal's usual left out (a fever, a loose or replaced tag). Measured on simulated herds: docs/predictions.md.`

function round2(x: number): number {
  return Math.round(x * 100) / 100
}

/** One animal as the herd scorer takes it: its hours (aligned with every other animal's), its group and records. */
export interface AnimalHours<K = string | number> {
  key: K
  group: string | null
  hours: readonly HourSummary[]
  records: AnimalRecords
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
  const calibration = settings.calibration
  const levels = {
    birth: alarmLevel('birth', settings),
    heat: alarmLevel('heat', settings),
    lameness: alarmLevel('lameness', settings),
  }

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
  const dayActivity = herd.map((a) => dayBlocks(a.hours, dayFrom, to, DAY_ACTIVITY))
  const dayMovement = herd.map((a) => dayBlocks(a.hours, dayFrom, to, DAY_MOVEMENT))
  // The records, with the weanings the farm did not record read from the data.
  const records = herd.map((a, k) =>
    withInferredWeanings(a.records, dayMovement[k]!, a.hours, dayFrom, to, heatSettings.weaningRise),
  )
  const groupLevel = groupMedians(herd, dayFrom, to, (k, e) => dayActivity[k]![e], settings, undefined)
  // Each day block's mean ear temperature against the group's at the same hours (the weather and the room taken
  // out), for lameness: a day far from the animal's usual is a sickness or a tag off the skin.
  const temperatureAt = (k: number, i: number) => {
    const h = herd[k]!.hours[i]
    return hasData(h) && h.temperature !== null ? h.temperature : undefined
  }
  const groupTemperature = groupMedians(herd, dayFrom - DAY_HOURS, to, temperatureAt, settings, undefined, 0.5)
  const dayTemperature = herd.map((_, k) =>
    dayMeans(
      (i) => {
        const own = temperatureAt(k, i)
        const group = groupTemperature[k]![i]
        return own === undefined || group === undefined ? undefined : own - group
      },
      dayFrom,
      to,
    ),
  )
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

  // On a farm that records no service, the moves into the crate read from the data alone: a sow is due from when
  // her move shows, and has farrowed once her due days have passed or she left the crate (a weaning read from the data).
  const farmKeepsRecords = herd.some((a) => a.records.services.length > 0)
  const short = birthSettings.short
  const unrecorded = farmKeepsRecords ? null : birthSettings.unrecorded
  const firstData = herd.map((a) => firstDataIndex(a.hours))
  const readers = birthDataReaders(herd, firstData, from, farmKeepsRecords, settings)
  const data = unrecordedBirths(
    herd,
    { dayActivity, dayMovement, dayTemperature, dayFrom, to },
    readers,
    short.crate?.settleHours ?? 0,
    settings,
  )
  // Heat's records: on such a farm, what her data say of her cycle (unrecordedCycle).
  const cycle = herd.map((a, k) => unrecordedCycle(records[k]!, a.hours, k, data, unrecorded, settings))

  // 3. Heat, hour by hour: the animal's activity and its usual at that hour (the mean of the same hour on the baseline
  //    days in its current phase, with how many days that mean has); over a window, the ratio of their sums (an hour
  //    without data leaves both sides, so a night-time dropout leaves no daytime-only average).
  // An animal's own last heat (heatSettings.ownHeat) is read from the day-long rises of the days before.
  const ownHeatHours = heatSettings.ownHeat === null ? 0 : heatSettings.ownHeat.dueToDay * DAY_HOURS
  const heatFrom = Math.max(0, from - ownHeatHours - Math.max(heatSettings.hours, heatSettings.shortHours) + 1)
  // A new tag's first days (SCORER.newTag): its group's median activity hour by hour, for its usual until its own
  // baseline days exist; computed only when a tag is that new in the hours the scored heat windows read (an animal's
  // own last heat is read without it: see heatRise).
  const windowsFrom = from - 2 * Math.max(heatSettings.hours, heatSettings.shortHours)
  const newTagHours = (settings.baseline.fromDay + 1) * DAY_HOURS
  const activityAt = (k: number, i: number) => (hasData(herd[k]!.hours[i]) ? herd[k]!.hours[i].activity : undefined)
  const groupActivity =
    settings.newTag !== null && firstData.some((f) => f !== undefined && f + newTagHours > windowsFrom)
      ? groupMedians(herd, heatFrom, to, activityAt, settings, undefined, 0.5)
      : herd.map(() => [] as (number | undefined)[])
  const heatHourly = herd.map((a, k) => {
    // Activity summed from the first hour, for the mean activity between two instants (hours with data).
    const sum = [0]
    const count = [0]
    for (const h of a.hours) {
      sum.push(sum.at(-1)! + (hasData(h) ? h.activity : 0))
      count.push(count.at(-1)! + (hasData(h) ? 1 : 0))
    }
    const first = a.hours[0]?.hour ?? 0
    const at = (time: number) => Math.min(a.hours.length, Math.max(0, Math.ceil((time - first) / HOUR_MS)))
    const meanActivity = (fromTime: number, toTime: number) => {
      const n = count[at(toTime)]! - count[at(fromTime)]!
      return n === 0 ? undefined : (sum[at(toTime)]! - sum[at(fromTime)]!) / n
    }
    const now = new Array<number | undefined>(to + 1)
    const usual = new Array<number | undefined>(to + 1)
    const usualDays = new Array<number>(to + 1).fill(0)
    const newTag = new Array<boolean>(to + 1).fill(false)
    const phase = new Array<number>(to + 1).fill(-Infinity)
    for (let j = heatFrom; j <= to; j++) {
      const h = a.hours[j]!
      const t = h.hour + HOUR_MS
      const { start, settledOnly } = heatBaselineStart(
        cycle[k]!.records,
        t,
        (weaning, settledFrom) => {
          const settling = meanActivity(weaning, settledFrom)
          const settled = meanActivity(settledFrom, t)
          return settling !== undefined && settled !== undefined && weaningUnsettled(settling, settled, settings)
        },
        settings,
      )
      phase[j] = start
      if (!hasData(h) || h.hour < start) continue
      const same: number[] = []
      for (let d = settings.baseline.fromDay; d <= settings.baseline.toDay; d++) {
        const b = a.hours[j - d * DAY_HOURS]
        if (hasData(b) && b.hour >= start) same.push(b.activity)
      }
      // Her own usual where it exists; on a new tag before it does, the group's (newTagUsual).
      const own = same.length >= (settledOnly ? heatSettings.settledMinDays : 2)
      const u = own
        ? { usual: same.reduce((x, y) => x + y, 0) / same.length, days: same.length }
        : newTagUsual(a.hours, j, firstData[k], start, groupActivity[k]!, settings)
      if (u === undefined) continue
      now[j] = h.activity
      usual[j] = u.usual
      usualDays[j] = u.days
      newTag[j] = !own
    }
    return { now, usual, usualDays, newTag, phase }
  })
  const fullBaselineDays = settings.baseline.toDay - settings.baseline.fromDay + 1
  // withNewTag: whether a new tag's usual (newTagUsual) counts; an animal's own last heat is read without it.
  const heatRise = (k: number, i: number, hours: number, withNewTag = true) => {
    const { now, usual, usualDays, newTag, phase } = heatHourly[k]!
    const window: HeatHour[] = []
    for (let j = i - hours + 1; j <= i; j++)
      if (now[j] !== undefined && (withNewTag || !newTag[j]) && herd[k]!.hours[j]!.hour >= phase[i]!)
        window.push({ activity: now[j]!, usual: usual[j]!, usualDays: usualDays[j]! })
    return heatRatio(window, hours, fullBaselineDays, settings)
  }
  // A sow her records expect on heat keeps her rise when her group rises: her batch-mates, weaned with her and mixed
  // into her pen, come on heat within days of her, and the pen stirs with their heats (docs/predictions-tuning.md,
  // branch heatshare2). Correcting for the group took her own heat away with theirs.
  const expectedOnHeat = herd.map((a, k) => {
    const out = new Array<boolean>(to + 1).fill(false)
    for (let i = from; i <= to; i++) out[i] = heatExpected(cycle[k]!.records, a.hours[i]!.hour + HOUR_MS)
    return out
  })
  const members = new Map<string, number[]>()
  herd.forEach((a, k) => members.set(a.group ?? '', [...(members.get(a.group ?? '') ?? []), k]))
  const heatFactor = (k: number, i: number) => {
    const factor = dayFactor[k]![i] ?? 1
    if (factor <= 1 || !expectedOnHeat[k]![i]) return factor
    return members.get(herd[k]!.group ?? '')!.some((m) => hasData(herd[m]!.hours[i])) ? 1 : factor
  }

  // Where the records say nothing of an animal's cycle on a farm that keeps them (a gilt not yet served: the farm
  // would have recorded her service), her own last heat read from her day-long rises, less her group's: the next is
  // due an oestrous cycle after it. On a farm that records nothing an animal without records may be pregnant.
  const ownLastHeat = herd.map((a, k) => {
    const own = heatSettings.ownHeat
    if (own === null || !farmKeepsRecords || !cycleUnrecorded(records[k]!, a.hours[from]!.hour)) return []
    const rises = new Array<number | undefined>(to + 1)
    for (let j = heatFrom; j <= to; j++) {
      const rise = heatRise(k, j, heatSettings.hours, false)
      if (rise !== undefined) rises[j] = rise / heatFactor(k, j) - 1
    }
    return latestHeldRise(rises, heatSettings.threshold, own.heldHours, own.currentDays * DAY_HOURS, from, to)
  })
  const ownHeatDueAt = (k: number, i: number, t: number) => {
    const last = ownLastHeat[k]![i]
    return last !== undefined && cycleUnrecorded(records[k]!, t) && ownHeatDue((i - last) / DAY_HOURS, settings)
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
    const { recentDays, baselineFromDay, baselineToDay } = settings.lameness
    // A sickness's days leave the recent days (it lowers activity as lameness does); in the baseline they could only
    // hide a decline. A tag off the skin's days leave both: its swinging reads activity the animal does not have.
    const shifts = temperatureShifts(
      Array.from({ length: baselineToDay + 1 }, (_, d) => dayTemperature[k]![i - d * DAY_HOURS]),
      settings.lameness.temperatureShiftC,
    )
    const readable = (d: number) => shifts[d] === 'steady' || (d >= recentDays && shifts[d] === 'warm')
    // Day blocks `fromDay`-`toDay` back that lie wholly in the animal's current phase (see phaseStart) and are readable.
    const days = (series: (number | undefined)[], fromDay: number, toDay: number, correct: boolean) => {
      const out: number[] = []
      for (let d = fromDay; d <= toDay; d++) {
        const e = i - d * DAY_HOURS
        const v = series[e]
        if (v !== undefined && readable(d) && e - DAY_HOURS + 1 >= 0 && animal.hours[e - DAY_HOURS + 1]!.hour >= phase)
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
  const shortFrom = Math.max(0, from - short.hours + 1)
  const dueAt = herd.map((a, k) => {
    const out = new Array<boolean>(to + 1).fill(false)
    for (let i = shortFrom; i <= to; i++) {
      const since = reproductiveState(records[k]!, a.hours[i]!.hour + HOUR_MS).sinceService
      const sinceService = since === undefined ? undefined : dueDaysSince(since, settings)
      out[i] = sinceService !== undefined && sinceService >= short.dueFromDay && sinceService <= short.dueToDay
    }
    return out
  })
  // Her state by her data at each hour from shortFrom (undefined where her records are read), read once.
  const unrecordedStates = herd.map((a, k) => {
    const out = new Array<ReturnType<typeof unrecordedBirthState> | undefined>(to + 1)
    for (let i = shortFrom; readers.rule && i <= to; i++) {
      if (!readers.reads(k, a.hours[i]!.hour + HOUR_MS)) continue
      const { sinceWeaning } = reproductiveState(records[k]!, a.hours[i]!.hour + HOUR_MS)
      out[i] = unrecordedBirthState(data.moveAt[k]![i], i, sinceWeaning, readers.rule, data.lactationAt[k]![i])
      if (out[i] === 'due') dueAt[k]![i] = true
    }
    return out
  })
  const recentBaseline = { ...settings, baseline: { ...settings.baseline, toDay: short.recentToDay, minHours: 3 } }
  // The move into the crate before each recorded service's farrowing, from the data (the first from crate.fromDay).
  const crateEntries = herd.map((a, k) => {
    const entries = new Map<number, number>()
    if (!short.crate || !dueAt[k]!.some(Boolean)) return entries
    const indexOf = (t: number) => Math.ceil((t - a.hours[0]!.hour) / HOUR_MS)
    const shift = birthSettings.gestationDays - DEFAULT_GESTATION_DAYS
    for (const service of records[k]!.services) {
      const start = indexOf(service + (short.crate.fromDay + shift) * DAY_MS)
      const end = Math.min(to, indexOf(service + (short.dueToDay + shift + 1) * DAY_MS))
      if (end < from - DAY_HOURS || start > to) continue
      const entry = crateEntryIndex(dayMovement[k]!, Math.max(dayFrom, start), end, readers.moveFirst[k])
      if (entry !== undefined) entries.set(service, entry)
    }
    return entries
  })
  const crateExpected = (k: number, j: number) => {
    const service = latestBefore(records[k]!.services, herd[k]!.hours[j]!.hour + HOUR_MS)
    const entry = service === undefined ? data.moveAt[k]![j] : crateEntries[k]!.get(service)
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
      // day (no nest building does), the tag reads cooler than the ear (off the skin, a loose or torn tag) or a
      // recorded farrowing rules another out.
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
      // The farm's due bar, learned from its farrowings, in the days its sows farrow (1 elsewhere and by default).
      const sinceService = reproductiveState(records[k]!, t).sinceService
      const dueBar = dueBarFactor(
        sinceService === undefined ? undefined : dueDaysSince(sinceService, settings),
        settings,
      )
      // On a farm that records no service, what her data say in their place.
      const unrecordedNow = unrecordedBirthFactor(unrecordedStates[k]![i], settings)
      const birthThresholdNow =
        birthThreshold(records[k]!, t, settings) * (warm ? birthSettings.warmFactor : 1) * dueBar * unrecordedNow.factor
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
            short.threshold * (warm ? birthSettings.warmFactor : 1) * dueBar,
          )
        : 0
      const lastDayHours = short.lastDay && dueAt[k]![i] ? Math.min(short.lastDay.hours, i + 1) : 0
      const lastDayRatios = Array.from({ length: lastDayHours }, (_, n) => shortRatio(k, i - lastDayHours + 1 + n))
      const lastDayP = lastDayProbability(
        lastDayRatios,
        meanWarming,
        (warm ? birthSettings.warmFactor : 1) * dueBar,
        settings,
      )
      const birthP =
        birthRuledOut(records[k]!, t, settings) || unrecordedNow.ruledOut || persistent || tagOff
          ? 0
          : Math.max(probabilityOf(birthCusum(recent, settings), birthThresholdNow), shortP, lastDayP)

      // Heat: the rise of activity over the last day, and where the records make a heat likely over a shorter
      // window too (an earlier alarm), against the animal's usual at the same hours, less its group's rise; none
      // where the records rule a heat out.
      let heatP = 0
      if (!heatRuledOut(cycle[k]!.at(t), t, settings) && !cycle[k]!.due(i, t)) {
        const { bar, shortFactor } = heatBars(cycle[k]!.at(t), t, settings, ownHeatDueAt(k, i, t))
        const factor = heatFactor(k, i)
        const excess = (ratio: number | undefined) => (ratio === undefined ? 0 : ratio / factor - 1)
        heatP = probabilityOf(excess(heatRise(k, i, heatSettings.hours)), bar)
        if (shortFactor !== undefined) {
          // The shorter window's crossing must hold for a few hours unless clearly over its bar (heldShortRise).
          const shortBar = heatSettings.threshold * shortFactor
          const rises: number[] = []
          for (let j = i - shortHoldHours(shortFactor, settings) + 1; j <= i; j++)
            rises.push(excess(heatRise(k, j, heatSettings.shortHours)))
          heatP = Math.max(heatP, probabilityOf(heldShortRise(rises, shortBar, settings), shortBar))
        }
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
      scores.push({
        birth: calibratedProbability(calibration?.birth, birthP, levels.birth),
        heat: calibratedProbability(calibration?.heat, heatP, levels.heat),
        lameness: calibratedProbability(calibration?.lameness, lamenessP, levels.lameness),
      })
    }
    return scores
  })
}
