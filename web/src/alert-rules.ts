// The alert rules form's pure rules: the thresholds kept as typed (the API's 0–1 probabilities in percent), the
// PUT body, and which field an API detail names.
import { THRESHOLD_LIMITS, THRESHOLD_NAMES, type ThresholdName } from '../../src/modules/events/alert-thresholds.ts'
import type { AlertRules, QuietHours } from '../../src/modules/events/alert-rules.rules.ts'

/** The rules as the API answers them: what is in force, and who last wrote them. */
export type RulesDocument = AlertRules & { updatedAt: number | null; updatedBy: string | null }

/** A threshold as typed: kept as text until saved, so that an empty or half-typed number is not lost. */
export type ThresholdDrafts = Record<ThresholdName, string>

/** Where a quiet-hours window starts for a role that had none. */
export const NEW_QUIET_HOURS: QuietHours = { start: '22:00', end: '06:00' }

/** The thresholds the form shows in percent: the API's probabilities (0–1), the hysteresis among them. */
export const inPercent = (name: ThresholdName) => THRESHOLD_LIMITS[name].unit === 'probability'

/** A probability as the API stores it (0–1, to 4 decimals) in percent to 2 decimals: 0.2139 is 21.39. */
export const percentOf = (probability: number) => Math.round(probability * 10_000) / 100

/** A percentage as the API's probability, rounded to its 4 decimals: 21.39 is 0.2139, not 0.21390000000000001. */
export const probabilityOf = (percent: number) => Math.round(percent * 100) / 10_000

/** A threshold's text in the form: a probability in percent, the rest in the API's own unit. */
export const draftOf = (name: ThresholdName, value: number) => String(inPercent(name) ? percentOf(value) : value)

export const draftsOf = (rules: AlertRules): ThresholdDrafts =>
  Object.fromEntries(THRESHOLD_NAMES.map((name) => [name, draftOf(name, rules.thresholds[name])])) as ThresholdDrafts

/** A threshold's input in the form's unit: its bounds, and a step that each value the API stores can take. */
export function thresholdInput(name: ThresholdName): { min: number; max: number; step: number | 'any' } {
  const limit = THRESHOLD_LIMITS[name]
  if (inPercent(name)) return { min: percentOf(limit.minimum), max: percentOf(limit.maximum), step: 0.01 }
  return { min: limit.minimum, max: limit.maximum, step: 'integer' in limit ? 1 : 'any' }
}

/** The key of a threshold's unit in words: the hysteresis, a difference of probabilities, in percentage points. */
export const thresholdUnit = (name: ThresholdName) =>
  name === 'probabilityHysteresis' ? 'percentagePoints' : THRESHOLD_LIMITS[name].unit

/**
 * The PUT body: the rules without what only the service writes. A threshold left as shown goes as the API gave it
 * (a probability of more decimals than the form shows is not rounded by saving something else), a percentage as its
 * probability, a threshold that is no number as typed (the API says why).
 */
export function rulesBody(rules: RulesDocument, drafts: ThresholdDrafts) {
  const thresholds = Object.fromEntries(
    THRESHOLD_NAMES.map((name): [ThresholdName, number | string] => {
      const given = rules.thresholds[name]
      const text = drafts[name].trim()
      if (text === draftOf(name, given)) return [name, given]
      const value = Number(text)
      if (text === '' || !Number.isFinite(value)) return [name, text]
      return [name, inPercent(name) ? probabilityOf(value) : value]
    }),
  )
  // updatedAt: the service refuses the change (409) if someone else saved the rules since the form read them.
  return {
    kinds: rules.kinds,
    thresholds,
    quietHours: rules.quietHours,
    timeZone: rules.timeZone,
    updatedAt: rules.updatedAt,
  }
}

/**
 * An API detail's message as the form's field reads it: the bound of a threshold shown in percent in percent too
 * ("must be <= 1" at a probability reads "must be <= 100").
 */
export function ruleMessage(detailField: string, message: string): string {
  const field = ruleFieldOf(detailField)
  const name = field?.startsWith('thresholds.') ? field.slice('thresholds.'.length) : undefined
  if (name === undefined || !Object.hasOwn(THRESHOLD_LIMITS, name) || !inPercent(name as ThresholdName)) return message
  return message.replace(
    /^(must be [<>]=? )(-?\d+(?:\.\d+)?)$/,
    (_, words: string, bound: string) => `${words}${percentOf(Number(bound))}`,
  )
}

/** The form's field an API detail names (`thresholds.birthProbability`, `quietHours[3]`, `quietHours.3.start`). */
export function ruleFieldOf(detailField: string): string | undefined {
  const bare = detailField.replace(/^body[.:/]?/, '').replace(/\[(\w+)\]/g, '.$1')
  const [part, name] = bare.split('.')
  if (part === 'timeZone') return 'timeZone'
  if ((part === 'thresholds' || part === 'quietHours' || part === 'kinds') && name) return `${part}.${name}`
  return undefined
}
