import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createTestApp, type TestContext } from '../support/app.ts'
import { bearer, createIntegrator, createUser, integratorToken, manualClock, userToken } from '../support/fixtures.ts'
import { MAX_PUSH_TOKENS, findUserByUid } from '../../src/modules/users/users.repository.ts'
import { assertError, assertInvalid } from '../support/assertions.ts'

let ctx: TestContext
const clock = manualClock(Date.UTC(2025, 0, 15, 12))

before(async () => {
  ctx = await createTestApp({ clock: () => clock.now })
})
after(() => ctx.close())

const OWNER_STATUS = 'Only the account owner can deactivate or reactivate the account'

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE'
function call(method: Method, url: string, token?: string, payload?: unknown) {
  return ctx.app.inject({
    method,
    url: `/api/v1${url}`,
    headers: token ? bearer(token) : {},
    ...(payload !== undefined ? { payload: payload as object } : {}),
  })
}

async function owner() {
  const user = await createUser(ctx)
  const tokens = await userToken(ctx, user.email)
  return { ...user, token: tokens.accessToken, refreshToken: tokens.refreshToken }
}

const entry = { token: 'fcm-token-1', customName: 'Barn phone', name: 'Pixel 8', email: 'worker@farm.example', rank: 3 }

describe('push tokens', () => {
  it('adds a token with lower-case keys and returns it with the UserPhone keys and t set by the service', async () => {
    const user = await owner()
    const res = await call('POST', `/users/${user.uid}/push-tokens`, user.token, entry)
    assert.equal(res.statusCode, 201, res.body)
    assert.equal(res.json().message, 'Push token added')
    assert.deepEqual(res.json().data, {
      Token: 'fcm-token-1',
      CustomName: 'Barn phone',
      Name: 'Pixel 8',
      Email: 'worker@farm.example',
      Rank: 3,
      t: clock.now,
    })
  })

  it('lists the tokens oldest first; registering a known token again updates its entry (200) instead of adding one', async () => {
    const user = await owner()
    await call('POST', `/users/${user.uid}/push-tokens`, user.token, { ...entry, token: 'a' })
    clock.advance(1)
    await call('POST', `/users/${user.uid}/push-tokens`, user.token, {
      token: 'b',
      customName: '',
      name: 'Tablet',
      email: user.email,
    })
    clock.advance(1)
    const again = await call('POST', `/users/${user.uid}/push-tokens`, user.token, {
      ...entry,
      token: 'a',
      name: 'Pixel 9',
      rank: 1,
    })
    assert.equal(again.statusCode, 200)
    assert.equal(again.json().message, 'Push token updated')
    assert.deepEqual(again.json().data, {
      ...{ Token: 'a', CustomName: 'Barn phone', Email: 'worker@farm.example' },
      Name: 'Pixel 9',
      Rank: 1,
      t: clock.now,
    })

    const list = await call('GET', `/users/${user.uid}/push-tokens`, user.token)
    assert.equal(list.statusCode, 200)
    assert.deepEqual(
      list.json().data.map((t: { Token: string }) => t.Token),
      ['b', 'a'],
    )
    assert.equal(list.json().data[0].Rank, undefined, 'Rank is absent when not given')
    const fcm = (await call('GET', `/users/${user.uid}`, user.token)).json().data.FCMTokens
    assert.deepEqual(fcm, list.json().data)
  })

  it('refuses bad bodies: capitalised keys, a client-set t, rank out of 1-3, wrong types, missing fields', async () => {
    const user = await owner()
    const url = `/users/${user.uid}/push-tokens`
    assertInvalid(await call('POST', url, user.token, { Token: 'x', CustomName: '', Name: 'n', Email: user.email }), [
      'token',
      'customName',
      'name',
      'email',
      'Token',
      'CustomName',
      'Name',
      'Email',
    ])
    assertInvalid(await call('POST', url, user.token, { ...entry, t: 5 }), ['t'])
    assertInvalid(await call('POST', url, user.token, { ...entry, rank: 0 }), ['rank'])
    assertInvalid(await call('POST', url, user.token, { ...entry, rank: 4 }), ['rank'])
    assertInvalid(await call('POST', url, user.token, { ...entry, rank: '1' }), ['rank'])
    assertInvalid(await call('POST', url, user.token, { ...entry, rank: 1.5 }), ['rank'])
    assertInvalid(await call('POST', url, user.token, { ...entry, token: '' }), ['token'])
    assertInvalid(await call('POST', url, user.token, { ...entry, email: 'nope' }), ['email'])
    assertInvalid(await call('POST', url, user.token, { token: 'x' }), ['customName', 'name', 'email'])
  })

  it(`caps an account at ${MAX_PUSH_TOKENS} tokens with 409; a known token can still be refreshed`, async () => {
    const user = await owner()
    await ctx.database.db
      .insertInto('user_push_tokens')
      .values(
        Array.from({ length: MAX_PUSH_TOKENS }, (_, i) => ({
          uid: user.uid,
          token: `t${i}`,
          custom_name: '',
          name: 'n',
          email: user.email,
          rank: null,
          t: i,
        })),
      )
      .execute()
    assertError(
      await call('POST', `/users/${user.uid}/push-tokens`, user.token, entry),
      409,
      `An account holds at most ${MAX_PUSH_TOKENS} push tokens: remove one first`,
    )
    assert.equal(
      (await call('POST', `/users/${user.uid}/push-tokens`, user.token, { ...entry, token: 't7' })).statusCode,
      200,
    )
  })

  it('lets linked integrators read, and add only with write permission; others get 403', async () => {
    const user = await owner()
    const reader = await createIntegrator(ctx, { linkTo: [user.uid] })
    const writer = await createIntegrator(ctx, { canWrite: true, linkTo: [user.uid] })
    const readerToken = (await integratorToken(ctx, reader.uid)).accessToken
    assert.equal((await call('GET', `/users/${user.uid}/push-tokens`, readerToken)).statusCode, 200)
    assertError(
      await call('POST', `/users/${user.uid}/push-tokens`, readerToken, entry),
      403,
      'Integrator does not have write permission',
    )
    assert.equal(
      (
        await call(
          'POST',
          `/users/${user.uid}/push-tokens`,
          (await integratorToken(ctx, writer.uid)).accessToken,
          entry,
        )
      ).statusCode,
      201,
    )
    const other = await owner()
    assertError(
      await call('GET', `/users/${user.uid}/push-tokens`, other.token),
      403,
      "You do not have access to this user's data",
    )
    assertError(
      await call('POST', `/users/${user.uid}/push-tokens`, other.token, entry),
      403,
      "You do not have access to this user's data",
    )
  })
})

describe('PATCH /users/<user_id>/status', () => {
  it('sets flagged and requestDeletion; requestDeletion only marks: the account stays and can log in', async () => {
    const user = await owner()
    const res = await call('PATCH', `/users/${user.uid}/status`, user.token, { flagged: true, requestDeletion: true })
    assert.equal(res.statusCode, 200, res.body)
    assert.equal(res.json().data.Flagged, true)
    assert.equal(res.json().data.RequestDeletion, true)
    assert.equal(res.json().data.Inactive, false)
    assert.equal((await userToken(ctx, user.email)).uid, user.uid)
    const back = await call('PATCH', `/users/${user.uid}/status`, user.token, { requestDeletion: false })
    assert.equal(back.json().data.RequestDeletion, false)
    assert.equal(back.json().data.Flagged, true, 'fields not sent keep their value')
  })

  it('refuses an empty body, unknown or capitalised keys and non-booleans', async () => {
    const user = await owner()
    const url = `/users/${user.uid}/status`
    assertInvalid(await call('PATCH', url, user.token, {}), ['(root)'])
    assertInvalid(await call('PATCH', url, user.token, { Inactive: true }), ['Inactive'])
    assertInvalid(await call('PATCH', url, user.token, { bdUser: true }), ['bdUser'])
    assertInvalid(await call('PATCH', url, user.token, { inactive: 'true' }), ['inactive'])
    assertInvalid(await call('PATCH', url, user.token, { flagged: 1 }), ['flagged'])
  })

  it('inactive: the user cannot log in, every token stops working and refresh tokens are revoked, even after reactivation', async () => {
    const user = await owner()
    const second = await userToken(ctx, user.email)
    const res = await call('PATCH', `/users/${user.uid}/status`, second.accessToken, { inactive: true })
    assert.equal(res.statusCode, 200)
    assert.equal(res.json().data.Inactive, true)

    // Their sessions were revoked with the deactivation (401); a token outside any session meets the inactive check (403).
    for (const token of [user.token, second.accessToken]) {
      assertError(await call('GET', `/users/${user.uid}`, token), 401, 'Token has been revoked')
    }
    const bare = (await ctx.app.tokens.sign({ kind: 'user', id: user.uid }, 'access', 600)).token
    assertError(await call('GET', `/users/${user.uid}`, bare), 403, 'User account is inactive')
    const login = await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/tokens/login',
      payload: { email: user.email, password: user.password },
    })
    assertError(login, 403, 'User account is inactive')
    const live = await ctx.database.db
      .selectFrom('refresh_tokens')
      .select('jti')
      .where('subject_kind', '=', 'user')
      .where('subject_id', '=', user.uid)
      .where('revoked_at', 'is', null)
      .execute()
    assert.deepEqual(live, [])

    // The operator reactivates: the old sessions stay dead.
    await ctx.database.db.updateTable('users').set({ inactive: false }).where('uid', '=', user.uid).execute()
    await ctx.app.syncAccessChanges()
    for (const refreshToken of [user.refreshToken, second.refreshToken]) {
      const refresh = await ctx.app.inject({ method: 'POST', url: '/api/v1/tokens/refresh', payload: { refreshToken } })
      assertError(refresh, 401, 'Token has been revoked')
    }
    assertError(await call('GET', `/users/${user.uid}`, user.token), 401, 'Token has been revoked')
  })

  it('a user may deactivate their own account and is locked out at once', async () => {
    const user = await owner()
    assert.equal((await call('PATCH', `/users/${user.uid}/status`, user.token, { inactive: true })).statusCode, 200)
    assert.equal((await findUserByUid(ctx.database.db, user.uid))?.inactive, true)
    assertError(
      await call('PATCH', `/users/${user.uid}/status`, user.token, { inactive: false }),
      401,
      'Token has been revoked',
    )
  })

  it('a linked integrator, even with every permission, may set flagged and requestDeletion but never inactive (403): the owner keeps the account', async () => {
    const user = await owner()
    const writer = await createIntegrator(ctx, { canWrite: true, canDelete: true, linkTo: [user.uid] })
    const token = (await integratorToken(ctx, writer.uid)).accessToken
    const url = `/users/${user.uid}/status`
    for (const body of [{ inactive: true }, { inactive: false }, { flagged: true, inactive: true }]) {
      assertError(await call('PATCH', url, token, body), 403, OWNER_STATUS)
    }
    const row = await findUserByUid(ctx.database.db, user.uid)
    assert.equal(row?.inactive, false)
    assert.equal(row?.flagged, false, 'a refused request changes nothing')
    assert.equal((await call('GET', `/users/${user.uid}`, user.token)).statusCode, 200, "the owner's token still works")
    const allowed = await call('PATCH', url, token, { flagged: true, requestDeletion: true })
    assert.equal(allowed.statusCode, 200, allowed.body)
    assert.equal(allowed.json().data.Flagged, true)
    assert.equal(allowed.json().data.RequestDeletion, true)
  })

  it('a deactivated account is closed to its linked integrators too: reads, writes and sensor data are 403 until it is reactivated', async () => {
    const user = await owner()
    const writer = await createIntegrator(ctx, {
      tier: 'enterprise',
      canWrite: true,
      canDelete: true,
      linkTo: [user.uid],
    })
    const token = (await integratorToken(ctx, writer.uid)).accessToken
    const created = await call('POST', `/users/${user.uid}/animals`, token, { MAC: 'AA:BB:CC:00:00:77', Sex: 'female' })
    assert.equal(created.statusCode, 201, created.body)
    const reading = { rows: [{ t: Math.floor(Date.now() / 1000), c: 38.5, x: 0.1, y: 0.2, z: 1 }] }
    const sensorData = `/users/${user.uid}/animals/AA:BB:CC:00:00:77/sensordata`
    assert.equal((await call('PATCH', `/users/${user.uid}/status`, user.token, { inactive: true })).statusCode, 200)

    for (const [method, url, body] of [
      ['GET', `/users/${user.uid}`, undefined],
      ['GET', `/users/${user.uid}/animals`, undefined],
      ['POST', `/users/${user.uid}/animals`, { MAC: 'AA:BB:CC:00:00:78', Sex: 'female' }],
      ['POST', sensorData, reading],
      ['DELETE', `/users/${user.uid}/animals/AA:BB:CC:00:00:77`, undefined],
    ] as const) {
      assertError(await call(method, url, token, body), 403, 'User account is inactive')
    }
    // The operator reactivates it: the integrator's link works again, nothing was changed meanwhile.
    await ctx.database.db.updateTable('users').set({ inactive: false }).where('uid', '=', user.uid).execute()
    await ctx.app.syncAccessChanges()
    // Written outside the API: the access cache hears of it through the store's change feed, at once or shortly.
    let animals = await call('GET', `/users/${user.uid}/animals`, token)
    for (let i = 0; i < 50 && animals.statusCode === 403; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100))
      animals = await call('GET', `/users/${user.uid}/animals`, token)
    }
    assert.equal(animals.statusCode, 200, animals.body)
    assert.deepEqual(
      animals.json().data.map((a: { MAC: string }) => a.MAC),
      ['AA:BB:CC:00:00:77'],
    )
  })

  it('is refused to read-only integrators and other users', async () => {
    const user = await owner()
    const reader = await createIntegrator(ctx, { linkTo: [user.uid] })
    assertError(
      await call('PATCH', `/users/${user.uid}/status`, (await integratorToken(ctx, reader.uid)).accessToken, {
        flagged: true,
      }),
      403,
      'Integrator does not have write permission',
    )
    const other = await owner()
    assertError(
      await call('PATCH', `/users/${user.uid}/status`, other.token, { flagged: true }),
      403,
      "You do not have access to this user's data",
    )
  })
})
