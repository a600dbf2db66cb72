// POST /tokens/verify-id-token against a local identity provider: a JWKS served on loopback.
import assert from 'node:assert/strict'
import { createServer, type Server } from 'node:http'
import { after, before, describe, it } from 'node:test'
import { SignJWT, exportJWK, generateKeyPair } from 'jose'
import { createTestApp, type TestContext } from '../support/app.ts'
import { createUser } from '../support/fixtures.ts'

const ISSUER = 'https://idp.example'
const AUDIENCE = 'livestock-api-client'

let idp: Server
let jwksUrl: string
type PrivateKey = Awaited<ReturnType<typeof generateKeyPair>>['privateKey']
let privateKey: PrivateKey
let ctx: TestContext
let unconfigured: TestContext

before(async () => {
  const keys = await generateKeyPair('RS256')
  privateKey = keys.privateKey
  const jwk = { ...(await exportJWK(keys.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' }
  idp = createServer((_req, res) => {
    res.setHeader('content-type', 'application/json')
    res.end(JSON.stringify({ keys: [jwk] }))
  })
  await new Promise<void>((resolve) => idp.listen(0, '127.0.0.1', resolve))
  const address = idp.address()
  assert.ok(address && typeof address === 'object')
  jwksUrl = `http://127.0.0.1:${address.port}/jwks.json`
  ctx = await createTestApp({ env: { OIDC_ISSUER: ISSUER, OIDC_JWKS_URL: jwksUrl, OIDC_AUDIENCE: AUDIENCE } })
  // The same store: the app without OIDC differs in configuration only.
  unconfigured = await createTestApp({ store: ctx })
})
after(async () => {
  await unconfigured.close()
  await ctx.close()
  idp.close()
})

function idToken(
  claims: Record<string, unknown>,
  options: { audience?: string; issuer?: string; expiresIn?: string; key?: PrivateKey } = {},
) {
  return new SignJWT({ email_verified: true, ...claims })
    .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
    .setIssuer(options.issuer ?? ISSUER)
    .setAudience(options.audience ?? AUDIENCE)
    .setSubject('idp-subject-1')
    .setIssuedAt()
    .setExpirationTime(options.expiresIn ?? '5m')
    .sign(options.key ?? privateKey)
}

const verify = (app: TestContext, payload: unknown) =>
  app.app.inject({ method: 'POST', url: '/api/v1/tokens/verify-id-token', payload: payload as object })

describe('POST /tokens/verify-id-token', () => {
  it('returns the user whose e-mail the verified token carries', async () => {
    const user = await createUser(ctx)
    const res = await verify(ctx, { idToken: await idToken({ email: user.email.toUpperCase() }) })
    assert.equal(res.statusCode, 200, res.body)
    assert.equal(res.json().data.user.Uid, user.uid)
    assert.equal(res.json().data.user.Email, user.email)
    assert.equal(res.json().data.user.password_hash, undefined)
  })

  it('refuses a token for another audience, another issuer, another key, or expired', async () => {
    const user = await createUser(ctx)
    const other = await generateKeyPair('RS256')
    const cases = [
      [await idToken({ email: user.email }, { audience: 'someone-else' }), 'Invalid token'],
      [await idToken({ email: user.email }, { issuer: 'https://evil.example' }), 'Invalid token'],
      [await idToken({ email: user.email }, { key: other.privateKey }), 'Invalid token'],
      [await idToken({ email: user.email }, { expiresIn: '-1m' }), 'Token has expired'],
      [await idToken({ email: user.email, email_verified: false }), 'Invalid token'],
      ['not-a-token', 'Invalid token'],
    ] as const
    for (const [token, error] of cases) {
      const res = await verify(ctx, { idToken: token })
      assert.equal(res.statusCode, 401)
      assert.equal(res.json().error, error)
    }
  })

  it('refuses a token whose e-mail the provider does not say it verified, unless the operator opts in', async () => {
    // A provider that leaves `email_verified` out (Microsoft Entra ID, for one) may carry an e-mail its user typed
    // in: such a token returned the account of that e-mail, with its linked integrators.
    const user = await createUser(ctx)
    const unverified = await new SignJWT({ email: user.email })
      .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setSubject('idp-subject-2')
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(privateKey)
    const refused = await verify(ctx, { idToken: unverified })
    assert.equal(refused.statusCode, 401, refused.body)
    assert.equal(refused.json().error, 'Invalid token')
    const optedIn = await createTestApp({
      env: {
        OIDC_ISSUER: ISSUER,
        OIDC_JWKS_URL: jwksUrl,
        OIDC_AUDIENCE: AUDIENCE,
        OIDC_EMAIL_VERIFIED: 'optional',
      },
      store: ctx,
    })
    try {
      const res = await verify(optedIn, { idToken: unverified })
      assert.equal(res.statusCode, 200, res.body)
      assert.equal(res.json().data.user.Uid, user.uid)
      const denied = await verify(optedIn, { idToken: await idToken({ email: user.email, email_verified: false }) })
      assert.equal(denied.statusCode, 401)
    } finally {
      await optedIn.close()
    }
  })

  it('answers 404 when no user has that e-mail', async () => {
    const res = await verify(ctx, { idToken: await idToken({ email: 'stranger@farm.example' }) })
    assert.equal(res.statusCode, 404)
    assert.equal(res.json().error, 'User not found')
  })

  it('refuses bad bodies with 400', async () => {
    for (const payload of [{}, { idToken: '' }, { idToken: 7 }, { idToken: 'x', more: true }]) {
      const res = await verify(ctx, payload)
      assert.equal(res.statusCode, 400)
      assert.equal(res.json().error, 'Validation failed')
    }
  })

  it('answers 501 when no identity provider is configured', async () => {
    const res = await verify(unconfigured, { idToken: await idToken({ email: 'x@farm.example' }) })
    assert.equal(res.statusCode, 501)
    assert.equal(res.json().error, 'ID token verification is not configured on this service')
  })
})
