import type { Scenario } from './scenario.ts'
import { accessLogScenario } from './access-log.ts'
import { callerCacheScenario } from './caller-cache.ts'
import { compressionScenario } from './compression.ts'
import { eventDerivationScenario } from './event-derivation.ts'
import { limitsScenario } from './limits.ts'
import { startupScenario } from './startup.ts'
import { readingScenarios } from './readings.ts'
import { readingsAtScaleScenario } from './readings-at-scale.ts'

export const scenarios: Scenario[] = [
  limitsScenario,
  accessLogScenario,
  callerCacheScenario,
  compressionScenario,
  eventDerivationScenario,
  startupScenario,
  ...readingScenarios,
  readingsAtScaleScenario,
]
