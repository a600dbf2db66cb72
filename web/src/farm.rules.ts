// Pure rules the screens share: the temperature band of the spec (delta = current − reference: below 0.3
// green, 0.3 to 0.6 yellow, above 0.6 red), the order of events by urgency, and the herd's search.

export type Band = 'green' | 'yellow' | 'red' | 'none'

export function bandOf(current: number | null | undefined, reference: number | null | undefined): Band {
  const delta = deltaOf(current, reference)
  if (delta === undefined) return 'none'
  if (delta > 0.6) return 'red'
  if (delta >= 0.3) return 'yellow'
  return 'green'
}

/** To the hundredth, as shown: 38.3 − 38.0 is 0.3 (yellow), not 0.29999999999999716. */
export function deltaOf(current: number | null | undefined, reference: number | null | undefined): number | undefined {
  if (typeof current !== 'number' || typeof reference !== 'number') return undefined
  return Math.round((current - reference) * 100) / 100
}

const SEVERITY_RANK: Record<string, number> = { critical: 0, warning: 1, info: 2 }

/** Most urgent first, then newest first. */
export function byUrgency<T extends { severity?: string; t?: number }>(a: T, b: T): number {
  const rank = (SEVERITY_RANK[a.severity ?? ''] ?? 9) - (SEVERITY_RANK[b.severity ?? ''] ?? 9)
  return rank !== 0 ? rank : (b.t ?? 0) - (a.t ?? 0)
}

export interface HerdRow {
  ID: string
  MAC: string
  Group?: string | undefined
}

/** Case-insensitive match on MAC (with or without colons), ID or group. */
export function matchesSearch(animal: HerdRow, query: string): boolean {
  const q = query.trim().toLowerCase()
  if (q === '') return true
  const compact = q.replace(/[:\-\s]/g, '')
  return (
    animal.ID.toLowerCase().includes(q) ||
    animal.MAC.toLowerCase().includes(q) ||
    (compact.length > 0 && animal.MAC.toLowerCase().replace(/:/g, '').includes(compact)) ||
    (animal.Group ?? '').toLowerCase().includes(q)
  )
}

/**
 * When the animal's tag last sent a sensor reading: its `t`, which is the animal's creation time until the first
 * reading (then it has no CurrentTemperature yet), so undefined then.
 */
export function lastReadingAt(animal: { t?: number; CurrentTemperature?: number | null }): number | undefined {
  return typeof animal.CurrentTemperature === 'number' ? animal.t : undefined
}

/** How long ago `t` (ms) was at `now`, in the language of `tag`: "now", "5 min. ago", "vor 3 Std.", "hace 3 d". */
export function ageOf(t: number | undefined, now: number, tag = 'en'): string {
  if (typeof t !== 'number' || !Number.isFinite(t)) return '–'
  const ago = new Intl.RelativeTimeFormat(tag, { style: 'short', numeric: 'auto' })
  const minutes = Math.max(0, Math.round((now - t) / 60_000))
  if (minutes === 0) return ago.format(0, 'second')
  if (minutes < 60) return ago.format(-minutes, 'minute')
  const hours = Math.round(minutes / 60)
  if (hours < 48) return ago.format(-hours, 'hour')
  return ago.format(-Math.round(hours / 24), 'day')
}

/** A due list's entry as the API gives it (DueAnimal). */
export interface DueFacts {
  Group?: string | null
  daysInState?: number | null
  dueDate?: string
  daysFromDue?: number
}

/**
 * A due animal's facts in one line in the language of `tag`: her group, her cycle state (`state`, in words) with its
 * days, and when she is due with how far that is from the list's day ("Pen 2 · served · 24 days · Due Nov 23, 2026
 * (6 days ago)").
 */
export function dueLine(
  item: DueFacts,
  words: { state: string | undefined; days: (n: number) => string; due: string },
  tag: string,
): string {
  const parts: string[] = []
  if (item.Group) parts.push(item.Group)
  if (words.state) parts.push(words.state)
  if (words.state && typeof item.daysInState === 'number')
    parts.push(`${item.daysInState} ${words.days(item.daysInState)}`)
  if (typeof item.dueDate === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(item.dueDate)) {
    const date = new Intl.DateTimeFormat(tag, { dateStyle: 'medium', timeZone: 'UTC' }).format(Date.parse(item.dueDate))
    const from =
      typeof item.daysFromDue === 'number'
        ? ` (${new Intl.RelativeTimeFormat(tag, { numeric: 'auto' }).format(-item.daysFromDue, 'day')})`
        : ''
    parts.push(`${words.due} ${date}${from}`)
  }
  return parts.join(' · ')
}

/** Today's date as the records want it (YYYY-MM-DD, local), and the time (HH:mm). */
export function localDate(now: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0')
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`
}

export function localTime(now: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0')
  return `${pad(now.getHours())}:${pad(now.getMinutes())}`
}

/** An API name for people: "weanToServiceInterval" reads "Wean to service interval". */
export function humanize(name: string): string {
  const words = name
    .replace(/[_-]+/g, ' ')
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase()
  return words.charAt(0).toUpperCase() + words.slice(1)
}

export interface EventFacts {
  EventType: string
  MAC?: string | undefined
  Scale?: string | undefined
  Value?: number | undefined
  evidence?: Record<string, unknown> | undefined
}

/** Evidence whose number is a time: Unix ms, or Unix seconds below 1e11 (a litter device's activity window). */
const TIME_KEY = /^last[A-Z]|At$|Before$|Start$|End$/
/** The service's own references (a prediction's, a record's ID): nothing a person reads or acts on. */
const ID_KEY = /Id$/

/**
 * Why an event was raised, in one line: its Value with its Scale (a probability as a percentage), then its
 * evidence, times as dates and times (formatTime) and internal IDs left out.
 */
export function evidenceText(event: EventFacts, formatTime: (ms: number) => string): string {
  const percent = event.Scale === 'probability'
  const amount = (value: number) => (percent ? `${Math.round(value * 100)} %` : String(Math.round(value * 100) / 100))
  const parts: string[] = []
  const shown = typeof event.Value === 'number' ? amount(event.Value) : undefined
  if (shown !== undefined) parts.push(percent || !event.Scale ? shown : `${shown} ${event.Scale}`)
  for (const [key, value] of Object.entries(event.evidence ?? {})) {
    if (ID_KEY.test(key) || (typeof value !== 'number' && typeof value !== 'string' && typeof value !== 'boolean')) {
      continue
    }
    if (TIME_KEY.test(key) && typeof value !== 'boolean') {
      const ms = typeof value === 'number' ? (value < 1e11 ? value * 1000 : value) : Date.parse(value)
      parts.push(`${humanize(key)}: ${Number.isFinite(ms) ? formatTime(ms) : String(value)}`)
    } else if (typeof value === 'number') {
      if (amount(value) !== shown) parts.push(`${humanize(key)}: ${amount(value)}`)
    } else parts.push(`${humanize(key)}: ${String(value)}`)
  }
  return parts.join(' · ')
}

/** Where an event's subject is shown: its animal, or the litter devices' screen (a device's MAC names no animal). */
export function eventHref(event: EventFacts): string | undefined {
  if (!event.MAC) return undefined
  return event.EventType.startsWith('litter-') ? '#/devices' : `#/animal/${encodeURIComponent(event.MAC)}`
}

/** The kinds of events each device or tag has open, by its MAC, each kind once (events of no MAC left out). */
export function kindsByMac(events: readonly { MAC?: string; EventType: string }[]): Map<string, string[]> {
  const kinds = new Map<string, string[]>()
  for (const { MAC, EventType } of events) {
    if (!MAC) continue
    const list = kinds.get(MAC) ?? []
    if (!list.includes(EventType)) list.push(EventType)
    kinds.set(MAC, list)
  }
  return kinds
}

/** Events counted by the tag they name (events of no tag left out). */
export function countByMac(events: readonly { MAC?: string }[]): Map<string, number> {
  const counts = new Map<string, number>()
  for (const { MAC } of events) if (MAC) counts.set(MAC, (counts.get(MAC) ?? 0) + 1)
  return counts
}

/**
 * A text's placeholders filled from `values` by `format`: `{name}` is the value, `{name|one|other}` the value and
 * the word of its number (`isOne`: the language's plural rule). Undefined when a placeholder has no value (a KPI's
 * basis in words, from the counts the API gives beside it).
 */
export function fillPlaceholders(
  template: string,
  values: Record<string, unknown>,
  format: (value: unknown) => string,
  isOne: (count: number) => boolean,
): string | undefined {
  let missing = false
  const filled = template.replace(
    /\{(\w+)(?:\|([^|}]*)\|([^}]*))?\}/g,
    (_, name: string, one?: string, other?: string) => {
      const value = values[name]
      if (value === undefined || value === null) missing = true
      if (missing) return ''
      if (one === undefined || other === undefined) return format(value)
      return `${format(value)} ${typeof value === 'number' && isOne(value) ? one : other}`
    },
  )
  return missing ? undefined : filled
}

/**
 * How a farm's lameness base rate stands against the farms the global calibration was fitted on, by the settings
 * route's `prior`: not estimated (too few days or records in the period: no shift), higher, lower or the same.
 */
export function baseRateWords(prior: {
  shift: number
  share: number | null
}): 'baseRateUnknown' | 'baseRateHigher' | 'baseRateLower' | 'baseRateAsFitted' {
  if (prior.share === null) return 'baseRateUnknown'
  return prior.shift > 0 ? 'baseRateHigher' : prior.shift < 0 ? 'baseRateLower' : 'baseRateAsFitted'
}
