import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import Type from 'typebox'
import { sql } from 'kysely'
import { createTestApp, type TestContext } from '../support/app.ts'
import { DETAILS_MAX, ERROR_TEXT_MAX, Envelope, commonErrors } from '../../src/http/envelope.ts'
import { ok } from '../../src/http/envelope.ts'

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

// A probe route exercising the envelope machinery: a strict body, a coerced query, and faults on demand.
const ProbeBody = Type.Object(
  {
    count: Type.Integer({ minimum: 0 }),
    name: Type.Optional(Type.String({ minLength: 1 })),
    rows: Type.Optional(Type.Array(Type.Object({ c: Type.Number() }, { additionalProperties: false }))),
  },
  { additionalProperties: false },
)

let ctx: TestContext

before(async () => {
  ctx = await createTestApp({
    env: { BODY_LIMIT_BYTES: '2048' },
    extend: (api) => {
      api.post(
        '/probe',
        {
          schema: {
            querystring: Type.Object({ n: Type.Optional(Type.Integer({ minimum: 1, maximum: 5 })) }),
            body: ProbeBody,
            response: {
              200: Envelope(Type.Object({ count: Type.Integer(), n: Type.Optional(Type.Integer()) })),
              ...commonErrors,
            },
          },
          config: { access: 'public' },
        },
        async (req) => ok({ count: req.body.count, n: req.query.n }),
      )
      api.get('/probe/crash', { config: { access: 'public' } }, async () => {
        throw new Error('SELECT secret FROM internals WHERE boom')
      })
      api.get('/probe/db', { config: { access: 'public' } }, async () => {
        await sql`select 1`.execute(ctx.database.db)
        return ok({})
      })
    },
  })
})
after(() => ctx.close())

describe('response envelope', () => {
  it('wraps success bodies with success, data and an ISO timestamp', async () => {
    const res = await ctx.app.inject({ method: 'POST', url: '/api/v1/probe?n=3', payload: { count: 2 } })
    assert.equal(res.statusCode, 200)
    const body = res.json()
    assert.deepEqual(
      { ...body, timestamp: undefined },
      { success: true, data: { count: 2, n: 3 }, timestamp: undefined },
    )
    assert.match(body.timestamp, ISO)
  })

  it('answers GET /health with success, message, version v1 and timestamp', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/api/v1/health' })
    assert.equal(res.statusCode, 200)
    const body = res.json()
    assert.equal(body.success, true)
    assert.equal(body.version, 'v1')
    assert.equal(typeof body.message, 'string')
    assert.match(body.timestamp, ISO)
  })

  it('lists the token endpoints on GET /tokens', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/api/v1/tokens' })
    assert.equal(res.statusCode, 200)
    const body = res.json()
    assert.equal(body.success, true)
    assert.equal(body.documentation, '/api/v1/docs')
    assert.ok(body.endpoints['POST /api/v1/tokens'].body.integratorUID)
    assert.ok(body.endpoints['POST /api/v1/tokens/refresh'])
    assert.match(body.timestamp, ISO)
    const tokenRoutes = ctx.app.routeCatalog
      .filter((r) => !r.hidden && r.method !== 'HEAD' && r.url.startsWith('/api/v1/tokens/'))
      .map((r) => `${r.method} ${r.url}`)
    assert.ok(tokenRoutes.includes('GET /api/v1/tokens/usage'))
    assert.deepEqual(
      tokenRoutes.filter((route) => !(route in body.endpoints)),
      [],
      'every token endpoint is in the directory',
    )
  })
})

describe('X-Request-Id', () => {
  it('generates one when the request has none', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/api/v1/health' })
    assert.match(String(res.headers['x-request-id']), /^[0-9a-f-]{36}$/)
  })

  it('echoes a well-formed id from the request, on success and on error', async () => {
    const okRes = await ctx.app.inject({
      method: 'GET',
      url: '/api/v1/health',
      headers: { 'x-request-id': 'abc-123.X' },
    })
    assert.equal(okRes.headers['x-request-id'], 'abc-123.X')
    const errRes = await ctx.app.inject({
      method: 'GET',
      url: '/api/v1/nowhere',
      headers: { 'x-request-id': 'trace-42' },
    })
    assert.equal(errRes.headers['x-request-id'], 'trace-42')
  })

  it('replaces an id with unsafe characters instead of echoing it', async () => {
    const res = await ctx.app.inject({
      method: 'GET',
      url: '/api/v1/health',
      headers: { 'x-request-id': 'bad id\twith spaces' },
    })
    assert.notEqual(res.headers['x-request-id'], 'bad id\twith spaces')
    assert.match(String(res.headers['x-request-id']), /^[0-9a-f-]{36}$/)
  })
})

function assertErrorEnvelope(res: { statusCode: number; json: () => any }, status: number, error?: string | RegExp) {
  assert.equal(res.statusCode, status)
  const body = res.json()
  assert.equal(body.success, false)
  assert.equal(typeof body.error, 'string')
  assert.match(body.timestamp, ISO)
  assert.equal(body.data, undefined)
  if (typeof error === 'string') assert.equal(body.error, error)
  else if (error) assert.match(body.error, error)
  return body
}

describe('errors in the envelope', () => {
  it('returns 404 for an unknown route', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/api/v1/no/such/route?x=1' })
    assertErrorEnvelope(res, 404, 'Route GET /api/v1/no/such/route not found')
  })

  it('answers 405 with Allow for a path that takes other methods, 404 for a path that takes none', async () => {
    const probe = await ctx.app.inject({ method: 'GET', url: '/api/v1/probe?n=1' })
    assertErrorEnvelope(probe, 405, 'Method GET is not allowed on /api/v1/probe: it takes POST')
    assert.equal(probe.headers.allow, 'POST')
    const crash = await ctx.app.inject({ method: 'DELETE', url: '/api/v1/probe/crash' })
    assertErrorEnvelope(crash, 405, 'Method DELETE is not allowed on /api/v1/probe/crash: it takes GET, HEAD')
    // A path with parameters, as the router matches it; no token needed to learn what the OpenAPI document says.
    const animals = await ctx.app.inject({ method: 'PUT', url: '/api/v1/users/hillside-farm/animals', payload: {} })
    assertErrorEnvelope(
      animals,
      405,
      /^Method PUT is not allowed on \/api\/v1\/users\/hillside-farm\/animals: it takes /,
    )
    assert.deepEqual(
      String(animals.headers.allow)
        .split(', ')
        .filter((m) => m === 'GET' || m === 'POST'),
      ['GET', 'POST'],
    )
    const health = await ctx.app.inject({ method: 'DELETE', url: '/api/v1/health' })
    assertErrorEnvelope(health, 405, 'Method DELETE is not allowed on /api/v1/health: it takes GET, HEAD')
    // No trailing slash folded, as the router does not fold it.
    assertErrorEnvelope(await ctx.app.inject({ method: 'GET', url: '/api/v1/probe/crash/' }), 404)
  })

  it('keeps error texts and details to the lengths the OpenAPI document states, whatever the request held', async () => {
    const long = 'x'.repeat(1500) // this file's body limit is 2,048 bytes
    const missing = assertErrorEnvelope(await ctx.app.inject({ method: 'GET', url: `/api/v1/no/${long}` }), 404)
    assert.equal(missing.error.length, ERROR_TEXT_MAX)
    assert.match(missing.error, /^Route GET \/api\/v1\/no\/x+…$/)
    const unknown = assertErrorEnvelope(
      await ctx.app.inject({ method: 'POST', url: '/api/v1/probe', payload: { count: 1, [long]: true } }),
      400,
      'Validation failed',
    )
    assert.equal(unknown.details[0].field.length, ERROR_TEXT_MAX)
    assert.ok(unknown.details[0].field.startsWith('xxxx'))
    const many = Object.fromEntries(Array.from({ length: 80 }, (_, i) => [`extra${i}`, true]))
    const crowded = assertErrorEnvelope(
      await ctx.app.inject({ method: 'POST', url: '/api/v1/probe', payload: { count: 1, ...many } }),
      400,
      'Validation failed',
    )
    assert.equal(crowded.details.length, DETAILS_MAX)
  })

  it('returns 400 Validation failed with details for a missing required field', async () => {
    const res = await ctx.app.inject({ method: 'POST', url: '/api/v1/probe', payload: {} })
    const body = assertErrorEnvelope(res, 400, 'Validation failed')
    assert.deepEqual(body.details, [{ field: 'count', message: 'is required' }])
  })

  it('does not coerce "5" into a number in a body', async () => {
    const res = await ctx.app.inject({ method: 'POST', url: '/api/v1/probe', payload: { count: '5' } })
    const body = assertErrorEnvelope(res, 400, 'Validation failed')
    assert.equal(body.details[0].field, 'count')
  })

  it('coerces query strings per schema and checks their bounds', async () => {
    const good = await ctx.app.inject({ method: 'POST', url: '/api/v1/probe?n=5', payload: { count: 1 } })
    assert.equal(good.json().data.n, 5)
    const bad = await ctx.app.inject({ method: 'POST', url: '/api/v1/probe?n=6', payload: { count: 1 } })
    const body = assertErrorEnvelope(bad, 400, 'Validation failed')
    assert.equal(body.details[0].field, 'query:n')
    const text = await ctx.app.inject({ method: 'POST', url: '/api/v1/probe?n=abc', payload: { count: 1 } })
    assertErrorEnvelope(text, 400, 'Validation failed')
  })

  it('refuses unknown body fields and names them', async () => {
    const res = await ctx.app.inject({ method: 'POST', url: '/api/v1/probe', payload: { count: 1, BDUser: true } })
    const body = assertErrorEnvelope(res, 400, 'Validation failed')
    assert.deepEqual(body.details, [{ field: 'BDUser', message: 'is not an allowed field' }])
  })

  it('reports the index of a bad row in an array', async () => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/probe',
      payload: { count: 1, rows: [{ c: 1 }, { c: 2 }, { c: 'x' }] },
    })
    const body = assertErrorEnvelope(res, 400, 'Validation failed')
    assert.equal(body.details[0].field, 'rows[2].c')
  })

  it('returns 400 for malformed JSON', async () => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/probe',
      headers: { 'content-type': 'application/json' },
      payload: '{"count": 1,',
    })
    assertErrorEnvelope(res, 400, 'Body is not valid JSON')
  })

  it('returns 400 for an empty JSON body', async () => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/probe',
      headers: { 'content-type': 'application/json' },
      payload: '',
    })
    assertErrorEnvelope(res, 400)
  })

  it('refuses __proto__ and constructor.prototype keys with 400', async () => {
    const proto = await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/probe',
      headers: { 'content-type': 'application/json' },
      payload: '{"count":1,"__proto__":{"isAdmin":true}}',
    })
    assertErrorEnvelope(proto, 400, /forbidden key/)
    const ctor = await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/probe',
      headers: { 'content-type': 'application/json' },
      payload: '{"count":1,"constructor":{"prototype":{"x":1}}}',
    })
    assertErrorEnvelope(ctor, 400, /forbidden key/)
  })

  it('returns 413 for a body over the size limit', async () => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/probe',
      payload: { count: 1, name: 'x'.repeat(4096) },
    })
    assertErrorEnvelope(res, 413)
  })

  it('returns 415 for a body that is not JSON', async () => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/probe',
      headers: { 'content-type': 'text/plain' },
      payload: 'count=1',
    })
    assertErrorEnvelope(res, 415)
  })

  it('returns 500 without stack or SQL for an unexpected fault', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/api/v1/probe/crash' })
    const body = assertErrorEnvelope(res, 500, 'Internal server error')
    assert.doesNotMatch(res.body, /SELECT|internals|at .*\.ts/)
    assert.equal(body.details, undefined)
  })
})
