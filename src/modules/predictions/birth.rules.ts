// Birth: nest building, a sustained rise of activity over the sow's own baseline in the hours before farrowing.
import { SCORER, dueDaysSince, type ScorerSettings } from './scorer-settings.rules.ts'
import { probabilityOf } from './calibration.rules.ts'
import { reproductiveState, type AnimalRecords } from './reproduction.rules.ts'
import { DAY_HOURS } from './hour-summaries.rules.ts'

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

/** Days after a service (at the default gestation) in which farrowing is due: birth's threshold is 0.75x there. */
export const DUE_DAYS = { from: 108, to: 122, thresholdFactor: 0.75 } as const

/** Birth's threshold factor where the records say no farrowing is near: before day 100 of a gestation, or found open. */
const NOT_NEAR_FACTOR = 2.5

/**
 * The CUSUM level at which birth alarms: lower near the recorded service's expected farrowing (the farm's gestation,
 * 115 days by default), higher far before it.
 */
export function birthThreshold(records: AnimalRecords, t: number, settings: ScorerSettings = SCORER): number {
  const { sinceService: since, sinceFoundOpen } = reproductiveState(records, t)
  // Found open and not served since: not pregnant, as far before a farrowing as early in a gestation.
  if (sinceFoundOpen !== undefined) return settings.birth.threshold * NOT_NEAR_FACTOR
  if (since === undefined) return settings.birth.threshold
  const sinceService = dueDaysSince(since, settings)
  if (sinceService >= DUE_DAYS.from && sinceService <= DUE_DAYS.to)
    return settings.birth.threshold * DUE_DAYS.thresholdFactor
  if (sinceService < 100) return settings.birth.threshold * NOT_NEAR_FACTOR
  return settings.birth.threshold
}

/** No farrowing is possible so soon after a recorded one (a gestation takes over 110 days): no birth alarm then. */
export function birthRuledOut(records: AnimalRecords, t: number, settings: ScorerSettings = SCORER): boolean {
  const { sinceBirth } = reproductiveState(records, t)
  return sinceBirth !== undefined && sinceBirth < settings.birth.quietAfterBirthDays
}

/**
 * On a farm that records no service, where a sow stands by what her data say (SCORER.birth.unrecorded): `due` from
 * when her move into the crate shows (`entry`, an hour index, known at `index`; undefined: none read) to dueDays
 * after the move; `farrowed` from then to quietDays after it, and quietDays after a weaning read from the data
 * (`sinceWeaning`, days; a move then is none), as she stays in the crate to nurse and is no nest builder when she
 * leaves it; `unseen` otherwise (no move read: she may be pregnant, but nothing says she is due). `lactation` (an
 * hour index, known at it; see lactationIndex) ends her due days early: from it she has farrowed.
 */
export function unrecordedBirthState(
  entry: number | undefined,
  index: number,
  sinceWeaning: number | undefined,
  rule: { dueDays: number; quietDays: number },
  lactation?: number,
): 'due' | 'farrowed' | 'unseen' {
  if (sinceWeaning !== undefined && sinceWeaning <= rule.quietDays) return 'farrowed'
  if (entry !== undefined && lactation !== undefined && lactation >= entry && index >= lactation) {
    if ((index - entry) / DAY_HOURS <= rule.quietDays) return 'farrowed'
  }
  const sinceMove = entry === undefined ? undefined : (index - entry) / DAY_HOURS
  if (sinceMove !== undefined && sinceMove <= rule.dueDays) return 'due'
  if (sinceMove !== undefined && sinceMove <= rule.quietDays) return 'farrowed'
  return 'unseen'
}

/**
 * Whether a sow's records say nothing of a pregnancy at t: no service and no farrowing recorded at or before it (on a
 * farm that keeps records, a new tag's sow whose past was not entered; a gilt not yet served).
 */
export function pregnancyUnrecorded(records: AnimalRecords, t: number): boolean {
  return !records.services.some((x) => x <= t) && !records.births.some((x) => x <= t)
}

/** The birth thresholds' factor and whether a birth is ruled out, by unrecordedBirthState; none without the rule. */
export function unrecordedBirthFactor(
  state: 'due' | 'farrowed' | 'unseen' | undefined,
  settings: ScorerSettings = SCORER,
): { factor: number; ruledOut: boolean } {
  const rule = settings.birth.unrecorded
  if (!rule || state === undefined) return { factor: 1, ruledOut: false }
  if (state === 'farrowed') return { factor: 1, ruledOut: true }
  return { factor: state === 'due' ? rule.dueFactor : rule.unseenFactor, ruledOut: false }
}

/**
 * The short CUSUM's last-day companion: a weak nester's rise, small against her usual but sustained over hours, counts
 * only while her ear is warm (`meanWarming`, °C over her usual less her group's; undefined without readings), as it
 * is in the last day before farrowing. Returns the CUSUM level over the ratios (oldest first) at the lastDay
 * reference, 0 while the ear is not warm or without the rule.
 */
export function lastDayCusum(
  ratios: readonly (number | undefined)[],
  meanWarming: number | undefined,
  settings: ScorerSettings = SCORER,
): number {
  const lastDay = settings.birth.short.lastDay
  if (!lastDay || meanWarming === undefined || meanWarming < lastDay.warmC) return 0
  return birthCusum(ratios, { ...settings, birth: { ...settings.birth, reference: lastDay.reference } })
}

/**
 * The last-day CUSUM as a probability (0 without the rule): its threshold times `thresholdFactor` (a warmer ear's,
 * the farm's due bar), as the other birth CUSUMs'.
 */
export function lastDayProbability(
  ratios: readonly (number | undefined)[],
  meanWarming: number | undefined,
  thresholdFactor: number,
  settings: ScorerSettings = SCORER,
): number {
  const lastDay = settings.birth.short.lastDay
  if (!lastDay) return 0
  return probabilityOf(lastDayCusum(ratios, meanWarming, settings), lastDay.threshold * thresholdFactor)
}

/** The birth rules in words, for the scorer's summary (the predictions routes' OpenAPI text). */
export function birthSummary(settings: ScorerSettings): string {
  const { baseline, birth } = settings
  return (
    `birth: a CUSUM of hourly activity above ${birth.reference}x the sow's baseline over ${birth.hours} h, meal hours left out, alarm at ${birth.threshold} ` +
    `(${birth.threshold * birth.warmFactor} while her ear is ${birth.warmC} °C warmer than usual), none while the rise has lasted over a day ` +
    'or the tag reads cooler than the ear (a loose tag); 111-119 days after a recorded service also a shorter CUSUM ' +
    `over ${birth.short.hours} h above ${birth.short.reference}x the same hours on days ${baseline.fromDay}-${birth.short.recentToDay} back (the crate, not the pen before the move), ` +
    'once the move into the crate shows in her movement between nodes the same hours of her crate days only (a move 1-2 days before farrowing), ' +
    'meal hours included (each against the same meal of those days), ' +
    `alarm at ${birth.short.threshold} (weak or short nest building), not corrected away while most of her group is due too (a batch)` +
    (birth.short.lastDay
      ? `, and while her ear is ${birth.short.lastDay.warmC} °C warmer than usual (the last day) one over ${birth.short.lastDay.hours} h ` +
        `above ${birth.short.lastDay.reference}x, alarm at ${birth.short.lastDay.threshold} (a weak nester's small rise, sustained over hours) `
      : ' ') +
    (birth.unrecorded
      ? `; on a farm that records no service, a move into the crate read from her movement between nodes (below ${birth.unrecorded.drop}x its usual, still a day later, her group's not) ` +
        `makes her due for ${birth.unrecorded.dueDays} days (those CUSUMs against her crate days, the long one's alarm at ${birth.unrecorded.dueFactor}x), ` +
        `none from then to ${birth.unrecorded.quietDays} days after it or after a weaning read from the data, the long one's alarm ${birth.unrecorded.unseenFactor}x elsewhere `
      : '') +
    (birth.newTag && birth.unrecorded
      ? `(and on a farm that records services, in the ${birth.newTag.tagDays} days after a tag is first heard, her move into the crate read against her days since then ` +
        `until her usual days exist, and a sow with no service or farrowing recorded (her past not entered) read from her data as above) `
      : '') +
    '(nest building lasts 14-17 h and peaks about 9 h before farrowing; Cornou 2012: CUSUM sensitivity 100 %, specificity 95-100 %; ' +
    'Oczak 2020: ear-tag alarms a median 8 h 51 min before onset). '
  )
}
