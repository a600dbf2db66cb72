// A saturated store is told apart from an unreachable one (503 "busy" with a short Retry-After, logged as
// "store busy"), and every wait on it is bounded on both stores. The embedded store runs in a thread of its own:
// the event loop keeps turning while a long statement runs.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { sql } from 'kysely'
import { ok } from '../../src/http/envelope.ts'
import { createTestApp, usingRealServers } from '../support/app.ts'

// Long enough to span many timer ticks on any machine (about 0.1-2 s in WebAssembly).
const SLOW_EMBEDDED = sql`select count(*) from generate_series(1, 600000)`

/** A test app with two probes, a slow statement and a cheap one, and its log lines. */
async function probeApp(env: Record<string, string>, slow: ReturnType<typeof sql>) {
  const logs: { level: number; msg: string }[] = []
  const ctx = await createTestApp({
    env,
    logger: {
      level: 'info',
      stream: { write: (line: string) => void logs.push(JSON.parse(line) as { level: number; msg: string }) },
    },
    extend: (api) => {
      api.get('/probe/slow', { config: { access: 'public' } }, async () => {
        await slow.execute(api.database.db)
        return ok({})
      })
      api.get('/probe/cheap', { config: { access: 'public' } }, async () => {
        await sql`select 1`.execute(api.database.db)
        return ok({})
      })
    },
  })
  return { ...ctx, logs }
}

const embeddedOnly = usingRealServers ? 'the embedded store (the default mode)' : false

describe('the embedded store in a thread of its own', { skip: embeddedOnly }, () => {
  it('keeps the event loop turning while a long statement runs', async () => {
    const { database, close } = await probeApp({}, SLOW_EMBEDDED)
    try {
      let ticks = 0
      const ticker = setInterval(() => ticks++, 5)
      const started = performance.now()
      await SLOW_EMBEDDED.execute(database.db)
      const ms = performance.now() - started
      clearInterval(ticker)
      // On the event loop the statement allowed no tick at all; beside it, the timer fires throughout.
      assert.ok(ticks >= Math.min(10, ms / 50), `${ticks} ticks during a ${Math.round(ms)} ms statement`)
    } finally {
      await close()
    }
  })

  it("runs a cheap request's statement before those of expensive requests waiting for the connection", async () => {
    const finished: string[] = []
    const ctx = await createTestApp({
      extend: (api) => {
        api.get('/probe/hold', { config: { access: 'public' } }, async () => {
          await SLOW_EMBEDDED.execute(api.database.db)
          return ok({})
        })
        api.get('/probe/expensive', { config: { access: 'public', cost: 'expensive' } }, async () => {
          await sql`select 1`.execute(api.database.db)
          finished.push('expensive')
          return ok({})
        })
        api.get('/probe/cheap', { config: { access: 'public' } }, async () => {
          await sql`select 1`.execute(api.database.db)
          finished.push('cheap')
          return ok({})
        })
      },
    })
    const after = (ms: number, url: string) =>
      new Promise((resolve) => setTimeout(resolve, ms)).then(() => ctx.app.inject({ method: 'GET', url }))
    try {
      // The held statement takes the one connection; an expensive request queues first, a cheap one after it.
      const answers = await Promise.all([
        ctx.app.inject({ method: 'GET', url: '/api/v1/probe/hold' }),
        after(20, '/api/v1/probe/expensive'),
        after(40, '/api/v1/probe/cheap'),
      ])
      assert.deepEqual(
        answers.map((res) => res.statusCode),
        [200, 200, 200],
      )
      assert.deepEqual(finished, ['cheap', 'expensive'])
    } finally {
      await ctx.close()
    }
  })

  it('answers 503 busy when a statement passes DB_STATEMENT_TIMEOUT_MS or the connection is not free in time, then serves again', async () => {
    // A sleep, not a count: a fast machine counts SLOW_EMBEDDED's rows within the 150 ms limit.
    const { app, database, logs, close } = await probeApp(
      { DB_STATEMENT_TIMEOUT_MS: '150', DB_CONNECT_TIMEOUT_MS: '50' },
      sql`select pg_sleep(1)`,
    )
    try {
      const [slow, waiting] = await Promise.all([
        app.inject({ method: 'GET', url: '/api/v1/probe/slow' }),
        new Promise((resolve) => setTimeout(resolve, 10)).then(() =>
          app.inject({ method: 'GET', url: '/api/v1/probe/cheap' }),
        ),
      ])
      for (const res of [slow, waiting]) {
        assert.equal(res.statusCode, 503)
        assert.equal(res.headers['retry-after'], '1')
        assert.equal(
          res.json().error,
          'Service temporarily busy: the store is saturated or the request reached its time limit',
        )
      }
      assert.ok(logs.some((l) => l.msg === 'store busy' && l.level === 40))
      assert.ok(!logs.some((l) => l.msg === 'store unavailable'))
      // The slow statement finishes in its thread; the store then answers as before.
      const deadline = Date.now() + 30_000
      let res = await app.inject({ method: 'GET', url: '/api/v1/probe/cheap' })
      while (res.statusCode !== 200 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 100))
        res = await app.inject({ method: 'GET', url: '/api/v1/probe/cheap' })
      }
      assert.equal(res.statusCode, 200)
      // A transaction after a timed-out statement is a transaction of its own, committed.
      await database.db.transaction().execute(async (trx) => {
        await sql`create table busy_probe (n int)`.execute(trx)
        await sql`insert into busy_probe values (1)`.execute(trx)
      })
      const { rows } = await sql<{ n: number }>`select n from busy_probe`.execute(database.withoutTimeouts)
      assert.deepEqual(rows, [{ n: 1 }])
    } finally {
      await close()
    }
  })
})

describe(
  'a saturated PostgreSQL pool',
  { skip: process.env.DATABASE_URL ? false : 'runs with DATABASE_URL (the real-server mode)' },
  () => {
    it('answers 503 busy (Retry-After 1), not "unavailable", when no connection of a full pool comes free', async () => {
      const { app, logs, close } = await probeApp(
        { DB_POOL_MAX: '2', DB_CONNECT_TIMEOUT_MS: '200' },
        sql`select pg_sleep(0.8)`,
      )
      try {
        const slow = Array.from({ length: 2 }, () => app.inject({ method: 'GET', url: '/api/v1/probe/slow' }))
        await new Promise((resolve) => setTimeout(resolve, 200))
        const cheap = await app.inject({ method: 'GET', url: '/api/v1/probe/cheap' })
        assert.equal(cheap.statusCode, 503)
        assert.equal(cheap.headers['retry-after'], '1')
        assert.match(cheap.json().error, /temporarily busy/)
        assert.ok(logs.some((l) => l.msg === 'store busy'))
        assert.ok(!logs.some((l) => l.msg === 'store unavailable'))
        assert.deepEqual(
          (await Promise.all(slow)).map((r) => r.statusCode),
          [200, 200],
        )
      } finally {
        await close()
      }
    })
  },
)
