// The device registry: register, read, rename, delete; list and search with their parameters; Active
// judged at read time against a manual clock.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createTestApp, type TestContext } from '../support/app.ts'
import { assertError, assertInvalid } from '../support/assertions.ts'
import { bearer, createIntegrator, integratorToken, manualClock, userToken } from '../support/fixtures.ts'
import { deviceFarm, nextDeviceMac, storedReadings } from './farm.ts'

const clock = manualClock(Date.UTC(2026, 5, 1, 12))
const nowSeconds = () => Math.floor(clock.now / 1000)

let ctx: TestContext
before(async () => {
  ctx = await createTestApp({ clock: () => clock.now })
})
after(() => ctx.close())

describe('POST /users/<user_id>/litterguards', () => {
  it('registers a device: 201, Location, MAC upper case, no data yet', async () => {
    const f = await deviceFarm(ctx)
    const mac = nextDeviceMac()
    const res = await f.inject('POST', '', { MAC: mac.toLowerCase(), Name: 'Farrowing pen 3' })
    assert.equal(res.statusCode, 201, res.body)
    assert.equal(res.headers.location, `/api/v1/users/${f.user.uid}/litterguards/${encodeURIComponent(mac)}`)
    assert.deepEqual(res.json().data, {
      MAC: mac,
      Name: 'Farrowing pen 3',
      LastSeen: null,
      Active: false,
      CurrentTemperature: null,
      t: clock.now,
    })
    assert.equal(res.json().message, 'Litterguard created')
    assert.deepEqual((await f.inject('GET', `/${mac}`)).json().data, res.json().data)
  })

  it('answers 409 for a MAC the account already has, in either case; another account may have it', async () => {
    const f = await deviceFarm(ctx)
    const d = await f.device()
    assertError(
      await f.inject('POST', '', { MAC: d.MAC.toLowerCase(), Name: 'Again' }),
      409,
      `A litterguard with MAC ${d.MAC} already exists`,
    )
    const other = await deviceFarm(ctx)
    assert.equal((await other.inject('POST', '', { MAC: d.MAC, Name: 'Elsewhere' })).statusCode, 201)
  })

  it('refuses bad bodies with every problem in details', async () => {
    const f = await deviceFarm(ctx)
    const cases: [unknown, string[]][] = [
      [{ Name: 'No MAC' }, ['MAC']],
      [{ MAC: nextDeviceMac() }, ['Name']],
      [{ MAC: 'AA:BB:CC', Name: 'Short MAC' }, ['MAC']],
      [{ MAC: 'AA-BB-CC-DD-EE-FF', Name: 'Dashes' }, ['MAC']],
      [{ MAC: 42, Name: 'Number' }, ['MAC']],
      [{ MAC: nextDeviceMac(), Name: '' }, ['Name']],
      [{ MAC: nextDeviceMac(), Name: 'x'.repeat(201) }, ['Name']],
      [{ MAC: nextDeviceMac(), Name: 'Extra', Location: 'Barn 2' }, ['Location']],
      [{ MAC: nextDeviceMac(), Name: 'Read-only', Active: true }, ['Active']],
      [{ MAC: nextDeviceMac(), Name: 'Read-only', LastSeen: { seconds: 1, nanoseconds: 0 } }, ['LastSeen']],
      [{}, ['MAC', 'Name']],
    ]
    for (const [body, fields] of cases) assertInvalid(await f.inject('POST', '', body), fields)
    assertError(await f.inject('POST', '', []), 400, 'Validation failed')
    assert.equal((await f.inject('GET', '')).json().pagination.total, 0)
  })

  it('honours Idempotency-Key: the same request replays the first answer, a different one is a 422', async () => {
    const f = await deviceFarm(ctx)
    const body = { MAC: nextDeviceMac(), Name: 'Idempotent' }
    const key = { 'idempotency-key': 'create-litterguard-1' }
    const first = await f.inject('POST', '', body, key)
    assert.equal(first.statusCode, 201)
    const again = await f.inject('POST', '', body, key)
    assert.equal(again.statusCode, 201)
    assert.equal(again.headers['idempotent-replayed'], 'true')
    assert.equal(again.headers.location, first.headers.location)
    assert.deepEqual(again.json().data, first.json().data)
    assert.equal((await f.inject('POST', '', { ...body, Name: 'Other' }, key)).statusCode, 422)
    assert.equal((await f.inject('GET', '')).json().pagination.total, 1)
  })
})

describe('GET, PATCH and DELETE /users/<user_id>/litterguards/<mac_address>', () => {
  it('reads a device by its MAC in either case; anything else is a 404 whatever its form', async () => {
    const f = await deviceFarm(ctx)
    const d = await f.device('Pen 1')
    assert.equal((await f.inject('GET', `/${d.MAC.toLowerCase()}`)).json().data.MAC, d.MAC)
    for (const path of [
      nextDeviceMac(),
      'AA:BB',
      'not-a-mac',
      '12345',
      'x'.repeat(200),
      encodeURIComponent('AA:BB:CC:DD:EE:FF '),
    ]) {
      assertError(await f.inject('GET', `/${path}`), 404, 'Litterguard not found')
      assertError(await f.inject('PATCH', `/${path}`, { Name: 'x' }), 404, 'Litterguard not found')
      assertError(await f.inject('DELETE', `/${path}`), 404, 'Litterguard not found')
    }
    // Another account's device is none of this account's.
    const other = await deviceFarm(ctx)
    const theirs = await other.device()
    assertError(await f.inject('GET', `/${theirs.MAC}`), 404, 'Litterguard not found')
  })

  it('renames a device; the MAC and the read-only fields cannot change; an empty or unknown change is a 400', async () => {
    const f = await deviceFarm(ctx)
    const d = await f.device('Old name')
    const res = await f.inject('PATCH', `/${d.MAC.toLowerCase()}`, { Name: 'New name' })
    assert.equal(res.statusCode, 200, res.body)
    assert.equal(res.json().data.Name, 'New name')
    assert.equal(res.json().message, 'Litterguard updated')
    assert.equal((await f.inject('GET', `/${d.MAC}`)).json().data.Name, 'New name')
    assertInvalid(await f.inject('PATCH', `/${d.MAC}`, { MAC: nextDeviceMac() }), ['MAC'])
    assertInvalid(await f.inject('PATCH', `/${d.MAC}`, { CurrentTemperature: 30 }), ['CurrentTemperature'])
    assertInvalid(await f.inject('PATCH', `/${d.MAC}`, { Name: null }), ['Name'])
    assertInvalid(await f.inject('PATCH', `/${d.MAC}`, { Name: '' }), ['Name'])
    assertError(await f.inject('PATCH', `/${d.MAC}`, {}), 400, 'Validation failed')
  })

  it('deletes a device with its readings; a second delete is a 404', async () => {
    const f = await deviceFarm(ctx)
    const d = await f.device()
    await f.send(d.MAC, [
      { t: nowSeconds() - 60, c: 30, x: 0, y: 0, z: 1 },
      { t: nowSeconds(), c: 31, x: 0, y: 0, z: 1 },
    ])
    assert.equal(await storedReadings(ctx, f.user.uid, d.MAC), 2)
    const res = await f.inject('DELETE', `/${d.MAC.toLowerCase()}`)
    assert.equal(res.statusCode, 200)
    assert.equal(res.json().message, 'Litterguard deleted')
    assert.equal(await storedReadings(ctx, f.user.uid, d.MAC), 0)
    assertError(await f.inject('GET', `/${d.MAC}`), 404, 'Litterguard not found')
    assertError(await f.inject('DELETE', `/${d.MAC}`), 404, 'Litterguard not found')
    // Registered again, it starts without history.
    assert.equal((await f.inject('POST', '', { MAC: d.MAC, Name: 'Back' })).json().data.LastSeen, null)
  })

  it("needs the integrator's write permission to change and its delete permission to delete; the owner may do both", async () => {
    const f = await deviceFarm(ctx)
    const d = await f.device()
    const reader = await createIntegrator(ctx, { tier: 'pro', linkTo: [f.user.uid] })
    const writer = await createIntegrator(ctx, { tier: 'free', canWrite: true, linkTo: [f.user.uid] })
    const as = async (uid: string) => bearer((await integratorToken(ctx, uid)).accessToken)
    const call = async (
      headers: Record<string, string>,
      method: 'POST' | 'PATCH' | 'DELETE',
      path: string,
      payload?: object,
    ) => ctx.app.inject({ method, url: `${f.base}${path}`, headers, ...(payload ? { payload } : {}) })
    assertError(
      await call(await as(reader.uid), 'POST', '', { MAC: nextDeviceMac(), Name: 'x' }),
      403,
      'Integrator does not have write permission',
    )
    assertError(
      await call(await as(reader.uid), 'PATCH', `/${d.MAC}`, { Name: 'x' }),
      403,
      'Integrator does not have write permission',
    )
    assert.equal((await call(await as(writer.uid), 'PATCH', `/${d.MAC}`, { Name: 'By a Free writer' })).statusCode, 200)
    assertError(
      await call(await as(writer.uid), 'DELETE', `/${d.MAC}`),
      403,
      'Integrator does not have delete permission',
    )
    const owner = bearer((await userToken(ctx, `${f.user.uid}@farm.example`)).accessToken)
    assert.equal((await call(owner, 'DELETE', `/${d.MAC}`)).statusCode, 200)
  })
})

describe('Active: data within the window, judged when read', () => {
  it('flips to false once the newest reading is older than 15 minutes, in the item, the list, search and the summary', async () => {
    const f = await deviceFarm(ctx)
    const d = await f.device()
    await f.send(d.MAC, [{ t: nowSeconds(), c: 31.5, x: 0, y: 0, z: 1 }])
    const seen = nowSeconds()
    const state = async () => {
      const item = (await f.inject('GET', `/${d.MAC}`)).json().data
      const active = (await f.inject('GET', '?active=true')).json().data.length
      const inactive = (await f.inject('GET', '/search?active=false')).json().data.length
      const summary = (await f.inject('GET', '/summary')).json().data
      return {
        Active: item.Active,
        active,
        inactive,
        activeDevices: summary.activeDevices,
        inactiveDevices: summary.inactiveDevices,
      }
    }
    assert.deepEqual((await f.inject('GET', `/${d.MAC}`)).json().data.LastSeen, { seconds: seen, nanoseconds: 0 })
    assert.deepEqual(await state(), { Active: true, active: 1, inactive: 0, activeDevices: 1, inactiveDevices: 0 })
    clock.advance(15 * 60)
    assert.deepEqual(
      await state(),
      { Active: true, active: 1, inactive: 0, activeDevices: 1, inactiveDevices: 0 },
      'exactly 15 minutes old is still active',
    )
    clock.advance(1)
    assert.deepEqual(await state(), { Active: false, active: 0, inactive: 1, activeDevices: 0, inactiveDevices: 1 })
    await f.send(d.MAC, [{ t: nowSeconds() - 30, c: 32, x: 0, y: 0, z: 1 }])
    assert.deepEqual(await state(), { Active: true, active: 1, inactive: 0, activeDevices: 1, inactiveDevices: 0 })
  })

  it('takes its window from LITTERGUARD_ACTIVE_WINDOW_MINUTES', async () => {
    // On the file's store: the app differs in configuration only, and its farm is a new one.
    const short = await createTestApp({
      clock: () => clock.now,
      env: { LITTERGUARD_ACTIVE_WINDOW_MINUTES: '2' },
      store: ctx,
    })
    try {
      const f = await deviceFarm(short)
      const d = await f.device()
      await f.send(d.MAC, [{ t: nowSeconds() - 120, c: 30, x: 0, y: 0, z: 1 }])
      assert.equal((await f.inject('GET', `/${d.MAC}`)).json().data.Active, true)
      clock.advance(1)
      assert.equal((await f.inject('GET', `/${d.MAC}`)).json().data.Active, false)
    } finally {
      await short.close()
    }
  })
})

describe('GET /users/<user_id>/litterguards and .../search', () => {
  async function fleet() {
    const f = await deviceFarm(ctx)
    const names = ['Pen 1 north', 'Pen 2 north', 'Pen 3 south', 'Nursery A', 'Nursery B']
    const devices = []
    for (const name of names) {
      devices.push(await f.device(name))
      clock.advance(1)
    }
    // Pen 1 and Nursery A report now; Pen 2 reported an hour ago; the rest never did.
    await f.send(devices[0]!.MAC, [{ t: nowSeconds(), c: 31, x: 0, y: 0, z: 1 }])
    await f.send(devices[3]!.MAC, [{ t: nowSeconds() - 10, c: 29.5, x: 0, y: 0, z: 1 }])
    await f.send(devices[1]!.MAC, [{ t: nowSeconds() - 3600, c: 35, x: 0, y: 0, z: 1 }])
    return { f, devices }
  }
  const macs = (res: { json: () => any }) => res.json().data.map((d: { MAC: string }) => d.MAC)

  it('lists every device newest registration first, paginated', async () => {
    const { f, devices } = await fleet()
    const res = await f.inject('GET', '?limit=2&page=2')
    assert.equal(res.statusCode, 200)
    assert.deepEqual(macs(res), [devices[2]!.MAC, devices[1]!.MAC])
    assert.deepEqual(res.json().pagination, { page: 2, limit: 2, total: 5, totalPages: 3 })
    assert.deepEqual(macs(await f.inject('GET', '')), devices.map((d) => d.MAC).reverse())
  })

  it('sorts by any scalar field (devices without a value last) and filters exactly', async () => {
    const { f, devices } = await fleet()
    assert.deepEqual(
      macs(await f.inject('GET', '?sortBy=Name&sortOrder=asc')),
      [3, 4, 0, 1, 2].map((i) => devices[i]!.MAC),
    )
    assert.deepEqual(
      macs(await f.inject('GET', '?sortBy=CurrentTemperature')),
      [1, 0, 3, 4, 2].map((i) => devices[i]!.MAC),
    )
    assert.deepEqual(
      macs(await f.inject('GET', '?sortBy=LastSeen&sortOrder=desc&limit=3')),
      [0, 3, 1].map((i) => devices[i]!.MAC),
    )
    assert.deepEqual(
      macs(await f.inject('GET', '?sortBy=Active&sortOrder=desc&limit=2')),
      [3, 0].map((i) => devices[i]!.MAC),
    )
    assert.deepEqual(macs(await f.inject('GET', `?filter[Name]=${encodeURIComponent('Nursery B')}`)), [devices[4]!.MAC])
    assert.deepEqual(macs(await f.inject('GET', `?filter[MAC]=${devices[2]!.MAC.toLowerCase()}`)), [devices[2]!.MAC])
    assert.deepEqual(
      macs(await f.inject('GET', '?filter[Active]=true&sortBy=Name&sortOrder=asc')),
      [3, 0].map((i) => devices[i]!.MAC),
    )
  })

  it('narrows by active, mac (either case) and part of the name (any case), in the list and in search alike', async () => {
    const { f, devices } = await fleet()
    for (const path of ['', '/search']) {
      assert.deepEqual(
        macs(await f.inject('GET', `${path}?active=true`)),
        [3, 0].map((i) => devices[i]!.MAC),
      )
      assert.deepEqual(
        macs(await f.inject('GET', `${path}?active=false`)),
        [4, 2, 1].map((i) => devices[i]!.MAC),
      )
      assert.deepEqual(macs(await f.inject('GET', `${path}?mac=${devices[1]!.MAC.toLowerCase()}`)), [devices[1]!.MAC])
      assert.deepEqual(
        macs(await f.inject('GET', `${path}?name=NORTH`)),
        [1, 0].map((i) => devices[i]!.MAC),
      )
      assert.deepEqual(macs(await f.inject('GET', `${path}?name=north&active=false`)), [devices[1]!.MAC])
      assert.deepEqual(
        macs(await f.inject('GET', `${path}?name=${encodeURIComponent('%')}`)),
        [],
        'LIKE wildcards match themselves',
      )
    }
    const searched = await f.inject('GET', '/search')
    assert.deepEqual(searched.json().pagination, { page: 1, limit: 10, total: 5, totalPages: 1 })
    const paged = await f.inject('GET', '/search?name=pen&limit=1&page=3')
    assert.deepEqual(macs(paged), [devices[0]!.MAC])
    assert.deepEqual(paged.json().pagination, { page: 3, limit: 1, total: 3, totalPages: 3 })
  })

  it('refuses bad list and search parameters with 400', async () => {
    const f = await deviceFarm(ctx)
    for (const path of ['', '/search']) {
      for (const query of [
        'limit=0',
        'limit=101',
        'page=0',
        'page=x',
        'active=maybe',
        'mac=AA:BB',
        'name=',
        `name=${'x'.repeat(201)}`,
      ]) {
        assertError(await f.inject('GET', `${path}?${query}`), 400, 'Validation failed')
      }
      assert.equal((await f.inject('GET', `${path}?limit=100`)).statusCode, 200)
    }
    for (const query of [
      'sortBy=Battery',
      'sortOrder=up',
      'filter[Battery]=1',
      'filter[Active]=maybe',
      'filter[LastSeen]=1',
    ]) {
      assertError(await f.inject('GET', `?${query}`), 400, 'Validation failed')
    }
  })

  it('reads summary and search as static segments, never as a MAC', async () => {
    const f = await deviceFarm(ctx)
    assert.equal((await f.inject('GET', '/summary')).json().data.totalDevices, 0)
    assert.deepEqual((await f.inject('GET', '/search')).json().data, [])
  })
})

describe('a deleted account', () => {
  it('takes its devices and their readings along', async () => {
    const f = await deviceFarm(ctx)
    const d = await f.device()
    await f.send(d.MAC, [{ t: nowSeconds(), c: 30, x: 0, y: 0, z: 1 }])
    const owner = bearer((await userToken(ctx, `${f.user.uid}@farm.example`)).accessToken)
    assert.equal(
      (await ctx.app.inject({ method: 'DELETE', url: `/api/v1/users/${f.user.uid}`, headers: owner })).statusCode,
      200,
    )
    assert.equal(await storedReadings(ctx, f.user.uid, d.MAC), 0)
    const left = await ctx.database.db.selectFrom('litterguards').select('mac').where('uid', '=', f.user.uid).execute()
    assert.deepEqual(left, [])
  })
})
