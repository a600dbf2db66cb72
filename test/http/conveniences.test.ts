// What integrators expect of HTTP beyond the spec: the RFC 6750 challenge on 401, ETag and 304 for polling,
// compression of large bodies, CORS when the operator allows origins, RFC 8288 Link headers on lists,
// unknown query parameters refused like unknown body fields, and an index at /api/v1.
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib'
import { after, before, describe, it } from 'node:test'
import { createTestApp, type TestContext } from '../support/app.ts'
import { assertError, assertInvalid } from '../support/assertions.ts'
import { addAnimal, bearer, createIntegrator, createUser, integratorToken, userToken } from '../support/fixtures.ts'
import { AUTH_ERRORS } from '../../src/auth/errors.ts'
import { noneMatch, weakEtagOf, withoutResponseTime } from '../../src/http/etag.ts'
import { paginationLinks } from '../../src/plugins/pagination-links.ts'

type Headers = Record<string, string>

let ctx: TestContext
let uid: string
let owner: Headers

before(async () => {
  ctx = await createTestApp({ env: { METRICS_TOKEN: 'metrics-token-0123456789' } })
  const user = await createUser(ctx)
  uid = user.uid
  owner = bearer((await userToken(ctx, user.email)).accessToken)
  for (let i = 1; i <= 25; i++) {
    const MAC = `AA:BB:CC:00:01:${i.toString(16).padStart(2, '0').toUpperCase()}`
    await addAnimal(ctx, uid, owner, { MAC, Sex: 'female', Group: i % 2 ? 'A' : 'B' })
  }
})
after(() => ctx.close())

const get = (url: string, headers: Headers = owner) => ctx.app.inject({ method: 'GET', url, headers })

describe('WWW-Authenticate on 401 (RFC 6750)', () => {
  const REALM = 'Bearer realm="livestock-api"'

  it('challenges without an error code when no credentials came, or another scheme', async () => {
    for (const headers of [{}, { authorization: 'Basic dXNlcjpwYXNz' }] as Headers[]) {
      const res = await get('/api/v1/tokens/validate', headers)
      assert.equal(res.statusCode, 401)
      assert.equal(res.headers['www-authenticate'], REALM)
    }
  })

  it('says invalid_request for a malformed Bearer header and invalid_token for a bad, revoked or expired token', async () => {
    const malformed = await get('/api/v1/tokens/validate', { authorization: 'Bearer' })
    assert.equal(
      malformed.headers['www-authenticate'],
      `${REALM}, error="invalid_request", error_description="${AUTH_ERRORS.invalidToken}"`,
    )
    const garbage = await get('/api/v1/tokens/validate', { authorization: 'Bearer abc.def.ghi' })
    assert.equal(
      garbage.headers['www-authenticate'],
      `${REALM}, error="invalid_token", error_description="${AUTH_ERRORS.invalidToken}"`,
    )
    const integrator = await createIntegrator(ctx)
    const token = bearer((await integratorToken(ctx, integrator.uid)).accessToken)
    await ctx.app.inject({ method: 'POST', url: '/api/v1/tokens/revoke', headers: token })
    const revoked = await get('/api/v1/tokens/validate', token)
    assertError(revoked, 401, AUTH_ERRORS.revoked)
    assert.equal(
      revoked.headers['www-authenticate'],
      `${REALM}, error="invalid_token", error_description="${AUTH_ERRORS.revoked}"`,
    )
  })

  it('challenges on the 401 of credentials in a body and of /metrics too', async () => {
    const login = await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/tokens/login',
      payload: { email: 'nobody@farm.example', password: 'wrong password' },
    })
    assert.equal(login.statusCode, 401)
    assert.equal(login.headers['www-authenticate'], REALM)
    assert.equal((await get('/metrics', {})).headers['www-authenticate'], REALM)
    assert.match(
      String((await get('/metrics', { authorization: 'Bearer wrong' })).headers['www-authenticate']),
      /error="invalid_token"/,
    )
  })

  it('sends no challenge on 2xx or 403', async () => {
    const other = await createUser(ctx)
    const res = await get(`/api/v1/users/${uid}`, bearer((await userToken(ctx, other.email)).accessToken))
    assert.equal(res.statusCode, 403)
    assert.equal(res.headers['www-authenticate'], undefined)
  })
})

describe('ETag and If-None-Match', () => {
  it('tags a GET, answers 304 with no body for a matching If-None-Match, and ignores the response time', async () => {
    const first = await get(`/api/v1/users/${uid}/animals?limit=5`)
    const etag = String(first.headers.etag)
    assert.match(etag, /^W\/"[A-Za-z0-9_-]{27}"$/)
    await new Promise((resolve) => setTimeout(resolve, 5))
    const again = await get(`/api/v1/users/${uid}/animals?limit=5`)
    assert.notEqual(again.json().timestamp, first.json().timestamp)
    assert.equal(again.headers.etag, etag)
    const notModified = await get(`/api/v1/users/${uid}/animals?limit=5`, { ...owner, 'if-none-match': etag })
    assert.equal(notModified.statusCode, 304)
    assert.equal(notModified.body, '')
    assert.equal(notModified.headers.etag, etag)
    assert.equal(
      (await get(`/api/v1/users/${uid}/animals?limit=5`, { ...owner, 'if-none-match': `"other", ${etag.slice(2)}` }))
        .statusCode,
      304,
    )
    assert.equal(
      (await get(`/api/v1/users/${uid}/animals?limit=5`, { ...owner, 'if-none-match': '*' })).statusCode,
      304,
    )
  })

  it('changes when the data changes, so a poller gets the new body', async () => {
    const before = await get(`/api/v1/users/${uid}/animals/AA:BB:CC:00:01:01`)
    await ctx.app.inject({
      method: 'PATCH',
      url: `/api/v1/users/${uid}/animals/AA:BB:CC:00:01:01`,
      headers: owner,
      payload: { Group: 'C' },
    })
    const after = await get(`/api/v1/users/${uid}/animals/AA:BB:CC:00:01:01`, {
      ...owner,
      'if-none-match': String(before.headers.etag),
    })
    assert.equal(after.statusCode, 200)
    assert.notEqual(after.headers.etag, before.headers.etag)
  })

  it('tags only successful reads', async () => {
    assert.equal((await get(`/api/v1/users/${uid}/animals/missing`)).headers.etag, undefined)
    const created = await ctx.app.inject({
      method: 'POST',
      url: `/api/v1/users/${uid}/animals`,
      headers: owner,
      payload: { MAC: 'AA:BB:CC:00:02:01', Sex: 'male' },
    })
    assert.equal(created.headers.etag, undefined)
  })

  it('leaves the health checks untagged: they describe the instant they answer', async () => {
    for (const url of ['/api/v1/health', '/api/v1/health/ready']) {
      const res = await get(url)
      assert.equal(res.statusCode, 200)
      assert.equal(res.headers.etag, undefined, url)
    }
    const head = await ctx.app.inject({ method: 'HEAD', url: `/api/v1/users/${uid}/animals?limit=5`, headers: owner })
    assert.equal(head.headers.etag, (await get(`/api/v1/users/${uid}/animals?limit=5`)).headers.etag)
  })

  it('rules: the timestamp is cut only where the envelope ends with it; weak comparison', () => {
    assert.equal(
      withoutResponseTime('{"success":true,"data":1,"timestamp":"2026-11-23T10:00:00.000Z"}'),
      '{"success":true,"data":1}',
    )
    assert.equal(withoutResponseTime('{"data":{"timestamp":"x"},"more":1}'), '{"data":{"timestamp":"x"},"more":1}')
    const body = '{"success":true,"data":[1,2],"timestamp":"2026-11-23T10:00:00.000Z"}'
    assert.equal(weakEtagOf(body), weakEtagOf('{"success":true,"data":[1,2],"timestamp":"2027-01-01T00:00:00.000Z"}'))
    assert.equal(
      weakEtagOf(body),
      `W/"${createHash('sha1').update('{"success":true,"data":[1,2]}').digest('base64url')}"`,
    )
    // A large body is hashed in pieces, to the same digest.
    const rows = JSON.stringify(
      Array.from({ length: 2000 }, (_, i) => ({ MAC: 'AA:BB:CC:00:01:01', Temperature: 38 + i / 1000 })),
    )
    assert.ok(rows.length > 16_384)
    assert.equal(
      weakEtagOf(`{"success":true,"data":${rows},"timestamp":"2026-11-23T10:00:00.000Z"}`),
      `W/"${createHash('sha1').update(`{"success":true,"data":${rows}}`).digest('base64url')}"`,
    )
    // A body given as its bytes (the database-written pages) has the same tag as the same body as a string.
    for (const text of [
      body,
      `{"success":true,"data":[{"Node":"pen é \\"7\\""}],"timestamp":"2026-11-23T10:00:00.000Z"}`,
      `{"success":true,"data":${rows},"timestamp":"2026-11-23T10:00:00.000Z"}`,
      '{"no":"timestamp"}',
    ]) {
      assert.equal(weakEtagOf(Buffer.from(text)), weakEtagOf(text), text.slice(0, 40))
    }
    assert.equal(noneMatch('W/"a", "b"', 'W/"b"'), true)
    assert.equal(noneMatch('"a"', 'W/"b"'), false)
    assert.equal(noneMatch(undefined, 'W/"b"'), false)
  })
})

describe('compression', () => {
  it('compresses a large body with br or gzip as the client accepts, and leaves small ones and other clients alone', async () => {
    const plain = await get('/api/v1/openapi.json', {})
    assert.equal(plain.headers['content-encoding'], undefined)
    const br = await get('/api/v1/openapi.json', { 'accept-encoding': 'br, gzip' })
    assert.equal(br.headers['content-encoding'], 'br')
    assert.equal(brotliDecompressSync(br.rawPayload).toString(), plain.body)
    assert.ok(
      br.rawPayload.length < plain.rawPayload.length / 5,
      `${br.rawPayload.length} of ${plain.rawPayload.length} bytes`,
    )
    const gzip = await get('/api/v1/openapi.json', { 'accept-encoding': 'gzip' })
    assert.equal(gzip.headers['content-encoding'], 'gzip')
    assert.equal(gunzipSync(gzip.rawPayload).toString(), plain.body)
    assert.match(String(gzip.headers.vary), /accept-encoding/i)
    const small = await get('/api/v1/health', { 'accept-encoding': 'br, gzip' })
    assert.equal(small.headers['content-encoding'], undefined)
  })

  it('accepts a gzip-compressed request body, and refuses an unknown coding with 415 in the envelope', async () => {
    const body = JSON.stringify({ MAC: 'AA:BB:CC:00:03:01', Sex: 'female' })
    const res = await ctx.app.inject({
      method: 'POST',
      url: `/api/v1/users/${uid}/animals`,
      headers: { ...owner, 'content-type': 'application/json', 'content-encoding': 'gzip' },
      payload: gzipSync(body),
    })
    assert.equal(res.statusCode, 201, res.body)
    const unknown = await ctx.app.inject({
      method: 'POST',
      url: `/api/v1/users/${uid}/animals`,
      headers: { ...owner, 'content-type': 'application/json', 'content-encoding': 'compress' },
      payload: body,
    })
    assert.equal(unknown.statusCode, 415)
    assert.equal(unknown.json().success, false)
  })
})

describe('Link headers on lists (RFC 8288)', () => {
  it('give first, prev, next and last, keeping the other parameters', async () => {
    const res = await get(`/api/v1/users/${uid}/animals?limit=10&page=2&sortBy=MAC&sortOrder=asc`)
    const at = (page: number) => `</api/v1/users/${uid}/animals?limit=10&page=${page}&sortBy=MAC&sortOrder=asc>`
    assert.equal(res.json().pagination.totalPages, 3)
    assert.equal(
      res.headers.link,
      `${at(1)}; rel="first", ${at(1)}; rel="prev", ${at(3)}; rel="next", ${at(3)}; rel="last"`,
    )
  })

  it('rules: no prev on the first page, no next on the last, page 1 as last of an empty list', () => {
    assert.equal(
      paginationLinks('/x?limit=5', { page: 1, limit: 5, totalPages: 2 }, 10_000),
      '</x?limit=5&page=1>; rel="first", </x?limit=5&page=2>; rel="next", </x?limit=5&page=2>; rel="last"',
    )
    assert.equal(
      paginationLinks('/x', { page: 1, limit: 5, totalPages: 0 }, 10_000),
      '</x?page=1>; rel="first", </x?page=1>; rel="last"',
    )
    assert.equal(
      paginationLinks('/x?page=9', { page: 9, limit: 5, totalPages: 2 }, 10_000),
      '</x?page=1>; rel="first", </x?page=2>; rel="prev", </x?page=2>; rel="last"',
    )
    // The deepest page the offset bound allows is the last one offered: 20 items skipped at most, 5 a page.
    assert.equal(
      paginationLinks('/x?page=4', { page: 4, limit: 5, totalPages: 100 }, 20),
      '</x?page=1>; rel="first", </x?page=3>; rel="prev", </x?page=5>; rel="next", </x?page=5>; rel="last"',
    )
    assert.equal(
      paginationLinks('/x?page=5', { page: 5, limit: 5, totalPages: 100 }, 20),
      '</x?page=1>; rel="first", </x?page=4>; rel="prev", </x?page=5>; rel="last"',
    )
  })

  it('are absent where the answer is not a page', async () => {
    assert.equal((await get(`/api/v1/users/${uid}/animals/search?group=A`)).headers.link, undefined)
  })
})

describe('unknown query parameters', () => {
  it('are a 400 naming each, like unknown body fields, on routes with and without parameters', async () => {
    assertInvalid(await get(`/api/v1/users/${uid}/animals?limt=5`), ['query:limt'])
    assertInvalid(await get('/api/v1/tokens/validate?verbose=1'), ['query:verbose'])
    const res = await get(`/api/v1/users/${uid}/animals?sortby=MAC&pagesize=3`)
    assertInvalid(res, ['query:sortby', 'query:pagesize'])
    assert.equal(res.json().details[0].message, 'is not a parameter of this endpoint')
  })

  it("leave filter[Field] alone: its field is checked against the list's fields", async () => {
    assert.equal((await get(`/api/v1/users/${uid}/animals?filter[Group]=A`)).statusCode, 200)
    assertInvalid(await get(`/api/v1/users/${uid}/animals?filter[Colour]=pink`), ['query:filter[Colour]'])
  })
})

describe('discovery', () => {
  it('GET /api/v1 links to the reference, the document and the health checks', async () => {
    const res = await get('/api/v1', {})
    assert.equal(res.statusCode, 200)
    assert.deepEqual(res.json().data.links, {
      docs: '/api/v1/docs',
      openapi: '/api/v1/openapi.json',
      health: '/api/v1/health',
      ready: '/api/v1/health/ready',
    })
  })

  it('refuses unknown query parameters on the index and the document too, as on every API route', async () => {
    assertError(await get('/api/v1?verbose=1', {}), 400, 'Validation failed', 'query:verbose')
    assertError(await get('/api/v1/openapi.json?format=yaml', {}), 400, 'Validation failed', 'query:format')
  })

  it('GET / redirects to the docs', async () => {
    const res = await get('/', {})
    assert.equal(res.statusCode, 302)
    assert.equal(res.headers.location, '/api/v1/docs')
  })
})

describe('documented response headers', () => {
  it('every operation documents the headers its responses carry', () => {
    const doc = ctx.app.swagger() as unknown as {
      paths: Record<string, Record<string, { responses: Record<string, { headers?: Record<string, unknown> }> }>>
    }
    const list = doc.paths['/api/v1/users/{userId}/animals']!
    const headersOf = (method: string, status: string) =>
      Object.keys(list[method]!.responses[status]!.headers ?? {}).sort()
    assert.deepEqual(headersOf('get', '200'), [
      'Access-Control-Allow-Origin',
      'ETag',
      'Link',
      'RateLimit',
      'RateLimit-Policy',
      'X-RateLimit-Limit',
      'X-RateLimit-Remaining',
      'X-RateLimit-Reset',
      'X-Request-Id',
    ])
    assert.ok(headersOf('post', '201').includes('Location'))
    assert.ok(headersOf('get', '429').includes('Retry-After'))
    assert.ok(headersOf('get', '503').includes('Retry-After'))
    assert.ok(headersOf('get', '401').includes('WWW-Authenticate'))
    const health = doc.paths['/api/v1/health']!.get!.responses['200']!.headers ?? {}
    // The liveness answer describes its instant: no ETag.
    assert.deepEqual(Object.keys(health).sort(), ['Access-Control-Allow-Origin', 'X-Request-Id'])
    // Each is a reference to its one declaration.
    assert.deepEqual(list['get']!.responses['200']!.headers!['ETag'], { $ref: '#/components/headers/ETag' })
    assert.equal(
      (doc as unknown as { components: { headers: Record<string, { schema: { pattern: string } }> } }).components
        .headers['ETag']!.schema.pattern,
      '^W/"[A-Za-z0-9_-]{27}"$',
    )
    for (const [path, operations] of Object.entries(doc.paths)) {
      if (!path.startsWith('/api/v1/users')) continue
      for (const [method, operation] of Object.entries(operations)) {
        for (const [status, response] of Object.entries(operation.responses)) {
          assert.ok(response.headers?.['X-Request-Id'], `${method} ${path} ${status}`)
        }
      }
    }
  })
})

describe('filter[Field] in the OpenAPI document', () => {
  it('is one deepObject parameter whose properties are the filterable fields, typed', () => {
    const doc = ctx.app.swagger() as unknown as {
      paths: Record<
        string,
        Record<
          string,
          {
            parameters: {
              name: string
              in: string
              style?: string
              explode?: boolean
              schema: { properties: Record<string, { type: string }> }
            }[]
          }
        >
      >
    }
    const filter = doc.paths['/api/v1/users/{userId}/animals']!.get!.parameters.find((p) => p.name === 'filter')!
    assert.equal(filter.in, 'query')
    assert.equal(filter.style, 'deepObject')
    assert.equal(filter.explode, true)
    assert.equal(filter.schema.properties.Group!.type, 'string')
    assert.equal(filter.schema.properties.Archived?.type ?? filter.schema.properties.Suspicious?.type, 'boolean')
  })

  it('still works as filter[Field]=value, and a bare ?filter=x is a 400', async () => {
    const filtered = (await get(`/api/v1/users/${uid}/animals?filter[Group]=A&limit=100`)).json()
    assert.ok(filtered.pagination.total >= 10 && filtered.data.every((a: { Group: string }) => a.Group === 'A'))
    assertInvalid(await get(`/api/v1/users/${uid}/animals?filter=A`), ['query:filter'])
  })
})

describe('CORS', () => {
  it('is off by default: no CORS headers, and a preflight is not answered', async () => {
    const res = await get('/api/v1/health', { origin: 'https://app.farmsoft.example' })
    assert.equal(res.headers['access-control-allow-origin'], undefined)
    const preflight = await ctx.app.inject({
      method: 'OPTIONS',
      url: '/api/v1/health',
      headers: { origin: 'https://app.farmsoft.example', 'access-control-request-method': 'GET' },
    })
    // The path exists, OPTIONS is no method of it: 405, and no header a browser would take as a CORS grant.
    assert.equal(preflight.statusCode, 405)
    assert.equal(preflight.json().success, false)
    assert.equal(preflight.headers['access-control-allow-origin'], undefined)
    assert.equal(preflight.headers['access-control-allow-methods'], undefined)
  })

  it('with CORS_ORIGINS: answers the preflight of an allowed origin and exposes the headers an app needs', async () => {
    // On the file's store: the app differs in configuration only.
    const cors = await createTestApp({
      env: { CORS_ORIGINS: 'https://app.farmsoft.example, http://localhost:5173' },
      store: ctx,
    })
    try {
      const preflight = await cors.app.inject({
        method: 'OPTIONS',
        url: `/api/v1/users/${uid}/animals`,
        headers: {
          origin: 'https://app.farmsoft.example',
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization, content-type, idempotency-key',
        },
      })
      assert.equal(preflight.statusCode, 204)
      assert.equal(preflight.headers['access-control-allow-origin'], 'https://app.farmsoft.example')
      assert.match(String(preflight.headers['access-control-allow-methods']), /POST/)
      assert.match(String(preflight.headers['access-control-allow-headers']), /Authorization/)
      assert.match(String(preflight.headers['access-control-allow-headers']), /Idempotency-Key/)
      assert.equal(preflight.headers['access-control-max-age'], '600')
      assert.equal(preflight.headers['access-control-allow-credentials'], undefined)
      const read = await cors.app.inject({
        method: 'GET',
        url: '/api/v1/health',
        headers: { origin: 'http://localhost:5173' },
      })
      assert.equal(read.headers['access-control-allow-origin'], 'http://localhost:5173')
      for (const header of ['ETag', 'Link', 'Location', 'Retry-After', 'X-RateLimit-Remaining']) {
        assert.match(String(read.headers['access-control-expose-headers']), new RegExp(header))
      }
      const stranger = await cors.app.inject({
        method: 'GET',
        url: '/api/v1/health',
        headers: { origin: 'https://evil.example' },
      })
      assert.equal(stranger.headers['access-control-allow-origin'], undefined)
    } finally {
      await cors.close()
    }
  })
})
