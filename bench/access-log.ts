// Cost of the access log on the request path: a linked integrator reading one animal (a logged request)
// with ACCESS_LOG on against the same app with it off, sharing one database, limits off on both.
import { alternatingMedians, benchFarm, loadGet, startBenchApp } from './support.ts'
import type { Scenario } from './scenarios.ts'

const TOTAL = Number(process.env.BENCH_ACCESS_LOG_REQUESTS ?? 6000)
const CONCURRENCY = 32
const ROUNDS = 5
const LIMITS_OFF = { RATE_LIMIT_IP_MAX: '0', RATE_LIMIT_TOKENS_MAX: '0', QUOTA_ENTERPRISE: '0' }

export const accessLogScenario: Scenario = {
  name: 'access-log',
  description: `linked integrator GET /users/:userId/animals/:animalId, ACCESS_LOG on vs off (${ROUNDS} alternating rounds of ${TOTAL} requests, ${CONCURRENCY} in flight, load from another process, medians)`,
  run: async () => {
    const off = await startBenchApp({ ...LIMITS_OFF, ACCESS_LOG: 'off' })
    const on = await startBenchApp({ ...LIMITS_OFF, ACCESS_LOG: 'on' }, { database: off.database })
    try {
      const farm = await benchFarm(on)
      const mac = await farm.animal()
      const path = `/api/v1/users/${farm.uid}/animals/${encodeURIComponent(mac)}`
      const measure = (port: number) => async () => {
        const result = await loadGet(port, path, farm.headers, TOTAL, CONCURRENCY)
        if (Object.keys(result.statuses).some((s) => s !== '200')) throw new Error(`unexpected statuses ${JSON.stringify(result.statuses)}`)
        return result.rps
      }
      await measure(off.port)()
      await measure(on.port)()
      const { baseline, measured } = await alternatingMedians(ROUNDS, measure(off.port), measure(on.port))
      const logged = await on.database.db.selectFrom('access_log').select((eb) => eb.fn.countAll<number>().as('rows')).executeTakeFirstOrThrow()
      const ratio = measured / baseline
      return {
        baseline: `${baseline.toFixed(0)} req/s access log off`,
        measured: `${measured.toFixed(0)} req/s access log on (${Number(logged.rows)} rows written)`,
        ratio: Number(ratio.toFixed(3)),
        target: 'on/off >= 0.95 (the log costs < 5%)',
        met: ratio >= 0.95,
      }
    } finally {
      await on.close()
      await off.close()
    }
  },
}
