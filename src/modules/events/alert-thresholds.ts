// The bounds and units of an account's alert thresholds, declared once: the API's schema
// (alert-rules.schemas.ts) builds its validation from them and the farm app its inputs. Data only, so the app's
// bundle takes nothing else of the service with it.
import type { Thresholds } from './alert-rules.rules.ts'

export type ThresholdUnit = 'celsius' | 'probability' | 'hours' | 'minutes' | 'percent' | 'days'

export interface ThresholdLimit {
  minimum: number
  maximum: number
  /** The minimum itself is refused (a delta or a probability of 0 would alarm on everything). */
  exclusiveMinimum?: true
  integer?: true
  unit: ThresholdUnit
}

export const THRESHOLD_LIMITS = {
  temperatureYellowDelta: { minimum: 0, maximum: 5, exclusiveMinimum: true, unit: 'celsius' },
  temperatureRedDelta: { minimum: 0, maximum: 5, exclusiveMinimum: true, unit: 'celsius' },
  heatProbability: { minimum: 0, maximum: 1, exclusiveMinimum: true, unit: 'probability' },
  birthProbability: { minimum: 0, maximum: 1, exclusiveMinimum: true, unit: 'probability' },
  lamenessProbability: { minimum: 0, maximum: 1, exclusiveMinimum: true, unit: 'probability' },
  probabilityHysteresis: { minimum: 0, maximum: 0.5, unit: 'probability' },
  alarmCooldownHours: { minimum: 0, maximum: 168, integer: true, unit: 'hours' },
  tagSilentMinutes: { minimum: 5, maximum: 10_080, integer: true, unit: 'minutes' },
  litterOfflineMinutes: { minimum: 5, maximum: 10_080, integer: true, unit: 'minutes' },
  batteryPercent: { minimum: 1, maximum: 99, integer: true, unit: 'percent' },
  gestationDays: { minimum: 100, maximum: 130, integer: true, unit: 'days' },
  farrowingLeadDays: { minimum: 0, maximum: 14, integer: true, unit: 'days' },
  pregnancyCheckDays: { minimum: 14, maximum: 60, integer: true, unit: 'days' },
  weanedNotServedDays: { minimum: 1, maximum: 60, integer: true, unit: 'days' },
} as const satisfies Record<keyof Thresholds, ThresholdLimit>

export type ThresholdName = keyof typeof THRESHOLD_LIMITS
export const THRESHOLD_NAMES = Object.keys(THRESHOLD_LIMITS) as ThresholdName[]
