// A database or Redis that cannot be reached gives 503 with Retry-After within seconds, never a hang.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { sql } from 'kysely'
import { loadConfig } from '../../src/config.ts'
import { IN_MEMORY, openDatabase } from '../../src/db/database.ts'
import { openRedis } from '../../src/redis.ts'
import { buildApp } from '../../src/app.ts'
import { ok } from '../../src/http/envelope.ts'
import { TEST_JWT_SECRET, createScratchDatabase, openTestDatabase, testEnv } from '../support/app.ts'
import { pausableProxy } from '../support/proxy.ts'
import { migrateToLatest } from '../../src/db/migrate.ts'

const deadPostgres = 'postgres://postgres@127.0.0.1:1/nowhere'

async function appWithDeadStores(opts: { redis?: boolean }) {
  const config = loadConfig({
    LOG_LEVEL: 'silent',
    JWT_SECRET: TEST_JWT_SECRET,
    DATABASE_URL: deadPostgres,
    DB_CONNECT_TIMEOUT_MS: '1000',
    ...(opts.redis ? { REDIS_URL: 'redis://127.0.0.1:1' } : {}),
  })
  const database = await openDatabase(config)
  const redis = opts.redis ? openRedis(config.redisUrl!) : undefined
  const app = await buildApp({
    config,
    database,
    redis,
    logger: false,
    extend: (api) => {
      api.get('/probe/db', { config: { access: 'public' } }, async () => {
        await sql`select 1`.execute(database.db)
        return ok({})
      })
    },
  })
  return {
    app,
    close: async () => {
      await app.close()
      redis?.disconnect()
      await database.close()
    },
  }
}

describe('backing stores unreachable', () => {
  // A hang would fail on the test's own timeout; the answer itself is what the test asserts.
  it('readiness answers 503 with Retry-After when the database is down', { timeout: 20_000 }, async () => {
    const { app, close } = await appWithDeadStores({})
    try {
      const res = await app.inject({ method: 'GET', url: '/api/v1/health/ready' })
      assert.equal(res.statusCode, 503)
      assert.equal(res.headers['retry-after'], '5')
      const body = res.json()
      assert.equal(body.success, false)
      assert.equal(body.error, 'Not ready: database unreachable')
      assert.deepEqual(body.details, [{ field: 'database', message: 'does not answer' }])
      assert.equal(body.data.database, 'unreachable')
      assert.equal(body.data.redis, 'not configured')
      // liveness does not depend on the stores
      assert.equal((await app.inject({ method: 'GET', url: '/api/v1/health' })).statusCode, 200)
    } finally {
      await close()
    }
  })

  it('a route that needs the database answers 503 with Retry-After, not 500', async () => {
    const { app, close } = await appWithDeadStores({})
    try {
      const res = await app.inject({ method: 'GET', url: '/api/v1/probe/db' })
      assert.equal(res.statusCode, 503)
      assert.equal(res.headers['retry-after'], '5')
      assert.equal(res.json().success, false)
      assert.match(res.json().error, /temporarily unavailable/)
    } finally {
      await close()
    }
  })

  it('readiness reports an unreachable Redis', async () => {
    const { app, close } = await appWithDeadStores({ redis: true })
    try {
      const res = await app.inject({ method: 'GET', url: '/api/v1/health/ready' })
      assert.equal(res.statusCode, 503)
      assert.equal(res.json().data.redis, 'unreachable')
      assert.equal(res.json().error, 'Not ready: database and redis unreachable')
    } finally {
      await close()
    }
  })

  it('a closed embedded store answers 503 too', async () => {
    const config = loadConfig({ LOG_LEVEL: 'silent', JWT_SECRET: TEST_JWT_SECRET, DATA_DIR: IN_MEMORY })
    // From the run's snapshot when there is one: a store of its own, without initdb's cost.
    const database = await openTestDatabase(config)
    const app = await buildApp({ config, database, logger: false })
    try {
      await database.close()
      const res = await app.inject({ method: 'GET', url: '/api/v1/health/ready' })
      assert.equal(res.statusCode, 503)
      assert.equal(res.json().data.database, 'unreachable')
    } finally {
      await app.close()
    }
  })
})

describe(
  'database connection lost mid-run',
  { skip: process.env.DATABASE_URL ? false : 'runs with DATABASE_URL (the real-server mode)' },
  () => {
    it('answers 503 while PostgreSQL is away, never crashes, and recovers when it is back', async () => {
      const scratch = (await createScratchDatabase())!
      const proxy = await pausableProxy(Number(new URL(scratch.url).port || 5432))
      const viaProxy = new URL(scratch.url)
      viaProxy.port = String(proxy.port)
      const config = loadConfig(testEnv({ DATABASE_URL: viaProxy.toString(), DB_CONNECT_TIMEOUT_MS: '1000' }))
      const database = await openDatabase(config)
      await migrateToLatest(database.db)
      const app = await buildApp({
        config,
        database,
        logger: false,
        extend: (api) => {
          api.get('/probe/tx', { config: { access: 'public' } }, async () => {
            await database.db.transaction().execute(async (trx) => {
              await sql`select 1`.execute(trx)
            })
            return ok({})
          })
        },
      })
      try {
        assert.equal((await app.inject({ method: 'GET', url: '/api/v1/probe/tx' })).statusCode, 200)
        // Connections in the pool are cut; the next transaction starts on a dead one (the crash case of a
        // checked-out client without an error listener), then new connections are refused.
        await proxy.down()
        for (let i = 0; i < 3; i++) {
          const res = await app.inject({ method: 'GET', url: '/api/v1/probe/tx' })
          assert.equal(res.statusCode, 503)
          assert.equal(res.headers['retry-after'], '5')
        }
        assert.equal((await app.inject({ method: 'GET', url: '/api/v1/health/ready' })).statusCode, 503)
        await proxy.up()
        assert.equal((await app.inject({ method: 'GET', url: '/api/v1/probe/tx' })).statusCode, 200)
        assert.equal((await app.inject({ method: 'GET', url: '/api/v1/health/ready' })).statusCode, 200)
      } finally {
        await app.close()
        await database.close()
        await proxy.close()
        await scratch.drop()
      }
    })

    it('bounds request queries by the statement timeout (503 busy), not migrations and jobs (database.withoutTimeouts)', async () => {
      const scratch = (await createScratchDatabase())!
      const config = loadConfig(
        testEnv({ DATABASE_URL: scratch.url, DB_STATEMENT_TIMEOUT_MS: '300', DB_QUERY_TIMEOUT_MS: '1000' }),
      )
      const database = await openDatabase(config)
      const app = await buildApp({
        config,
        database,
        logger: false,
        extend: (api) => {
          api.get('/probe/slow', { config: { access: 'public' } }, async () => {
            await sql`select pg_sleep(0.6)`.execute(database.db)
            return ok({})
          })
        },
      })
      try {
        const res = await app.inject({ method: 'GET', url: '/api/v1/probe/slow' })
        assert.equal(res.statusCode, 503)
        // The server is up and stopped the statement: the store is busy, not unreachable.
        assert.equal(res.headers['retry-after'], '1')
        assert.match(res.json().error, /temporarily busy/)
        // The same statement, and one beyond the query timeout, on the pool for migrations and jobs.
        await sql`select pg_sleep(0.6)`.execute(database.withoutTimeouts)
        await sql`select pg_sleep(1.2)`.execute(database.withoutTimeouts)
      } finally {
        await app.close()
        await database.close()
        await scratch.drop()
      }
    })

    it('answers 503 within DB_QUERY_TIMEOUT_MS when PostgreSQL hangs, drops the hung connections, and recovers', async () => {
      const scratch = (await createScratchDatabase())!
      const proxy = await pausableProxy(Number(new URL(scratch.url).port || 5432))
      const viaProxy = new URL(scratch.url)
      viaProxy.port = String(proxy.port)
      const queryTimeoutMs = 2000
      const connectTimeoutMs = 1000
      const config = loadConfig(
        testEnv({
          DATABASE_URL: viaProxy.toString(),
          DB_CONNECT_TIMEOUT_MS: String(connectTimeoutMs),
          DB_QUERY_TIMEOUT_MS: String(queryTimeoutMs),
          DB_STATEMENT_TIMEOUT_MS: String(queryTimeoutMs - 500),
          DB_POOL_MAX: '4',
        }),
      )
      const database = await openDatabase(config)
      await migrateToLatest(database.db)
      const app = await buildApp({
        config,
        database,
        logger: false,
        extend: (api) => {
          // A transaction still at work when the server hangs.
          api.get('/probe/tx', { config: { access: 'public' } }, async () => {
            await database.db.transaction().execute(async (trx) => {
              await sql`select pg_sleep(0.3)`.execute(trx)
            })
            return ok({})
          })
        },
      })
      const probe = async () => {
        const started = performance.now()
        const res = await app.inject({ method: 'GET', url: '/api/v1/probe/tx' })
        return { status: res.statusCode, retryAfter: res.headers['retry-after'], ms: performance.now() - started }
      }
      try {
        // Every connection of the pool open, then the server hangs while each is in a transaction.
        assert.deepEqual(
          (await Promise.all(Array.from({ length: 4 }, probe))).map((r) => r.status),
          [200, 200, 200, 200],
        )
        const inFlight = Promise.all(Array.from({ length: 4 }, probe))
        await new Promise((resolve) => setTimeout(resolve, 100))
        proxy.freeze()
        // The query times out; the ROLLBACK that follows must not wait a second timeout on the same connection.
        for (const res of await inFlight) {
          assert.equal(res.status, 503)
          assert.equal(res.retryAfter, '5')
          assert.ok(res.ms < queryTimeoutMs + 1000, `answered after ${Math.round(res.ms)} ms`)
        }
        // The hung connections were dropped, not lent out again: a new request waits for a new connection.
        const next = await probe()
        assert.equal(next.status, 503)
        assert.ok(next.ms < connectTimeoutMs + 700, `answered after ${Math.round(next.ms)} ms`)
        proxy.thaw()
        const after = await Promise.all(Array.from({ length: 8 }, probe))
        assert.deepEqual(
          after.map((r) => r.status),
          Array(8).fill(200),
        )
      } finally {
        proxy.thaw()
        await app.close()
        await database.close()
        await proxy.close()
        await scratch.drop()
      }
    })
  },
)
