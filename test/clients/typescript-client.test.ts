// The TypeScript client (clients/typescript) against the running service, over a real port: tokens from
// client credentials, reads of a linked account, typed errors, refresh with rotation (ahead of expiry, on a
// 401, after reuse detection ended the session), and Retry-After on a 429.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { after, before, describe, it } from 'node:test'
import {
  createLivestockClient,
  LivestockApiError,
  PUBLIC_OPERATIONS,
  type LivestockClient,
  type RetryEvent,
} from '@livestock-api/client'
import { createTestApp, type TestContext } from '../support/app.ts'
import { createIntegrator, createUser, manualClock } from '../support/fixtures.ts'
import { REUSED_REFRESH_TOKEN } from '../../src/modules/tokens/token-lifecycle.ts'

const SECRET = 'client-test-secret-0123456789abcdef'
const MAC = 'AA:BB:CC:DD:EE:01'

async function listen(ctx: TestContext): Promise<string> {
  await ctx.app.listen({ port: 0, host: '127.0.0.1' })
  return `http://127.0.0.1:${(ctx.app.server.address() as { port: number }).port}`
}

/** A fetch that records what went over the wire: method, path and status. */
function recordingFetch() {
  const calls: string[] = []
  const fetch = async (request: Request) => {
    const response = await globalThis.fetch(request)
    calls.push(`${request.method} ${new URL(request.url).pathname} ${response.status}`)
    return response
  }
  return { calls, fetch }
}

async function rejection(promise: Promise<unknown>): Promise<LivestockApiError> {
  try {
    await promise
  } catch (err) {
    assert.ok(err instanceof LivestockApiError, `expected a LivestockApiError, got ${String(err)}`)
    return err
  }
  assert.fail('expected the call to fail')
}

// One store for the file; each describe's app (its own clock or limits) is built on it, with accounts of its own.
let store: TestContext
before(async () => {
  store = await createTestApp()
})
after(() => store.close())

describe('TypeScript client against the running service', () => {
  const serverClock = manualClock()
  let ctx: TestContext
  let baseUrl: string
  let farm: { uid: string }
  let otherFarm: { uid: string }
  let integrator: { uid: string }

  before(async () => {
    ctx = await createTestApp({ clock: () => serverClock.now, store })
    baseUrl = await listen(ctx)
    farm = await createUser(ctx)
    otherFarm = await createUser(ctx)
    integrator = await createIntegrator(ctx, { tier: 'pro', canWrite: true, clientSecret: SECRET, linkTo: [farm.uid] })
  })
  after(() => ctx.close())

  const clientFor = (
    options: { clock?: () => number; fetch?: (request: Request) => Promise<Response> } = {},
  ): LivestockClient =>
    createLivestockClient({
      baseUrl,
      auth: { integratorUID: integrator.uid, clientSecret: SECRET, expiresIn: 300 },
      ...options,
    })

  it('obtains a token with the client credentials and reads the linked account: animals, sensor data, records', async () => {
    const { calls, fetch } = recordingFetch()
    const client = clientFor({ fetch })
    assert.equal(client.tokens!.current === undefined, true)

    const userId = farm.uid
    const created = await client.POST('/api/v1/users/{userId}/animals', {
      params: { path: { userId }, header: { 'idempotency-key': crypto.randomUUID() } },
      body: { MAC, Sex: 'female' },
    })
    assert.equal(created.data.MAC, MAC)
    const t = Date.now() - 60_000
    const ingested = await client.POST('/api/v1/users/{userId}/animals/{animalMac}/sensordata', {
      params: { path: { userId, animalMac: MAC } },
      body: {
        readings: [
          { t, c: 38.6, x: 0.01, y: -0.02, z: 0.98 },
          { t: t + 30_000, c: 38.7, x: 0.02, y: 0.01, z: 1.01 },
        ],
      },
    })
    assert.deepEqual(ingested.data, { received: 2, stored: 2, duplicates: 0 })
    await client.POST('/api/v1/users/{userId}/animals/{animalMac}/general-events', {
      params: { path: { userId, animalMac: MAC } },
      body: { MAC, Diagnose: 'Lameness', Description: 'Left hind leg, pen 4' },
    })

    const animals = await client.GET('/api/v1/users/{userId}/animals', {
      params: { path: { userId }, query: { sortBy: 'MAC', limit: 10 } },
    })
    assert.equal(animals.success, true)
    assert.deepEqual(
      animals.data.map((a) => a.MAC),
      [MAC],
    )
    assert.deepEqual(animals.pagination, { page: 1, limit: 10, total: 1, totalPages: 1 })
    const readings = await client.GET('/api/v1/users/{userId}/animals/{animalMac}/sensordata', {
      params: { path: { userId, animalMac: MAC } },
    })
    assert.deepEqual(readings.data.map((r) => r.c).sort(), [38.6, 38.7])
    const events = await client.GET('/api/v1/users/{userId}/animals/{animalMac}/general-events', {
      params: { path: { userId, animalMac: MAC } },
    })
    assert.deepEqual(
      events.data.map((e) => e.Diagnose),
      ['Lameness'],
    )

    // One token for all of it, with a refresh token, obtained through POST /tokens before the first call.
    assert.equal(calls.filter((c) => c.startsWith('POST /api/v1/tokens ')).length, 1)
    assert.equal(calls[0], 'POST /api/v1/tokens 200')
    assert.equal(client.tokens?.current?.subject, integrator.uid)
    assert.ok(client.tokens?.current?.refreshToken)
    // Public operations go without a token.
    const health = await createLivestockClient({ baseUrl }).GET('/api/v1/health')
    assert.equal(health.success, true)
  })

  it('throws a typed error with status, the envelope error and the request id on 403 and 404', async () => {
    const client = clientFor()
    const forbidden = await rejection(
      client.GET('/api/v1/users/{userId}/animals', {
        params: { path: { userId: otherFarm.uid } },
        headers: { 'x-request-id': 'client-test-403' },
      }),
    )
    assert.equal(forbidden.status, 403)
    assert.equal(forbidden.error, "Integrator does not have access to this user's data")
    assert.equal(forbidden.requestId, 'client-test-403')
    assert.equal(forbidden.request, 'GET /api/v1/users/{userId}/animals')
    assert.equal((forbidden.body as { success: boolean }).success, false)

    const missing = await rejection(
      client.GET('/api/v1/users/{userId}/animals/{animalId}', {
        params: { path: { userId: farm.uid, animalId: '999999' } },
      }),
    )
    assert.equal(missing.status, 404)
    assert.equal(missing.error, 'Animal not found')
    assert.match(missing.requestId ?? '', /^[0-9a-f-]{36}$/)
    assert.match(
      missing.message,
      /^GET \/api\/v1\/users\/\{userId\}\/animals\/\{animalId\}: 404 Animal not found \(request [0-9a-f-]{36}\)$/,
    )

    const invalid = await rejection(
      client.GET('/api/v1/users/{userId}/animals', { params: { path: { userId: farm.uid }, query: { limit: 1000 } } }),
    )
    assert.equal(invalid.status, 400)
    assert.equal(invalid.error, 'Validation failed')
    assert.ok(
      invalid.details?.some((d) => d.field.includes('limit')),
      JSON.stringify(invalid.details),
    )
  })

  it('refreshes with rotation: a new pair each time, the old refresh token spent', async () => {
    const client = clientFor()
    await client.GET('/api/v1/tokens/validate')
    const first = client.tokens!.current!
    const second = await client.tokens!.refresh()
    assert.notEqual(second.accessToken, first.accessToken)
    assert.notEqual(second.refreshToken, first.refreshToken)
    const validated = await client.GET('/api/v1/tokens/validate')
    assert.equal(validated.data.integratorUID, integrator.uid)

    // Two refreshes asked for at once share one rotation: never two refreshes of one token.
    const [a, b] = await Promise.all([client.tokens!.refresh(), client.tokens!.refresh()])
    assert.equal(a.refreshToken, b.refreshToken)
    assert.notEqual(a.refreshToken, second.refreshToken)
    assert.equal((await client.GET('/api/v1/tokens/validate')).data.valid, true)
  })

  it('renews ahead of expiry by refreshing, without a 401', async () => {
    const clientClock = manualClock()
    const { calls, fetch } = recordingFetch()
    const client = clientFor({ clock: () => clientClock.now, fetch })
    await client.GET('/api/v1/tokens/info')
    const first = client.tokens!.current!
    // 300 s token, 60 s margin: at 250 s the client rotates before it sends.
    clientClock.advance(250)
    serverClock.advance(250)
    await client.GET('/api/v1/tokens/info')
    assert.notEqual(client.tokens!.current!.accessToken, first.accessToken)
    assert.deepEqual(calls, [
      'POST /api/v1/tokens 200',
      'GET /api/v1/tokens/info 200',
      'POST /api/v1/tokens/refresh 200',
      'GET /api/v1/tokens/info 200',
    ])
  })

  it('refreshes and sends again when the service says the access token has expired', async () => {
    const { calls, fetch } = recordingFetch()
    const client = clientFor({ fetch }) // its clock stays put: only the service sees the token expire
    await client.GET('/api/v1/tokens/info')
    serverClock.advance(301)
    const info = await client.GET('/api/v1/tokens/info')
    assert.equal(info.data.integratorUID, integrator.uid)
    assert.deepEqual(calls, [
      'POST /api/v1/tokens 200',
      'GET /api/v1/tokens/info 200',
      'GET /api/v1/tokens/info 401',
      'POST /api/v1/tokens/refresh 200',
      'GET /api/v1/tokens/info 200',
    ])
  })

  it('falls back to the client credentials when reuse detection has ended the session', async () => {
    const { calls, fetch } = recordingFetch()
    const client = clientFor({ fetch })
    await client.GET('/api/v1/tokens/validate')
    const stolen = client.tokens!.current!.refreshToken!
    await client.tokens!.refresh()
    // Someone presents the spent refresh token: the service revokes every token of the session.
    const reuse = await globalThis.fetch(`${baseUrl}/api/v1/tokens/refresh`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ refreshToken: stolen }),
    })
    assert.equal(reuse.status, 401)
    assert.equal(((await reuse.json()) as { error: string }).error, REUSED_REFRESH_TOKEN)

    calls.length = 0
    const validated = await client.GET('/api/v1/tokens/validate')
    assert.equal(validated.data.valid, true)
    assert.deepEqual(calls, [
      'GET /api/v1/tokens/validate 401', // the access token was revoked with its session
      'POST /api/v1/tokens/refresh 401', // and so was the refresh token
      'POST /api/v1/tokens 200', // a new session from the client credentials
      'GET /api/v1/tokens/validate 200',
    ])
  })

  it('surfaces a refusal of the credentials themselves as a typed 401', async () => {
    const client = createLivestockClient({
      baseUrl,
      auth: { integratorUID: integrator.uid, clientSecret: 'not-the-secret' },
    })
    const refused = await rejection(client.GET('/api/v1/tokens/validate'))
    assert.equal(refused.status, 401)
    assert.equal(refused.error, 'Access denied: Invalid integratorUID')
    assert.equal(refused.request, 'POST /api/v1/tokens')
  })

  it('logs a user in with e-mail and password, and uses a fixed token as given', async () => {
    const user = await createUser(ctx)
    const client = createLivestockClient({ baseUrl, auth: { email: user.email, password: user.password! } })
    const own = await client.GET('/api/v1/users/{userId}', { params: { path: { userId: user.uid } } })
    assert.equal(own.data.Uid, user.uid)
    assert.equal(client.tokens?.current?.subject, user.uid)

    const fixed = createLivestockClient({ baseUrl, auth: { accessToken: client.tokens.current.accessToken } })
    assert.equal((await fixed.GET('/api/v1/tokens/validate')).data.uid, user.uid)
    await assert.rejects(fixed.tokens!.refresh(), /fixed access token/)
  })

  it('lists as public exactly the operations the OpenAPI document marks public', () => {
    const doc = ctx.app.swagger() as { paths: Record<string, Record<string, { security?: unknown[] }>> }
    const documented = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops)
        .filter(([, op]) => Array.isArray(op.security) && op.security.length === 0)
        .map(([method]) => `${method.toUpperCase()} ${path}`),
    )
    assert.deepEqual([...PUBLIC_OPERATIONS].sort(), documented.sort())
  })
})

describe('TypeScript client: Retry-After on 429', () => {
  let ctx: TestContext
  let baseUrl: string
  let farm: { uid: string }
  let integrator: { uid: string }

  before(async () => {
    // Two requests per IP per 3-second window: the third is a 429 with Retry-After of 1-3 s.
    ctx = await createTestApp({ env: { RATE_LIMIT_IP_MAX: '2', RATE_LIMIT_WINDOW_SECONDS: '3' }, store })
    baseUrl = await listen(ctx)
    farm = await createUser(ctx)
    integrator = await createIntegrator(ctx, { tier: 'pro', clientSecret: SECRET, linkTo: [farm.uid] })
  })
  after(() => ctx.close())

  const clientFor = (
    retry: { maxWaitSeconds?: number; maxRetries?: number },
    fetch?: (request: Request) => Promise<Response>,
  ) => {
    const retries: RetryEvent[] = []
    const client = createLivestockClient({
      baseUrl,
      auth: { integratorUID: integrator.uid, clientSecret: SECRET },
      retry: { ...retry, onRetry: (event) => retries.push(event) },
      ...(fetch ? { fetch } : {}),
    })
    return { client, retries }
  }

  /**
   * Spends the IP window with plain requests, so that the client's next request is refused, with at least
   * a second of the window left (Retry-After 2 or 3): the refusal cannot lapse before the client sends.
   */
  async function spendWindow() {
    for (;;) {
      const response = await globalThis.fetch(`${baseUrl}/api/v1/tokens`)
      await response.body?.cancel()
      if (response.status !== 429) continue
      const seconds = Number(response.headers.get('retry-after'))
      if (seconds >= 2) return
      await new Promise((resolve) => setTimeout(resolve, seconds * 1000))
    }
  }

  it('waits the Retry-After seconds and sends a GET again', async () => {
    const { calls, fetch } = recordingFetch()
    const { client, retries } = clientFor({}, fetch)
    await client.tokens!.refresh() // the token endpoints have a limit of their own (off here)
    await spendWindow()
    calls.length = 0
    const started = Date.now()
    const animals = await client.GET('/api/v1/users/{userId}/animals', { params: { path: { userId: farm.uid } } })
    const elapsed = Date.now() - started
    assert.equal(animals.success, true)
    assert.equal(retries.length, 1, JSON.stringify(retries))
    const [retry] = retries
    assert.equal(retry!.status, 429)
    assert.equal(retry!.fromHeader, true)
    assert.ok(retry!.waitSeconds >= 1 && retry!.waitSeconds <= 3, `Retry-After ${retry!.waitSeconds}`)
    assert.ok(elapsed >= retry!.waitSeconds * 1000 - 50, `waited ${elapsed} ms for Retry-After ${retry!.waitSeconds}`)
    assert.deepEqual(calls, [`GET /api/v1/users/${farm.uid}/animals 429`, `GET /api/v1/users/${farm.uid}/animals 200`])
  })

  it('does not send a POST without an Idempotency-Key again: the 429 surfaces with its Retry-After', async () => {
    const { client, retries } = clientFor({})
    await client.tokens!.refresh()
    await spendWindow()
    const refused = await rejection(client.POST('/api/v1/tokens/revoke'))
    assert.equal(refused.status, 429)
    assert.match(refused.error, /^Rate limit exceeded: 2 requests per/)
    assert.ok(refused.retryAfterSeconds !== undefined && refused.retryAfterSeconds >= 1)
    assert.deepEqual(retries, [])
  })

  it('does not wait longer than maxWaitSeconds: the 429 surfaces at once', async () => {
    const { client, retries } = clientFor({ maxWaitSeconds: 0.5 })
    await client.tokens!.refresh()
    await spendWindow()
    const started = Date.now()
    const refused = await rejection(
      client.GET('/api/v1/users/{userId}/animals', { params: { path: { userId: farm.uid } } }),
    )
    assert.equal(refused.status, 429)
    assert.ok(Date.now() - started < 1500, 'answered without waiting') // generous: a loaded machine answers slowly
    assert.deepEqual(retries, [])
  })
})

describe('TypeScript client example', () => {
  it('is in docs/typescript-client.md as it is in clients/typescript/examples/read-herd.ts (which lint type-checks)', () => {
    const readme = readFileSync(new URL('../../docs/typescript-client.md', import.meta.url), 'utf8')
    const marker = '`clients/typescript/examples/read-herd.ts`:\n\n```ts\n'
    const start = readme.indexOf(marker)
    assert.ok(start >= 0, 'docs/typescript-client.md names the example before its code block')
    const block = readme.slice(start + marker.length, readme.indexOf('```\n', start + marker.length))
    assert.equal(
      block,
      readFileSync(new URL('../../clients/typescript/examples/read-herd.ts', import.meta.url), 'utf8'),
    )
  })
})
