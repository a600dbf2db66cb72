import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createTestApp, usingRealServers, type TestContext } from '../support/app.ts'
import { addAnimal, bearer, createIntegrator, createUser, integratorToken } from '../support/fixtures.ts'
import { loadConfig } from '../../src/config.ts'

describe('GET /metrics', () => {
  // One store; the tests that need another configuration build an app of their own on it.
  // Opened to anyone by the operator's opt-in (the default is closed: see the last tests).
  let store: TestContext
  before(async () => {
    store = await createTestApp({ env: { METRICS_PUBLIC: 'on' } })
  })
  after(() => store.close())

  it('counts requests per route template with latency histograms', async () => {
    const ctx = store
    await ctx.app.inject({ method: 'GET', url: '/api/v1/health' })
    await ctx.app.inject({ method: 'GET', url: '/api/v1/health' })
    await ctx.app.inject({ method: 'GET', url: '/api/v1/unknown/abc123' })
    const res = await ctx.app.inject({ method: 'GET', url: '/metrics' })
    assert.equal(res.statusCode, 200)
    assert.match(String(res.headers['content-type']), /^text\/plain/)
    assert.match(res.body, /http_requests_total\{method="GET",route="\/api\/v1\/health",status_code="200"\} 2/)
    assert.match(
      res.body,
      /http_request_duration_seconds_bucket\{le="0.005",method="GET",route="\/api\/v1\/health",status_code="200"\}/,
    )
    // unmatched URLs share one label so they cannot blow up cardinality
    assert.match(res.body, /route="unmatched",status_code="404"/)
    assert.doesNotMatch(res.body, /abc123/)
  })

  it('counts rows ingested by path and kind, refusals by limit, and (on PostgreSQL) the pool', async () => {
    const ctx = await createTestApp({ env: { RATE_LIMIT_IP_MAX: '3', METRICS_PUBLIC: 'on' }, store })
    try {
      const user = await createUser(ctx)
      const integrator = await createIntegrator(ctx, { canWrite: true, linkTo: [user.uid] })
      const headers = bearer((await integratorToken(ctx, integrator.uid)).accessToken)
      const mac = 'AA:BB:CC:00:09:01'
      await addAnimal(ctx, user.uid, headers, { MAC: mac, Sex: 'female' })
      const t = Date.now() - 60_000
      const ingest = await ctx.app.inject({
        method: 'POST',
        url: `/api/v1/users/${user.uid}/animals/${mac}/sensordata`,
        headers,
        payload: {
          readings: [
            { t, c: 38.6, x: 0, y: 0, z: 1 },
            { t: t + 1000, c: 38.7, x: 0, y: 0, z: 1 },
          ],
        },
      })
      assert.equal(ingest.statusCode, 200, ingest.body)
      for (let i = 0; i < 2; i++) await ctx.app.inject({ method: 'GET', url: '/api/v1/tokens/validate', headers })
      const body = (await ctx.app.inject({ method: 'GET', url: '/metrics' })).body
      assert.match(body, /ingested_readings_total\{via="http",kind="sensordata"\} 2/)
      assert.match(body, /rate_limit_refusals_total\{limit="ip"\} [1-9]/)
      if (usingRealServers) assert.match(body, /db_pool_connections\{state="total"\} \d+/)
      else assert.doesNotMatch(body, /db_pool_connections/)
    } finally {
      await ctx.close()
    }
  })

  it('requires the bearer METRICS_TOKEN when one is configured', async () => {
    const ctx = await createTestApp({ env: { METRICS_TOKEN: 'scrape-me-please' }, store })
    try {
      const none = await ctx.app.inject({ method: 'GET', url: '/metrics' })
      assert.equal(none.statusCode, 401)
      assert.equal(none.json().error, 'Invalid token')
      const wrong = await ctx.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: 'Bearer nope' } })
      assert.equal(wrong.statusCode, 401)
      const right = await ctx.app.inject({
        method: 'GET',
        url: '/metrics',
        headers: { authorization: 'Bearer scrape-me-please' },
      })
      assert.equal(right.statusCode, 200)
    } finally {
      await ctx.close()
    }
  })
  it('is closed by default: 404 to every caller, with or without a token', async () => {
    const ctx = await createTestApp({ store })
    try {
      const user = await createUser(ctx)
      const integrator = await createIntegrator(ctx, { linkTo: [user.uid] })
      const callers = [{}, bearer((await integratorToken(ctx, integrator.uid)).accessToken), bearer('anything')]
      for (const headers of callers) {
        const res = await ctx.app.inject({ method: 'GET', url: '/metrics', headers })
        assert.equal(res.statusCode, 404)
        assert.equal(res.json().error, 'Metrics are not enabled')
        assert.doesNotMatch(res.body, /http_requests_total/)
      }
    } finally {
      await ctx.close()
    }
  })

  it('labels every series with its worker under serve --workers N, whose scrapes reach any one worker', async () => {
    const ctx = await createTestApp({ env: { METRICS_PUBLIC: 'on', LIVESTOCK_WORKER_INDEX: '2' }, store })
    try {
      await ctx.app.inject({ method: 'GET', url: '/api/v1/health' })
      const body = (await ctx.app.inject({ method: 'GET', url: '/metrics' })).body
      assert.match(body, /^http_requests_total\{[^}]*route="\/api\/v1\/health"[^}]*worker="2"[^}]*\} 1$/m)
      assert.match(body, /^process_resident_memory_bytes\{worker="2"\} \d+$/m)
      const series = body.split('\n').filter((l) => l !== '' && !l.startsWith('#'))
      assert.deepEqual(
        series.filter((l) => !l.includes('worker="2"')),
        [],
      )
    } finally {
      await ctx.close()
    }
  })

  it('refuses a METRICS_TOKEN shorter than 16 characters', () => {
    assert.throws(() => loadConfig({ METRICS_TOKEN: 'secret' }), /METRICS_TOKEN must be at least 16 characters/)
  })

  it('refuses METRICS_TOKEN and METRICS_PUBLIC=on together', async () => {
    await assert.rejects(
      createTestApp({ env: { METRICS_TOKEN: 'scrape-me-please', METRICS_PUBLIC: 'on' }, store }),
      /METRICS_TOKEN and METRICS_PUBLIC=on contradict each other/,
    )
  })
})
