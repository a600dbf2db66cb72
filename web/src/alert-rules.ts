// The alert rules form's pure rules: the thresholds kept as typed, the PUT body, and which field an API
// detail names.
import { THRESHOLD_NAMES, type ThresholdName } from '../../src/modules/events/alert-thresholds.ts'
import type { AlertRules, QuietHours } from '../../src/modules/events/alert-rules.rules.ts'

/** The rules as the API answers them: what is in force, and who last wrote them. */
export type RulesDocument = AlertRules & { updatedAt: number | null; updatedBy: string | null }

/** A threshold as typed: kept as text until saved, so that an empty or half-typed number is not lost. */
export type ThresholdDrafts = Record<ThresholdName, string>

/** Where a quiet-hours window starts for a role that had none. */
export const NEW_QUIET_HOURS: QuietHours = { start: '22:00', end: '06:00' }

export const draftsOf = (rules: AlertRules): ThresholdDrafts =>
  Object.fromEntries(THRESHOLD_NAMES.map((name) => [name, String(rules.thresholds[name])])) as ThresholdDrafts

/** The PUT body: the rules without what only the service writes; a threshold that is no number goes as typed. */
export function rulesBody(rules: AlertRules, drafts: ThresholdDrafts) {
  const thresholds = Object.fromEntries(
    THRESHOLD_NAMES.map((name) => {
      const text = drafts[name].trim()
      const value = Number(text)
      return [name, text !== '' && Number.isFinite(value) ? value : text]
    }),
  )
  return { kinds: rules.kinds, thresholds, quietHours: rules.quietHours, timeZone: rules.timeZone }
}

/** The form's field an API detail names (`thresholds.birthProbability`, `quietHours[3]`, `quietHours.3.start`). */
export function ruleFieldOf(detailField: string): string | undefined {
  const bare = detailField.replace(/^body[.:/]?/, '').replace(/\[(\w+)\]/g, '.$1')
  const [part, name] = bare.split('.')
  if (part === 'timeZone') return 'timeZone'
  if ((part === 'thresholds' || part === 'quietHours' || part === 'kinds') && name) return `${part}.${name}`
  return undefined
}
