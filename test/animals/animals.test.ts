import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createTestApp, type TestContext } from '../support/app.ts'
import { bearer, createIntegrator, createUser, integratorToken, userToken } from '../support/fixtures.ts'
import { sql } from 'kysely'
import { insertAnimal } from '../../src/modules/animals/animals.repository.ts'
import { SEARCH_MAX } from '../../src/modules/animals/animals.routes.ts'
import { createIdSource } from '../../src/db/ids.ts'
import { assertError } from '../support/assertions.ts'

let ctx: TestContext
before(async () => {
  ctx = await createTestApp()
})
after(() => ctx.close())

/** A farm with its owner's token and a linked integrator that may write and delete. */
async function farm() {
  const user = await createUser(ctx)
  const { accessToken } = await userToken(ctx, user.email)
  const integrator = await createIntegrator(ctx, { tier: 'pro', canWrite: true, canDelete: true, linkTo: [user.uid] })
  const integratorHeaders = bearer((await integratorToken(ctx, integrator.uid)).accessToken)
  const headers = bearer(accessToken)
  const base = `/api/v1/users/${user.uid}/animals`
  const inject = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, payload?: unknown, as = headers) =>
    ctx.app.inject({
      method,
      url: `${base}${path}`,
      headers: as,
      ...(payload !== undefined ? { payload: payload as object } : {}),
    })
  const create = async (body: Record<string, unknown>) => {
    const res = await inject('POST', '', body)
    assert.equal(res.statusCode, 201, res.body)
    return res.json().data
  }
  return { user, headers, integratorHeaders, base, inject, create }
}

let macCounter = 0
function mac(prefix = 'aa:bb:cc'): string {
  macCounter++
  return `${prefix}:${(macCounter >> 8).toString(16).padStart(2, '0')}:${(macCounter & 255).toString(16).padStart(2, '0')}:0f`
}

describe('POST /users/<user_id>/animals', () => {
  it('creates an animal: MAC stored upper case, ID is the creation time in ms, defaults applied, 201', async () => {
    const f = await farm()
    const before = Date.now()
    const res = await f.inject('POST', '', {
      MAC: 'aa:bb:cc:dd:ee:0f',
      Sex: 'female',
      Group: 'Pen 1',
      Battery: 87.5,
      HealthScore: 92,
      Father: 'B-12',
      Diagnosed: { Description: 'limping', Diagnose: 'Lameness', t: 1_700_000_000_000 },
    })
    assert.equal(res.statusCode, 201)
    const animal = res.json().data
    assert.equal(animal.MAC, 'AA:BB:CC:DD:EE:0F')
    assert.equal(animal.Uid, f.user.uid)
    assert.equal(animal.Sex, 'female')
    assert.equal(animal.Active, true)
    assert.equal(animal.Suspicious, false)
    assert.equal(animal.ReferenceTemperature, null)
    assert.equal(animal.Group, 'Pen 1')
    assert.equal(animal.Battery, 87.5)
    assert.deepEqual(animal.Diagnosed, { Description: 'limping', Diagnose: 'Lameness', t: 1_700_000_000_000 })
    assert.match(animal.ID, /^\d{13}$/)
    assert.ok(Number(animal.ID) >= before && Number(animal.ID) <= Date.now())
    assert.equal(animal.t, Number(animal.ID))
    assert.equal('CurrentTemperature' in animal, false, 'unset fields are left out')
    const read = await f.inject('GET', `/${animal.ID}`)
    assert.equal(read.statusCode, 200)
    assert.deepEqual(read.json().data, animal)
  })

  it("refuses a MAC already used by another of the user's animals (409), in either case; another user may use it", async () => {
    const f = await farm()
    const g = await farm()
    await f.create({ MAC: 'AA:BB:CC:00:00:01', Sex: 'male' })
    assertError(
      await f.inject('POST', '', { MAC: 'aa:bb:cc:00:00:01', Sex: 'female' }),
      409,
      'An animal with MAC AA:BB:CC:00:00:01 already exists',
    )
    await g.create({ MAC: 'AA:BB:CC:00:00:01', Sex: 'male' })
  })

  it('gives unique IDs to concurrent creates', async () => {
    const f = await farm()
    const results = await Promise.all(
      Array.from({ length: 25 }, () => f.inject('POST', '', { MAC: mac('10:20:30'), Sex: 'female' })),
    )
    assert.ok(results.every((r) => r.statusCode === 201))
    const ids = results.map((r) => r.json().data.ID as string)
    assert.equal(new Set(ids).size, ids.length)
  })

  it('validates every field strictly: bad MAC, Sex, Battery and HealthScore bounds, strings for numbers, unknown or read-only fields', async () => {
    const f = await farm()
    const cases: [Record<string, unknown>, string][] = [
      [{ Sex: 'female' }, 'MAC'],
      [{ MAC: 'AA:BB:CC:DD:EE', Sex: 'female' }, 'MAC'],
      [{ MAC: 'AA-BB-CC-DD-EE-FF', Sex: 'female' }, 'MAC'],
      [{ MAC: 'GG:BB:CC:DD:EE:FF', Sex: 'female' }, 'MAC'],
      [{ MAC: mac(), Sex: 'other' }, 'Sex'],
      [{ MAC: mac() }, 'Sex'],
      [{ MAC: mac(), Sex: 'female', Battery: -1 }, 'Battery'],
      [{ MAC: mac(), Sex: 'female', Battery: 100.5 }, 'Battery'],
      [{ MAC: mac(), Sex: 'female', HealthScore: 101 }, 'HealthScore'],
      [{ MAC: mac(), Sex: 'female', HealthScore: -0.1 }, 'HealthScore'],
      [{ MAC: mac(), Sex: 'female', Battery: '50' }, 'Battery'],
      [{ MAC: mac(), Sex: 'female', Active: 'true' }, 'Active'],
      [{ MAC: mac(), Sex: 'female', ID: '123' }, 'ID'],
      [{ MAC: mac(), Sex: 'female', CurrentTemperature: 38 }, 'CurrentTemperature'],
      [{ MAC: mac(), Sex: 'female', ReferenceTemperature: 38 }, 'ReferenceTemperature'],
      [{ MAC: mac(), Sex: 'female', Group: '' }, 'Group'],
      [{ MAC: mac(), Sex: 'female', Diagnosed: { Description: 'x' } }, 'Diagnosed.Diagnose'],
    ]
    for (const [body, field] of cases) assertError(await f.inject('POST', '', body), 400, 'Validation failed', field)
    // Battery and HealthScore bounds are inclusive.
    const edge = await f.create({ MAC: mac(), Sex: 'female', Battery: 0, HealthScore: 100 })
    assert.equal(edge.Battery, 0)
    assert.equal(edge.HealthScore, 100)
  })
})

describe('GET /users/<user_id>/animals', () => {
  it('pages, sorts by any field (missing values last) and filters with filter[Field]', async () => {
    const f = await farm()
    const a = await f.create({ MAC: mac(), Sex: 'female', Group: 'B', Battery: 50 })
    const b = await f.create({ MAC: mac(), Sex: 'male', Group: 'A', Battery: 90 })
    const c = await f.create({ MAC: mac(), Sex: 'female', Group: 'A' })
    const list = async (query: string) => {
      const res = await f.inject('GET', `?${query}`)
      assert.equal(res.statusCode, 200, res.body)
      return res.json()
    }
    const all = await list('')
    assert.deepEqual(all.pagination, { page: 1, limit: 10, total: 3, totalPages: 1 })
    assert.deepEqual(
      all.data.map((x: any) => x.ID),
      [c.ID, b.ID, a.ID],
      'default: t, newest first',
    )
    assert.deepEqual(
      (await list('sortBy=Battery&sortOrder=asc')).data.map((x: any) => x.ID),
      [a.ID, b.ID, c.ID],
    )
    assert.deepEqual(
      (await list('sortBy=Battery&sortOrder=desc')).data.map((x: any) => x.ID),
      [b.ID, a.ID, c.ID],
    )
    assert.deepEqual(
      (await list('sortBy=ID&sortOrder=asc')).data.map((x: any) => x.ID),
      [a.ID, b.ID, c.ID],
    )
    assert.deepEqual(
      (await list('sortBy=Group&sortOrder=asc&limit=2&page=1')).data.map((x: any) => x.ID),
      [b.ID, c.ID],
    )
    const second = await list('sortBy=Group&sortOrder=asc&limit=2&page=2')
    assert.deepEqual(
      second.data.map((x: any) => x.ID),
      [a.ID],
    )
    assert.deepEqual(second.pagination, { page: 2, limit: 2, total: 3, totalPages: 2 })
    assert.deepEqual(
      (await list('filter[Group]=A&sortBy=ID&sortOrder=asc')).data.map((x: any) => x.ID),
      [b.ID, c.ID],
    )
    assert.deepEqual(
      (await list('filter[Sex]=male')).data.map((x: any) => x.ID),
      [b.ID],
    )
    assert.deepEqual(
      (await list(`filter[MAC]=${a.MAC.toLowerCase()}`)).data.map((x: any) => x.ID),
      [a.ID],
    )
    assert.deepEqual(
      (await list('filter[Battery]=90')).data.map((x: any) => x.ID),
      [b.ID],
    )
    assert.deepEqual(
      (await list(`filter[ID]=${a.ID}`)).data.map((x: any) => x.ID),
      [a.ID],
    )
    assert.equal((await list('filter[Active]=false')).pagination.total, 0)
  })

  it('refuses bad list parameters with 400', async () => {
    const f = await farm()
    for (const [query, field] of [
      ['limit=0', 'query:limit'],
      ['limit=101', 'query:limit'],
      ['page=0', 'query:page'],
      ['sortBy=Secret', 'query:sortBy'],
      ['sortBy=Diagnosed', 'query:sortBy'],
      ['sortOrder=up', 'query:sortOrder'],
      ['filter[Secret]=1', 'query:filter[Secret]'],
      ['filter[Battery]=lots', 'query:filter[Battery]'],
      // A number only from a plain decimal, not as JavaScript would read the text.
      ['limit=0x10', 'query:limit'],
      ['limit=1e1', 'query:limit'],
      ['limit=%2010', 'query:limit'],
      ['page=0b11', 'query:page'],
      ['filter[CurrentTemperature]=0x26', 'query:filter[CurrentTemperature]'],
      ['filter[CurrentTemperature]=3.8e1', 'query:filter[CurrentTemperature]'],
    ]) {
      assertError(await f.inject('GET', `?${query}`), 400, 'Validation failed', field)
    }
  })

  it('shows each user only their own animals', async () => {
    const f = await farm()
    const g = await farm()
    await f.create({ MAC: mac(), Sex: 'female' })
    const other = await g.create({ MAC: mac(), Sex: 'female' })
    assert.equal((await f.inject('GET', '')).json().pagination.total, 1)
    assertError(await f.inject('GET', `/${other.ID}`), 404, 'Animal not found')
    // The other farm's URL with this farm's token: the access rule refuses it.
    const res = await ctx.app.inject({ method: 'GET', url: `${g.base}/${other.ID}`, headers: f.headers })
    assertError(res, 403, "You do not have access to this user's data")
  })
})

describe('GET /users/<user_id>/animals/search', () => {
  it('matches group, sex, active, suspicious and mac (either case), all given criteria at once', async () => {
    const f = await farm()
    const a = await f.create({ MAC: mac(), Sex: 'female', Group: 'Farrowing', Suspicious: true })
    const b = await f.create({ MAC: mac(), Sex: 'male', Group: 'Farrowing', Active: false })
    const c = await f.create({ MAC: mac(), Sex: 'female', Group: 'Gestation' })
    const search = async (query: string) => {
      const res = await f.inject('GET', `/search?${query}`)
      assert.equal(res.statusCode, 200, res.body)
      assert.equal(res.json().pagination, undefined)
      return res.json().data.map((x: any) => x.ID)
    }
    assert.deepEqual(await search(''), [a.ID, b.ID, c.ID])
    assert.deepEqual(await search('group=Farrowing'), [a.ID, b.ID])
    assert.deepEqual(await search('sex=female'), [a.ID, c.ID])
    assert.deepEqual(await search('active=false'), [b.ID])
    assert.deepEqual(await search('suspicious=true'), [a.ID])
    assert.deepEqual(await search(`mac=${c.MAC.toLowerCase()}`), [c.ID])
    assert.deepEqual(await search('group=Farrowing&sex=female'), [a.ID])
    assert.deepEqual(await search('group=Nowhere'), [])
  })

  it('answers at most SEARCH_MAX animals, oldest first, and says so when more match', async () => {
    const f = await farm()
    // SEARCH_MAX + 1 animals in one statement: ids 1.., MACs from the counter's hex digits.
    await sql`INSERT INTO animals (uid, id, mac, sex, t)
      SELECT ${f.user.uid}, n, upper(regexp_replace(lpad(to_hex(n), 12, '0'), '(..)(?!$)', '\\1:', 'g')), 'female', n
      FROM generate_series(1, ${SEARCH_MAX + 1}) AS n`.execute(ctx.database.db)
    const res = await f.inject('GET', '/search?sex=female')
    assert.equal(res.statusCode, 200, res.body.slice(0, 200))
    const body = res.json()
    assert.equal(body.data.length, SEARCH_MAX)
    assert.equal(body.data[0].ID, '1')
    assert.equal(body.data[SEARCH_MAX - 1].ID, String(SEARCH_MAX))
    assert.match(body.message, /^The first 10000 matching animals; narrow the criteria/)
    const narrow = (await f.inject('GET', `/search?mac=${body.data[0].MAC}`)).json()
    assert.equal(narrow.data.length, 1)
    assert.equal(narrow.message, undefined)
  })

  it('refuses a bad mac, sex or boolean with 400', async () => {
    const f = await farm()
    assertError(await f.inject('GET', '/search?mac=AA:BB'), 400, 'Validation failed', 'query:mac')
    assertError(await f.inject('GET', '/search?sex=unknown'), 400, 'Validation failed', 'query:sex')
    assertError(await f.inject('GET', '/search?active=maybe'), 400, 'Validation failed', 'query:active')
  })
})

describe('GET /users/<user_id>/animals/<animal_id>', () => {
  it('finds an animal by its ID or its MAC in either case; anything else is a 404 whatever its form', async () => {
    const f = await farm()
    const created = (await f.inject('POST', '', { MAC: 'aa:bb:cc:dd:ee:7f', Sex: 'female' })).json().data
    assert.equal((await f.inject('GET', `/${created.ID}`)).json().data.MAC, 'AA:BB:CC:DD:EE:7F')
    assert.equal((await f.inject('GET', '/aa:bb:cc:dd:ee:7f')).json().data.ID, created.ID)
    for (const unknown of ['/1700000000000', '/not-an-id', '/AA:BB:CC:DD:EE:00', '/AA:BB', '/99999999999999999999']) {
      assertError(await f.inject('GET', unknown), 404, 'Animal not found')
    }
  })
})

describe('PATCH /users/<user_id>/animals/<animal_id>', () => {
  it('changes the given fields, clears optional fields with null, keeps the rest', async () => {
    const f = await farm()
    const a = await f.create({ MAC: mac(), Sex: 'female', Group: 'A', Battery: 40, Father: 'F1' })
    const res = await f.inject(
      'PATCH',
      `/${a.ID}`,
      { Group: 'B', Battery: null, Suspicious: true, HealthScore: 77 },
      f.integratorHeaders,
    )
    assert.equal(res.statusCode, 200, res.body)
    const updated = res.json().data
    assert.equal(updated.Group, 'B')
    assert.equal('Battery' in updated, false)
    assert.equal(updated.Suspicious, true)
    assert.equal(updated.HealthScore, 77)
    assert.equal(updated.Father, 'F1')
    assert.equal(updated.ID, a.ID)
    assert.deepEqual((await f.inject('GET', `/${a.ID}`)).json().data, updated)
  })

  it('refuses an empty body, unknown or read-only fields, bad values, a MAC in use (409), an unknown animal (404)', async () => {
    const f = await farm()
    const a = await f.create({ MAC: mac(), Sex: 'female' })
    const b = await f.create({ MAC: mac(), Sex: 'female' })
    assertError(await f.inject('PATCH', `/${a.ID}`, {}), 400, 'Validation failed')
    assertError(await f.inject('PATCH', `/${a.ID}`, { Uid: 'someone-else' }), 400, 'Validation failed', 'Uid')
    assertError(await f.inject('PATCH', `/${a.ID}`, { t: 5 }), 400, 'Validation failed', 't')
    assertError(await f.inject('PATCH', `/${a.ID}`, { HealthScore: 120 }), 400, 'Validation failed', 'HealthScore')
    assertError(await f.inject('PATCH', `/${a.ID}`, { Sex: null }), 400, 'Validation failed', 'Sex')
    assertError(await f.inject('PATCH', `/${a.ID}`, { MAC: 'zz' }), 400, 'Validation failed', 'MAC')
    assertError(
      await f.inject('PATCH', `/${a.ID}`, { MAC: b.MAC.toLowerCase() }),
      409,
      `An animal with MAC ${b.MAC} already exists`,
    )
    assertError(await f.inject('PATCH', '/1600000000000', { Group: 'X' }), 404, 'Animal not found')
  })
})

describe('DELETE /users/<user_id>/animals/<animal_id>', () => {
  it('deletes the animal; a second delete is 404; its MAC can be registered again', async () => {
    const f = await farm()
    const a = await f.create({ MAC: mac(), Sex: 'female' })
    const res = await f.inject('DELETE', `/${a.ID}`, undefined, f.integratorHeaders)
    assert.equal(res.statusCode, 200)
    assert.equal(res.json().message, 'Animal deleted')
    assertError(await f.inject('GET', `/${a.ID}`), 404, 'Animal not found')
    assertError(await f.inject('DELETE', `/${a.ID}`), 404, 'Animal not found')
    await f.create({ MAC: a.MAC, Sex: 'male' })
  })

  it('needs the delete permission for an integrator', async () => {
    const f = await farm()
    const a = await f.create({ MAC: mac(), Sex: 'female' })
    const writer = await createIntegrator(ctx, { tier: 'pro', canWrite: true, linkTo: [f.user.uid] })
    const headers = bearer((await integratorToken(ctx, writer.uid)).accessToken)
    assertError(
      await f.inject('DELETE', `/${a.ID}`, undefined, headers),
      403,
      'Integrator does not have delete permission',
    )
    assert.equal((await f.inject('PATCH', `/${a.ID}`, { Group: 'W' }, headers)).statusCode, 200)
  })
})

describe('animal ids across processes', () => {
  it('moves to the next free millisecond when another process took this one', async () => {
    const f = await farm()
    const frozen = 1_750_000_000_000
    // Two "processes" whose clocks read the same millisecond.
    const first = await insertAnimal(
      ctx.database.db,
      f.user.uid,
      { MAC: mac(), Sex: 'female' },
      createIdSource(() => frozen),
    )
    const second = await insertAnimal(
      ctx.database.db,
      f.user.uid,
      { MAC: mac(), Sex: 'female' },
      createIdSource(() => frozen),
    )
    assert.equal(first.id, frozen)
    assert.equal(second.id, frozen + 1)
  })
})
