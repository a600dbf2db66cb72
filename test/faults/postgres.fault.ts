// PostgreSQL stopped (pg_ctl stop -m immediate) and frozen (SIGSTOP on the postmaster and its backends,
// the server hangs with its sockets open): the service, with its default timeouts, answers 503 with
// Retry-After in the envelope within seconds, never hangs and never needs a restart. A frozen server used
// to hang requests for 30 s, which then ended without an answer.
import assert from 'node:assert/strict'
import type { Agent } from 'node:http'
import { after, before, describe, it } from 'node:test'
import { eventually } from '../support/eventually.ts'
import { startPrivatePostgres, type PrivatePostgres } from './support/servers.ts'
import {
  call,
  keepAliveAgent,
  serviceEnv,
  startService,
  type HttpResult,
  type ServiceProcess,
} from './support/service.ts'
import { farmHeaders, seedFarm, type Farm } from './support/farm.ts'

/** The default DB_CONNECT_TIMEOUT_MS and DB_QUERY_TIMEOUT_MS are 5 and 6 s: an answer comes within either and a margin. */
const ANSWER_WITHIN_MS = 9000

describe('PostgreSQL unavailable', () => {
  let postgres: PrivatePostgres
  let service: ServiceProcess
  let agent: Agent
  let farm: Farm
  let headers: Record<string, string>

  before(async () => {
    postgres = await startPrivatePostgres()
    await postgres.query('CREATE DATABASE api')
    const store = { DATABASE_URL: postgres.url('api') }
    farm = await seedFarm(store)
    service = await startService(serviceEnv(store))
    agent = keepAliveAgent(32)
    headers = await farmHeaders(agent, service, farm)
  })
  after(async () => {
    postgres?.cleanup()
    service?.child.kill('SIGKILL')
    await service?.exited
    agent?.destroy()
  })

  // A route that reads the database (the caller's lookup, then the animals).
  const read = () =>
    call(agent, service.port, 'GET', `/api/v1/users/${farm.uid}/animals`, { headers, timeoutMs: 20_000 })

  /**
   * A stopped server is unavailable (Retry-After 5). A frozen one accepts connections and answers nothing, which
   * the pool cannot tell from a saturated one: either answer is right there, as long as it comes in seconds.
   */
  function assertUnavailable(res: HttpResult, frozen = false) {
    assert.equal(res.status, 503, JSON.stringify(res.body))
    assert.equal(res.body.success, false)
    if (frozen) {
      assert.ok(['1', '5'].includes(String(res.headers['retry-after'])), String(res.headers['retry-after']))
      assert.match(res.body.error, /temporarily (unavailable|busy)/)
    } else {
      assert.equal(res.headers['retry-after'], '5')
      assert.match(res.body.error, /temporarily unavailable/)
    }
    assert.ok(res.ms < ANSWER_WITHIN_MS, `answered after ${Math.round(res.ms)} ms`)
  }

  async function assertRecovers(what: string) {
    const started = performance.now()
    await eventually(
      async () => (await read()).status,
      (s) => s === 200,
      `reads to work again after ${what}`,
      { timeoutMs: 20_000, intervalMs: 200 },
    )
    const results = await Promise.all(Array.from({ length: 40 }, read))
    assert.deepEqual(
      results.map((r) => r.status),
      results.map(() => 200),
      'every connection in the pool works again',
    )
    assert.equal((await call(agent, service.port, 'GET', '/api/v1/health/ready')).status, 200)
    return performance.now() - started
  }

  it('stopped: 503 with Retry-After at once, then recovery without a restart', async () => {
    assert.equal((await read()).status, 200)
    postgres.stopImmediate()
    const answers = []
    for (let i = 0; i < 5; i++) answers.push(await read())
    for (const res of answers) assertUnavailable(res)
    const ready = await call(agent, service.port, 'GET', '/api/v1/health/ready')
    assert.equal(ready.status, 503)
    assert.equal(ready.body.data.database, 'unreachable')
    assert.equal(
      (await call(agent, service.port, 'GET', '/api/v1/health')).status,
      200,
      'liveness does not depend on the database',
    )
    postgres.start()
    const recoveryMs = await assertRecovers('the restart of PostgreSQL')
    console.log(
      `  stopped: 503 in ${answers.map((r) => Math.round(r.ms)).join(', ')} ms; reads worked again ${Math.round(recoveryMs)} ms after the restart`,
    )
  })

  it('frozen: 503 with Retry-After within seconds for requests in flight and new ones, then recovery on SIGCONT', async () => {
    // Every connection of the pool open and idle, as on a busy service.
    assert.deepEqual(
      (await Promise.all(Array.from({ length: 20 }, read))).map((r) => r.status),
      Array(20).fill(200),
    )
    postgres.freeze()
    let frozenFor: number
    const frozenAt = performance.now()
    try {
      // More requests at once than the pool has connections: some wait for a connection, some for a query.
      const burst = await Promise.all(Array.from({ length: 25 }, read))
      for (const res of burst) assertUnavailable(res, true)
      // The pool's connections to the hung server are gone now: a new request waits for a new connection.
      const [next, ready] = await Promise.all([
        read(),
        call(agent, service.port, 'GET', '/api/v1/health/ready', { timeoutMs: 20_000 }),
      ])
      assertUnavailable(next, true)
      assert.equal(ready.status, 503)
      assert.ok(ready.ms < ANSWER_WITHIN_MS, `readiness answered after ${Math.round(ready.ms)} ms`)
      console.log(
        `  frozen: a burst of 25 requests answered 503 in ${Math.round(Math.min(...burst.map((r) => r.ms)))}-${Math.round(Math.max(...burst.map((r) => r.ms)))} ms; ` +
          `the next in ${Math.round(next.ms)} ms; readiness 503 in ${Math.round(ready.ms)} ms`,
      )
    } finally {
      frozenFor = performance.now() - frozenAt
      postgres.thaw()
    }
    const recoveryMs = await assertRecovers('SIGCONT')
    console.log(
      `  frozen for ${Math.round(frozenFor)} ms; reads worked again ${Math.round(recoveryMs)} ms after SIGCONT`,
    )
  })
})
