import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createTestApp, type TestContext } from '../support/app.ts'
import {
  PASSWORD,
  bearer,
  createIntegrator,
  createUser,
  integratorToken,
  uniqueId,
  userToken,
} from '../support/fixtures.ts'
import { findUserByUid } from '../../src/modules/users/users.repository.ts'
import { assertError, assertInvalid } from '../support/assertions.ts'

let ctx: TestContext
let bdToken: string

before(async () => {
  ctx = await createTestApp()
  const bd = await createUser(ctx, { bdUser: true })
  bdToken = (await userToken(ctx, bd.email)).accessToken
})
after(() => ctx.close())

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'
function call(method: Method, url: string, token?: string, payload?: unknown) {
  return ctx.app.inject({
    method,
    url: `/api/v1${url}`,
    headers: token ? bearer(token) : {},
    ...(payload !== undefined ? { payload: payload as object } : {}),
  })
}

/** Asserts a 400 Validation failed naming exactly these fields in details. */

function newUserBody(extra: Record<string, unknown> = {}) {
  const uid = uniqueId('farm')
  return { Uid: uid, Email: `${uid}@farm.example`, Name: `Farm ${uid}`, ...extra }
}

/** A user made through the API with a password, and a token of theirs. */
async function apiUser(extra: Record<string, unknown> = {}) {
  const body = newUserBody({ Password: PASSWORD, ...extra })
  const res = await call('POST', '/users', bdToken, body)
  assert.equal(res.statusCode, 201, res.body)
  const { accessToken } = await userToken(ctx, body.Email)
  return { uid: body.Uid, email: body.Email, token: accessToken }
}

describe('POST /users', () => {
  it('creates a user (201, Location) with every given field, integration flags, and a usable write-only password', async () => {
    const body = newUserBody({
      Phone: '+4915112345678',
      Language: 'de-AT',
      BDUser: false,
      Flagged: true,
      betaUser: true,
      AcmeIntegration: true,
      Password: 'a strong password',
    })
    const res = await call('POST', '/users', bdToken, body)
    assert.equal(res.statusCode, 201, res.body)
    assert.equal(res.headers.location, `/api/v1/users/${body.Uid}`)
    assert.equal(res.json().message, 'User created')
    assert.deepEqual(res.json().data, {
      Uid: body.Uid,
      Email: body.Email,
      Name: body.Name,
      Phone: '+4915112345678',
      Language: 'de-AT',
      Flagged: true,
      Inactive: false,
      BDUser: false,
      Admin: false,
      RequestDeletion: false,
      betaUser: true,
      AcmeIntegration: true,
      FCMTokens: [],
      integrators: [],
    })
    assert.ok(!res.body.includes('a strong password'), 'the password is never returned')
    assert.ok(!res.body.includes('scrypt'), 'nor its hash')
    const login = await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/tokens/login',
      payload: { email: body.Email, password: 'a strong password' },
    })
    assert.equal(login.statusCode, 200)
    assert.equal(login.json().data.uid, body.Uid)
  })

  it('creates a user without password who cannot log in', async () => {
    const body = newUserBody()
    assert.equal((await call('POST', '/users', bdToken, body)).statusCode, 201)
    const row = await findUserByUid(ctx.database.db, body.Uid)
    assert.equal(row?.password_hash, null)
    const login = await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/tokens/login',
      payload: { email: body.Email, password: 'anything at all' },
    })
    assertError(login, 401, 'Invalid email or password')
  })

  it('refuses bad input with 400 and details naming each field', async () => {
    const cases: [Record<string, unknown>, string[]][] = [
      [{}, ['Uid', 'Email', 'Name']],
      [newUserBody({ Email: 'not-an-email' }), ['Email']],
      [newUserBody({ Email: 'a@b@example.com' }), ['Email']],
      [newUserBody({ Phone: '0151 1234' }), ['Phone']],
      [newUserBody({ Phone: 4915112345678 }), ['Phone']],
      [newUserBody({ Language: 'english!' }), ['Language']],
      [newUserBody({ Uid: 'has/slash' }), ['Uid']],
      [newUserBody({ Uid: '' }), ['Uid']],
      [newUserBody({ Name: '   ' }), ['Name']],
      [newUserBody({ Name: 'x'.repeat(201) }), ['Name']],
      [newUserBody({ Flagged: 'true' }), ['Flagged']],
      [newUserBody({ Password: 'short' }), ['Password']],
      [newUserBody({ Admin: true }), ['Admin']],
      [newUserBody({ integrators: ['int_x'] }), ['integrators']],
      [newUserBody({ password_hash: 'scrypt$x' }), ['password_hash']],
      [newUserBody({ RequestDeletion: true }), ['RequestDeletion']],
      [newUserBody({ AcmeIntegration: 'yes' }), ['AcmeIntegration']],
      [newUserBody({ acmeIntegration: true }), ['acmeIntegration']],
      [newUserBody({ Uid: 'search' }), ['Uid']],
    ]
    for (const [payload, fields] of cases) assertInvalid(await call('POST', '/users', bdToken, payload), fields)
    const notJson = await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/users',
      headers: { ...bearer(bdToken), 'content-type': 'application/json' },
      payload: '{"Uid":',
    })
    assertError(notJson, 400, 'Body is not valid JSON')
  })

  it('answers 409 for a Uid or an e-mail (any case) already in use', async () => {
    const body = newUserBody()
    assert.equal((await call('POST', '/users', bdToken, body)).statusCode, 201)
    assertError(
      await call('POST', '/users', bdToken, { ...newUserBody(), Uid: body.Uid }),
      409,
      'A user with this Uid already exists',
    )
    assertError(
      await call('POST', '/users', bdToken, { ...newUserBody(), Email: body.Email.toUpperCase() }),
      409,
      'A user with this Email already exists',
    )
  })

  it('creates exactly one user when the same Uid or e-mail arrives concurrently; the others get 409, never 500', async () => {
    const uid = uniqueId('race')
    const sameUid = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        call('POST', '/users', bdToken, { Uid: uid, Email: `${uid}-${i}@farm.example`, Name: 'Race' }),
      ),
    )
    assert.deepEqual(sameUid.map((r) => r.statusCode).sort(), [201, 409, 409, 409, 409, 409, 409, 409])
    for (const res of sameUid.filter((r) => r.statusCode === 409))
      assert.equal(res.json().error, 'A user with this Uid already exists')

    const email = `${uniqueId('race')}@farm.example`
    const sameEmail = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        call('POST', '/users', bdToken, {
          Uid: `${uid}-${i}`,
          Email: i % 2 ? email : email.toUpperCase(),
          Name: 'Race',
        }),
      ),
    )
    assert.deepEqual(sameEmail.map((r) => r.statusCode).sort(), [201, 409, 409, 409, 409, 409, 409, 409])
    for (const res of sameEmail.filter((r) => r.statusCode === 409))
      assert.equal(res.json().error, 'A user with this Email already exists')
  })

  it('is refused to users without BDUser, to admins without it and to integrators', async () => {
    const plain = await createUser(ctx)
    const admin = await createUser(ctx, { admin: true })
    const integrator = await createIntegrator(ctx, { canWrite: true })
    for (const token of [
      (await userToken(ctx, plain.email)).accessToken,
      (await userToken(ctx, admin.email)).accessToken,
      (await integratorToken(ctx, integrator.uid)).accessToken,
    ]) {
      assertError(await call('POST', '/users', token, newUserBody()), 403, 'BDUser permission required')
    }
    assertError(await call('POST', '/users', undefined, newUserBody()), 401, 'Authorization header is required')
  })
})

describe('GET /users/<user_id> and /profile', () => {
  it('gives the owner every field with all linked integrators and push tokens', async () => {
    const user = await apiUser({ Language: 'en', ZetaIntegration: false })
    const a = await createIntegrator(ctx, { linkTo: [user.uid] })
    const b = await createIntegrator(ctx, { linkTo: [user.uid] })
    await call('POST', `/users/${user.uid}/push-tokens`, user.token, {
      token: 'fcm-1',
      customName: 'Barn phone',
      name: 'Pixel 8',
      email: user.email,
      rank: 2,
    })
    const res = await call('GET', `/users/${user.uid}`, user.token)
    assert.equal(res.statusCode, 200)
    const data = res.json().data
    assert.equal(data.Uid, user.uid)
    assert.equal(data.ZetaIntegration, false)
    assert.deepEqual([...data.integrators].sort(), [a.uid, b.uid].sort())
    assert.equal(data.FCMTokens.length, 1)
    assert.deepEqual(Object.keys(data.FCMTokens[0]).sort(), ['CustomName', 'Email', 'Name', 'Rank', 'Token', 't'])
    assert.equal(data.password_hash, undefined)
    assert.equal(data.Password, undefined)
  })

  it('shows a linked integrator only itself in integrators', async () => {
    const user = await apiUser()
    const other = await createIntegrator(ctx, { linkTo: [user.uid] })
    const me = await createIntegrator(ctx, { linkTo: [user.uid] })
    const { accessToken } = await integratorToken(ctx, me.uid)
    const res = await call('GET', `/users/${user.uid}`, accessToken)
    assert.equal(res.statusCode, 200)
    assert.deepEqual(res.json().data.integrators, [me.uid])
    assert.ok(!res.body.includes(other.uid))
  })

  it('is refused to other users, to an admin who is not the owner and to unlinked integrators', async () => {
    const user = await apiUser()
    const other = await createUser(ctx)
    const admin = await createUser(ctx, { admin: true })
    const unlinked = await createIntegrator(ctx)
    for (const token of [
      (await userToken(ctx, other.email)).accessToken,
      (await userToken(ctx, admin.email)).accessToken,
    ]) {
      assertError(await call('GET', `/users/${user.uid}`, token), 403, "You do not have access to this user's data")
      assertError(
        await call('GET', `/users/${user.uid}/profile`, token),
        403,
        "You do not have access to this user's data",
      )
    }
    assertError(
      await call('GET', `/users/${user.uid}`, (await integratorToken(ctx, unlinked.uid)).accessToken),
      403,
      "Integrator does not have access to this user's data",
    )
  })

  it('never reads /users/search as a user id', async () => {
    const user = await apiUser()
    assertError(await call('GET', '/users/search', user.token), 403, 'BDUser permission required')
    const res = await call('GET', '/users/search', bdToken)
    assert.equal(res.statusCode, 200)
    const { total } = await ctx.database.db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll<number>().as('total'))
      .executeTakeFirstOrThrow()
    assert.deepEqual(res.json().pagination, {
      page: 1,
      limit: 10,
      total: Number(total),
      totalPages: Math.ceil(Number(total) / 10),
    })
    assert.equal(res.json().data.length, Math.min(10, Number(total)))
  })

  it('gives the profile as Uid, Name and Language only', async () => {
    const user = await apiUser({ Language: 'fr', Phone: '+33612345678', AcmeIntegration: true })
    const res = await call('GET', `/users/${user.uid}/profile`, user.token)
    assert.equal(res.statusCode, 200)
    assert.deepEqual(res.json().data, { Uid: user.uid, Name: `Farm ${user.uid}`, Language: 'fr' })
    const bare = await apiUser()
    assert.deepEqual((await call('GET', `/users/${bare.uid}/profile`, bare.token)).json().data, {
      Uid: bare.uid,
      Name: `Farm ${bare.uid}`,
    })
  })

  it('refuses a malformed user id before looking at it: no caller owns or is linked to it (403)', async () => {
    const user = await apiUser()
    const res = await call('GET', `/users/${encodeURIComponent('a b')}`, user.token)
    assert.equal(res.statusCode, 403)
    assert.equal(res.json().error, "You do not have access to this user's data")
  })
})

describe('PUT and PATCH /users/<user_id>', () => {
  it('PUT replaces the profile: fields left out are cleared, flags replaced, Uid may be repeated', async () => {
    const user = await apiUser({ Phone: '+4915112345678', Language: 'de', betaUser: true, AcmeIntegration: true })
    const res = await call('PUT', `/users/${user.uid}`, user.token, {
      Uid: user.uid,
      Email: user.email,
      Name: 'New name',
      BetaIntegration: true,
    })
    assert.equal(res.statusCode, 200, res.body)
    const data = res.json().data
    assert.equal(data.Name, 'New name')
    assert.equal(data.Phone, undefined)
    assert.equal(data.Language, undefined)
    assert.equal(data.betaUser, undefined)
    assert.equal(data.AcmeIntegration, undefined)
    assert.equal(data.BetaIntegration, true)
    assert.deepEqual(data.integrators, [])
  })

  it('PUT refuses a different Uid and missing required fields', async () => {
    const user = await apiUser()
    assertInvalid(
      await call('PUT', `/users/${user.uid}`, user.token, { Uid: 'someone-else', Email: user.email, Name: 'x' }),
      ['Uid'],
    )
    assertInvalid(await call('PUT', `/users/${user.uid}`, user.token, { Name: 'x' }), ['Email'])
  })

  it('PATCH changes only the fields sent; null clears a field or removes a flag', async () => {
    const user = await apiUser({
      Phone: '+4915112345678',
      Language: 'de',
      AcmeIntegration: true,
      BetaIntegration: false,
    })
    const res = await call('PATCH', `/users/${user.uid}`, user.token, {
      Name: 'Renamed',
      Phone: null,
      AcmeIntegration: null,
      GammaIntegration: true,
    })
    assert.equal(res.statusCode, 200, res.body)
    const data = res.json().data
    assert.equal(data.Name, 'Renamed')
    assert.equal(data.Phone, undefined)
    assert.equal(data.Language, 'de')
    assert.equal(data.AcmeIntegration, undefined)
    assert.equal(data.BetaIntegration, false)
    assert.equal(data.GammaIntegration, true)
    assert.equal(data.Email, user.email)
  })

  it('caps an account at 50 <Vendor>Integration flags, counting what PATCH adds and removes', async () => {
    const flags = (from: number, n: number) =>
      Object.fromEntries(Array.from({ length: n }, (_, i) => [`V${from + i}Integration`, true]))
    assertInvalid(await call('POST', '/users', bdToken, newUserBody(flags(0, 51))), ['(root)'])
    const user = await apiUser(flags(0, 40))
    assertInvalid(await call('PATCH', `/users/${user.uid}`, user.token, flags(40, 11)), ['(root)'])
    assert.equal((await call('PATCH', `/users/${user.uid}`, user.token, flags(40, 10))).statusCode, 200)
    assertInvalid(await call('PATCH', `/users/${user.uid}`, user.token, { V50Integration: true }), ['(root)'])
    const swapped = await call('PATCH', `/users/${user.uid}`, user.token, { V0Integration: null, V50Integration: true })
    assert.equal(swapped.statusCode, 200)
    assert.equal(Object.keys(swapped.json().data).filter((k) => k.endsWith('Integration')).length, 50)
  })

  it('PATCH refuses an empty body, wrong types and bad formats', async () => {
    const user = await apiUser()
    assertInvalid(await call('PATCH', `/users/${user.uid}`, user.token, {}), ['(root)'])
    assertInvalid(await call('PATCH', `/users/${user.uid}`, user.token, { Name: 5 }), ['Name'])
    assertInvalid(await call('PATCH', `/users/${user.uid}`, user.token, { Email: 'nope' }), ['Email'])
    assertInvalid(await call('PATCH', `/users/${user.uid}`, user.token, { Phone: '12' }), ['Phone'])
    assertInvalid(await call('PATCH', `/users/${user.uid}`, user.token, { betaUser: 'false' }), ['betaUser'])
  })

  it('a user cannot raise their own BDUser or Admin flags, nor set integrators, push tokens, status or the password hash', async () => {
    const user = await apiUser()
    const forbiddenFields: Record<string, unknown>[] = [
      { BDUser: true },
      { Admin: true },
      { integrators: ['int_x'] },
      { FCMTokens: [] },
      { password_hash: 'scrypt$1$2$3$4$5' },
      { Password: 'a new password 1' },
      { Flagged: true },
      { Inactive: true },
      { RequestDeletion: true },
      { Uid: 'other' },
    ]
    for (const extra of forbiddenFields) {
      const field = Object.keys(extra)[0]!
      assertInvalid(await call('PATCH', `/users/${user.uid}`, user.token, { Name: 'x', ...extra }), [field])
      if (field !== 'Uid')
        assertInvalid(await call('PUT', `/users/${user.uid}`, user.token, { Email: user.email, Name: 'x', ...extra }), [
          field,
        ])
    }
    const row = await findUserByUid(ctx.database.db, user.uid)
    assert.equal(row?.bd_user, false)
    assert.equal(row?.admin, false)
    assert.equal(row?.name, `Farm ${user.uid}`)
    // Still no BDUser: creating users stays refused.
    assertError(await call('POST', '/users', user.token, newUserBody()), 403, 'BDUser permission required')
  })

  it('lets a linked integrator with write permission edit the profile but not the e-mail; read-only integrators get 403', async () => {
    const user = await apiUser()
    const writer = await createIntegrator(ctx, { canWrite: true, linkTo: [user.uid] })
    const reader = await createIntegrator(ctx, { linkTo: [user.uid] })
    const writerToken = (await integratorToken(ctx, writer.uid)).accessToken
    const res = await call('PATCH', `/users/${user.uid}`, writerToken, {
      Name: 'Set by vendor',
      VendorIntegration: true,
    })
    assert.equal(res.statusCode, 200)
    assert.deepEqual(res.json().data.integrators, [writer.uid])
    assertError(
      await call('PATCH', `/users/${user.uid}`, writerToken, { Email: 'elsewhere@vendor.example' }),
      403,
      'Only the account owner can change the e-mail address',
    )
    assertError(
      await call('PUT', `/users/${user.uid}`, writerToken, { Email: 'elsewhere@vendor.example', Name: 'x' }),
      403,
      'Only the account owner can change the e-mail address',
    )
    assert.equal(
      (await call('PUT', `/users/${user.uid}`, writerToken, { Email: user.email, Name: 'Same e-mail' })).statusCode,
      200,
    )
    const readerToken = (await integratorToken(ctx, reader.uid)).accessToken
    assertError(
      await call('PATCH', `/users/${user.uid}`, readerToken, { Name: 'x' }),
      403,
      'Integrator does not have write permission',
    )
    assertError(
      await call('PUT', `/users/${user.uid}`, readerToken, { Email: user.email, Name: 'x' }),
      403,
      'Integrator does not have write permission',
    )
  })

  it('refuses another user with 403', async () => {
    const user = await apiUser()
    const other = await apiUser()
    assertError(
      await call('PATCH', `/users/${user.uid}`, other.token, { Name: 'x' }),
      403,
      "You do not have access to this user's data",
    )
    assertError(
      await call('PUT', `/users/${user.uid}`, other.token, { Email: user.email, Name: 'x' }),
      403,
      "You do not have access to this user's data",
    )
  })
})
