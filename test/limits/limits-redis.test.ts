// Limits across processes: counters in Redis are shared by several app instances and survive a
// restart; when Redis goes away or hangs mid-run, the in-memory insurance limiter takes over.
import assert from 'node:assert/strict'
import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { after, describe, it } from 'node:test'
import { eventually } from '../support/eventually.ts'
import { pausableProxy } from '../support/proxy.ts'
import { freePort } from '../faults/support/servers.ts'
import { createTestApp, testEnv, TEST_JWT_SECRET, type TestContext } from '../support/app.ts'
import { createIntegrator, integratorToken, bearer } from '../support/fixtures.ts'
import { loadConfig, type Config } from '../../src/config.ts'
import type { Database } from '../../src/db/database.ts'
import { openRedis, waitForRedis, type Redis } from '../../src/redis.ts'
import { buildApp } from '../../src/app.ts'
import type { App } from '../../src/types.ts'

interface Instance {
  app: App
  config: Config
  database: Database
  redis: Redis
  close: () => Promise<void>
}

/** An app instance on a given database and Redis, as a second API process would be. */
async function instance(env: Record<string, string>, database: Database): Promise<Instance> {
  const config = loadConfig(env)
  const redis = openRedis(config.redisUrl!, undefined, config.redisCommandTimeoutMs)
  await waitForRedis(redis, 5000)
  const app = await buildApp({ config, database, redis, logger: false })
  return {
    app,
    config,
    database,
    redis,
    close: async () => {
      await app.close()
      redis.disconnect()
    },
  }
}

// One store for the file's instances: each test's integrators, and the Redis prefix or server its instances
// count in, are its own.
let shared: Promise<TestContext> | undefined
after(async () => {
  await (await shared)?.close()
})

/** The file's store (opened on first use) and the environment of an instance on it. */
async function sharedStore() {
  shared ??= createTestApp({ noRedis: true })
  const { config, database } = await shared
  return { env: testEnv(config.databaseUrl ? { DATABASE_URL: config.databaseUrl } : {}), database }
}

describe(
  'limits shared through Redis',
  { skip: process.env.REDIS_URL ? false : 'runs with REDIS_URL (the real-server mode)' },
  () => {
    it('two app instances sharing Redis enforce one budget, and counters survive a restart', async () => {
      const store = await sharedStore()
      const env = {
        ...store.env,
        REDIS_URL: process.env.REDIS_URL!,
        REDIS_KEY_PREFIX: `test:${randomBytes(6).toString('hex')}:`,
        QUOTA_FREE: '5',
        RATE_LIMIT_IP_MAX: '8',
      }
      const a = await instance(env, store.database)
      const b = await instance(env, store.database)
      try {
        const { uid } = await createIntegrator(a, { tier: 'free' })
        const { accessToken } = await integratorToken(a, uid)
        const call = (i: Instance) =>
          i.app.inject({ method: 'GET', url: '/api/v1/tokens/info', headers: bearer(accessToken) })
        assert.equal((await call(a)).statusCode, 200)
        assert.equal((await call(b)).statusCode, 200)
        assert.equal((await call(a)).statusCode, 200)
        const fourth = await call(b)
        assert.equal(fourth.statusCode, 200)
        assert.equal(fourth.headers['x-ratelimit-remaining'], '1')
        await a.close()
        const c = await instance(env, store.database) // "restarted" process
        try {
          assert.equal((await call(c)).statusCode, 200)
          const refused = await call(b)
          assert.equal(refused.statusCode, 429)
          assert.match(refused.json().error, /^Daily quota exceeded: 5 requests per day/)
          // the IP window is shared too: 1 POST /tokens is its own bucket; 6 GETs so far of 8
          assert.equal(
            (await c.app.inject({ method: 'GET', url: '/api/v1/tokens' })).headers['x-ratelimit-remaining'],
            '1',
          )
        } finally {
          await c.close()
        }
      } finally {
        await b.close()
      }
    })
  },
)

describe(
  'limits in one Redis round trip',
  { skip: process.env.REDIS_URL ? false : 'runs with REDIS_URL (the real-server mode)' },
  () => {
    it('an authenticated request counts its IP limit and its quota in one command; an IP refusal spends no quota', async () => {
      const store = await sharedStore()
      const env = {
        ...store.env,
        REDIS_URL: process.env.REDIS_URL!,
        REDIS_KEY_PREFIX: `test:${randomBytes(6).toString('hex')}:`,
        QUOTA_FREE: '50',
        RATE_LIMIT_IP_MAX: '4',
      }
      const a = await instance(env, store.database)
      try {
        const { uid } = await createIntegrator(a, { tier: 'free' })
        const { accessToken } = await integratorToken(a, uid)
        const call = () => a.app.inject({ method: 'GET', url: '/api/v1/tokens/info', headers: bearer(accessToken) })
        assert.equal((await call()).statusCode, 200) // loads the script into Redis (EVALSHA's first miss)
        const commands: string[] = []
        const send = a.redis.sendCommand.bind(a.redis)
        a.redis.sendCommand = (command: { name: string }, ...rest: unknown[]) => {
          commands.push(command.name)
          return (send as (...args: unknown[]) => unknown)(command, ...rest)
        }
        const second = await call()
        assert.equal(second.statusCode, 200)
        assert.deepEqual(commands, ['evalsha'])
        assert.match(String(second.headers.ratelimit), /"ip";r=2;.*"quota";r=48;/)
        await call()
        await call()
        const refused = await call() // the 5th request of this IP in the window
        assert.equal(refused.statusCode, 429)
        assert.match(refused.json().error, /^Rate limit exceeded: 4 requests per/)
        assert.equal(refused.headers['ratelimit-policy'], '"ip";q=4;w=900')
        const key = `${env.REDIS_KEY_PREFIX}quota:integrator:${uid}:GET /api/v1/tokens/info:${new Date().toISOString().slice(0, 10)}`
        assert.equal(await a.redis.get(key), '4', 'the refused request did not count against the daily quota')
      } finally {
        await a.close()
      }
    })
  },
)

async function startPrivateRedis(port: number): Promise<ChildProcess> {
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  )
  const probe = openRedis(`redis://127.0.0.1:${port}`)
  const up = await waitForRedis(probe, 10_000)
  probe.disconnect()
  if (!up) throw new Error('private redis-server did not start')
  return child
}

describe('Redis unreachable mid-run', () => {
  it('keeps answering with in-process limits (insurance limiter), never a 500, and readiness says so', async () => {
    const port = await freePort()
    let redisServer: ChildProcess | undefined
    try {
      redisServer = await startPrivateRedis(port)
    } catch {
      return // no redis-server binary on this machine: nothing to test against
    }
    const store = await sharedStore()
    const node = await instance(
      { ...store.env, REDIS_URL: `redis://127.0.0.1:${port}`, QUOTA_FREE: '4', JWT_SECRET: TEST_JWT_SECRET },
      store.database,
    )
    try {
      const { uid } = await createIntegrator(node, { tier: 'free' })
      const { accessToken } = await integratorToken(node, uid)
      const call = () =>
        node.app.inject({ method: 'GET', url: '/api/v1/tokens/validate', headers: bearer(accessToken) })
      assert.equal((await call()).statusCode, 200)
      assert.equal((await call()).headers['x-ratelimit-remaining'], '2')

      redisServer.kill('SIGKILL')
      await new Promise((resolve) => redisServer!.once('exit', resolve))
      // From here the memory twin counts on its own (it starts from zero: Redis's count is out of reach).
      const during = []
      for (let i = 0; i < 6; i++) during.push((await call()).statusCode)
      assert.deepEqual(during, [200, 200, 200, 200, 429, 429])
      const ready = await node.app.inject({ method: 'GET', url: '/api/v1/health/ready' })
      assert.equal(ready.statusCode, 503)
      assert.equal(ready.json().data.redis, 'unreachable')

      // Redis back on the same port: the shared counters are used again once the client reconnects.
      redisServer = await startPrivateRedis(port)
      const back = await waitForRedis(node.redis, 10_000)
      assert.ok(back, 'the client reconnects')
      const after = await call()
      assert.equal(after.statusCode, 200)
      // this private Redis keeps nothing on disk, so it counts today from zero again: 3 of 4 left
      assert.equal(after.headers['x-ratelimit-remaining'], '3')
    } finally {
      await node.close()
      redisServer?.kill('SIGKILL')
    }
  })
})

describe('Redis hung mid-run', () => {
  it('costs one command timeout, then the in-process limits answer at once until Redis answers again (circuit breaker)', async () => {
    const port = await freePort()
    let redisServer: ChildProcess | undefined
    try {
      redisServer = await startPrivateRedis(port)
    } catch {
      return // no redis-server binary on this machine: nothing to test against
    }
    const proxy = await pausableProxy(port)
    const direct = openRedis(`redis://127.0.0.1:${port}`)
    const store = await sharedStore()
    const commandTimeoutMs = 300
    const node = await instance(
      {
        ...store.env,
        REDIS_URL: `redis://127.0.0.1:${proxy.port}`,
        REDIS_COMMAND_TIMEOUT_MS: String(commandTimeoutMs),
        // Leases of one point: every request asks Redis, as this test needs (with leases most would not).
        QUOTA_FREE: '1000',
        RATE_LIMIT_IP_MAX: '1000',
        RATE_LIMIT_LEASE_MAX: '1',
        JWT_SECRET: TEST_JWT_SECRET,
      },
      store.database,
    )
    try {
      const { uid } = await createIntegrator(node, { tier: 'free' })
      const { accessToken } = await integratorToken(node, uid)
      const call = async () => {
        const started = performance.now()
        const res = await node.app.inject({
          method: 'GET',
          url: '/api/v1/tokens/validate',
          headers: bearer(accessToken),
        })
        return { status: res.statusCode, ms: performance.now() - started }
      }
      assert.equal((await call()).status, 200)

      proxy.freeze()
      // The IP limit's command times out and opens the breaker; the quota check behind it does not wait.
      const first = await call()
      assert.equal(first.status, 200)
      assert.ok(
        first.ms >= commandTimeoutMs && first.ms < commandTimeoutMs * 2,
        `the first request took ${Math.round(first.ms)} ms`,
      )
      // Without the breaker each of these would wait two command timeouts (IP limit and quota).
      const started = performance.now()
      const next = []
      for (let i = 0; i < 10; i++) next.push((await call()).status)
      const nextMs = performance.now() - started
      assert.deepEqual(next, Array(10).fill(200))
      assert.ok(nextMs < commandTimeoutMs * 3, `10 requests took ${Math.round(nextMs)} ms`)

      // Redis answers again: a background probe closes the breaker and the counters are kept in Redis again.
      proxy.thaw()
      await eventually(
        async () => {
          await direct.flushall()
          assert.equal((await call()).status, 200)
          return direct.dbsize()
        },
        (keys) => keys > 0,
        'the limits to count in Redis again',
        { timeoutMs: 5000, intervalMs: 100 },
      )
    } finally {
      proxy.thaw()
      await node.close()
      direct.disconnect()
      await proxy.close()
      redisServer.kill('SIGKILL')
    }
  })
})

describe('limit leases', { skip: process.env.REDIS_URL ? false : 'runs with REDIS_URL (the real-server mode)' }, () => {
  it('with plenty left a process counts most requests itself, two processes together admit exactly the limit, and a refusal is remembered', async () => {
    const store = await sharedStore()
    const env = {
      ...store.env,
      REDIS_URL: process.env.REDIS_URL!,
      REDIS_KEY_PREFIX: `test:${randomBytes(6).toString('hex')}:`,
      RATE_LIMIT_IP_MAX: '1000',
    }
    const a = await instance(env, store.database)
    const b = await instance(env, store.database)
    const countCommands = (i: Instance) => {
      const commands: string[] = []
      const send = i.redis.sendCommand.bind(i.redis)
      i.redis.sendCommand = (command: { name: string }, ...rest: unknown[]) => {
        commands.push(command.name)
        return (send as (...args: unknown[]) => unknown)(command, ...rest)
      }
      return commands
    }
    try {
      const call = (i: Instance) => i.app.inject({ method: 'GET', url: '/api/v1', remoteAddress: '203.0.113.7' })
      const first = await call(a)
      assert.equal(first.statusCode, 200)
      assert.equal(first.headers['x-ratelimit-remaining'], '999')
      const commands = countCommands(a)
      // One process alone: the header counts every request, though Redis is asked about once per lease.
      for (let i = 2; i <= 200; i++) {
        const res = await call(a)
        assert.equal(res.headers['x-ratelimit-remaining'], String(1000 - i))
      }
      const asked = commands.filter((name) => name === 'evalsha' || name === 'eval').length
      assert.ok(
        asked >= 19 && asked <= 25,
        `${asked} script calls for 199 requests (leases of 10 while 1,000 are left)`,
      )

      // Two processes in turn until both are refused: together they admit the limit, not one request more.
      let admitted = 200
      const open = new Set([a, b])
      while (open.size > 0) {
        for (const i of [...open]) {
          const res = await call(i)
          if (res.statusCode === 200) admitted++
          else {
            assert.equal(res.statusCode, 429)
            open.delete(i)
          }
        }
      }
      assert.equal(admitted, 1000)
      // Both remember the refusal until the window ends: no further Redis call.
      const before = commands.length
      for (let i = 0; i < 5; i++) assert.equal((await call(a)).statusCode, 429)
      assert.equal(commands.length, before)
      const refused = await call(b)
      assert.equal(refused.statusCode, 429)
      assert.ok(Number(refused.headers['retry-after']) > 800, `Retry-After ${refused.headers['retry-after']}`)
    } finally {
      await a.close()
      await b.close()
    }
  })

  it('RATE_LIMIT_LEASE_MAX=1 asks Redis on every request', async () => {
    const store = await sharedStore()
    const env = {
      ...store.env,
      REDIS_URL: process.env.REDIS_URL!,
      REDIS_KEY_PREFIX: `test:${randomBytes(6).toString('hex')}:`,
      RATE_LIMIT_IP_MAX: '100000',
      RATE_LIMIT_LEASE_MAX: '1',
    }
    const a = await instance(env, store.database)
    try {
      const key = `${env.REDIS_KEY_PREFIX}rl:ip:203.0.113.8`
      for (let i = 1; i <= 5; i++) {
        assert.equal(
          (await a.app.inject({ method: 'GET', url: '/api/v1', remoteAddress: '203.0.113.8' })).statusCode,
          200,
        )
        assert.equal(await a.redis.get(key), String(i))
      }
    } finally {
      await a.close()
    }
  })
})
