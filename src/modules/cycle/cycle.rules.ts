// A sow's reproductive cycle from her farm records, and the due dates that follow from it: pure arithmetic on
// UTC calendar days. docs/herd-performance.md gives every rule and where its figures come from.

/** A UTC calendar day as a number: days since 1970-01-01. */
export type Day = number

const DAY_MS = 86_400_000

/** The day of a YYYY-MM-DD date; undefined for anything else (records keep what was sent). */
export function dayOf(date: string): Day | undefined {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) return undefined
  const ms = Date.parse(`${date}T00:00:00Z`)
  return Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== date ? undefined : ms / DAY_MS
}

/** The day of an instant in ms. */
export const dayOfInstant = (ms: number): Day => Math.floor(ms / DAY_MS)

/** YYYY-MM-DD of a day. */
export const dateOf = (day: Day): string => new Date(day * DAY_MS).toISOString().slice(0, 10)

/** The figures the rules use; the defaults are the literature's (docs/herd-performance.md). */
export interface CycleSettings {
  /** Days from service to the expected farrowing. */
  gestationDays: number
  /** A served sow is "due to farrow" this many days before her expected farrowing. */
  dueToFarrowBeforeDays: number
  /** The due-to-farrow list keeps a sow this many days past her expected farrowing (overdue). */
  farrowingOverdueDays: number
  /** Services of one heat: a service this few days after the previous one repeats it, no new mating. */
  sameHeatDays: number
  /** A pregnancy check is due from this many days after the service ... */
  pregnancyCheckFromDays: number
  /** ... until this many (the scan's useful window). */
  pregnancyCheckToDays: number
  /** A regular return to heat comes this many days after the service ... */
  returnFromDays: number
  /** ... to this many. */
  returnToDays: number
  /** Weaned and not served: listed from this many days after the weaning. */
  weanedNotServedDays: number
}

export const CYCLE: CycleSettings = {
  gestationDays: 115,
  dueToFarrowBeforeDays: 7,
  farrowingOverdueDays: 14,
  sameHeatDays: 4,
  pregnancyCheckFromDays: 28,
  pregnancyCheckToDays: 42,
  returnFromDays: 18,
  returnToDays: 24,
  weanedNotServedDays: 7,
}

export const CYCLE_STATES = [
  'gilt',
  'served',
  'pregnant',
  'open',
  'due-to-farrow',
  'lactating',
  'weaned',
  'culled',
] as const
export type CycleStateName = (typeof CYCLE_STATES)[number]

/** What the records say happened to a female, each on its day. */
export type CycleEvent =
  | { kind: 'service'; day: Day }
  | { kind: 'check'; day: Day; result: 'pregnant' | 'open' | 'recheck' }
  | { kind: 'return'; day: Day }
  | { kind: 'farrowing'; day: Day; bornAlive: number; stillborn: number }
  | { kind: 'weaning'; day: Day; weaned: number; fosterIn: number; fosterOut: number }
  | { kind: 'cull'; day: Day }

/** Events of one day in the order they happen: a litter is born before it is weaned, a return comes before its service. */
const ORDER: Record<CycleEvent['kind'], number> = {
  farrowing: 0,
  weaning: 1,
  return: 2,
  service: 3,
  check: 4,
  cull: 5,
}

/** Events oldest first, same-day events in ORDER. */
export function sortEvents(events: readonly CycleEvent[]): CycleEvent[] {
  return [...events].sort((a, b) => a.day - b.day || ORDER[a.kind] - ORDER[b.kind])
}

export interface CycleState {
  state: CycleStateName
  /** The day the state began; for a gilt, the day she was registered (undefined when unknown). */
  since: Day | undefined
  /** Days in the state: today - since. */
  days: number | undefined
  /** The mating the state follows (served, pregnant, open, due to farrow): the first service of that heat. */
  service: Day | undefined
  /** service + gestationDays, while she may still farrow from it (served, pregnant, due to farrow). */
  expectedFarrowing: Day | undefined
  /** The litters she has had (farrowings recorded). */
  parity: number
}

/**
 * The state of a female on `today` from her events (those after today are not seen yet). A sow's path:
 * gilt → served → (pregnant →) due to farrow → lactating → weaned → served ...; a return or a negative check
 * makes a served or pregnant sow open; a cull ends it. Repeated services of one heat are one mating.
 */
export function cycleState(
  events: readonly CycleEvent[],
  today: Day,
  registered?: Day,
  settings: CycleSettings = CYCLE,
): CycleState {
  let state = 'gilt' as CycleStateName // widened: enter() changes it inside the loop
  let since: Day | undefined = registered
  let service: Day | undefined
  let parity = 0
  const enter = (next: CycleStateName, day: Day) => {
    state = next
    since = day
  }
  for (const e of sortEvents(events)) {
    if (e.day > today || state === 'culled') break
    switch (e.kind) {
      case 'service':
        if ((state === 'served' || state === 'pregnant') && e.day - service! <= settings.sameHeatDays) break
        service = e.day
        enter('served', e.day)
        break
      case 'check':
        if (e.result === 'pregnant' && (state === 'served' || state === 'open') && service !== undefined)
          enter('pregnant', e.day)
        else if (e.result === 'open' && (state === 'served' || state === 'pregnant')) enter('open', e.day)
        break
      case 'return':
        if (state === 'served' || state === 'pregnant') enter('open', e.day)
        break
      case 'farrowing':
        parity++
        service = undefined
        enter('lactating', e.day)
        break
      case 'weaning':
        // Any state but weaned: a weaning says she had a litter, recorded or not; a second one splits the same litter.
        if (state !== 'weaned') {
          service = undefined
          enter('weaned', e.day)
        }
        break
      case 'cull':
        enter('culled', e.day)
        break
    }
  }
  const carrying = state === 'served' || state === 'pregnant'
  const expectedFarrowing = carrying && service !== undefined ? service + settings.gestationDays : undefined
  if (expectedFarrowing !== undefined && today >= expectedFarrowing - settings.dueToFarrowBeforeDays)
    enter('due-to-farrow', expectedFarrowing - settings.dueToFarrowBeforeDays)
  return {
    state,
    since,
    days: since === undefined ? undefined : today - since,
    service:
      state === 'gilt' || state === 'lactating' || state === 'weaned' || state === 'culled' ? undefined : service,
    expectedFarrowing,
    parity,
  }
}

export const DUE_LISTS = ['dueToFarrow', 'pregnancyCheck', 'weanedNotServed', 'returnsToWatch'] as const
export type DueListName = (typeof DUE_LISTS)[number]

export interface DueEntry {
  list: DueListName
  /** The day she is due: expected farrowing, the check's first day, the day she became overdue for service, the return window's first day. */
  dueDate: Day
  /** today - dueDate: negative while ahead, positive when overdue. */
  daysFromDue: number
}

/** The expected farrowing of a service. */
export const expectedFarrowingOf = (service: Day, settings: CycleSettings = CYCLE): Day =>
  service + settings.gestationDays
/** The first day a service's pregnancy check is due. */
export const pregnancyCheckDueOf = (service: Day, settings: CycleSettings = CYCLE): Day =>
  service + settings.pregnancyCheckFromDays
/** The day a weaned sow not served since counts as overdue for service. */
export const weanedNotServedDueOf = (weaning: Day, days: number = CYCLE.weanedNotServedDays): Day => weaning + days
/** The days a return to heat after a service is expected (regular return), both inclusive. */
export const returnWindowOf = (service: Day, settings: CycleSettings = CYCLE): { from: Day; to: Day } => ({
  from: service + settings.returnFromDays,
  to: service + settings.returnToDays,
})

/**
 * The due lists a female is on today, from her state:
 * - dueToFarrow: carrying (served, pregnant, due to farrow), expected farrowing within the next 7 days (today
 *   included) or overdue by at most farrowingOverdueDays;
 * - pregnancyCheck: served, not checked nor returned since, pregnancyCheckFromDays-ToDays after the service;
 * - weanedNotServed: weaned at least `weanedDays` ago and not served since;
 * - returnsToWatch: served or pregnant, returnFromDays-returnToDays after the service.
 */
export function dueEntries(
  cycle: CycleState,
  today: Day,
  weanedDays: number = CYCLE.weanedNotServedDays,
  settings: CycleSettings = CYCLE,
): DueEntry[] {
  const out: DueEntry[] = []
  const add = (list: DueListName, dueDate: Day) => out.push({ list, dueDate, daysFromDue: today - dueDate })
  const { state, service, expectedFarrowing } = cycle
  if (expectedFarrowing !== undefined) {
    const ahead = expectedFarrowing - today
    if (ahead <= 6 && ahead >= -settings.farrowingOverdueDays) add('dueToFarrow', expectedFarrowing)
  }
  if (service !== undefined && (state === 'served' || state === 'pregnant')) {
    const since = today - service
    if (state === 'served' && since >= settings.pregnancyCheckFromDays && since <= settings.pregnancyCheckToDays)
      add('pregnancyCheck', pregnancyCheckDueOf(service, settings))
    if (since >= settings.returnFromDays && since <= settings.returnToDays)
      add('returnsToWatch', returnWindowOf(service, settings).from)
  }
  if (state === 'weaned' && cycle.since !== undefined && today - cycle.since >= weanedDays)
    add('weanedNotServed', weanedNotServedDueOf(cycle.since, weanedDays))
  return out
}
