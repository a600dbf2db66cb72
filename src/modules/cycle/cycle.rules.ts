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
  /** A weaned sow's first heat comes this many days after the weaning (the weaning-to-oestrus interval) ... */
  weaningToHeatFromDays: number
  /** ... to this many. */
  weaningToHeatToDays: number
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
  weaningToHeatFromDays: 3,
  weaningToHeatToDays: 8,
}

/** The figures a farm may set (its alert rules' thresholds); what it leaves out is the default. */
export interface FarmCycleFigures {
  gestationDays?: number | undefined
  /** The first day of the pregnancy check after the service; its window keeps CYCLE's length. */
  pregnancyCheckDays?: number | undefined
  weanedNotServedDays?: number | undefined
}

/** The settings of a farm: its own figures over CYCLE. */
export function cycleSettingsOf(farm: FarmCycleFigures): CycleSettings {
  const checkFrom = farm.pregnancyCheckDays ?? CYCLE.pregnancyCheckFromDays
  return {
    ...CYCLE,
    gestationDays: farm.gestationDays ?? CYCLE.gestationDays,
    pregnancyCheckFromDays: checkFrom,
    pregnancyCheckToDays: checkFrom + (CYCLE.pregnancyCheckToDays - CYCLE.pregnancyCheckFromDays),
    weanedNotServedDays: farm.weanedNotServedDays ?? CYCLE.weanedNotServedDays,
  }
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

/** What the records say happened to a female, each on its day; `id` names the record, where it is known. */
export type CycleEvent = (
  | { kind: 'service'; day: Day }
  | { kind: 'check'; day: Day; result: 'pregnant' | 'open' | 'recheck' }
  | { kind: 'return'; day: Day }
  | { kind: 'farrowing'; day: Day; bornAlive: number; stillborn: number }
  | { kind: 'weaning'; day: Day; weaned: number; fosterIn: number; fosterOut: number }
  | { kind: 'cull'; day: Day }
) & { id?: number | undefined }

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
  /** The day the state began; for a gilt, the day she was registered (undefined when unknown or after today). */
  since: Day | undefined
  /** Days in the state: today - since. */
  days: number | undefined
  /** The mating the state follows (served, pregnant, open, due to farrow): the first service of that heat. */
  service: Day | undefined
  /** service + gestationDays, while she may still farrow from it (served, pregnant, due to farrow). */
  expectedFarrowing: Day | undefined
  /** The litters she has had (farrowings recorded). */
  parity: number
  /** The record id of `service` (the mating's first service), where the events carry ids. */
  serviceId: number | undefined
  /** Carrying a mating that no check has found pregnant or open (a `recheck` leaves it so): her check is due. */
  checkPending: boolean
  /** While weaned: the record id of the weaning she is weaned from, where the events carry ids. */
  weaningId: number | undefined
  /** While open: what showed it, a return (seen on `since`) or a negative check (on `since`). */
  openedBy: 'return' | 'check' | undefined
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
  // Before she was registered she was not in the herd: no day her state began, no days in it.
  let since: Day | undefined = registered !== undefined && registered <= today ? registered : undefined
  let service: Day | undefined
  let serviceId: number | undefined
  let weaningId: number | undefined
  let openedBy: CycleState['openedBy']
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
        serviceId = e.id
        enter('served', e.day)
        break
      case 'check':
        if (e.result === 'pregnant' && (state === 'served' || state === 'open') && service !== undefined)
          enter('pregnant', e.day)
        else if (e.result === 'open' && (state === 'served' || state === 'pregnant')) {
          enter('open', e.day)
          openedBy = 'check'
        }
        break
      case 'return':
        if (state === 'served' || state === 'pregnant') {
          enter('open', e.day)
          openedBy = 'return'
        }
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
          weaningId = e.id
          enter('weaned', e.day)
        }
        break
      case 'cull':
        enter('culled', e.day)
        break
    }
  }
  const carrying = state === 'served' || state === 'pregnant'
  const checkPending = state === 'served' && service !== undefined
  const expectedFarrowing = carrying && service !== undefined ? service + settings.gestationDays : undefined
  if (expectedFarrowing !== undefined && today >= expectedFarrowing - settings.dueToFarrowBeforeDays)
    enter('due-to-farrow', expectedFarrowing - settings.dueToFarrowBeforeDays)
  const mated = !(state === 'gilt' || state === 'lactating' || state === 'weaned' || state === 'culled')
  return {
    state,
    since,
    days: since === undefined ? undefined : today - since,
    service: mated ? service : undefined,
    expectedFarrowing,
    parity,
    serviceId: mated && service !== undefined ? serviceId : undefined,
    checkPending,
    weaningId: state === 'weaned' ? weaningId : undefined,
    openedBy: state === 'open' ? openedBy : undefined,
  }
}

/** Days, both inclusive. */
export interface DayWindow {
  from: Day
  to: Day
}

/**
 * When her next heat is expected, on `today`, from her state: a weaned sow's first heat weaningToHeat days after her
 * weaning; a served sow's return one regular return (returnFromDays-returnToDays) after the service, while it may
 * still come (after it she is likely pregnant); an open sow's next heat one regular return after the return she was
 * seen in, or two after the service a negative check found failed (the return at the first passed unseen). A weaned or
 * open sow's window passed with no record moves on one regular return (that heat may have passed unseen too), once;
 * beyond it, and for a gilt (her cycle is unrecorded), a pregnant, due, lactating or culled sow, undefined.
 */
export function expectedHeatOf(cycle: CycleState, today: Day, settings: CycleSettings = CYCLE): DayWindow | undefined {
  const { state, since, service } = cycle
  const cycleOn = (w: DayWindow, n: number): DayWindow => ({
    from: w.from + n * settings.returnFromDays,
    to: w.to + n * settings.returnToDays,
  })
  let first: DayWindow | undefined
  if (state === 'weaned' && since !== undefined)
    first = { from: since + settings.weaningToHeatFromDays, to: since + settings.weaningToHeatToDays }
  else if (state === 'served' && service !== undefined) {
    const window = returnWindowOf(service, settings)
    return today <= window.to ? window : undefined
  } else if (state === 'open' && cycle.openedBy === 'return' && since !== undefined)
    first = cycleOn({ from: since, to: since }, 1)
  else if (state === 'open' && service !== undefined) first = cycleOn({ from: service, to: service }, 2)
  if (first === undefined) return undefined
  return [first, cycleOn(first, 1)].find((w) => today <= w.to)
}

/** What a female's records leave due: her farrowing, her pregnancy check, her next service. */
export type DueItemKind = 'farrowing' | 'pregnancyCheck' | 'weanedNotServed'

export interface DueItem {
  kind: DueItemKind
  /** What made it due: the mating (its first service), or the weaning. */
  cause: 'service' | 'weaning'
  causeDay: Day
  /** The cause's record id, where the events carry ids. */
  causeId: number | undefined
  /** The expected farrowing, the check's first day, the day she is overdue for service. */
  dueDate: Day
}

/**
 * What a female's state leaves due, whatever the day: a carrying sow her farrowing (at the expected farrowing),
 * and her pregnancy check while no check has settled it (from pregnancyCheckFromDays after the mating); a weaned
 * sow her next service (weanedNotServedDays after the weaning). A record that moves her state on settles an
 * item: a farrowing, an open check or a return the farrowing; a pregnant or open check the check; a service the
 * weaning; a cull every one. The due lists and the due events both come from these items.
 */
export function dueItems(cycle: CycleState, settings: CycleSettings = CYCLE): DueItem[] {
  const items: DueItem[] = []
  const { service, expectedFarrowing } = cycle
  if (service !== undefined && expectedFarrowing !== undefined) {
    const mating = { cause: 'service' as const, causeDay: service, causeId: cycle.serviceId }
    items.push({ kind: 'farrowing', ...mating, dueDate: expectedFarrowing })
    if (cycle.checkPending)
      items.push({ kind: 'pregnancyCheck', ...mating, dueDate: pregnancyCheckDueOf(service, settings) })
  }
  if (cycle.state === 'weaned' && cycle.since !== undefined)
    items.push({
      kind: 'weanedNotServed',
      cause: 'weaning',
      causeDay: cycle.since,
      causeId: cycle.weaningId,
      dueDate: weanedNotServedDueOf(cycle.since, settings.weanedNotServedDays),
    })
  return items
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
 * The due lists a female is on today, from her due items (dueItems) and state:
 * - dueToFarrow: her farrowing, expected within the next 7 days (today included) or overdue by at most
 *   farrowingOverdueDays;
 * - pregnancyCheck: her check, pregnancyCheckFromDays-ToDays after the mating;
 * - weanedNotServed: her next service, on its due day or after;
 * - returnsToWatch: served or pregnant, returnFromDays-returnToDays after the service.
 */
export function dueEntries(cycle: CycleState, today: Day, settings: CycleSettings = CYCLE): DueEntry[] {
  const out: DueEntry[] = []
  const add = (list: DueListName, dueDate: Day) => out.push({ list, dueDate, daysFromDue: today - dueDate })
  for (const item of dueItems(cycle, settings)) {
    const late = today - item.dueDate
    if (item.kind === 'farrowing' && late >= -6 && late <= settings.farrowingOverdueDays)
      add('dueToFarrow', item.dueDate)
    if (item.kind === 'pregnancyCheck' && late >= 0 && today - item.causeDay <= settings.pregnancyCheckToDays)
      add('pregnancyCheck', item.dueDate)
    if (item.kind === 'weanedNotServed' && late >= 0) add('weanedNotServed', item.dueDate)
  }
  const { state, service } = cycle
  if (service !== undefined && (state === 'served' || state === 'pregnant')) {
    const since = today - service
    if (since >= settings.returnFromDays && since <= settings.returnToDays)
      add('returnsToWatch', returnWindowOf(service, settings).from)
  }
  return out
}
