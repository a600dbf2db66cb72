// Heat: a rise of activity for a day or two, expected after weaning and after a service that did not hold.
import { DAY_MS, HOUR_MS } from './hour-summaries.rules.ts'
import { SCORER, type ScorerSettings } from './scorer-settings.rules.ts'
import { CYCLE } from '../cycle/cycle.rules.ts'
import {
  CRATE_WINDOW_DAYS,
  latestBefore,
  phaseStart,
  reproductiveState,
  type AnimalRecords,
} from './reproduction.rules.ts'

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

/** Days after a weaning in which the records make a heat expected (heatExpected). */
export const HEAT_EXPECTED_DAYS = { from: CYCLE.weaningToHeatFromDays, to: CYCLE.weaningToHeatToDays } as const

/**
 * Days after a service her records showed had failed (a negative pregnancy check; a return she was not served at) in
 * which her next heat is due while she stays unserved: two oestrous cycles of 18-24 days (the cycle state's regular
 * return) after it, the return at the first one having passed unseen or unserved: 36-48. Before them she is in that
 * cycle's luteal phase (no oestrus).
 */
export const OPEN_HEAT_DUE_DAYS = { from: 2 * CYCLE.returnFromDays, to: 2 * CYCLE.returnToDays } as const

/** Whether her records show her open and her next heat due at t (OPEN_HEAT_DUE_DAYS). */
export function openHeatDue(records: AnimalRecords, t: number): boolean {
  const { sinceFailedService } = reproductiveState(records, t)
  return (
    sinceFailedService !== undefined &&
    sinceFailedService >= OPEN_HEAT_DUE_DAYS.from &&
    sinceFailedService <= OPEN_HEAT_DUE_DAYS.to
  )
}

/** Whether the records make a heat expected at t: 3-8 days after a weaning, before any service (most sows come on heat then). */
export function heatExpected(records: AnimalRecords, t: number): boolean {
  const { sinceService, sinceWeaning } = reproductiveState(records, t)
  return (
    sinceWeaning !== undefined &&
    sinceWeaning >= HEAT_EXPECTED_DAYS.from &&
    sinceWeaning <= HEAT_EXPECTED_DAYS.to &&
    sinceService === undefined
  )
}

/**
 * A sow weaned, past the days a heat is expected after it (HEAT_EXPECTED_DAYS) with no service recorded since nor a
 * farrowing after the weaning: presumed served `servedDay` days after the weaning (sows are served at the first heat
 * after weaning, and most services hold), on a farm whose records would not say. Returns the records with that
 * service added; as they are otherwise, and always with a null servedDay.
 */
export function presumedService(records: AnimalRecords, t: number, servedDay: number | null): AnimalRecords {
  if (servedDay === null) return records
  const { sinceWeaning, sinceService, sinceBirth } = reproductiveState(records, t)
  if (sinceWeaning === undefined || sinceWeaning <= HEAT_EXPECTED_DAYS.to || sinceService !== undefined) return records
  if (sinceBirth !== undefined && sinceBirth < sinceWeaning) return records
  const served = latestBefore(records.weanings, t)! + servedDay * DAY_MS
  return { ...records, services: [...records.services, served].sort((a, b) => a - b) }
}

/**
 * Whether the records rule a heat out at t: through a conventional lactation (lactational anoestrus; a weaning read
 * from the data ends it as a recorded one does; later, a weaning neither recorded nor read may have happened), and
 * while a farrowing is due (from the crate window after a service).
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

/**
 * Whether a service `sinceService` days before was done in a heat that may still run: within servedHours of it (a
 * sow is served in standing oestrus, about 12-24 h into a heat of one to three days). Null servedHours: never.
 */
export function servedInHeat(sinceService: number | undefined, settings: ScorerSettings = SCORER): boolean {
  const hours = settings.heat.servedHours
  return hours !== null && sinceService !== undefined && sinceService >= 0 && sinceService * 24 < hours
}

/** The records without a service done in a heat that may still run at t (servedInHeat); as they are otherwise. */
export function withoutServiceInHeat(
  records: AnimalRecords,
  t: number,
  settings: ScorerSettings = SCORER,
): AnimalRecords {
  if (!servedInHeat(reproductiveState(records, t).sinceService, settings)) return records
  const last = latestBefore(records.services, t)
  return { ...records, services: records.services.filter((s) => s !== last) }
}

/**
 * The scorer summary's sentences on heat where the records say nothing of a sow's cycle: a gilt on a farm that keeps
 * records (SCORER.heat.ownHeat), a sow on a farm that records no service (SCORER.heat.unrecordedCycle); '' for each
 * without its rule.
 */
export function recordlessHeatSummary(settings: ScorerSettings = SCORER): string {
  const { ownHeat, unrecordedCycle: rule, threshold, hours } = settings.heat
  const own =
    ownHeat === null
      ? ''
      : `on a farm that keeps records, a female with none (a gilt not yet served) whose own last heat (the bar held ${ownHeat.heldHours} h) lay ${ownHeat.dueFromDay}-${ownHeat.dueToDay} days back is due again: ${Math.round((1 + threshold * ownHeat.dueFactor) * 100) / 100}x over ${hours} h. `
  if (rule === null) return own
  const births = rule.births
    ? 'a farrowing read from the data (the move into the crate, then her lying to nurse) counts as a recorded one, none while that move makes her due; '
    : ''
  const served =
    rule.servedDay === null
      ? ''
      : `a sow weaned is presumed served ${rule.servedDay} days after her weaning once past days ${HEAT_EXPECTED_DAYS.from}-${HEAT_EXPECTED_DAYS.to} (the bars after an insemination). `
  return `${own}On a farm that records no insemination, heat reads her cycle from the data: ${births}${served}`
}

/** Whether the records make a heat likely at t: expected after a weaning, or a return possible after a service. */
export function heatLikely(records: AnimalRecords, t: number): boolean {
  return heatExpected(records, t) || returnPossible(records, t)
}

/**
 * Whether the records say nothing of an animal's cycle at t: no service, farrowing or weaning of hers recorded before
 * it. On a farm that keeps records, a gilt not yet served (the farm would have recorded her service).
 */
export function cycleUnrecorded(records: AnimalRecords, t: number): boolean {
  return [records.services, records.births, records.weanings].every((times) => latestBefore(times, t) === undefined)
}

/**
 * For each index from `from` to `to`: the latest index at least `lag` before it at which `rises` had stayed at `bar`
 * or above for `held` indices in a row (undefined: none). Her own last heat, from the hourly day-long heat rises.
 */
export function latestHeldRise(
  rises: readonly (number | undefined)[],
  bar: number,
  held: number,
  lag: number,
  from: number,
  to: number,
): (number | undefined)[] {
  const out = new Array<number | undefined>(to + 1)
  let latest: number | undefined
  let run = 0
  for (let j = 0; j <= to - lag; j++) {
    const rise = rises[j]
    run = rise !== undefined && rise >= bar ? run + 1 : 0
    if (run >= held) latest = j
    if (j + lag >= from) out[j + lag] = latest
  }
  return out
}

/**
 * Whether her own last heat makes an animal's next heat due: `daysSince` days after it (see latestHeldRise and
 * SCORER.heat.ownHeat), one oestrous cycle (18-24 days from onset to onset) later.
 */
export function ownHeatDue(daysSince: number | undefined, settings: ScorerSettings = SCORER): boolean {
  const own = settings.heat.ownHeat
  return own !== null && daysSince !== undefined && daysSince > own.dueFromDay && daysSince <= own.dueToDay
}

/**
 * Heat's threshold for the 24-h window: somewhat lower 3-8 days after a weaning (most sows come on heat then; not
 * far lower: a day-long window at a far lower bar is crossed by a day's noise before the heat about as often as by
 * the heat, and the 12-h window carries what the weaning expects, see heatShortFactor), higher 17-25 days after a
 * service (a return is possible, but most services hold: most sows there are pregnant), higher still while nursing,
 * in the days after a service before a return could come (the luteal phase: no oestrus) and while pregnant. A sow
 * found open (her service failed) is at the weaning's bar while her next heat is due (openHeatDue), at the luteal
 * phase's before it. Where the records say nothing, lower when her own last heat makes the next due (`ownHeatDue`,
 * see SCORER.heat.ownHeat).
 */
export function heatThreshold(
  records: AnimalRecords,
  t: number,
  settings: ScorerSettings = SCORER,
  ownHeatDue = false,
): number {
  const { sinceService, lactatingDays, sinceFailedService } = reproductiveState(records, t)
  const { threshold, expectedFactor, returnFactor, unlikelyFactor, ownHeat } = settings.heat
  if (ownHeatDue && ownHeat !== null) return threshold * ownHeat.dueFactor
  if (lactatingDays !== undefined) return threshold * unlikelyFactor
  if (heatExpected(records, t) || openHeatDue(records, t)) return threshold * expectedFactor
  if (returnPossible(records, t)) return threshold * returnFactor
  if (sinceService !== undefined && sinceService >= 3 && sinceService <= 125) return threshold * unlikelyFactor
  if (sinceFailedService !== undefined && sinceFailedService < OPEN_HEAT_DUE_DAYS.from)
    return threshold * unlikelyFactor
  return threshold
}

/**
 * The factor of the heat threshold for the shorter (12-h) window, where the records make a heat likely: shortFactor
 * after a weaning (below 1: most sows come on heat then, and the shorter window alarms sooner after the rise
 * begins), returnShortFactor when a return is possible or a sow found open is due (openHeatDue: a sow out of step
 * with her group, whose day-long bar is already the weaning's); undefined elsewhere (no shorter window).
 */
export function heatShortFactor(
  records: AnimalRecords,
  t: number,
  settings: ScorerSettings = SCORER,
): number | undefined {
  if (heatExpected(records, t)) return settings.heat.shortFactor
  if (returnPossible(records, t) || openHeatDue(records, t)) return settings.heat.returnShortFactor
  return undefined
}

/**
 * The shorter window's rise as it alarms: `rises` are its rises (less the group's) at the last hours, oldest first,
 * the latest last (see shortHoldHours for how many). A crossing must hold: the least of them, unless the latest is
 * at least clearFactor x the bar, which counts at once (a heat's rise lasts a day or more; one or two hours at the
 * bar are the window's own noise). Without a hold (null settings) the latest alone.
 */
export function heldShortRise(rises: readonly number[], bar: number, settings: ScorerSettings = SCORER): number {
  const latest = rises.at(-1)
  if (latest === undefined) return 0
  const hold = settings.heat.shortHold
  if (hold === null || latest >= hold.clearFactor * bar) return latest
  return Math.min(...rises)
}

/**
 * How many hours the shorter window's crossing must hold (heldShortRise) at the shorter window's factor
 * `shortFactor`: the return window's (returnShortFactor) longer, most sows there being pregnant; 1 without a hold.
 */
export function shortHoldHours(shortFactor: number, settings: ScorerSettings = SCORER): number {
  const hold = settings.heat.shortHold
  if (hold === null) return 1
  return shortFactor === settings.heat.returnShortFactor ? hold.returnHours : hold.hours
}

/** Heat's bars at an hour: the 24-h window's threshold, and the shorter window's factor of the threshold (if any). */
export interface HeatBars {
  bar: number
  shortFactor: number | undefined
}

/**
 * Heat's bars at t (heatThreshold, heatShortFactor). A service is done in a heat and says nothing against it: in the
 * servedHours after one (servedInHeat) the bars are no higher than without it, so a weaned sow served in her heat
 * keeps the bars her weaning gave her until that heat has passed (the service alone would raise them to the plain
 * bar and take the shorter window away in the heat itself). A due heat of her own (`ownHeatDue`) is read as before.
 */
export function heatBars(
  records: AnimalRecords,
  t: number,
  settings: ScorerSettings = SCORER,
  ownHeatDue = false,
): HeatBars {
  const bar = heatThreshold(records, t, settings, ownHeatDue)
  const shortFactor = heatShortFactor(records, t, settings)
  const unserved = withoutServiceInHeat(records, t, settings)
  if (unserved === records) return { bar, shortFactor }
  const before = heatShortFactor(unserved, t, settings)
  return {
    bar: Math.min(bar, heatThreshold(unserved, t, settings)),
    shortFactor: before === undefined ? shortFactor : Math.min(shortFactor ?? Infinity, before),
  }
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
  const fill = settings.heat.partialShrink ? hours / window.length : 1
  return heatShrunk(ratio, days, fullBaselineDays, fill)
}

/**
 * A ratio against a usual of `days` baseline days (of `fullBaselineDays`), over `fill` x fewer hours than its
 * window's, shrunk towards 1 by how much both widen its spread, taking a day's and a window's variation alike.
 */
export function heatShrunk(ratio: number, days: number, fullBaselineDays: number, fill = 1): number {
  return 1 + (ratio - 1) / Math.sqrt((fill * (1 + 1 / days)) / (1 + 1 / fullBaselineDays))
}

/**
 * Whether a weaned sow had not settled in the first hours after her weaning: her activity then (`settling`, a mean
 * per hour) above `settleRise` x her activity since (`settled`). The move out of the crate and the fights of mixing
 * show as such a rise; a calm first day is a usual day like the later ones.
 */
export function weaningUnsettled(settling: number, settled: number, settings: ScorerSettings = SCORER): boolean {
  const floor = settings.activityFloor
  return settling + floor > settings.heat.settleRise * (settled + floor)
}

/** Where a heat baseline's hours may begin, and whether that is later than the phase's start (see heatBaselineStart). */
export interface HeatBaselineStart {
  start: number
  settledOnly: boolean
}

/**
 * Where a heat baseline's hours may begin at t: the current phase's start (phaseStart), and after a weaning, when
 * the sow had not settled in the settleHours after it (`unsettled(weaning, settledFrom)`, see weaningUnsettled),
 * only from then on (`settledOnly`): those hours are no usual day and would hide the heat that follows. -Infinity
 * without a phase.
 */
export function heatBaselineStart(
  records: AnimalRecords,
  t: number,
  unsettled: (weaning: number, settledFrom: number) => boolean,
  settings: ScorerSettings = SCORER,
): HeatBaselineStart {
  const start = phaseStart(records, t)
  if (start === undefined) return { start: -Infinity, settledOnly: false }
  const settledFrom = start + settings.heat.settleHours * HOUR_MS
  return latestBefore(records.weanings, t) === start && settledFrom <= t && unsettled(start, settledFrom)
    ? { start: settledFrom, settledOnly: true }
    : { start, settledOnly: false }
}
