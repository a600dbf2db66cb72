// Webhook subscriptions' bounds without the operator's opt-ins: targets only on public https addresses (no SSRF), and
// redelivery of many events queued a chunk at a time as an expensive request, test messages two at a time per
// integrator. Delivery itself: webhooks.test.ts.
import assert from 'node:assert/strict'
import dns from 'node:dns/promises'
import { createServer } from 'node:http'
import { syncBuiltinESMExports } from 'node:module'
import { after, before, describe, it, mock } from 'node:test'
import { sql } from 'kysely'
import { createTestApp, type TestContext } from '../support/app.ts'
import { bearer, createIntegrator, createUser, integratorToken } from '../support/fixtures.ts'
import { assertError } from '../support/assertions.ts'

describe('webhook targets without the operator opt-in', () => {
  let strict: TestContext
  before(async () => {
    strict = await createTestApp({ env: { DELIVERY_WORKER: 'off' } })
  })
  after(async () => strict?.close())

  /** The headers of a new integrator linked to a new account. */
  async function subscriberHeaders() {
    const user = await createUser(strict)
    const integrator = await createIntegrator(strict, { linkTo: [user.uid] })
    return bearer((await integratorToken(strict, integrator.uid)).accessToken)
  }

  /** A subscription to `url` is refused: 400 on the field url. */
  async function assertUrlRefused(headers: Record<string, string>, url: string) {
    const res = await strict.app.inject({
      method: 'POST',
      url: '/api/v1/webhooks/subscriptions',
      headers,
      payload: { url },
    })
    assert.equal(res.statusCode, 400, `${url}: ${res.body}`)
    assert.equal(res.json().details[0].field, 'url')
  }

  it('accepts https to public names only', async () => {
    const headers = await subscriberHeaders()
    for (const url of [
      'http://fms.example/hook',
      'https://127.0.0.1/hook',
      'https://169.254.169.254/',
      'https://localhost/x',
      'https://[::1]/',
      // IPv4-mapped and -compatible IPv6 forms, which the URL parser writes in hex ([::ffff:7f00:1]).
      'https://[::ffff:127.0.0.1]/hook',
      'https://[::ffff:a9fe:a9fe]/latest',
      'https://[0:0:0:0:0:ffff:10.0.0.1]/',
      'https://[::127.0.0.1]/',
      // NAT64 (the well-known prefix and the local-use one) toward a private IPv4, and the old site-local range.
      'https://[64:ff9b::192.168.1.1]/hook',
      'https://[64:ff9b:1::a00:1]/hook',
      'https://[fec0::1]/hook',
      // IPv4-translated (SIIT) and 6to4 forms, carrying a private IPv4 or any.
      'https://[::ffff:0:10.0.0.1]/hook',
      'https://[::ffff:0:7f00:1]/hook',
      'https://[2002:c0a8:101::1]/hook',
      'https://[2002:5db8:d822::1]/hook',
    ])
      await assertUrlRefused(headers, url)
  })

  it('refuses the IANA special-purpose ranges that are not global unicast, and IPv4 written in other forms', async () => {
    // Teredo (2001::/32) carries an IPv4 address for a relay to reach, as 6to4 does; the rest are not public unicast.
    const headers = await subscriberHeaders()
    for (const url of [
      'https://[2001:0:4136:e378:8000:63bf:f5ff:fefe]/hook',
      'https://[2001::a00:1]/hook',
      'https://[2001:2::1]/hook',
      'https://[2001:10::1]/hook',
      'https://[100::1]/hook',
      'https://[3fff::1]/hook',
      'https://[5f00::1]/hook',
      'https://[4000::1]/hook',
      'https://[1::1]/hook',
      'https://198.51.100.7/hook',
      'https://203.0.113.7/hook',
      'https://192.88.99.1/hook',
      'https://240.0.0.1/hook',
      // IPv4 in decimal, octal, hex and short forms: the URL parser writes each dotted, and the guard reads that.
      'https://2130706433/hook',
      'https://017700000001/hook',
      'https://0x7f000001/hook',
      'https://0x7f.1/hook',
      'https://127.1/hook',
      'https://10.1/hook',
      'https://0300.0250.1.1/hook',
      'https://127.0.0.1./hook',
      'https://%31%32%37.0.0.1/hook',
    ])
      await assertUrlRefused(headers, url)
    // Public hosts in 192.0.0.0/16 outside its two special /24s (WordPress.com's 192.0.78.x) stay reachable.
    const res = await strict.app.inject({
      method: 'POST',
      url: '/api/v1/webhooks/subscriptions',
      headers,
      payload: { url: 'https://192.0.78.9/hook' },
    })
    assert.equal(res.statusCode, 201, res.body)
  })

  it('refuses a second subscription that would send an event to the same URL again (409), created or changed', async () => {
    // An integrator held up to 100 subscriptions to one URL, so that each event of its accounts was POSTed there 100 times.
    const user = await createUser(strict)
    const integrator = await createIntegrator(strict, { linkTo: [user.uid] })
    const headers = bearer((await integratorToken(strict, integrator.uid)).accessToken)
    const create = (payload: Record<string, unknown>) =>
      strict.app.inject({ method: 'POST', url: '/api/v1/webhooks/subscriptions', headers, payload })
    const url = 'https://fms.example/hooks/livestock'
    assert.equal((await create({ url, eventTypes: ['birth-alarm'] })).statusCode, 201)
    for (const payload of [
      { url },
      { url: 'HTTPS://FMS.Example:443/hooks/livestock#again', eventTypes: ['temperature-red', 'birth-alarm'] },
      { url, eventTypes: ['birth-alarm'], accounts: [user.uid] },
    ]) {
      const refused = await create(payload)
      assert.equal(refused.statusCode, 409, JSON.stringify(payload))
      assert.equal(refused.json().success, false)
      assert.match(
        refused.json().error,
        /^Subscription whs_\S+ already sends some of these events to this URL: change that one, or make their eventTypes or accounts disjoint$/,
      )
    }
    // Other kinds to the same URL, or the same kinds to another URL, are other deliveries.
    const others = await create({ url, eventTypes: ['temperature-red'] })
    assert.equal(others.statusCode, 201, others.body)
    assert.equal((await create({ url: `${url}/b`, eventTypes: ['birth-alarm'] })).statusCode, 201)
    const patch = (payload: Record<string, unknown>) =>
      strict.app.inject({
        method: 'PATCH',
        url: `/api/v1/webhooks/subscriptions/${others.json().data.id}`,
        headers,
        payload,
      })
    assert.equal((await patch({ eventTypes: null })).statusCode, 409)
    assert.equal((await patch({ url: `${url}/b`, eventTypes: ['birth-alarm'] })).statusCode, 409)
    assert.equal((await patch({ enabled: false })).statusCode, 200)
    const list = await strict.app.inject({ method: 'GET', url: '/api/v1/webhooks/subscriptions', headers })
    assert.equal(list.json().data.length, 3)
  })

  it('refuses a second rotation while the previous secret still signs (409), but for overlapSeconds 0', async () => {
    // Only one previous secret is kept: a second rotation inside the overlap dropped the first secret before its end.
    const user = await createUser(strict)
    const integrator = await createIntegrator(strict, { linkTo: [user.uid] })
    const headers = bearer((await integratorToken(strict, integrator.uid)).accessToken)
    const created = await strict.app.inject({
      method: 'POST',
      url: '/api/v1/webhooks/subscriptions',
      headers,
      payload: { url: 'https://fms.example/hooks/rotation' },
    })
    const { id } = created.json().data as { id: string }
    const rotate = (payload: Record<string, unknown>) =>
      strict.app.inject({ method: 'POST', url: `/api/v1/webhooks/subscriptions/${id}/rotate-secret`, headers, payload })
    const first = await rotate({ overlapSeconds: 3600 })
    assert.equal(first.statusCode, 200, first.body)
    const until = first.json().data.secretOverlapUntil as number
    const again = await rotate({})
    assertError(
      again,
      409,
      `The previous secret signs until ${new Date(until).toISOString()}: rotate again after then, or with overlapSeconds 0 to end its overlap now`,
    )
    assert.equal((await rotate({ overlapSeconds: 60 })).statusCode, 409)
    const ended = await rotate({ overlapSeconds: 0 })
    assert.equal(ended.statusCode, 200, ended.body)
    assert.equal(ended.json().data.secretOverlapUntil, null)
    assert.equal((await rotate({ overlapSeconds: 60 })).statusCode, 200)
  })

  it('answers a test message to a name that does not resolve as one to a name that resolves only inside', async () => {
    // Different answers told an integrator which internal DNS names exist. The resolver stands in for a farm's
    // internal DNS: one name with private addresses only, one that does not exist.
    const realLookup = dns.lookup
    mock.method(dns, 'lookup', async (name: string, options: object) => {
      if (name === 'intranet.example')
        return [
          { address: '10.0.0.5', family: 4 },
          { address: 'fd00::5', family: 6 },
        ]
      if (name === 'missing.example')
        throw Object.assign(new Error('getaddrinfo ENOTFOUND missing.example'), { code: 'ENOTFOUND' })
      return realLookup(name, options)
    })
    syncBuiltinESMExports()
    try {
      const user = await createUser(strict)
      const integrator = await createIntegrator(strict, { linkTo: [user.uid] })
      const headers = bearer((await integratorToken(strict, integrator.uid)).accessToken)
      const errors: string[] = []
      for (const host of ['intranet.example', 'missing.example']) {
        const created = await strict.app.inject({
          method: 'POST',
          url: '/api/v1/webhooks/subscriptions',
          headers,
          payload: { url: `https://${host}/hook` },
        })
        assert.equal(created.statusCode, 201, created.body)
        const res = await strict.app.inject({
          method: 'POST',
          url: `/api/v1/webhooks/subscriptions/${created.json().data.id}/test`,
          headers,
        })
        assert.equal(res.statusCode, 200, res.body)
        assert.equal(res.json().data.delivered, false)
        errors.push(res.json().data.error.replace(host, '<host>'))
      }
      assert.deepEqual(errors, ['<host> resolves to no public address', '<host> resolves to no public address'])
    } finally {
      mock.restoreAll()
      syncBuiltinESMExports()
    }
  })
})

describe('redelivery of many events', () => {
  let quiet: TestContext
  before(async () => {
    quiet = await createTestApp({ env: { DELIVERY_WORKER: 'off' } })
  })
  after(async () => quiet?.close())

  it('queues them a chunk a statement, and is an expensive request: one integrator runs two at once', async () => {
    // One statement queued up to 100,000 deliveries, and an integrator could run any number at once: ten
    // requests over 100,000 events kept another farm's read waiting 4.9 s (PostgreSQL) or answered it 503 (embedded).
    const user = await createUser(quiet)
    const integrator = await createIntegrator(quiet, { linkTo: [user.uid] })
    const headers = bearer((await integratorToken(quiet, integrator.uid)).accessToken)
    const events = 12_000
    await sql`
      INSERT INTO events (uid, id, event_type, severity, mac, scale, value, t, evidence, episode_key, created_at)
      SELECT ${user.uid}, g, 'temperature-red', 'critical', 'A4:C1:38:5F:2B:91', 'delta', 1, g, '{}'::jsonb,
        'redeliver-' || g, ${Date.now() - 86_400_000}
      FROM generate_series(1, ${events}) g`.execute(quiet.database.db)
    const created = await quiet.app.inject({
      method: 'POST',
      url: '/api/v1/webhooks/subscriptions',
      headers,
      payload: { url: 'https://hooks.example.com/livestock' },
    })
    assert.equal(created.statusCode, 201, created.body)
    const redeliver = () =>
      quiet.app.inject({
        method: 'POST',
        url: `/api/v1/webhooks/subscriptions/${created.json().data.id}/redeliver`,
        headers,
        payload: { since: 0 },
      })
    const one = await redeliver()
    assert.equal(one.statusCode, 200, one.body)
    assert.equal(one.json().data.queued, events)
    const rows = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM deliveries WHERE integrator_uid = ${integrator.uid} AND status = 'pending'`.execute(
      quiet.database.db,
    )
    assert.equal(rows.rows[0]?.n, events)
    const three = await Promise.all([redeliver(), redeliver(), redeliver()])
    assert.deepEqual(
      three.map((res) => res.statusCode),
      [200, 200, 429],
    )
    assertError(
      three[2],
      429,
      'Too many expensive requests at once: at most 2 per caller (analytics, statistics, long series, deep or sorted pages); retry when one has finished',
    )
  })
})

describe('test messages', () => {
  let open: TestContext
  before(async () => {
    open = await createTestApp({
      env: { DELIVERY_WORKER: 'off', WEBHOOK_ALLOW_INSECURE: 'on', WEBHOOK_TIMEOUT_MS: '1500' },
    })
  })
  after(async () => open?.close())

  it('are an expensive request: one integrator sends two at once, not one per request it makes', async () => {
    // Each test message is an outbound POST outside the delivery worker's per-endpoint bound: any number at once
    // made the service send as many to a URL the integrator chose, each held for the timeout.
    let reached = 0
    const hanging = createServer(() => reached++)
    await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve))
    try {
      const { port } = hanging.address() as { port: number }
      const user = await createUser(open)
      const integrator = await createIntegrator(open, { linkTo: [user.uid] })
      const headers = bearer((await integratorToken(open, integrator.uid)).accessToken)
      const created = await open.app.inject({
        method: 'POST',
        url: '/api/v1/webhooks/subscriptions',
        headers,
        payload: { url: `http://127.0.0.1:${port}/hook` },
      })
      assert.equal(created.statusCode, 201, created.body)
      const url = `/api/v1/webhooks/subscriptions/${created.json().data.id}/test`
      const answers = await Promise.all(
        Array.from({ length: 6 }, () => open.app.inject({ method: 'POST', url, headers })),
      )
      assert.deepEqual(answers.map((res) => res.statusCode).sort(), [200, 200, 429, 429, 429, 429])
      assert.equal(reached, 2)
    } finally {
      hanging.closeAllConnections()
      hanging.close()
    }
  })
})
