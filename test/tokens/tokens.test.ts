// The spec's token lifecycle, row by row, and the token endpoints' bad inputs.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createTestApp, type TestContext } from '../support/app.ts'
import { bearer, createIntegrator, createUser, integratorToken, manualClock, userToken } from '../support/fixtures.ts'
import { decodeJwt, decodeProtectedHeader } from 'jose'
import { pruneExpiredTokens } from '../../src/auth/token-store.ts'
import { updateIntegrator } from '../../src/modules/integrators/integrators.repository.ts'
import { assertError } from '../support/assertions.ts'

const clock = manualClock()
let ctx: TestContext

before(async () => {
  ctx = await createTestApp({ clock: () => clock.now })
})
after(() => ctx.close())

const post = (url: string, payload: unknown, headers: Record<string, string> = {}) =>
  ctx.app.inject({ method: 'POST', url: `/api/v1${url}`, payload: payload as object, headers })
const get = (url: string, headers: Record<string, string> = {}) =>
  ctx.app.inject({ method: 'GET', url: `/api/v1${url}`, headers })

describe('POST /tokens', () => {
  it('issues an access token for a valid, active integratorUID (lifecycle row 1)', async () => {
    const { uid } = await createIntegrator(ctx)
    const res = await post('/tokens', { integratorUID: uid })
    assert.equal(res.statusCode, 200)
    const body = res.json()
    assert.equal(body.success, true)
    assert.match(body.message, /generated/)
    assert.equal(body.data.tokenType, 'Bearer')
    assert.equal(body.data.integratorUID, uid)
    assert.equal(body.data.refreshToken, undefined)
    assert.equal(body.data.expiresAt, (Math.floor(clock.now / 1000) + 3600) * 1000)
    const payload = decodeJwt(body.data.accessToken)
    assert.equal(payload.integratorUID, uid)
    assert.equal(payload.type, 'access')
    assert.equal(typeof payload.jti, 'string')
    assert.equal((payload.exp as number) - (payload.iat as number), 3600)
    assert.deepEqual(decodeProtectedHeader(body.data.accessToken), { alg: 'HS256', typ: 'at+jwt' })
  })

  it('issues a refresh token too when refreshToken is true, and honours expiresIn', async () => {
    const { uid } = await createIntegrator(ctx)
    const res = await post('/tokens', { integratorUID: uid, refreshToken: true, expiresIn: 300 })
    assert.equal(res.statusCode, 200)
    const data = res.json().data
    assert.equal(typeof data.refreshToken, 'string')
    assert.equal(data.expiresAt, (Math.floor(clock.now / 1000) + 300) * 1000)
    assert.equal(decodeJwt(data.refreshToken).type, 'refresh')
    assert.equal(decodeProtectedHeader(data.refreshToken).typ, 'rt+jwt')
  })

  it('accepts expiresIn at both bounds and refuses just outside them', async () => {
    const { uid } = await createIntegrator(ctx)
    assert.equal((await post('/tokens', { integratorUID: uid, expiresIn: 300 })).statusCode, 200)
    assert.equal((await post('/tokens', { integratorUID: uid, expiresIn: 86400 })).statusCode, 200)
    for (const expiresIn of [299, 86401, 0, -1, 3600.5, '3600', null]) {
      const res = await post('/tokens', { integratorUID: uid, expiresIn })
      assertError(res, 400, 'Validation failed')
      assert.equal(res.json().details[0].field, 'expiresIn')
    }
  })

  it('refuses bad bodies with 400', async () => {
    assertError(await post('/tokens', {}), 400, 'Validation failed')
    assertError(await post('/tokens', { integratorUID: '' }), 400, 'Validation failed')
    assertError(await post('/tokens', { integratorUID: 42 }), 400, 'Validation failed')
    assertError(await post('/tokens', { integratorUID: 'x', refreshToken: 'yes' }), 400, 'Validation failed')
    assertError(await post('/tokens', { integratorUID: 'x', scope: 'all' }), 400, 'Validation failed')
    assertError(await post('/tokens', [1, 2]), 400, 'Validation failed')
  })

  it('gives an unknown and an inactive integratorUID the same refusal', async () => {
    const inactive = await createIntegrator(ctx, { active: false })
    assertError(await post('/tokens', { integratorUID: 'int_nobody' }), 401, 'Access denied: Invalid integratorUID')
    assertError(await post('/tokens', { integratorUID: inactive.uid }), 401, 'Access denied: Invalid integratorUID')
  })

  it('requires the client secret of an integrator that has one', async () => {
    const { uid } = await createIntegrator(ctx, { clientSecret: 's3cret-value-for-tests' })
    assertError(await post('/tokens', { integratorUID: uid }), 401, 'Access denied: Invalid integratorUID')
    assertError(
      await post('/tokens', { integratorUID: uid, clientSecret: 'wrong' }),
      401,
      'Access denied: Invalid integratorUID',
    )
    assert.equal(
      (await post('/tokens', { integratorUID: uid, clientSecret: 's3cret-value-for-tests' })).statusCode,
      200,
    )
  })
})

describe('token lifetimes (injected clock)', () => {
  it('an access token expires after expiresIn: requests fail with Token has expired (row 2)', async () => {
    const { uid } = await createIntegrator(ctx)
    const { accessToken } = await integratorToken(ctx, uid, { expiresIn: 600 })
    assert.equal((await get('/tokens/validate', bearer(accessToken))).statusCode, 200)
    clock.advance(599)
    assert.equal((await get('/tokens/validate', bearer(accessToken))).statusCode, 200)
    clock.advance(2)
    assertError(await get('/tokens/validate', bearer(accessToken)), 401, 'Token has expired')
  })

  it('an expired access token is replaced through POST /tokens/refresh (row 3)', async () => {
    const { uid } = await createIntegrator(ctx)
    const first = await integratorToken(ctx, uid, { refreshToken: true, expiresIn: 300 })
    clock.advance(301)
    assertError(await get('/tokens/validate', bearer(first.accessToken)), 401, 'Token has expired')
    const res = await post('/tokens/refresh', { refreshToken: first.refreshToken })
    assert.equal(res.statusCode, 200)
    assert.match(res.json().message, /refreshed/)
    const next = res.json().data
    assert.notEqual(next.refreshToken, first.refreshToken)
    assert.equal(next.integratorUID, uid)
    assert.equal(next.tokenType, 'Bearer')
    // the new access token keeps the lifetime the session asked for
    assert.equal(next.expiresAt, (Math.floor(clock.now / 1000) + 300) * 1000)
    assert.equal((await get('/tokens/validate', bearer(next.accessToken))).statusCode, 200)
  })

  it('a refresh token expires after 7 days (row 4)', async () => {
    const { uid } = await createIntegrator(ctx)
    const { refreshToken } = await integratorToken(ctx, uid, { refreshToken: true })
    clock.advance(604800 + 1)
    assertError(await post('/tokens/refresh', { refreshToken }), 401, 'Token has expired')
  })

  it('a refresh token still works just before its 7 days are over', async () => {
    const { uid } = await createIntegrator(ctx)
    const { refreshToken } = await integratorToken(ctx, uid, { refreshToken: true })
    clock.advance(604800 - 5)
    assert.equal((await post('/tokens/refresh', { refreshToken })).statusCode, 200)
  })
})

describe('POST /tokens/revoke (row 5)', () => {
  it('revokes the presented token and the refresh token issued with it', async () => {
    const { uid } = await createIntegrator(ctx)
    const tokens = await integratorToken(ctx, uid, { refreshToken: true })
    const res = await post('/tokens/revoke', undefined, bearer(tokens.accessToken))
    assert.equal(res.statusCode, 200)
    assert.equal(res.json().message, 'Token revoked successfully')
    assert.equal(res.json().data, undefined)
    assertError(await get('/tokens/validate', bearer(tokens.accessToken)), 401, 'Token has been revoked')
    assertError(await post('/tokens/refresh', { refreshToken: tokens.refreshToken }), 401, 'Token has been revoked')
  })

  it('leaves other tokens of the same integrator working', async () => {
    const { uid } = await createIntegrator(ctx)
    const a = await integratorToken(ctx, uid)
    const b = await integratorToken(ctx, uid)
    await post('/tokens/revoke', undefined, bearer(a.accessToken))
    assert.equal((await get('/tokens/validate', bearer(b.accessToken))).statusCode, 200)
  })

  it('requires a bearer token', async () => {
    assertError(await post('/tokens/revoke', undefined), 401, 'Authorization header is required')
  })
})

describe('refresh rotation and reuse detection', () => {
  it('refreshes return a new access token and a new refresh token (spec 9)', async () => {
    const { uid } = await createIntegrator(ctx)
    const first = await integratorToken(ctx, uid, { refreshToken: true })
    const second = (await post('/tokens/refresh', { refreshToken: first.refreshToken })).json().data
    assert.notEqual(second.accessToken, first.accessToken)
    assert.notEqual(second.refreshToken, first.refreshToken)
    // the old access token stays valid until it expires
    assert.equal((await get('/tokens/validate', bearer(first.accessToken))).statusCode, 200)
  })

  it('reusing a refresh token revokes its whole family', async () => {
    const { uid } = await createIntegrator(ctx)
    const first = await integratorToken(ctx, uid, { refreshToken: true })
    const second = (await post('/tokens/refresh', { refreshToken: first.refreshToken })).json().data
    const third = (await post('/tokens/refresh', { refreshToken: second.refreshToken })).json().data
    assertError(
      await post('/tokens/refresh', { refreshToken: first.refreshToken }),
      401,
      'Refresh token has already been used; every token of its session is now revoked',
    )
    assertError(await post('/tokens/refresh', { refreshToken: third.refreshToken }), 401, 'Token has been revoked')
    assertError(await get('/tokens/validate', bearer(third.accessToken)), 401, 'Token has been revoked')
    assertError(await get('/tokens/validate', bearer(second.accessToken)), 401, 'Token has been revoked')
  })

  it('of two parallel refreshes with one token, exactly one wins', async () => {
    const { uid } = await createIntegrator(ctx)
    const { refreshToken } = await integratorToken(ctx, uid, { refreshToken: true })
    const results = await Promise.all([
      post('/tokens/refresh', { refreshToken }),
      post('/tokens/refresh', { refreshToken }),
    ])
    const statuses = results.map((r) => r.statusCode).sort()
    assert.deepEqual(statuses, [200, 401])
  })

  it('never accepts an access token as a refresh token, nor a refresh token as a bearer', async () => {
    const { uid } = await createIntegrator(ctx)
    const tokens = await integratorToken(ctx, uid, { refreshToken: true })
    assertError(await post('/tokens/refresh', { refreshToken: tokens.accessToken }), 401, 'Invalid token')
    assertError(await get('/tokens/validate', bearer(tokens.refreshToken!)), 401, 'Invalid token')
  })

  it('refuses malformed refresh bodies', async () => {
    assertError(await post('/tokens/refresh', {}), 400, 'Validation failed')
    assertError(await post('/tokens/refresh', { refreshToken: 12 }), 400, 'Validation failed')
    assertError(await post('/tokens/refresh', { refreshToken: 'not-a-jwt' }), 401, 'Invalid token')
  })

  it('a deactivated integrator cannot refresh', async () => {
    const { uid } = await createIntegrator(ctx)
    const { refreshToken } = await integratorToken(ctx, uid, { refreshToken: true })
    await updateIntegrator(ctx.database.db, uid, { is_active: false })
    assertError(await post('/tokens/refresh', { refreshToken }), 401, 'Access denied: Invalid integratorUID')
  })
})

describe('GET /tokens/validate and /tokens/info', () => {
  it('describe an integrator token', async () => {
    const { uid } = await createIntegrator(ctx, { tier: 'starter', canWrite: true })
    const { accessToken } = await integratorToken(ctx, uid, { expiresIn: 900 })
    const validate = (await get('/tokens/validate', bearer(accessToken))).json()
    assert.equal(validate.data.valid, true)
    assert.equal(validate.data.integratorUID, uid)
    assert.deepEqual(validate.data.integrator, {
      email: `${uid}@vendor.example`,
      name: `Vendor ${uid}`,
      isActive: true,
    })
    assert.equal(validate.data.tokenType, 'access')
    assert.equal(validate.data.expiresAt, new Date((Math.floor(clock.now / 1000) + 900) * 1000).toISOString())

    const info = (await get('/tokens/info', bearer(accessToken))).json().data
    const payload = decodeJwt(accessToken)
    assert.equal(info.integratorUID, uid)
    assert.equal(info.integrator.isActive, true)
    assert.equal(info.integrator.tier, 'starter')
    assert.deepEqual(info.integrator.permissions, { canRead: true, canWrite: true, canDelete: false })
    assert.match(info.integrator.createdAt, /^\d{4}-\d{2}-\d{2}T/)
    assert.deepEqual(info.token, {
      type: 'access',
      issuedAt: new Date((payload.iat as number) * 1000).toISOString(),
      expiresAt: new Date((payload.exp as number) * 1000).toISOString(),
      jti: payload.jti,
    })
    assert.deepEqual(info.config, { accessTokenExpiry: 3600, refreshTokenExpiry: 604800 })
  })

  it('describe a user token', async () => {
    const user = await createUser(ctx)
    const { accessToken } = await userToken(ctx, user.email)
    const validate = (await get('/tokens/validate', bearer(accessToken))).json().data
    assert.equal(validate.uid, user.uid)
    assert.equal(validate.user.email, user.email)
    assert.equal(validate.integratorUID, undefined)
    const info = (await get('/tokens/info', bearer(accessToken))).json().data
    assert.equal(info.uid, user.uid)
  })
})

describe('POST /tokens/login and /tokens/logout', () => {
  it('issues a user token for the right e-mail and password (e-mail case-insensitive)', async () => {
    const user = await createUser(ctx)
    const res = await post('/tokens/login', { email: user.email.toUpperCase(), password: user.password })
    assert.equal(res.statusCode, 200)
    const data = res.json().data
    assert.equal(data.uid, user.uid)
    assert.equal(data.tokenType, 'Bearer')
    assert.equal(typeof data.refreshToken, 'string')
    const payload = decodeJwt(data.accessToken)
    assert.equal(payload.sub, user.uid)
    assert.equal(payload.kind, 'user')
    assert.equal(payload.type, 'access')
    assert.equal(payload.integratorUID, undefined)
  })

  it('gives a wrong password, an unknown e-mail and an account without password the same refusal', async () => {
    const user = await createUser(ctx)
    const noPassword = await createUser(ctx, { password: null })
    assertError(
      await post('/tokens/login', { email: user.email, password: 'wrong password' }),
      401,
      'Invalid email or password',
    )
    assertError(
      await post('/tokens/login', { email: 'nobody@farm.example', password: 'whatever1' }),
      401,
      'Invalid email or password',
    )
    assertError(
      await post('/tokens/login', { email: noPassword.email, password: 'whatever1' }),
      401,
      'Invalid email or password',
    )
  })

  it('does not reveal through its timing whether an e-mail exists', async () => {
    const user = await createUser(ctx)
    const time = async (email: string) => {
      const started = process.hrtime.bigint()
      await post('/tokens/login', { email, password: 'wrong password' })
      return Number(process.hrtime.bigint() - started) / 1e6
    }
    await time('warm-up@farm.example')
    const known: number[] = []
    const unknown: number[] = []
    for (let i = 0; i < 7; i++) {
      known.push(await time(user.email))
      unknown.push(await time(`nobody-${i}@farm.example`))
    }
    const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
    // Without the dummy hash an unknown e-mail answers in ~1 ms against ~15 ms: the ratio would be < 0.1. The band
    // is wide because a loaded machine (CI's parallel batches) moves single logins by several times.
    const ratio = median(unknown) / median(known)
    assert.ok(ratio > 0.25 && ratio < 4, `unknown/known login time ratio ${ratio.toFixed(2)}`)
  })

  it("refuses an inactive user, and an inactive user's tokens stop working", async () => {
    const user = await createUser(ctx)
    const { accessToken } = await userToken(ctx, user.email)
    await ctx.database.db.updateTable('users').set({ inactive: true }).where('uid', '=', user.uid).execute()
    await ctx.app.syncAccessChanges()
    assertError(
      await post('/tokens/login', { email: user.email, password: user.password }),
      403,
      'User account is inactive',
    )
    assertError(await get('/tokens/validate', bearer(accessToken)), 403, 'User account is inactive')
  })

  it('refuses bad login bodies', async () => {
    assertError(await post('/tokens/login', {}), 400, 'Validation failed')
    assertError(await post('/tokens/login', { email: 'a@b.c' }), 400, 'Validation failed')
    assertError(await post('/tokens/login', { email: 'a@b.c', password: 123456789 }), 400, 'Validation failed')
  })

  it('user tokens refresh too, keeping the uid shape', async () => {
    const user = await createUser(ctx)
    const { refreshToken } = await userToken(ctx, user.email)
    const res = await post('/tokens/refresh', { refreshToken })
    assert.equal(res.statusCode, 200)
    assert.equal(res.json().data.uid, user.uid)
  })

  it('logout revokes the presented token and its refresh family', async () => {
    const user = await createUser(ctx)
    const first = await userToken(ctx, user.email)
    const second = (await post('/tokens/refresh', { refreshToken: first.refreshToken })).json().data
    const other = await userToken(ctx, user.email) // another session of the same user
    const res = await post('/tokens/logout', undefined, bearer(second.accessToken))
    assert.equal(res.statusCode, 200)
    assertError(await get('/tokens/validate', bearer(second.accessToken)), 401, 'Token has been revoked')
    assertError(await get('/tokens/validate', bearer(first.accessToken)), 401, 'Token has been revoked')
    assertError(await post('/tokens/refresh', { refreshToken: second.refreshToken }), 401, 'Token has been revoked')
    assert.equal((await get('/tokens/validate', bearer(other.accessToken))).statusCode, 200)
  })

  it('logout is for user tokens: an integrator token gets 403', async () => {
    const { uid } = await createIntegrator(ctx)
    const { accessToken } = await integratorToken(ctx, uid)
    assertError(
      await post('/tokens/logout', undefined, bearer(accessToken)),
      403,
      'This endpoint requires a user token',
    )
  })
})

describe('revocations are durable and pruned', () => {
  it('deletes revocations once the revoked token would have expired anyway', async () => {
    const { uid } = await createIntegrator(ctx)
    const { accessToken } = await integratorToken(ctx, uid, { expiresIn: 300 })
    await post('/tokens/revoke', undefined, bearer(accessToken))
    const { jti } = decodeJwt(accessToken)
    const count = async () =>
      (await ctx.database.db.selectFrom('revoked_tokens').select('jti').where('jti', '=', jti!).execute()).length
    assert.equal(await count(), 1)
    await pruneExpiredTokens(ctx.database.db, clock.now)
    assert.equal(await count(), 1, 'kept while the token could still be presented')
    await pruneExpiredTokens(ctx.database.db, clock.now + 301_000)
    assert.equal(await count(), 0)
  })

  it('deletes a session (its token family) once its last refresh token has expired', async () => {
    const { uid } = await createIntegrator(ctx)
    const { refreshToken } = await integratorToken(ctx, uid, { refreshToken: true })
    const rotated = (await post('/tokens/refresh', { refreshToken })).json().data
    const families = async () =>
      (await ctx.database.db.selectFrom('token_families').select('id').where('subject_id', '=', uid).execute()).length
    assert.equal(await families(), 1)
    const refreshTtlMs = ctx.config.limits.refreshTokenTtlSeconds * 1000
    await pruneExpiredTokens(ctx.database.db, clock.now + refreshTtlMs - 1000)
    assert.equal(await families(), 1, 'kept while its refresh token can be presented')
    assert.equal((await post('/tokens/refresh', { refreshToken: rotated.refreshToken })).statusCode, 200)
    await pruneExpiredTokens(ctx.database.db, clock.now + refreshTtlMs + 1000)
    assert.equal(await families(), 0)
  })
})
