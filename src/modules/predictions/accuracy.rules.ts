// How the farm's own records bear out the alarms: each alarm matched with the event it announced (a birth
// record, an insemination or a return seen, a lameness treatment or event), events that came without one, lead times
// and false alarms. Pure: matchAlarms gives the (class, alarm, event) pairs that the accuracy route sums up and that
// per-farm learning can read. Definitions: docs/herd-performance.md#prediction-accuracy.
import type { ClassificationType } from './predictions.rules.ts'

const HOUR_MS = 3_600_000
const DAY_MS = 24 * HOUR_MS

/**
 * An alarm: a posted prediction whose highest probability reaches this; the scorer's calibrated probabilities alarm
 * at their class's level (calibration.rules.ts alarmLevel: its threshold's probability).
 */
export const ALARM_PROBABILITY = 0.5
/** Alarm predictions of one animal and class less than this apart are one alarm (from its first hour). */
export const ALARM_MERGE_MS = 12 * HOUR_MS
/** Hours in an average month, for false alarms per animal-month. */
export const HOURS_PER_MONTH = (365.25 * 24) / 12

export interface MatchWindow {
  /** The event confirms an alarm when event - alarm lies in [0, leadMs]. */
  leadMs: number
  /** An alarm up to lateMs after an event is late: no false alarm, no detection. */
  lateMs: number
  /** Records of one animal less than this apart are one event (services of one heat, treatments of one lameness). */
  eventMergeMs: number
}

export const MATCH_WINDOWS: Record<ClassificationType, MatchWindow> = {
  birth: { leadMs: 48 * HOUR_MS, lateMs: 24 * HOUR_MS, eventMergeMs: 7 * DAY_MS },
  heat: { leadMs: 36 * HOUR_MS, lateMs: 36 * HOUR_MS, eventMergeMs: 4 * DAY_MS },
  lameness: { leadMs: 7 * DAY_MS, lateMs: 14 * DAY_MS, eventMergeMs: 7 * DAY_MS },
}

/** A moment of one animal: an alarm prediction's time, or a record's. */
export interface Moment {
  animalId: number
  at: number
}

/** Merges moments of one animal less than `gapMs` apart into the first of them; sorted by animal then time. */
export function mergeMoments(moments: readonly Moment[], gapMs: number): Moment[] {
  const sorted = [...moments].sort((a, b) => a.animalId - b.animalId || a.at - b.at)
  const out: Moment[] = []
  let last: Moment | undefined
  for (const m of sorted) {
    if (last && last.animalId === m.animalId && m.at - last.at < gapMs) {
      last = m // a run continues from its latest member: an alarm lasting days is one alarm
      continue
    }
    out.push(m)
    last = m
  }
  return out
}

export type MatchOutcome = 'confirmed' | 'late' | 'false' | 'missed' | 'unscored'

/**
 * One alarm and the event it announced (confirmed), came after (late) or none (false); or an event no alarm
 * announced (missed), or that came while the class was not being predicted for the animal (unscored).
 */
export interface AlarmMatch {
  classificationType: ClassificationType
  animalId: number
  alarmAt: number | null
  eventAt: number | null
  outcome: MatchOutcome
  /** eventAt - alarmAt, ms (confirmed and late; negative when late). */
  leadMs: number | null
}

/**
 * Matches alarms (each the first hour of a run of alarm predictions, see mergeMoments) with events (records,
 * merged too): an alarm is confirmed by the first event 0 to leadMs after it; else it is late when it came up to
 * lateMs after an event; else false. An event that confirms no alarm is missed, or unscored when `scored` says
 * nothing was predicted for its animal around it (no alarm could have announced it).
 */
export function matchAlarms(
  classificationType: ClassificationType,
  alarms: readonly Moment[],
  events: readonly Moment[],
  window: MatchWindow = MATCH_WINDOWS[classificationType],
  scored: (event: Moment) => boolean = () => true,
): AlarmMatch[] {
  const matches: AlarmMatch[] = []
  const detected = new Set<Moment>()
  const byAnimal = new Map<number, Moment[]>()
  for (const e of events) byAnimal.set(e.animalId, [...(byAnimal.get(e.animalId) ?? []), e])
  for (const alarm of alarms) {
    const own = (byAnimal.get(alarm.animalId) ?? []).sort((a, b) => a.at - b.at)
    const announced = own.find((e) => e.at >= alarm.at && e.at - alarm.at <= window.leadMs)
    const after = own.filter((e) => e.at < alarm.at && alarm.at - e.at <= window.lateMs).at(-1)
    const event = announced ?? after
    if (announced) detected.add(announced)
    matches.push({
      classificationType,
      animalId: alarm.animalId,
      alarmAt: alarm.at,
      eventAt: event?.at ?? null,
      outcome: announced ? 'confirmed' : after ? 'late' : 'false',
      leadMs: event ? event.at - alarm.at : null,
    })
  }
  for (const e of events) {
    if (!detected.has(e))
      matches.push({
        classificationType,
        animalId: e.animalId,
        alarmAt: null,
        eventAt: e.at,
        outcome: scored(e) ? 'missed' : 'unscored',
        leadMs: null,
      })
  }
  return matches
}

export interface ClassAccuracy {
  alarms: number
  confirmed: number
  late: number
  falseAlarms: number
  events: number
  detected: number
  missed: number
  unscored: number
  sensitivity: number | null
  precision: number | null
  leadHours: { median: number; min: number; max: number } | null
  animalMonths: number
  falseAlarmsPerAnimalMonth: number | null
}

const round = (value: number, digits: number) => Math.round(value * 10 ** digits) / 10 ** digits

function median(sorted: readonly number[]): number {
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

/**
 * The figures of one class over [from, to] (ms, inclusive): alarms that started in it, events that happened in
 * it. An event's lead is that of the earliest alarm it confirmed. `monitoredHours`: the animal-hours the class
 * was scored in the period.
 */
export function summarizeMatches(
  matches: readonly AlarmMatch[],
  from: number,
  to: number,
  monitoredHours: number,
): ClassAccuracy {
  const inPeriod = (t: number | null) => t !== null && t >= from && t <= to
  const alarms = matches.filter((m) => m.alarmAt !== null && inPeriod(m.alarmAt))
  const count = (outcome: MatchOutcome) => alarms.filter((m) => m.outcome === outcome).length
  const leads = new Map<string, number>()
  for (const m of matches)
    if (m.outcome === 'confirmed' && inPeriod(m.eventAt)) {
      const key = `${m.animalId}:${m.eventAt}`
      leads.set(key, Math.max(leads.get(key) ?? -Infinity, m.leadMs!))
    }
  const missed = matches.filter((m) => m.outcome === 'missed' && inPeriod(m.eventAt)).length
  const unscored = matches.filter((m) => m.outcome === 'unscored' && inPeriod(m.eventAt)).length
  const detected = leads.size
  const events = detected + missed
  const falseAlarms = count('false')
  const sortedLeads = [...leads.values()].sort((a, b) => a - b).map((ms) => ms / HOUR_MS)
  const animalMonths = round(monitoredHours / HOURS_PER_MONTH, 2)
  return {
    alarms: alarms.length,
    confirmed: count('confirmed'),
    late: count('late'),
    falseAlarms,
    events,
    detected,
    missed,
    unscored,
    sensitivity: events > 0 ? round(detected / events, 3) : null,
    precision: alarms.length > 0 ? round(count('confirmed') / alarms.length, 3) : null,
    leadHours:
      sortedLeads.length > 0
        ? { median: round(median(sortedLeads), 1), min: round(sortedLeads[0]!, 1), max: round(sortedLeads.at(-1)!, 1) }
        : null,
    animalMonths,
    falseAlarmsPerAnimalMonth: monitoredHours > 0 ? round(falseAlarms / (monitoredHours / HOURS_PER_MONTH), 2) : null,
  }
}

/** A prediction span of one animal and class: its first and last prediction. */
export interface ScoredSpan {
  animalId: number
  first: number
  last: number
}

/** Whether an event of the class was scored: its animal was predicted from before it until at least leadMs before it. */
export function scoredBy(spans: readonly ScoredSpan[], window: MatchWindow): (event: Moment) => boolean {
  const byAnimal = new Map(spans.map((s) => [s.animalId, s]))
  return (event) => {
    const span = byAnimal.get(event.animalId)
    return span !== undefined && span.first <= event.at && span.last >= event.at - window.leadMs
  }
}
