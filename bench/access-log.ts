// Cost of the access log on the request path (docs/authentication-and-limits.md, Access log): target under 5 %.
import { toggleScenario } from './toggle.ts'

export const accessLogScenario = toggleScenario({
  name: 'access-log',
  feature: 'access log',
  off: { ACCESS_LOG: 'off' },
  on: { ACCESS_LOG: 'on' },
  minRatio: 0.95,
  target: 'on/off >= 0.95 (the log costs < 5%)',
})
