// What the caller cache saves (auth/caller-cache.ts): the caller, revocation and link lookups of each
// authenticated request served from memory instead of two database round trips.
import { toggleScenario } from './toggle.ts'

export const callerCacheScenario = toggleScenario({
  name: 'caller-cache',
  feature: 'caller cache',
  off: { AUTH_CACHE_TTL_MS: '0', ACCESS_LOG: 'off' },
  on: { ACCESS_LOG: 'off' },
  minRatio: 1,
  target: 'on/off >= 1 (reported; issue 10 targets the read against a bare server)',
})
