// An account's alert rules: which kinds are on and who is notified of them by Rank, the thresholds of the
// derivations, quiet hours per rank. Stored as the account wrote them; read through withDefaults, so an
// account with no rules (or rules written before a kind existed) gets the defaults for what it left out.
import { CYCLE } from '../cycle/cycle.rules.ts'
import { alarmLevel } from '../predictions/calibration.rules.ts'
import { EVENT_KINDS, EVENT_TYPES, RANKS, type EventType, type Rank } from './event-kinds.ts'

export interface KindRule {
  enabled: boolean
  notifyRanks: Rank[]
}

export interface Thresholds {
  temperatureYellowDelta: number
  temperatureRedDelta: number
  heatProbability: number
  birthProbability: number
  lamenessProbability: number
  probabilityHysteresis: number
  alarmCooldownHours: number
  tagSilentMinutes: number
  litterOfflineMinutes: number
  batteryPercent: number
  gestationDays: number
  farrowingLeadDays: number
  pregnancyCheckDays: number
  weanedNotServedDays: number
}

/** Local times HH:mm; a window whose end is before its start runs over midnight. */
export interface QuietHours {
  start: string
  end: string
}

export interface AlertRules {
  kinds: Record<EventType, KindRule>
  thresholds: Thresholds
  quietHours: Record<`${Rank}`, QuietHours | null>
  /** IANA time zone of the quiet hours. */
  timeZone: string
}

/** What an account may write: every part optional, the rest from the defaults. */
export interface AlertRulesInput {
  kinds?: Partial<Record<EventType, KindRule>>
  thresholds?: Partial<Thresholds>
  quietHours?: Partial<Record<`${Rank}`, QuietHours | null>>
  timeZone?: string
}

export const DEFAULT_THRESHOLDS: Thresholds = {
  temperatureYellowDelta: 0.3,
  temperatureRedDelta: 0.6,
  // The scorer's alarm levels, so that a farm's alarms are the ones its figures are measured at
  // (docs/predictions.md#one-alarm-per-class); a refit of the calibration moves them with it.
  heatProbability: alarmLevel('heat'),
  birthProbability: alarmLevel('birth'),
  lamenessProbability: alarmLevel('lameness'),
  probabilityHysteresis: 0.05,
  alarmCooldownHours: 12,
  tagSilentMinutes: 60,
  litterOfflineMinutes: 30,
  batteryPercent: 20,
  gestationDays: CYCLE.gestationDays,
  farrowingLeadDays: 0,
  pregnancyCheckDays: CYCLE.pregnancyCheckFromDays,
  weanedNotServedDays: CYCLE.weanedNotServedDays,
}

export function defaultRules(): AlertRules {
  return {
    kinds: Object.fromEntries(
      EVENT_TYPES.map((type) => [type, { enabled: true, notifyRanks: [...EVENT_KINDS[type].notifyRanks] }]),
    ) as Record<EventType, KindRule>,
    thresholds: { ...DEFAULT_THRESHOLDS },
    quietHours: { '1': null, '2': { start: '22:00', end: '06:00' }, '3': { start: '20:00', end: '06:00' } },
    timeZone: 'UTC',
  }
}

/** The rules in force: the stored input over the defaults, part by part. */
export function withDefaults(input: AlertRulesInput | undefined): AlertRules {
  const rules = defaultRules()
  if (!input) return rules
  for (const type of EVENT_TYPES) {
    const kind = input.kinds?.[type]
    if (kind) rules.kinds[type] = { enabled: kind.enabled, notifyRanks: [...kind.notifyRanks] }
  }
  rules.thresholds = { ...rules.thresholds, ...input.thresholds }
  for (const rank of RANKS) {
    const quiet = input.quietHours?.[`${rank}`]
    if (quiet !== undefined) rules.quietHours[`${rank}`] = quiet
  }
  if (input.timeZone !== undefined) rules.timeZone = input.timeZone
  return rules
}

/** Problems across fields (the schema checks each field alone), as [field, message]. */
export function ruleProblems(input: AlertRulesInput): [string, string][] {
  const t = withDefaults(input).thresholds
  const problems: [string, string][] = []
  if (t.temperatureRedDelta <= t.temperatureYellowDelta)
    problems.push(['thresholds.temperatureRedDelta', 'must be above temperatureYellowDelta'])
  for (const name of ['heatProbability', 'birthProbability', 'lamenessProbability'] as const) {
    if (t.probabilityHysteresis >= t[name]) problems.push([`thresholds.probabilityHysteresis`, `must be below ${name}`])
  }
  if (input.timeZone !== undefined && !isTimeZone(input.timeZone))
    problems.push(['timeZone', 'is not an IANA time zone'])
  for (const rank of RANKS) {
    const quiet = input.quietHours?.[`${rank}`]
    if (quiet && quiet.start === quiet.end) problems.push([`quietHours[${rank}]`, 'start and end must differ'])
  }
  return problems
}

export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-GB', { timeZone: zone })
    return true
  } catch {
    return false
  }
}

/** The local time HH:mm of an instant in a time zone. */
export function localTime(ms: number, timeZone: string): string {
  return new Intl.DateTimeFormat('en-GB', { timeZone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(
    new Date(ms),
  )
}

/** Whether `ms` falls in a rank's quiet hours (start inclusive, end exclusive). */
export function inQuietHours(rules: AlertRules, rank: Rank, ms: number): boolean {
  const quiet = rules.quietHours[`${rank}`]
  if (!quiet) return false
  const now = localTime(ms, rules.timeZone)
  return quiet.start < quiet.end ? now >= quiet.start && now < quiet.end : now >= quiet.start || now < quiet.end
}

/** The ranks to notify of an event of `type` at `ms`: those the rules name, outside their quiet hours; none when the kind is off. */
export function ranksToNotify(rules: AlertRules, type: EventType, ms: number): Rank[] {
  const kind = rules.kinds[type]
  if (!kind.enabled) return []
  return kind.notifyRanks.filter((rank) => !inQuietHours(rules, rank, ms))
}
