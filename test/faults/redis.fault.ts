// Redis killed and frozen (SIGSTOP) under a service whose every request checks two Redis limiters (the IP
// rate limit and the daily quota): never a 5xx, and a frozen Redis costs at most one command timeout to
// the requests already waiting on it, not to every request (it used to add 4 s to each one for as long
// as Redis hung). Once Redis answers again the shared counters are used again, without a restart.
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import type { Agent } from 'node:http'
import { after, before, describe, it } from 'node:test'
import { eventually } from '../support/eventually.ts'
import { startPrivatePostgres, startPrivateRedis, type PrivatePostgres, type PrivateRedis } from './support/servers.ts'
import {
  call,
  keepAliveAgent,
  serviceEnv,
  startService,
  type HttpResult,
  type ServiceProcess,
} from './support/service.ts'
import { farmHeaders, seedFarm, type Farm } from './support/farm.ts'

/** REDIS_COMMAND_TIMEOUT_MS's default. */
const COMMAND_TIMEOUT_MS = 500
/** A request this slow waited on Redis; faster ones did not (other stalls stay well below it). */
const WAITED_MS = COMMAND_TIMEOUT_MS * 0.8
const CLIENTS = 8

describe('Redis unavailable', () => {
  let redis: PrivateRedis
  let postgres: PrivatePostgres
  let service: ServiceProcess
  let agent: Agent
  let farm: Farm
  let headers: Record<string, string>

  before(async () => {
    redis = await startPrivateRedis()
    // On PostgreSQL: the embedded store runs in the service's event loop, and its stalls would blur the latencies.
    postgres = await startPrivatePostgres()
    await postgres.query('CREATE DATABASE api')
    const store = { DATABASE_URL: postgres.url('api') }
    farm = await seedFarm(store)
    // Limits on, and high: every request runs through both Redis limiters and none is refused.
    service = await startService(
      serviceEnv({ ...store, REDIS_URL: redis.url, RATE_LIMIT_IP_MAX: '1000000', QUOTA_PRO: '1000000' }),
    )
    agent = keepAliveAgent(CLIENTS)
    headers = await farmHeaders(agent, service, farm)
  })
  after(async () => {
    await redis?.cleanup()
    service?.child.kill('SIGKILL')
    await service?.exited
    agent?.destroy()
    postgres?.cleanup()
  })

  const read = () =>
    call(agent, service.port, 'GET', `/api/v1/users/${farm.uid}/animals`, { headers, timeoutMs: 20_000 })
  const redisKeys = () =>
    Number(spawnSync('redis-cli', ['-p', String(redis.port), 'dbsize'], { encoding: 'utf8' }).stdout.trim() || '-1')
  const describeMs = (results: HttpResult[]) => {
    const ms = results.map((r) => r.ms).sort((a, b) => a - b)
    return `median ${Math.round(ms[Math.floor(ms.length / 2)]!)} ms, max ${Math.round(ms.at(-1)!)} ms`
  }

  /** Counters reach Redis again: a new key (a fresh quota key after Redis lost its data, or a bump). */
  async function assertBackOnRedis(what: string) {
    const started = performance.now()
    await eventually(
      async () => {
        await redis.flushAll()
        assert.equal((await read()).status, 200)
        return redisKeys()
      },
      (keys) => keys > 0,
      `the limiters to count in Redis again after ${what}`,
      { timeoutMs: 10_000, intervalMs: 100 },
    )
    return performance.now() - started
  }

  it('killed: no 5xx, no wait, the in-process limits answer; the Redis counters are used again once it is back', async () => {
    assert.equal((await read()).status, 200)
    assert.ok(redisKeys() > 0, 'the counters live in Redis')
    await redis.kill()
    const during: HttpResult[] = []
    for (let i = 0; i < 20; i++) during.push(await read())
    assert.deepEqual(
      during.map((r) => r.status),
      Array(20).fill(200),
    )
    assert.ok(
      during.every((r) => r.ms < WAITED_MS),
      describeMs(during),
    )
    assert.ok(
      during.every((r) => r.headers['x-ratelimit-limit'] !== undefined),
      'the in-process limits still answer',
    )
    await redis.start()
    const backMs = await assertBackOnRedis('its restart')
    console.log(
      `  killed: 20 requests all 200, ${describeMs(during)}; counting in Redis again ${Math.round(backMs)} ms after the restart`,
    )
  })

  it('frozen: no 5xx, at most one command timeout for the requests already waiting on it, then no wait', async () => {
    assert.equal((await read()).status, 200)
    // CLIENTS keep-alive clients, each sending one request after another; Redis hangs in the middle.
    let stop = false
    let frozenAt = Number.POSITIVE_INFINITY
    const perClient: { at: number; res: HttpResult }[][] = []
    const client = async () => {
      const mine: { at: number; res: HttpResult }[] = []
      perClient.push(mine)
      while (!stop) {
        const at = performance.now()
        mine.push({ at, res: await read() })
      }
    }
    const clients = Array.from({ length: CLIENTS }, client)
    let frozenFor = 0
    try {
      await new Promise((resolve) => setTimeout(resolve, 500))
      redis.freeze()
      frozenAt = performance.now()
      await new Promise((resolve) => setTimeout(resolve, 3000))
      stop = true
      await Promise.all(clients)
    } finally {
      frozenFor = performance.now() - frozenAt
      redis.thaw()
    }
    const whileFrozen = perClient.map((mine) =>
      mine.filter(({ at, res }) => at + res.ms > frozenAt).map(({ res }) => res),
    )
    const all = whileFrozen.flat()
    assert.deepEqual(
      all.filter((r) => r.status !== 200).map((r) => r.status),
      [],
      'no request failed',
    )
    // Each client's request under way at the freeze waits for one command timeout; the rest do not wait at all
    // (a busy machine may still stall a few: the bounds below leave room for that, not for a wait per request).
    const ms = all.map((r) => r.ms).sort((a, b) => a - b)
    assert.ok(ms.at(-1)! < COMMAND_TIMEOUT_MS * 2 + 500, `a request took ${Math.round(ms.at(-1)!)} ms`)
    assert.ok(
      ms[Math.floor(ms.length * 0.9)]! < WAITED_MS / 2,
      `the slowest tenth took ${Math.round(ms[Math.floor(ms.length * 0.9)]!)} ms or more`,
    )
    for (const mine of whileFrozen) assert.ok(mine.length >= 20, `a client got ${mine.length} answers in 3 s`)
    const backMs = await assertBackOnRedis('SIGCONT')
    console.log(
      `  frozen for ${Math.round(frozenFor)} ms: ${all.length} requests from ${CLIENTS} clients all 200, ${describeMs(all)}, ` +
        `${all.filter((r) => r.ms > WAITED_MS).length} over ${WAITED_MS} ms; counting in Redis again ${Math.round(backMs)} ms after SIGCONT`,
    )
  })
})
