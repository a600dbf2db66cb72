// Reading farm records over HTTP: the user-level lists (common list parameters, search, active,
// archived, get by id), the per-animal views (list, get, recent, range), one store seen from both
// levels, and the user's birth statistics.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createTestApp, type TestContext } from '../support/app.ts'
import { assertError, assertInvalid } from '../support/assertions.ts'
import {
  ANIMAL_LEVEL,
  USER_LEVEL,
  animalBodies,
  idsOf,
  recordsFarm,
  userBodies,
  type Body,
  type RecordsFarm,
} from './records-farm.ts'

let ctx: TestContext
let f: RecordsFarm
/** Another farm, whose records must never show in f's reads. */
let g: RecordsFarm
before(async () => {
  ctx = await createTestApp()
  f = await recordsFarm(ctx)
  g = await recordsFarm(ctx)
})
after(() => ctx.close())

const LABELS = { treatments: 'Treatment', births: 'Birth', inseminations: 'Insemination' } as const

describe('user-level lists: GET /users/<user_id>/{treatments,births,inseminations}', () => {
  // Three treatments, created in this order: T1 (animal A), T2 (B, archived), T3 (A, archived).
  let a: string, b: string
  let t1: Body, t2: Body, t3: Body
  const ids = async (query: string) => idsOf(await f.get(`/treatments${query}`))

  before(async () => {
    a = (await f.animal()).MAC
    b = (await f.animal()).MAC
    const body = (mac: string, changes: Body) => ({ ...userBodies.treatments(mac, f.user.uid), ...changes })
    t1 = await f.create('/treatments', body(a, { Medicine: 'Amoxicillin', Diagnose: 'Cough', TreatmentAmount: 3 }))
    t2 = await f.create(
      '/treatments',
      body(b, { Medicine: 'Penicillin', Diagnose: 'Lameness', TreatmentAmount: 5, Archived: true }),
    )
    t3 = await f.create(
      '/treatments',
      body(a, { Medicine: 'Oxytocin', Diagnose: 'cough', TreatmentAmount: 1, TreatmentCount: 0, Archived: true }),
    )
    await g.create('/treatments', userBodies.treatments((await g.animal()).MAC, g.user.uid))
  })

  it("lists the user's records newest first (t desc) with the exact pagination object", async () => {
    const res = await f.get('/treatments')
    assert.deepEqual(idsOf(res), [t3.ID, t2.ID, t1.ID])
    assert.deepEqual(res.pagination, { page: 1, limit: 10, total: 3, totalPages: 1 })
    assert.deepEqual(res.data[2], t1, 'list items are the stored records')
  })

  it('pages with page and limit', async () => {
    const second = await f.get('/treatments?limit=2&page=2')
    assert.deepEqual(idsOf(second), [t1.ID])
    assert.deepEqual(second.pagination, { page: 2, limit: 2, total: 3, totalPages: 2 })
    const beyond = await f.get('/treatments?limit=2&page=3')
    assert.deepEqual(beyond.data, [])
    assert.deepEqual(beyond.pagination, { page: 3, limit: 2, total: 3, totalPages: 2 })
  })

  it('sorts by any scalar field in either order', async () => {
    assert.deepEqual(await ids('?sortOrder=asc'), [t1.ID, t2.ID, t3.ID])
    assert.deepEqual(await ids('?sortBy=TreatmentAmount&sortOrder=asc'), [t3.ID, t1.ID, t2.ID])
    assert.deepEqual(await ids('?sortBy=TreatmentAmount'), [t2.ID, t1.ID, t3.ID])
    assert.deepEqual(await ids('?sortBy=Medicine&sortOrder=asc'), [t1.ID, t3.ID, t2.ID])
    assert.deepEqual(await ids('?sortBy=ID&sortOrder=asc'), [t1.ID, t2.ID, t3.ID])
  })

  it('filters with filter[Field]=value, the MAC in either case', async () => {
    assert.deepEqual(await ids('?filter[Medicine]=Amoxicillin'), [t1.ID])
    assert.deepEqual(await ids('?filter[Archived]=true'), [t3.ID, t2.ID])
    assert.deepEqual(await ids(`?filter[Mac]=${a.toLowerCase()}`), [t3.ID, t1.ID])
    assert.deepEqual(await ids('?filter[TreatmentAmount]=5'), [t2.ID])
    assert.deepEqual(await ids('?filter[Archived]=true&filter[Mac]=' + a), [t3.ID])
  })

  it('refuses an unknown sortBy or filter field and out-of-range list parameters with 400', async () => {
    for (const [query, field] of [
      ['sortBy=Nope', 'query:sortBy'],
      ['sortBy=PhoneHistory', 'query:sortBy'],
      ['sortOrder=up', 'query:sortOrder'],
      ['filter[Nope]=1', 'query:filter[Nope]'],
      ['filter[TreatmentAmount]=lots', 'query:filter[TreatmentAmount]'],
      ['filter[Archived]=maybe', 'query:filter[Archived]'],
      ['limit=0', 'query:limit'],
      ['limit=101', 'query:limit'],
      ['page=0', 'query:page'],
    ] as const)
      assertInvalid(await f.call('GET', `/treatments?${query}`), [field])
  })

  it('births and inseminations: list, sort and filter the same way', async () => {
    const c = (await f.animal()).MAC
    const b1 = await f.create('/births', { ...userBodies.births(c, f.user.uid), Living: 9 })
    const b2 = await f.create(`/animals/${c}/births`, { ...animalBodies.births, Living: 14, Archived: true })
    const list = await f.get('/births')
    assert.deepEqual(idsOf(list), [b2.ID, b1.ID])
    assert.deepEqual(list.pagination, { page: 1, limit: 10, total: 2, totalPages: 1 })
    assert.deepEqual(idsOf(await f.get('/births?sortBy=Living&sortOrder=asc')), [b1.ID, b2.ID])
    assert.deepEqual(idsOf(await f.get('/births?filter[Archived]=true')), [b2.ID])
    assert.deepEqual(idsOf(await f.get(`/births?filter[MAC]=${c.toLowerCase()}&limit=1`)), [b2.ID])
    const i1 = await f.create('/inseminations', userBodies.inseminations(c, f.user.uid))
    const i2 = await f.create(`/animals/${c}/inseminations`, { ...animalBodies.inseminations, Boar: 'Pietrain P-7' })
    assert.deepEqual(idsOf(await f.get('/inseminations')), [i2.ID, i1.ID])
    assert.deepEqual(idsOf(await f.get('/inseminations?filter[Occupied]=false')), [i2.ID])
    assert.deepEqual(idsOf(await f.get('/inseminations?sortBy=Boar&sortOrder=asc')), [i1.ID, i2.ID])
    assertInvalid(await f.call('GET', '/births?sortBy=Nope'), ['query:sortBy'])
    assertInvalid(await f.call('GET', '/inseminations?filter[Nope]=x'), ['query:filter[Nope]'])
  })

  // Suspected bug: the plain list reads the search parameters from its query too (record-routes.ts listOne),
  // where they are not declared and so not coerced: archived=true reaches SQL as the text 'true' and
  // lower(boolean) fails.
  it('is not broken by a search parameter on the plain list (archived=true)', async () => {
    for (const segment of USER_LEVEL) {
      for (const query of ['archived=true', 'archived=false']) {
        const res = await f.call('GET', `/${segment}?${query}`)
        assert.ok(
          res.statusCode === 200 || res.statusCode === 400,
          `GET /${segment}?${query}: ${res.statusCode} ${res.body}`,
        )
      }
    }
  })

  describe('GET .../<id>', () => {
    it('reads one record by its ID', async () => {
      assert.deepEqual((await f.get(`/treatments/${String(t2.ID)}`)).data, t2)
    })

    it("answers 404 for an unknown, non-numeric or another user's ID", async () => {
      const stranger = await g.create('/births', userBodies.births((await g.animal()).MAC, g.user.uid))
      for (const segment of USER_LEVEL) {
        for (const id of ['1600000000000', 'abc', '99999999999999999999', '-1', '1e12', stranger.ID]) {
          assertError(await f.call('GET', `/${segment}/${id}`), 404, `${LABELS[segment]} not found`)
        }
      }
    })
  })

  describe('GET .../search', () => {
    it('treatments: archived, mac (either case), medicine and diagnose, text exact but case-insensitive', async () => {
      const search = async (query: string) => idsOf(await f.get(`/treatments/search?${query}`))
      assert.deepEqual(await search(''), [t3.ID, t2.ID, t1.ID])
      assert.deepEqual(await search('archived=true'), [t3.ID, t2.ID])
      assert.deepEqual(await search('archived=false'), [t1.ID])
      assert.deepEqual(await search(`mac=${a.toLowerCase()}`), [t3.ID, t1.ID])
      assert.deepEqual(await search(`mac=${b}`), [t2.ID])
      assert.deepEqual(await search('medicine=AMOXICILLIN'), [t1.ID])
      assert.deepEqual(await search('medicine=amoxicillin'), [t1.ID])
      assert.deepEqual(await search('medicine=amox'), [], 'no partial match')
      assert.deepEqual(await search('diagnose=COUGH'), [t3.ID, t1.ID])
      assert.deepEqual(await search(`diagnose=cough&archived=true&mac=${a}`), [t3.ID])
      assert.deepEqual(await search('medicine=Amoxicillin&diagnose=Lameness'), [])
      assert.deepEqual(await search('mac=AA:BB:CC:FF:FF:FF'), [])
    })

    it('is paginated like every list', async () => {
      const res = await f.get('/treatments/search?diagnose=cough&limit=1&page=2')
      assert.deepEqual(idsOf(res), [t1.ID])
      assert.deepEqual(res.pagination, { page: 2, limit: 1, total: 2, totalPages: 2 })
    })

    it('refuses a malformed mac or archived with 400', async () => {
      for (const segment of USER_LEVEL) {
        assertInvalid(await f.call('GET', `/${segment}/search?mac=AA:BB`), ['query:mac'])
        assertInvalid(await f.call('GET', `/${segment}/search?archived=maybe`), ['query:archived'])
      }
      assertInvalid(await f.call('GET', '/treatments/search?medicine='), ['query:medicine'])
    })

    it('births: archived and mac; inseminations: archived, mac, boar and geneticLine', async () => {
      const d = (await f.animal()).MAC
      const e = (await f.animal()).MAC
      const b1 = await f.create('/births', { ...userBodies.births(d, f.user.uid), Archived: true })
      const b2 = await f.create('/births', userBodies.births(e, f.user.uid))
      const births = async (query: string) =>
        idsOf(await f.get(`/births/search?${query}`)).filter((id) => id === b1.ID || id === b2.ID)
      assert.deepEqual(await births('archived=true'), [b1.ID])
      assert.deepEqual(await births('archived=false'), [b2.ID])
      assert.deepEqual(await births(`mac=${d.toLowerCase()}`), [b1.ID])
      assert.deepEqual(idsOf(await f.get(`/births/search?mac=${e}&archived=true`)), [])

      const i1 = await f.create('/inseminations', {
        ...userBodies.inseminations(d, f.user.uid),
        Boar: 'Duroc DK-4471',
        GeneticLine: 'Landrace',
      })
      const i2 = await f.create('/inseminations', {
        ...userBodies.inseminations(e, f.user.uid),
        Boar: 'Pietrain',
        GeneticLine: 'Landrace',
        Archived: true,
      })
      const inseminations = async (query: string) =>
        idsOf(await f.get(`/inseminations/search?${query}`)).filter((id) => id === i1.ID || id === i2.ID)
      assert.deepEqual(await inseminations('boar=duroc dk-4471'), [i1.ID])
      assert.deepEqual(await inseminations('boar=Duroc'), [], 'no partial match')
      assert.deepEqual(await inseminations('geneticLine=LANDRACE'), [i2.ID, i1.ID])
      assert.deepEqual(await inseminations('geneticLine=landrace&archived=true'), [i2.ID])
      assert.deepEqual(await inseminations(`mac=${e.toLowerCase()}`), [i2.ID])
      assert.deepEqual(await inseminations(`mac=${d}&boar=pietrain`), [])
    })
  })

  describe('GET .../active and .../archived', () => {
    it('list the records with Archived false and true, paginated', async () => {
      const active = await f.get('/treatments/active')
      assert.deepEqual(idsOf(active), [t1.ID])
      assert.deepEqual(active.pagination, { page: 1, limit: 10, total: 1, totalPages: 1 })
      const archived = await f.get('/treatments/archived')
      assert.deepEqual(idsOf(archived), [t3.ID, t2.ID])
      const page2 = await f.get('/treatments/archived?limit=1&page=2&sortOrder=desc')
      assert.deepEqual(idsOf(page2), [t2.ID])
      assert.deepEqual(page2.pagination, { page: 2, limit: 1, total: 2, totalPages: 2 })
      assert.deepEqual(idsOf(await f.get('/treatments/archived?sortBy=TreatmentAmount&sortOrder=asc')), [t3.ID, t2.ID])
      for (const segment of ['births', 'inseminations']) {
        for (const record of (await f.get(`/${segment}/active?limit=100`)).data) assert.equal(record.Archived, false)
        for (const record of (await f.get(`/${segment}/archived?limit=100`)).data) assert.equal(record.Archived, true)
      }
    })
  })
})

describe('per-animal reads: GET /users/<user_id>/animals/<animal_mac>/<segment>', () => {
  // Three births of one sow (StartDate 2026-03-01, 2026-03-15, 2026-04-02), one of another.
  let sow: string, other: string
  let b1: Body, b2: Body, b3: Body
  before(async () => {
    sow = (await f.animal()).MAC
    other = (await f.animal()).MAC
    b1 = await f.create(`/animals/${sow}/births`, { ...animalBodies.births, StartDate: '2026-03-01' })
    b2 = await f.create('/births', { ...userBodies.births(sow, f.user.uid), StartDate: '2026-03-15' })
    b3 = await f.create(`/animals/${sow}/births`, { ...animalBodies.births, StartDate: '2026-04-02' })
    await f.create(`/animals/${other}/births`, { ...animalBodies.births, StartDate: '2026-03-10' })
  })

  it("lists only the animal's records, newest first, with the common list parameters", async () => {
    const list = await f.get(`/animals/${sow.toLowerCase()}/births`)
    assert.deepEqual(idsOf(list), [b3.ID, b2.ID, b1.ID])
    assert.deepEqual(list.pagination, { page: 1, limit: 10, total: 3, totalPages: 1 })
    const page = await f.get(`/animals/${sow}/births?sortBy=StartDate&sortOrder=asc&limit=2&page=2`)
    assert.deepEqual(idsOf(page), [b3.ID])
    assert.deepEqual(page.pagination, { page: 2, limit: 2, total: 3, totalPages: 2 })
    assert.deepEqual(idsOf(await f.get(`/animals/${sow}/births?filter[StartDate]=2026-03-15`)), [b2.ID])
    assertInvalid(await f.call('GET', `/animals/${sow}/births?sortBy=Nope`), ['query:sortBy'])
    assertInvalid(await f.call('GET', `/animals/${sow}/births?filter[Nope]=1`), ['query:filter[Nope]'])
  })

  it("gets one record of the animal; another animal's record is a 404 under this animal's path", async () => {
    assert.deepEqual((await f.get(`/animals/${sow}/births/${String(b2.ID)}`)).data, b2)
    assertError(await f.call('GET', `/animals/${other}/births/${String(b2.ID)}`), 404, 'Birth not found')
    for (const id of ['abc', '1600000000000', '99999999999999999999'])
      assertError(await f.call('GET', `/animals/${sow}/births/${id}`), 404, 'Birth not found')
  })

  // Suspected bug: the path schemas cap ids and MACs at 64 characters (record-routes.ts RecordId,
  // animals.resource.ts AnimalMacPath), so a longer one is a 400 on GET, though docs/decisions.md wants a 404
  // whatever its form (PATCH, which parses the id itself, already answers 404).
  it('answers 404 for an overlong record ID or animal MAC in the path too', async () => {
    assertError(await f.call('GET', `/births/${'1'.repeat(65)}`), 404, 'Birth not found')
    assertError(await f.call('GET', `/animals/${sow}/births/${'1'.repeat(65)}`), 404, 'Birth not found')
    assertError(await f.call('GET', `/animals/${'A'.repeat(65)}/births`), 404, 'Animal not found')
  })

  it("answers 404 for an animal that is not the user's, whatever its form", async () => {
    const stranger = (await g.animal()).MAC
    for (const segment of ANIMAL_LEVEL) {
      for (const animal of [stranger, 'AA:BB:CC:FF:FF:FF', 'not-a-mac']) {
        for (const path of ['', '/recent', `/${String(b1.ID)}`])
          assertError(await f.call('GET', `/animals/${animal}/${segment}${path}`), 404, 'Animal not found')
      }
    }
  })

  describe('GET .../recent', () => {
    it('gives the newest records first: 10 by default, limit 1-100', async () => {
      const animal = (await f.animal()).MAC
      const created: string[] = []
      for (let i = 0; i < 12; i++)
        created.push(
          (
            await f.create(`/animals/${animal}/general-events`, {
              ...animalBodies['general-events'],
              Description: `Event ${i}`,
            })
          ).ID,
        )
      const newestFirst = [...created].reverse()
      const recent = await f.get(`/animals/${animal}/general-events/recent`)
      assert.deepEqual(idsOf(recent), newestFirst.slice(0, 10))
      assert.equal(recent.pagination, undefined)
      assert.deepEqual(idsOf(await f.get(`/animals/${animal}/general-events/recent?limit=3`)), newestFirst.slice(0, 3))
      assert.deepEqual(idsOf(await f.get(`/animals/${animal}/general-events/recent?limit=1`)), newestFirst.slice(0, 1))
      assert.deepEqual(idsOf(await f.get(`/animals/${animal}/general-events/recent?limit=100`)), newestFirst)
      for (const limit of ['0', '101', 'many', '-1']) {
        assertInvalid(await f.call('GET', `/animals/${animal}/general-events/recent?limit=${limit}`), ['query:limit'])
      }
    })

    it("exists for every per-animal collection and shows only the animal's records", async () => {
      const animal = (await f.animal()).MAC
      for (const segment of ANIMAL_LEVEL) {
        const first = await f.create(`/animals/${animal}/${segment}`, animalBodies[segment])
        const second = await f.create(`/animals/${animal}/${segment}`, animalBodies[segment])
        assert.deepEqual(idsOf(await f.get(`/animals/${animal}/${segment}/recent`)), [second.ID, first.ID], segment)
        assert.deepEqual((await f.get(`/animals/${animal}/${segment}/recent?limit=1`)).data, [second], segment)
      }
    })
  })

  describe('GET .../range (births and inseminations)', () => {
    const range = async (query: string) => idsOf(await f.get(`/animals/${sow}/births/range?${query}`))

    it('gives the records whose StartDate lies between startDate and endDate, both inclusive, oldest first', async () => {
      assert.deepEqual(await range('startDate=2026-03-01&endDate=2026-03-15'), [b1.ID, b2.ID])
      assert.deepEqual(await range('startDate=2026-03-02&endDate=2026-04-01'), [b2.ID])
      assert.deepEqual(await range('startDate=2026-03-01&endDate=2026-03-01'), [b1.ID])
      assert.deepEqual(await range('startDate=2026-01-01&endDate=2026-12-31'), [b1.ID, b2.ID, b3.ID])
      assert.deepEqual(await range('startDate=2025-01-01&endDate=2025-12-31'), [])
      const res = await f.get(`/animals/${sow}/births/range?startDate=2026-03-15&endDate=2026-03-15`)
      assert.deepEqual(res.data, [b2])
      assert.equal(res.pagination, undefined)
    })

    it('takes ISO 8601 date-times, compared by their UTC calendar day', async () => {
      assert.deepEqual(await range('startDate=2026-03-15T00:00:00Z&endDate=2026-04-02T23:59:59.999Z'), [b2.ID, b3.ID])
      assert.deepEqual(await range('startDate=2026-03-15T18:30:00&endDate=2026-04-02T08:00'), [b2.ID, b3.ID])
      // 01:00 at +02:00 is 23:00 UTC the day before.
      assert.deepEqual(await range(`startDate=${encodeURIComponent('2026-03-16T01:00:00+02:00')}&endDate=2026-04-01`), [
        b2.ID,
      ])
    })

    it('refuses a missing, malformed or impossible date and a startDate after endDate with 400', async () => {
      assertInvalid(await f.call('GET', `/animals/${sow}/births/range?endDate=2026-03-01`), ['query:startDate'])
      assertInvalid(await f.call('GET', `/animals/${sow}/births/range?startDate=2026-03-01`), ['query:endDate'])
      assertInvalid(await f.call('GET', `/animals/${sow}/births/range`), ['query:startDate', 'query:endDate'])
      for (const [query, fields] of [
        ['startDate=2026-02-30&endDate=2026-03-31', ['query:startDate']],
        ['startDate=2026-03-01&endDate=2026-04-31', ['query:endDate']],
        ['startDate=2026-13-01&endDate=2026-02-30', ['query:startDate', 'query:endDate']],
        ['startDate=01/03/2026&endDate=2026-03-31', ['query:startDate']],
        ['startDate=2026-03-01T25:00:00Z&endDate=2026-03-31', ['query:startDate']],
        ['startDate=2026-03-16&endDate=2026-03-15', ['query:startDate']],
      ] as const)
        assertInvalid(await f.call('GET', `/animals/${sow}/births/range?${query}`), [...fields])
    })

    it('inseminations: the same on their StartDate', async () => {
      const animal = (await f.animal()).MAC
      const i1 = await f.create(`/animals/${animal}/inseminations`, {
        ...animalBodies.inseminations,
        StartDate: '2026-05-01',
      })
      const i2 = await f.create('/inseminations', {
        ...userBodies.inseminations(animal, f.user.uid),
        StartDate: '2026-05-22',
      })
      assert.deepEqual(
        idsOf(await f.get(`/animals/${animal}/inseminations/range?startDate=2026-05-01&endDate=2026-05-22`)),
        [i1.ID, i2.ID],
      )
      assert.deepEqual(
        idsOf(await f.get(`/animals/${animal}/inseminations/range?startDate=2026-05-02&endDate=2026-06-01`)),
        [i2.ID],
      )
      assertInvalid(
        await f.call('GET', `/animals/${animal}/inseminations/range?startDate=2026-05-22&endDate=2026-05-01`),
        ['query:startDate'],
      )
      assertInvalid(
        await f.call('GET', `/animals/${animal}/inseminations/range?startDate=2026-02-29&endDate=2026-05-01`),
        ['query:startDate'],
      )
    })
  })
})

describe('one store, two views', () => {
  it('a record created at user level shows at animal level, and one created per animal shows at user level', async () => {
    const animal = (await f.animal()).MAC
    for (const segment of ['births', 'inseminations'] as const) {
      const fromUser = await f.create(`/${segment}`, userBodies[segment](animal, f.user.uid))
      const fromAnimal = await f.create(`/animals/${animal}/${segment}`, animalBodies[segment])
      assert.deepEqual((await f.get(`/animals/${animal}/${segment}/${String(fromUser.ID)}`)).data, fromUser)
      assert.deepEqual((await f.get(`/${segment}/${String(fromAnimal.ID)}`)).data, fromAnimal)
      assert.deepEqual(idsOf(await f.get(`/animals/${animal}/${segment}`)), [fromAnimal.ID, fromUser.ID])
      assert.deepEqual(idsOf(await f.get(`/${segment}/search?mac=${animal}`)), [fromAnimal.ID, fromUser.ID])
    }
  })
})

describe('GET /users/<user_id>/births/statistics', () => {
  // Sow A: 12+1 on 2026-03-01 and 10+2 on 2026-03-15 (archived); sow B: 14+0 on 2026-04-02.
  let s: RecordsFarm
  let a: string, b: string
  const stats = async (query = '', farm = s) => (await farm.get(`/births/statistics${query}`)).data
  const figures = (births: number, living: number, dead: number) => ({
    totalBirths: births,
    totalLiving: living,
    totalDead: dead,
    averageLitterSize: births > 0 ? (living + dead) / births : 0,
    survivalRate: living + dead > 0 ? (living / (living + dead)) * 100 : 0,
  })

  before(async () => {
    s = await recordsFarm(ctx)
    a = (await s.animal()).MAC
    b = (await s.animal()).MAC
    await s.create('/births', { ...userBodies.births(a, s.user.uid), Living: 12, Dead: 1, StartDate: '2026-03-01' })
    await s.create(`/animals/${a}/births`, { Living: 10, Dead: 2, StartDate: '2026-03-15', Archived: true })
    await s.create(`/animals/${b}/births`, { Living: 14, Dead: 0, StartDate: '2026-04-02' })
    await g.create('/births', {
      ...userBodies.births((await g.animal()).MAC, g.user.uid),
      Living: 7,
      Dead: 7,
      StartDate: '2026-03-01',
    })
  })

  it('totals every birth of the user, archived ones too', async () => {
    assert.deepEqual(await stats(), {
      totalBirths: 3,
      totalLiving: 36,
      totalDead: 3,
      averageLitterSize: 13,
      survivalRate: (36 / 39) * 100,
    })
  })

  it('narrows to one animal by mac, in either case', async () => {
    assert.deepEqual(await stats(`?mac=${a.toLowerCase()}`), {
      totalBirths: 2,
      totalLiving: 22,
      totalDead: 3,
      averageLitterSize: 12.5,
      survivalRate: 88,
    })
    assert.deepEqual(await stats(`?mac=${b}`), figures(1, 14, 0))
    assert.deepEqual(await stats('?mac=AA:BB:CC:FF:FF:FF'), figures(0, 0, 0))
  })

  it('narrows to StartDate between startDate and endDate, both inclusive, either one alone', async () => {
    assert.deepEqual(await stats('?startDate=2026-03-10&endDate=2026-04-02'), figures(2, 24, 2))
    assert.deepEqual(await stats('?startDate=2026-03-15'), figures(2, 24, 2))
    assert.deepEqual(await stats('?endDate=2026-03-15'), figures(2, 22, 3))
    assert.deepEqual(await stats('?endDate=2026-03-15T12:00:00Z'), figures(2, 22, 3))
    assert.deepEqual(await stats('?startDate=2026-03-01&endDate=2026-03-01'), figures(1, 12, 1))
    assert.deepEqual(await stats(`?mac=${a}&startDate=2026-03-10`), {
      totalBirths: 1,
      totalLiving: 10,
      totalDead: 2,
      averageLitterSize: 12,
      survivalRate: (10 / 12) * 100,
    })
  })

  it('is all zeros without births, and 0 for the derived figures when there are no piglets', async () => {
    const empty = await recordsFarm(ctx)
    assert.deepEqual(await stats('', empty), {
      totalBirths: 0,
      totalLiving: 0,
      totalDead: 0,
      averageLitterSize: 0,
      survivalRate: 0,
    })
    await empty.create(`/animals/${(await empty.animal()).MAC}/births`, { Living: 0, Dead: 0, StartDate: '2026-03-01' })
    assert.deepEqual(await stats('', empty), {
      totalBirths: 1,
      totalLiving: 0,
      totalDead: 0,
      averageLitterSize: 0,
      survivalRate: 0,
    })
  })

  it('refuses a malformed mac, an impossible date and a startDate after endDate with 400', async () => {
    assertInvalid(await s.call('GET', '/births/statistics?mac=AA:BB'), ['query:mac'])
    assertInvalid(await s.call('GET', '/births/statistics?startDate=2026-02-30'), ['query:startDate'])
    assertInvalid(await s.call('GET', '/births/statistics?endDate=03/15/2026'), ['query:endDate'])
    assertInvalid(await s.call('GET', '/births/statistics?startDate=2026-04-02&endDate=2026-03-01'), [
      'query:startDate',
    ])
  })
})
