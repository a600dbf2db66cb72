// Cost of the limit layer: an authenticated GET with the IP limit and the daily quota on (counters
// in Redis when it is reachable) against the same app with every limit off, in the same run.
import { randomBytes } from 'node:crypto'
import { alternatingMedians, loadGet, startBenchApp } from './support.ts'
import type { Scenario } from './scenario.ts'
import { insertIntegrator } from '../src/modules/integrators/integrators.repository.ts'

const TOTAL = Number(process.env.BENCH_LIMIT_REQUESTS ?? 6000)
const CONCURRENCY = 32
const ROUNDS = 5
const OFF = { RATE_LIMIT_IP_MAX: '0', RATE_LIMIT_TOKENS_MAX: '0', QUOTA_PRO: '0', QUOTA_USER: '0' }
// Limits on, but high enough that the benchmark never hits them: every request runs the full check.
const ON = { RATE_LIMIT_IP_MAX: '100000000', RATE_LIMIT_TOKENS_MAX: '100000000', QUOTA_PRO: '100000000' }

export const limitsScenario: Scenario = {
  name: 'limits',
  description: `authenticated GET /tokens/validate, limits on vs off (${ROUNDS} alternating rounds of ${TOTAL} requests, ${CONCURRENCY} in flight, medians)`,
  run: async () => {
    const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'
    const prefix = `bench:${randomBytes(4).toString('hex')}:`
    const off = await startBenchApp(OFF)
    const on = await startBenchApp({ ...ON, REDIS_URL: redisUrl, REDIS_KEY_PREFIX: prefix }, { database: off.database })
    try {
      const uid = `int_bench_${randomBytes(4).toString('hex')}`
      await insertIntegrator(off.database.db, {
        uid,
        name: 'Bench',
        email: 'bench@bench.example',
        tier: 'pro',
        client_secret_hash: null,
      })
      const token = (
        await off.app.inject({
          method: 'POST',
          url: '/api/v1/tokens',
          payload: { integratorUID: uid, expiresIn: 86400 },
        })
      ).json().data.accessToken as string
      const headers = { authorization: `Bearer ${token}` }
      const path = '/api/v1/tokens/validate'
      await loadGet(off.port, path, headers, 1000, CONCURRENCY) // warm-up both
      await loadGet(on.port, path, headers, 1000, CONCURRENCY)
      const measureOn = async () => {
        const measured = await loadGet(on.port, path, headers, TOTAL, CONCURRENCY)
        if (Object.keys(measured.statuses).some((s) => s !== '200'))
          throw new Error(`unexpected statuses ${JSON.stringify(measured.statuses)}`)
        return measured.rps
      }
      const measureOff = async () => (await loadGet(off.port, path, headers, TOTAL, CONCURRENCY)).rps
      const { baseline: offRps, measured: onRps } = await alternatingMedians(ROUNDS, measureOff, measureOn)
      const ratio = onRps / offRps
      return {
        baseline: `${offRps.toFixed(0)} req/s limits off`,
        measured: `${onRps.toFixed(0)} req/s limits on (Redis)`,
        ratio: Number(ratio.toFixed(3)),
        target: 'on/off >= 0.90 (limits cost < 10%)',
        met: ratio >= 0.9,
      }
    } finally {
      await on.close()
      await off.close()
    }
  },
}
