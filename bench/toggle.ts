// The cost (or gain) of one feature on the request path: a linked integrator reading one animal from two
// apps that share a database and differ only in the feature's setting, in alternating rounds, with the load
// from another process. Limits are off on both sides.
import { alternatingMedians, benchFarm, loadGet, startBenchApp } from './support.ts'
import type { BenchResult, Scenario } from './scenario.ts'

const TOTAL = Number(process.env.BENCH_TOGGLE_REQUESTS ?? 6000)
const CONCURRENCY = 32
const ROUNDS = 5
const LIMITS_OFF = { RATE_LIMIT_IP_MAX: '0', RATE_LIMIT_TOKENS_MAX: '0', QUOTA_ENTERPRISE: '0' }

export interface Toggle {
  name: string
  feature: string
  off: Record<string, string>
  on: Record<string, string>
  /** The lowest on/off throughput ratio that meets the target. */
  minRatio: number
  target: string
}

export function toggleScenario(toggle: Toggle): Scenario {
  return {
    name: toggle.name,
    description: `linked integrator GET /users/:userId/animals/:animalId, ${toggle.feature} on vs off (${ROUNDS} alternating rounds of ${TOTAL} requests, ${CONCURRENCY} in flight, load from another process, medians)`,
    run: async (): Promise<BenchResult> => {
      const off = await startBenchApp({ ...LIMITS_OFF, ...toggle.off })
      const on = await startBenchApp({ ...LIMITS_OFF, ...toggle.on }, { database: off.database })
      try {
        const farm = await benchFarm(on)
        const mac = await farm.animal()
        const path = `/api/v1/users/${farm.uid}/animals/${encodeURIComponent(mac)}`
        const measure = (port: number) => async () => {
          const result = await loadGet(port, path, farm.headers, TOTAL, CONCURRENCY)
          if (Object.keys(result.statuses).some((s) => s !== '200'))
            throw new Error(`unexpected statuses ${JSON.stringify(result.statuses)}`)
          return result.rps
        }
        await measure(off.port)()
        await measure(on.port)()
        const { baseline, measured } = await alternatingMedians(ROUNDS, measure(off.port), measure(on.port))
        const ratio = measured / baseline
        return {
          baseline: `${baseline.toFixed(0)} req/s ${toggle.feature} off`,
          measured: `${measured.toFixed(0)} req/s ${toggle.feature} on`,
          ratio: Number(ratio.toFixed(3)),
          target: toggle.target,
          met: ratio >= toggle.minRatio,
        }
      } finally {
        await on.close()
        await off.close()
      }
    },
  }
}
