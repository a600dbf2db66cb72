export interface BenchResult {
  baseline: string
  measured: string
  /** measured / baseline, in the direction the target states. */
  ratio: number
  target: string
  met: boolean
}

export interface Scenario {
  name: string
  description: string
  run: () => Promise<BenchResult>
}

import { accessLogScenario } from './access-log.ts'
import { callerCacheScenario } from './caller-cache.ts'
import { compressionScenario } from './compression.ts'
import { eventDerivationScenario } from './event-derivation.ts'
import { limitsScenario } from './limits.ts'
import { startupScenario } from './startup.ts'
import { readingScenarios } from './readings.ts'

export const scenarios: Scenario[] = [
  limitsScenario,
  accessLogScenario,
  callerCacheScenario,
  compressionScenario,
  eventDerivationScenario,
  startupScenario,
  ...readingScenarios,
]
