// One caller's permitted reads must not take the service from everyone (issue 24, item 3). On the embedded store,
// /health answers within 100 ms while one caller reads 10,000-row pages (the store's own thread); on PostgreSQL,
// 40 expensive requests at once from one caller (analytics, sorted pages) leave another farm's cheap reads
// answering within ~100 ms, never a 503: the caller's bound answers 429 past it, and a page too deep is a 400.
// The readings are generated in SQL (30 days of one tag at a reading every 10 s), not through the API.
import assert from 'node:assert/strict'
import { rmSync } from 'node:fs'
import type { Agent } from 'node:http'
import { after, before, describe, it } from 'node:test'
import { sql } from 'kysely'
import { loadConfig } from '../../src/config.ts'
import { openDatabase } from '../../src/db/database.ts'
import { sumUpRollups } from '../../src/modules/readings/readings.repository.ts'
import { SERIES } from '../../src/modules/readings/readings.series.ts'
import { TEST_JWT_SECRET } from '../support/app.ts'
import { startPrivatePostgres, type PrivatePostgres } from './support/servers.ts'
import { call, keepAliveAgent, serviceEnv, startService, type ServiceProcess } from './support/service.ts'
import { farmHeaders, seedFarm, type Farm, type StoreEnv } from './support/farm.ts'
import { scratchDir } from './support/scratch.ts'

const DAY_MS = 86_400_000
const READING_EVERY_MS = 10_000
const TREATMENTS = 200_000
const MAC = 'AA:BB:CC:00:00:01'

/** 30 days of one tag's readings and, with `treatments`, that many treatments of the animal; returns nothing. */
async function seedExpensiveData(store: StoreEnv, farm: Farm, treatments = 0): Promise<void> {
  const config = loadConfig({ LOG_LEVEL: 'silent', JWT_SECRET: TEST_JWT_SECRET, EMBEDDED_FSYNC: 'off', ...store })
  const database = await openDatabase(config)
  try {
    const now = Date.now()
    await sql`insert into animals (uid, id, mac, sex, t) values (${farm.uid}, 1, ${MAC}, 'female', ${now})`.execute(
      database.withoutTimeouts,
    )
    await sql`
      insert into animal_sensor_readings (uid, mac, t, c, x, y, z)
      select ${farm.uid}, ${MAC}, ${now}::bigint - g * ${READING_EVERY_MS}::bigint, 38 + (g % 13) * 0.1, 0.1, 0.2, 1
      from generate_series(0, ${(30 * DAY_MS) / READING_EVERY_MS - 1}::bigint) g`.execute(database.withoutTimeouts)
    await sumUpRollups(database.withoutTimeouts, SERIES.sensordata, farm.uid, MAC)
    if (treatments > 0) {
      await sql`
        insert into treatments (uid, id, animal_id, t, medicine, diagnose, custom_name, comment, treatment_amount,
          treatment_count, treatment_interval, start_date, start_date_seconds, phone_history)
        select ${farm.uid}, g, 1, ${now}::bigint - g, 'Amoxicillin', 'Lameness', 'Course', md5(g::text), 3, 1, 24,
          '2026-01-01', 1767225600, '[]'::jsonb
        from generate_series(1, ${treatments}::bigint) g`.execute(database.withoutTimeouts)
      await sql`analyze`.execute(database.withoutTimeouts)
    }
  } finally {
    await database.close()
  }
}

/** Calls `path` every 20 ms until `stop` resolves; returns each answer's status and time. */
async function poll(
  agent: Agent,
  service: ServiceProcess,
  path: string,
  headers: Record<string, string>,
  stop: Promise<unknown>,
) {
  const answers: { status: number; ms: number }[] = []
  let done = false
  void stop.finally(() => (done = true))
  while (!done) {
    const res = await call(agent, service.port, 'GET', path, { headers, timeoutMs: 60_000 })
    answers.push({ status: res.status, ms: res.ms })
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  return answers
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0
}
const p = (answers: { ms: number }[], at: number) =>
  Math.round(
    percentile(
      answers.map((a) => a.ms),
      at,
    ),
  )
const summary = (answers: { ms: number }[]) =>
  `${answers.length} answers, median ${p(answers, 50)} ms, p95 ${p(answers, 95)} ms, ` +
  `max ${Math.round(Math.max(...answers.map((a) => a.ms)))} ms`

/** Every answer a 200, and 95 % of them within `ms`. */
function assertAnsweredWithin(answers: { status: number; ms: number }[], ms: number) {
  assert.ok(
    answers.every((a) => a.status === 200),
    `statuses ${[...new Set(answers.map((a) => a.status))].join(', ')}`,
  )
  assert.ok(
    percentile(
      answers.map((a) => a.ms),
      95,
    ) <= ms,
    summary(answers),
  )
}

function assertTooMany(res: { status: number; headers: Record<string, unknown>; body: any }) {
  assert.equal(res.status, 429, JSON.stringify(res.body))
  assert.equal(res.headers['retry-after'], '1')
  assert.equal(res.body.success, false)
  assert.match(res.body.error, /^Too many expensive requests at once: at most 2 per caller/)
}

describe('one caller cannot take the service from everyone', () => {
  let postgres: PrivatePostgres
  const dirs: string[] = []
  before(async () => {
    postgres = await startPrivatePostgres()
  })
  after(() => {
    postgres?.cleanup()
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
  })

  it('embedded: /health answers within 100 ms while one caller reads 10,000-row pages, 8 at once', async () => {
    const dir = scratchDir('expensive-embedded')
    dirs.push(dir)
    const store = { DATA_DIR: dir }
    const farm = await seedFarm(store)
    const other = await seedFarm(store)
    await seedExpensiveData(store, farm)
    const service = await startService(serviceEnv(store))
    const agent = keepAliveAgent(16)
    try {
      const headers = await farmHeaders(agent, service, farm)
      const otherHeaders = await farmHeaders(agent, service, other)
      const otherRead = `/api/v1/users/${other.uid}/animals?limit=10`
      for (let i = 0; i < 3; i++) await call(agent, service.port, 'GET', otherRead, { headers: otherHeaders })
      const analytics = `/api/v1/users/${farm.uid}/animals/${MAC}/sensordata/analytics?timeRange=30d`
      const first = await call(agent, service.port, 'GET', analytics, { headers, timeoutMs: 60_000 })
      assert.equal(first.status, 200, JSON.stringify(first.body))
      // The window ends now: the oldest readings leave it while the test runs.
      assert.ok(first.body.data.dataPointsCount > (29 * DAY_MS) / READING_EVERY_MS)

      // Analytics read hourly rollups and end in milliseconds; the load is 8 pages of 10,000 raw readings at once.
      const longPage = `/api/v1/users/${farm.uid}/animals/${MAC}/sensordata?limit=10000`
      const burst = () =>
        Promise.all(
          Array.from({ length: 8 }, () => call(agent, service.port, 'GET', longPage, { headers, timeoutMs: 60_000 })),
        )
      // Ten bursts one after the other, so that the cheap reads meet the pages many times.
      const load = (async () => {
        const all = []
        for (let round = 0; round < 10; round++) all.push(...(await burst()))
        return all
      })()
      const [health, cheap] = await Promise.all([
        poll(agent, service, '/api/v1/health', {}, load),
        poll(agent, service, otherRead, otherHeaders, load),
      ])
      const answers = await load
      const served = answers.filter((a) => a.status === 200)
      console.log(
        `  10,000-row pages: ${served.length} answered (${summary(served)}), ${answers.length - served.length} refused with 429`,
      )
      console.log(`  /health meanwhile: ${summary(health)}`)
      console.log(`  the other farm's cheap reads meanwhile: ${summary(cheap)}`)
      // Their statements go before the pages', which come in short statements (docs/runtime.md); the bound here is
      // the "never a hang"; the figures are in docs/performance.md.
      assertAnsweredWithin(cheap, 1000)
      assertAnsweredWithin(health, 100)
      // Two at once per caller; the others are told to come back at once, before they reach the store. How many
      // find two still running depends on when each ends (test/http/expensive-requests.test.ts holds them to count).
      assert.ok(answers.filter((a) => a.status === 200).length >= 2)
      assert.ok(answers.some((a) => a.status !== 200))
      for (const refused of answers.filter((a) => a.status !== 200)) assertTooMany(refused)
    } finally {
      service.child.kill('SIGTERM')
      await service.exited
      agent.destroy()
    }
  })

  it("PostgreSQL: 40 expensive requests from one caller leave another farm's cheap reads within ~100 ms, never a 503", async () => {
    await postgres.query('CREATE DATABASE expensive')
    const store = { DATABASE_URL: postgres.url('expensive') }
    const heavy = await seedFarm(store)
    const other = await seedFarm(store)
    await seedExpensiveData(store, heavy, TREATMENTS)
    const service = await startService(serviceEnv(store))
    const agent = keepAliveAgent(64)
    try {
      const heavyHeaders = await farmHeaders(agent, service, heavy)
      const otherHeaders = await farmHeaders(agent, service, other)
      const base = `/api/v1/users/${heavy.uid}`
      // A page past the bound is refused at once, and says where the bound is.
      const deep = await call(agent, service.port, 'GET', `${base}/treatments?page=1000000&sortBy=Comment`, {
        headers: heavyHeaders,
      })
      assert.equal(deep.status, 400)
      assert.match(deep.body.details[0].message, /at most 10000 items .* the deepest page is 1001/)
      const firstPage = await call(agent, service.port, 'GET', `${base}/treatments?sortBy=Comment&limit=100`, {
        headers: heavyHeaders,
      })
      assert.equal(firstPage.status, 200)
      assert.equal(firstPage.body.pagination.total, TREATMENTS)
      assert.match(String(firstPage.headers.link), /page=101>; rel="last"/)

      // Warm: each route's schemas (compiled on a process's first request of the route, docs/runtime.md), the
      // other farm's caller and a connection for it.
      const analytics = await call(
        agent,
        service.port,
        'GET',
        `${base}/animals/${MAC}/sensordata/analytics?timeRange=30d`,
        {
          headers: heavyHeaders,
          timeoutMs: 60_000,
        },
      )
      assert.equal(analytics.status, 200)
      for (let i = 0; i < 3; i++)
        await call(agent, service.port, 'GET', `/api/v1/users/${other.uid}/animals?limit=10`, { headers: otherHeaders })
      const expensive = [
        ...Array.from({ length: 20 }, () => `${base}/animals/${MAC}/sensordata/analytics?timeRange=30d`),
        ...Array.from({ length: 20 }, (_, i) => `${base}/treatments?page=${50 + i}&limit=100&sortBy=Comment`),
      ]
      const burst = () =>
        Promise.all(
          expensive.map((path) => call(agent, service.port, 'GET', path, { headers: heavyHeaders, timeoutMs: 60_000 })),
        )
      // A first burst opens the sockets and warms the refusal's code; the cheap reads are measured beside the second.
      await burst()
      const load = burst()
      const cheap = await poll(agent, service, `/api/v1/users/${other.uid}/animals?limit=10`, otherHeaders, load)
      const answers = await load
      const statuses = answers.map((a) => a.status)
      console.log(
        `  40 expensive: ${statuses.filter((s) => s === 200).length} answered, ${statuses.filter((s) => s === 429).length} refused with 429`,
      )
      console.log(`  the other farm's cheap reads meanwhile: ${summary(cheap)}`)
      // Without the bound the cheap reads waited up to 3.4 s behind the pool. Since analytics read rollups they end in
      // milliseconds and free their places for the sorted deep pages, whose sorts take the 2 cores: one cheap read in
      // about ten then waits (docs/performance.md). The bound keeps the 5 s and the 503 of the issue far away.
      assertAnsweredWithin(cheap, 1000)
      assert.ok(
        statuses.every((s) => s === 200 || s === 429),
        `statuses ${[...new Set(statuses)].join(', ')}`,
      )
      assert.ok(statuses.filter((s) => s === 200).length >= 2)
      for (const refused of answers.filter((a) => a.status === 429)) assertTooMany(refused)
      assert.doesNotMatch(service.output(), /store unavailable/)
    } finally {
      service.child.kill('SIGTERM')
      await service.exited
      agent.destroy()
    }
  })
})
