// Due dates of a sow's cycle from her farm records, as pure date arithmetic on YYYY-MM-DD days (UTC):
// farrowing due at service + gestation, a pregnancy check due some days after a service, a weaned sow
// due to be served again. Each due item names the record that made it due and whether a later record
// settled it. The events job opens an event for an unsettled item once its day has come, and resolves it
// when a record settles it.

const DAY_MS = 86_400_000

export const DEFAULT_GESTATION_DAYS = 115
export const DEFAULT_PREGNANCY_CHECK_DAYS = 28
export const DEFAULT_WEANED_NOT_SERVED_DAYS = 7
/** An item whose day passed this long ago without being settled no longer opens an event (old records, imports). */
export const DUE_WINDOW_DAYS = 21

/** The day `days` after `day` (negative: before). */
export function addDays(day: string, days: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10)
}

/** Whole days from `from` to `to` (negative when `to` is earlier). */
export function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS)
}

/** The UTC day of an instant in ms. */
export function dayOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10)
}

export function farrowingDueDate(serviceDay: string, gestationDays = DEFAULT_GESTATION_DAYS): string {
  return addDays(serviceDay, gestationDays)
}

export function pregnancyCheckDueDate(serviceDay: string, checkDays = DEFAULT_PREGNANCY_CHECK_DAYS): string {
  return addDays(serviceDay, checkDays)
}

export function serviceDueDate(weaningDay: string, days = DEFAULT_WEANED_NOT_SERVED_DAYS): string {
  return addDays(weaningDay, days)
}

export interface DatedRecord {
  id: number
  day: string
}

/** One sow's records, each kind in any order. */
export interface SowRecords {
  services: DatedRecord[]
  births: DatedRecord[]
  pregnancyChecks: (DatedRecord & { result: string })[]
  returnsToEstrus: DatedRecord[]
  weanings: DatedRecord[]
}

export interface DueSettings {
  gestationDays: number
  pregnancyCheckDays: number
  weanedNotServedDays: number
  /** A farrowing is announced this many days before its due day. */
  farrowingLeadDays: number
}

export type DueKind = 'farrowing-due' | 'pregnancy-check-due' | 'weaned-not-served'

export interface DueItem {
  kind: DueKind
  /** The record that made it due: a service (insemination), or a weaning. */
  cause: 'insemination' | 'weaning'
  causeId: number
  causeDay: string
  /** The day the event opens. */
  dueDay: string
  /** The record that settled it, if any. */
  settledBy?: { record: string; id: number; day: string } | undefined
}

const after = (records: DatedRecord[], day: string, strictly = false) =>
  records
    .filter((r) => (strictly ? r.day > day : r.day >= day))
    .sort((a, b) => a.day.localeCompare(b.day) || a.id - b.id)[0]

/**
 * Every due item of a sow's records, settled or not. A service is settled for its farrowing by a birth on or
 * after it, an "open" pregnancy check, a return to estrus or a later service; for its pregnancy check by any
 * check, a birth, a return to estrus or a later service. A weaning is settled by a service on or after it.
 */
export function dueItems(records: SowRecords, settings: DueSettings): DueItem[] {
  const items: DueItem[] = []
  for (const service of records.services) {
    // A second service of the same heat (same day, later id) or any later service supersedes this one.
    const laterService = after(
      records.services.filter((s) => s.day > service.day || (s.day === service.day && s.id > service.id)),
      service.day,
    )
    const birth = after(records.births, service.day)
    const returned = after(records.returnsToEstrus, service.day, true)
    const anyCheck = after(records.pregnancyChecks, service.day, true)
    const notPregnant = after(
      records.pregnancyChecks.filter((c) => c.result === 'open'),
      service.day,
      true,
    )
    const first = (...candidates: [string, DatedRecord | undefined][]) => {
      const found = candidates
        .filter((c): c is [string, DatedRecord] => c[1] !== undefined)
        .sort((a, b) => a[1].day.localeCompare(b[1].day))[0]
      return found ? { record: found[0], id: found[1].id, day: found[1].day } : undefined
    }
    const cause = { cause: 'insemination' as const, causeId: service.id, causeDay: service.day }
    items.push({
      kind: 'farrowing-due',
      ...cause,
      dueDay: addDays(farrowingDueDate(service.day, settings.gestationDays), -settings.farrowingLeadDays),
      settledBy: first(
        ['birth', birth],
        ['pregnancy-check', notPregnant],
        ['return-to-estrus', returned],
        ['insemination', laterService],
      ),
    })
    items.push({
      kind: 'pregnancy-check-due',
      ...cause,
      dueDay: pregnancyCheckDueDate(service.day, settings.pregnancyCheckDays),
      settledBy: first(
        ['pregnancy-check', anyCheck],
        ['birth', birth],
        ['return-to-estrus', returned],
        ['insemination', laterService],
      ),
    })
  }
  for (const weaning of records.weanings) {
    const service = after(records.services, weaning.day)
    items.push({
      kind: 'weaned-not-served',
      cause: 'weaning',
      causeId: weaning.id,
      causeDay: weaning.day,
      dueDay: serviceDueDate(weaning.day, settings.weanedNotServedDays),
      settledBy: service ? { record: 'insemination', id: service.id, day: service.day } : undefined,
    })
  }
  return items
}

/** Whether an unsettled item opens its event on `today`: its day has come and is at most DUE_WINDOW_DAYS past. */
export function opensOn(item: DueItem, today: string): boolean {
  if (item.settledBy) return false
  const late = daysBetween(item.dueDay, today)
  return late >= 0 && late <= DUE_WINDOW_DAYS
}
