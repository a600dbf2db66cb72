// Headers that keep a browser from misreading what the service sends: every answer says
// `X-Content-Type-Options: nosniff`, and the reference page sends a Content-Security-Policy that lets it run
// only its own script and this host's resources, and that no other site may frame it.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createTestApp, type TestContext } from '../support/app.ts'
import { bearer, createUser, userToken } from '../support/fixtures.ts'
import { docsPagePolicy } from '../../src/plugins/docs.ts'

let ctx: TestContext
before(async () => {
  ctx = await createTestApp()
})
after(() => ctx.close())

describe('X-Content-Type-Options', () => {
  it('is nosniff on answers of every kind: JSON, errors, unknown routes, the document, the page, a redirect', async () => {
    const user = await createUser(ctx)
    const token = bearer((await userToken(ctx, user.email)).accessToken)
    for (const [method, url, headers] of [
      ['GET', '/api/v1/health', {}],
      ['GET', `/api/v1/users/${user.uid}`, token],
      ['GET', `/api/v1/users/${user.uid}`, {}],
      ['GET', '/api/v1/nowhere', {}],
      ['POST', '/api/v1/tokens/login', {}],
      ['GET', '/api/v1/openapi.json', {}],
      ['GET', '/api/v1/docs/', {}],
      ['GET', '/api/v1/docs', {}],
    ] as const) {
      const res = await ctx.app.inject({ method, url, headers })
      assert.equal(res.headers['x-content-type-options'], 'nosniff', `${method} ${url} (${res.statusCode})`)
    }
  })
})

describe('the reference page', () => {
  it('sends a Content-Security-Policy: its own inline script by hash, this host only, never framed', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/api/v1/docs/' })
    assert.equal(res.statusCode, 200)
    const policy = String(res.headers['content-security-policy'])
    const directives = new Map(
      policy.split(';').map((d) => {
        const [name, ...values] = d.trim().split(/\s+/)
        return [name!, values] as const
      }),
    )
    assert.deepEqual(directives.get('frame-ancestors'), ["'none'"])
    assert.deepEqual(directives.get('default-src'), ["'self'"])
    assert.deepEqual(directives.get('object-src'), ["'none'"])
    const scripts = directives.get('script-src') ?? []
    assert.ok(!scripts.includes("'unsafe-inline'"), policy)
    assert.ok(
      scripts.some((s) => s.startsWith("'sha256-")),
      policy,
    )
    assert.equal(policy, docsPagePolicy(res.body))
  })

  it('hashes each inline script of the page and none of the scripts it loads', () => {
    const html =
      '<script src="js/scalar.js"></script><script type="text/javascript">go()</script><script>\nx\n</script>'
    const policy = docsPagePolicy(html)
    assert.match(policy, /script-src 'self' 'sha256-[A-Za-z0-9+/=]+' 'sha256-[A-Za-z0-9+/=]+';/)
    assert.doesNotMatch(docsPagePolicy('<script src="a.js"></script>'), /sha256/)
  })
})
