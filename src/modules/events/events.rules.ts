// The pure rules of event derivation: the temperature band of a delta (with a little hysteresis, so a
// delta hovering on a boundary does not flap), a prediction alarm's rising edge with hysteresis and a
// cooldown, and the silent and offline checks.

export type Band = 'green' | 'yellow' | 'red'

const BAND_ORDER: Record<Band, number> = { green: 0, yellow: 1, red: 2 }

/** A band is left downwards only once the delta is this far below its lower bound (°C). */
export const BAND_HYSTERESIS = 0.05

/** The spec's advisory bands: below `yellow` green, `yellow` to `red` yellow, above `red` red. */
export function bandOf(delta: number, yellow: number, red: number): Band {
  if (delta > red) return 'red'
  if (delta >= yellow) return 'yellow'
  return 'green'
}

/** The band after a new delta, from the current one: up at once, down only past the hysteresis. */
export function nextBand(delta: number, current: Band, yellow: number, red: number): Band {
  const raw = bandOf(delta, yellow, red)
  if (BAND_ORDER[raw] >= BAND_ORDER[current]) return raw
  const eased = bandOf(delta + BAND_HYSTERESIS, yellow, red)
  return BAND_ORDER[eased] < BAND_ORDER[current] ? eased : current
}

const HOUR_MS = 3_600_000

export interface AlarmState {
  on: boolean
  /** ms since epoch of the last change (raised or cleared). */
  since: number
}

/**
 * A prediction alarm's next step: 'raise' on a rising edge (probability at or above the threshold while off,
 * and off for at least the cooldown), 'clear' once the probability falls below threshold − hysteresis.
 */
export function alarmStep(
  probability: number,
  state: AlarmState | undefined,
  rule: { threshold: number; hysteresis: number; cooldownMs: number },
  now: number,
): 'raise' | 'clear' | 'none' {
  if (state?.on) return probability < rule.threshold - rule.hysteresis ? 'clear' : 'none'
  if (probability < rule.threshold) return 'none'
  if (state && now - state.since < rule.cooldownMs) return 'none'
  return 'raise'
}

/**
 * The alarms a series of hourly probabilities raises, hour by hour through alarmStep as the prediction events raise
 * them: [index of its raise, index of its last hour on] of each, the last being the hour before it clears (or `to`).
 * The scorer's evaluation counts these, so its figures are the alerts a farm at the default rules receives.
 */
export function alarmRuns(
  probabilities: readonly number[],
  from: number,
  to: number,
  rule: { threshold: number; hysteresis: number; cooldownHours: number },
): [number, number][] {
  const step = { threshold: rule.threshold, hysteresis: rule.hysteresis, cooldownMs: rule.cooldownHours * HOUR_MS }
  const runs: [number, number][] = []
  let state: AlarmState | undefined
  for (let i = from; i <= to; i++) {
    const now = i * HOUR_MS
    const next = alarmStep(probabilities[i] ?? 0, state, step, now)
    if (next === 'raise') runs.push([i, i])
    else if (next === 'none' && state?.on) runs.at(-1)![1] = i
    if (next !== 'none') state = { on: next === 'raise', since: now }
  }
  return runs
}

/** Whether a tag or device last heard at `lastHeard` (ms) is silent at `now` after `minutes` without data. */
export function isSilent(lastHeard: number, now: number, minutes: number): boolean {
  return now - lastHeard >= minutes * 60_000
}

/**
 * A reading taken this long before it arrives is history (an import, a gateway's backlog of days): it neither
 * raises an event nor moves an alert state, so that no one is told now of a fever or a device back online years
 * ago, and a live reading later still raises its own event. A gateway's outage of hours stays live.
 */
export const LIVE_READING_HOURS = 24

/** Whether a reading taken at `t` (ms) and arriving at `now` is live (LIVE_READING_HOURS). */
export function isLiveReading(t: number, now: number): boolean {
  return now - t <= LIVE_READING_HOURS * 3_600_000
}

/** Whole minutes between two instants in ms. */
export function minutesBetween(from: number, to: number): number {
  return Math.max(0, Math.floor((to - from) / 60_000))
}

/** A due item (cycle.rules.ts dueItems) whose day passed this long ago no longer opens an event (old records, imports). */
export const DUE_WINDOW_DAYS = 21

/** The event type of each due item of the sow cycle. */
export const DUE_EVENT_TYPES = {
  farrowing: 'farrowing-due',
  pregnancyCheck: 'pregnancy-check-due',
  weanedNotServed: 'weaned-not-served',
} as const

/** The day (days since the epoch) a due item's event opens: its due date, a farrowing `leadDays` before it. */
export function dueEventDay(item: { kind: keyof typeof DUE_EVENT_TYPES; dueDate: number }, leadDays: number): number {
  return item.kind === 'farrowing' ? item.dueDate - leadDays : item.dueDate
}

/**
 * The most days after its cause (the service or weaning) that a due item opens its event: the latest due day the
 * alert rules' bounds allow (the longest gestation, no lead days) plus DUE_WINDOW_DAYS. A due event is the one kind
 * kept from being derived twice by its stored episode key alone (the others by their subject's alert state), so
 * this bound is what lets a due event older than it be pruned (EVENTS_RETENTION_DAYS) without its cause opening
 * it again, whatever the farm's rules.
 */
export const DUE_EVENT_HORIZON_DAYS = 151

/**
 * Whether a due event opening on `openDay` opens on `today`: its day has come and is at most DUE_WINDOW_DAYS past,
 * and its cause (on `causeDay`) at most DUE_EVENT_HORIZON_DAYS.
 */
export function dueEventOpensOn(openDay: number, today: number, causeDay: number): boolean {
  return today >= openDay && today - openDay <= DUE_WINDOW_DAYS && today - causeDay <= DUE_EVENT_HORIZON_DAYS
}
