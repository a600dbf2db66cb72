// The kinds of event the service derives (the AnimalEvent's EventType), declared once: severity, what the
// event's Value measures (its Scale), the rule that governs it in the alert rules, and who is notified by default.
// A new kind starts here (docs/events.md lists the other files it touches).

export type Severity = 'info' | 'warning' | 'critical'

/** Ranks of a push-token entry (UserPhone.Rank): 1 Admin, 2 Manager, 3 Worker. */
export type Rank = 1 | 2 | 3
export const RANKS: readonly Rank[] = [1, 2, 3]

export interface EventKind {
  severity: Severity
  /** What Value measures. */
  scale: string
  /** What the event says, for people (the delivery's texts start from it). */
  title: string
  /** Ranks notified unless the account's rules say otherwise. */
  notifyRanks: Rank[]
  /** The kinds whose open events of the same animal or device this one resolves. */
  resolves?: readonly string[]
  /** It says a condition is over: no one has to act on it, so it is stored resolved by the service at its creation. */
  allClear?: true
}

/** A warning about an animal or a device that resolves no other kind. */
const warning = (scale: string, title: string, notifyRanks: Rank[]) =>
  ({ severity: 'warning', scale, title, notifyRanks }) satisfies EventKind

/**
 * An all-clear: the kind that says a condition is over. It resolves the condition's open events, notifies nobody, and
 * is stored resolved.
 */
const allClear = (scale: string, title: string, resolves: readonly string[]) =>
  ({ severity: 'info', scale, title, notifyRanks: [], resolves, allClear: true }) satisfies EventKind

export const EVENT_KINDS = {
  'temperature-yellow': {
    severity: 'warning',
    scale: 'delta °C',
    title: 'Temperature above its reference (yellow band)',
    notifyRanks: [2],
    resolves: ['temperature-red'],
  },
  'temperature-red': {
    severity: 'critical',
    scale: 'delta °C',
    title: 'Temperature well above its reference (red band)',
    notifyRanks: [2, 3],
    resolves: ['temperature-yellow'],
  },
  'temperature-normal': allClear('delta °C', 'Temperature back to its reference (green band)', [
    'temperature-yellow',
    'temperature-red',
  ]),
  'heat-alarm': warning('probability', 'Heat expected', [3]),
  'birth-alarm': warning('probability', 'Farrowing expected', [3]),
  'lameness-alarm': warning('probability', 'Lameness suspected', [2]),
  'litter-unusual-activity': warning('sigma', 'Unusual activity in the litter', [3]),
  'litter-offline': warning('minutes', 'Litter device sends no data', [2]),
  'litter-online': allClear('minutes', 'Litter device back online', ['litter-offline']),
  'tag-silent': warning('minutes', 'Ear tag silent', [2]),
  'tag-heard': allClear('minutes', 'Ear tag heard again', ['tag-silent']),
  'tag-battery-low': warning('%', 'Ear tag battery low', [2]),
  'farrowing-due': warning('days', 'Farrowing due', [3]),
  'pregnancy-check-due': { severity: 'info', scale: 'days', title: 'Pregnancy check due', notifyRanks: [3] },
  'weaned-not-served': warning('days', 'Weaned sow not served', [2]),
} as const satisfies Record<string, EventKind>

export type EventType = keyof typeof EVENT_KINDS
export const EVENT_TYPES = Object.keys(EVENT_KINDS) as EventType[]
/** The all-clear kinds: an event of one is stored resolved (events.repository.ts eventStatement). */
export const ALL_CLEAR_TYPES = EVENT_TYPES.filter((type) => kindOf(type).allClear === true)

export function kindOf(type: EventType): EventKind {
  return EVENT_KINDS[type]
}
