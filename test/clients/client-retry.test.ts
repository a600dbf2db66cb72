// Store-independent: runs in the embedded pass of npm test only (test/run.ts).
// The client's retry policy on its own, against a scripted fetch: which requests are sent again on 429 and
// 503, how long it waits, where it stops, and what the error carries when it gives up.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  createLivestockClient,
  LivestockApiError,
  retryAfterSeconds,
  type RetryEvent,
  type RetryOptions,
} from '@livestock-api/client'

const envelope = (error: string) => JSON.stringify({ success: false, error, timestamp: new Date().toISOString() })
const ok = () =>
  new Response(
    JSON.stringify({
      success: true,
      message: 'Livestock API is running',
      version: 'v1',
      timestamp: new Date().toISOString(),
    }),
    {
      status: 200,
      headers: { 'content-type': 'application/json' },
    },
  )
const refused = (status: number, retryAfter?: string) =>
  new Response(envelope(status === 429 ? 'Rate limit exceeded' : 'Service temporarily unavailable'), {
    status,
    headers: {
      'content-type': 'application/json',
      'x-request-id': `req-${status}`,
      ...(retryAfter !== undefined ? { 'retry-after': retryAfter } : {}),
    },
  })

/** A client whose fetch answers from a script, recording each request's method and Idempotency-Key. */
function scripted(answers: (() => Response)[], retry: RetryOptions = {}) {
  const sent: string[] = []
  const retries: RetryEvent[] = []
  const client = createLivestockClient({
    baseUrl: 'http://api.test',
    retry: { ...retry, onRetry: (event) => retries.push(event) },
    fetch: async (request) => {
      sent.push(`${request.method} ${request.headers.get('idempotency-key') ?? '-'} ${await request.text()}`)
      const next = answers.shift()
      assert.ok(next, 'more requests than scripted answers')
      return next()
    },
  })
  return { client, sent, retries }
}

async function failure(promise: Promise<unknown>): Promise<LivestockApiError> {
  const err = await promise.then(
    () => assert.fail('expected a failure'),
    (e: unknown) => e,
  )
  assert.ok(err instanceof LivestockApiError)
  return err
}

describe('client retries on 429 and 503', () => {
  it('sends a GET again after a 503 with Retry-After: 0, and stops after maxRetries with the last answer as the error', async () => {
    const { client, sent, retries } = scripted([() => refused(503, '0'), () => ok()])
    assert.equal((await client.GET('/api/v1/health')).success, true)
    assert.equal(sent.length, 2)
    assert.deepEqual(
      retries.map((r) => [r.status, r.attempt, r.waitSeconds, r.fromHeader, r.requestId]),
      [[503, 1, 0, true, 'req-503']],
    )

    const endless = scripted(
      Array.from({ length: 3 }, () => () => refused(503, '0')),
      { maxRetries: 2 },
    )
    const err = await failure(endless.client.GET('/api/v1/health'))
    assert.equal(endless.sent.length, 3)
    assert.equal(err.status, 503)
    assert.equal(err.error, 'Service temporarily unavailable')
    assert.equal(err.requestId, 'req-503')
    assert.equal(err.retryAfterSeconds, 0)
  })

  it('sends a POST again only when it carries an Idempotency-Key, body and key unchanged', async () => {
    const without = scripted([() => refused(429, '0')])
    const path = { params: { path: { userId: 'farm-1' } }, body: { MAC: 'AA:BB:CC:DD:EE:01', Sex: 'female' as const } }
    const err = await failure(without.client.POST('/api/v1/users/{userId}/animals', path))
    assert.equal(err.status, 429)
    assert.equal(without.sent.length, 1)

    const key = crypto.randomUUID()
    const withKey = scripted([
      () => refused(429, '0'),
      () => refused(503, '0'),
      () => new Response(null, { status: 204 }),
    ])
    await withKey.client.POST('/api/v1/users/{userId}/animals', {
      ...path,
      params: { ...path.params, header: { 'idempotency-key': key } },
    })
    const body = JSON.stringify(path.body)
    assert.deepEqual(withKey.sent, [`POST ${key} ${body}`, `POST ${key} ${body}`, `POST ${key} ${body}`])
  })

  it('waits Retry-After seconds, and not at all beyond maxWaitSeconds or the total budget', async () => {
    const { client, retries } = scripted([() => refused(429, '1'), () => ok()])
    const started = Date.now()
    await client.GET('/api/v1/health')
    assert.ok(Date.now() - started >= 990, `waited ${Date.now() - started} ms`)
    assert.equal(retries[0]?.waitSeconds, 1)

    const quota = scripted([() => refused(429, String(14 * 3600))])
    const spent = await failure(quota.client.GET('/api/v1/health'))
    assert.equal(spent.retryAfterSeconds, 14 * 3600)
    assert.deepEqual(quota.retries, [])

    const budget = scripted([() => refused(503, '1'), () => refused(503, '1')], { maxTotalWaitSeconds: 1 })
    assert.equal((await failure(budget.client.GET('/api/v1/health'))).status, 503)
    assert.equal(budget.retries.length, 1)
  })

  it('backs off 1 s when the header is missing, and stops waiting when the request is aborted', async () => {
    const { client, retries } = scripted([() => refused(503), () => ok()])
    await client.GET('/api/v1/health')
    assert.deepEqual(
      retries.map((r) => [r.waitSeconds, r.fromHeader]),
      [[1, false]],
    )

    const aborted = scripted([() => refused(429, '20')])
    const controller = new AbortController()
    setTimeout(() => controller.abort(new Error('gave up')), 50)
    const started = Date.now()
    await assert.rejects(aborted.client.GET('/api/v1/health', { signal: controller.signal }), /gave up/)
    assert.ok(Date.now() - started < 5000)
  })

  it('turns a body that is not the envelope into an error all the same', async () => {
    const { client } = scripted([
      () => new Response('<html>Bad gateway</html>', { status: 502, statusText: 'Bad Gateway' }),
    ])
    const err = await failure(client.GET('/api/v1/health'))
    assert.equal(err.status, 502)
    assert.equal(err.error, '<html>Bad gateway</html>')
    assert.equal(err.requestId, undefined)
    assert.equal(err.request, 'GET /api/v1/health')
  })

  it('reads Retry-After as seconds or as an HTTP-date', () => {
    const now = Date.parse('2026-11-22T10:00:00Z')
    assert.equal(retryAfterSeconds('120', now), 120)
    assert.equal(retryAfterSeconds('Sun, 22 Nov 2026 10:00:30 GMT', now), 30)
    assert.equal(retryAfterSeconds('Sun, 22 Nov 2026 09:00:00 GMT', now), 0)
    assert.equal(retryAfterSeconds('soon', now), undefined)
    assert.equal(retryAfterSeconds(null, now), undefined)
  })
})
