// An integrator's request in words for the farm ("Read: animals", "Added: sensor data"), from what the access log
// keeps of it: the method and the route template. The noun is the template's last segment that names something
// (a qualifier such as /latest or /search names the segment before it); a template not known here reads as itself.
import type { TextKey } from './i18n.ts'

const VERBS: Record<string, TextKey> = {
  GET: 'verb_read',
  HEAD: 'verb_read',
  POST: 'verb_added',
  PUT: 'verb_changed',
  PATCH: 'verb_changed',
  DELETE: 'verb_deleted',
}

const NOUNS: Record<string, TextKey> = {
  animals: 'resource_animals',
  litterguards: 'resource_litterguards',
  sensordata: 'resource_sensordata',
  locations: 'resource_locations',
  analytics: 'resource_analytics',
  predictions: 'resource_predictions',
  accuracy: 'resource_accuracy',
  settings: 'resource_settings',
  events: 'resource_events',
  'alert-rules': 'alertRules',
  kpis: 'resource_kpis',
  'due-lists': 'resource_dueLists',
  cycle: 'cycleState',
  'access-log': 'resource_accessLog',
  'push-tokens': 'resource_pushTokens',
  integrators: 'linkedIntegrators',
  inseminations: 'kind_inseminations',
  'pregnancy-checks': 'kind_pregnancyChecks',
  births: 'kind_births',
  weanings: 'kind_weanings',
  treatments: 'kind_treatments',
  'general-events': 'kind_generalEvents',
  movements: 'kind_movements',
  'return-to-estrus': 'kind_returnToEstrus',
}

/** Segments that narrow what the segment before them names. */
const QUALIFIERS = new Set([
  'search',
  'latest',
  'range',
  'recent',
  'active',
  'archived',
  'aggregate',
  'statistics',
  'summary',
  'status',
  'stream',
])

/** The words of a logged request, or undefined when the app has none for it. */
export function requestInWords(method: string, endpoint: string): { verb: TextKey; noun: TextKey } | undefined {
  const verb = VERBS[method]
  const segments = endpoint.split('/').filter((segment) => segment !== '' && !segment.startsWith(':'))
  const account = segments.indexOf('users')
  if (verb === undefined || account === -1) return undefined
  const named = segments.slice(account + 1).filter((segment) => !QUALIFIERS.has(segment))
  const last = named.at(-1)
  if (last === undefined) return { verb, noun: 'resource_account' }
  const noun = NOUNS[last]
  return noun === undefined ? undefined : { verb, noun }
}
