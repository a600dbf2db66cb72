// The herd routes through HTTP on the fixture herd (herd-fixture.ts), its records created through the record
// routes: each female's cycle, the due lists and the KPIs as computed by hand; the herd list filtered by cycle
// state; bad inputs; who may read (owner, linked integrator) and who may not.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createTestApp, type TestContext } from '../support/app.ts'
import { assertError, assertInvalid } from '../support/assertions.ts'
import { bearer, createIntegrator, createUser, integratorToken, userToken } from '../support/fixtures.ts'
import { FIXTURE_DUE, FIXTURE_HERD, FIXTURE_KPIS, FIXTURE_STATES, PERIOD, TODAY, dateAt } from './herd-fixture.ts'

let ctx: TestContext
let uid: string
let headers: Record<string, string>
const macs: Record<string, string> = {}
const MALE = 'AA:BB:CC:00:99:01'

const call = (url: string, as = headers) =>
  ctx.app.inject({ method: 'GET', url: `/api/v1/users/${uid}${url}`, headers: as })
async function post(url: string, payload: object) {
  const res = await ctx.app.inject({ method: 'POST', url: `/api/v1/users/${uid}${url}`, headers, payload })
  assert.equal(res.statusCode, 201, `POST ${url}: ${res.body}`)
}

before(async () => {
  ctx = await createTestApp({ clock: () => Date.parse(`${TODAY}T10:00:00Z`) })
  const owner = await createUser(ctx)
  uid = owner.uid
  headers = bearer((await userToken(ctx, owner.email)).accessToken)
  let i = 0
  for (const [name, events] of Object.entries(FIXTURE_HERD)) {
    const mac = (macs[name] = `AA:BB:CC:00:00:${(++i).toString(16).padStart(2, '0').toUpperCase()}`)
    await post('/animals', { MAC: mac, Sex: 'female', Group: i <= 4 ? 'Sows A' : 'Sows B' })
    const animal = `/animals/${mac}`
    for (const e of events) {
      const date = dateAt(e[1])
      if (e[0] === 'service') await post(`${animal}/inseminations`, { Boar: 'Duroc DK-4471', StartDate: date })
      if (e[0] === 'check') await post(`${animal}/pregnancy-checks`, { checkDate: date, result: e[2] })
      if (e[0] === 'return')
        await post(`${animal}/return-to-estrus`, { returnDate: date, returnType: 'regular', daysSinceService: 21 })
      if (e[0] === 'farrowing') await post(`${animal}/births`, { StartDate: date, Living: e[2], Dead: e[3] })
      if (e[0] === 'weaning')
        await post(`${animal}/weanings`, { weaningDate: date, countWeaned: e[2], fosterIn: e[3], fosterOut: e[4] })
      if (e[0] === 'cull')
        await post(`${animal}/movements`, { movementDate: date, fromStage: 'weaned', toStage: 'cull' })
    }
  }
  await post('/animals', { MAC: MALE, Sex: 'male', Group: 'Boars' })
})
after(() => ctx.close())

describe('cycle', () => {
  it("gives each female's state and days in it as computed by hand", async () => {
    for (const [name, expected] of Object.entries(FIXTURE_STATES)) {
      const res = await call(`/animals/${macs[name]!.toLowerCase()}/cycle`)
      assert.equal(res.statusCode, 200, res.body)
      const { state, days, MAC, date } = res.json().data
      assert.deepEqual({ state, days: name === 'F' ? null : days }, expected, name)
      assert.equal(MAC, macs[name])
      assert.equal(date, TODAY)
    }
  })

  it('gives the dates: since, the mating, the expected farrowing, parity', async () => {
    const e = (await call(`/animals/${macs.E}/cycle`)).json().data
    assert.deepEqual(e, {
      MAC: macs.E,
      state: 'due-to-farrow',
      since: dateAt(88),
      days: 1,
      lastService: dateAt(-20),
      expectedFarrowing: dateAt(95),
      expectedHeat: null,
      parity: 0,
      date: TODAY,
    })
    const b = (await call(`/animals/${macs.B}/cycle?date=${dateAt(0)}`)).json().data
    assert.deepEqual([b.state, b.since, b.days, b.lastService, b.parity], ['pregnant', dateAt(-40), 40, dateAt(-68), 0])
  })

  it('gives when her next heat is expected, by hand', async () => {
    const heatOf = async (name: string, date = TODAY) =>
      (await call(`/animals/${macs[name]}/cycle?date=${date}`)).json().data.expectedHeat
    // C served on day 66: her return 18-24 days after. G weaned on day 78: 3-8 days after, passed unseen by today
    // (day 89), so one regular return on: 21-32 days after. A served 41 days ago: likely pregnant, none.
    assert.deepEqual(await heatOf('C'), { from: dateAt(84), to: dateAt(90) })
    assert.deepEqual(await heatOf('G'), { from: dateAt(99), to: dateAt(110) })
    assert.equal(await heatOf('A'), null)
    assert.equal(await heatOf('B'), null, 'lactating')
    // E checked open on day -25 after her service of day -50: two regular returns after it (the first unseen).
    assert.deepEqual(await heatOf('E', dateAt(-25)), { from: dateAt(-14), to: dateAt(-2) })
    // B returned on day -69: one regular return after the return.
    assert.deepEqual(await heatOf('B', dateAt(-69)), { from: dateAt(-51), to: dateAt(-45) })
  })

  it('gives a gilt no since nor days on a day before she was registered', async () => {
    // Every fixture animal is registered on TODAY; F has no records.
    const f = (await call(`/animals/${macs.F}/cycle?date=${dateAt(0)}`)).json().data
    assert.deepEqual([f.state, f.since, f.days, f.date], ['gilt', null, null, dateAt(0)])
    const registered = (await call(`/animals/${macs.F}/cycle`)).json().data
    assert.deepEqual([registered.since, registered.days], [TODAY, 0])
  })

  it("counts a gilt's days from her registration, not from her tag's latest reading", async () => {
    // The animal's `t` is her tag's latest reading (the registration only until the first): a backlog of readings
    // from day 50 made her a gilt since day 50.
    const farm = await createUser(ctx)
    const as = bearer((await userToken(ctx, farm.email)).accessToken)
    const base = `/api/v1/users/${farm.uid}/animals`
    const mac = 'AA:BB:CC:00:55:01'
    const created = await ctx.app.inject({
      method: 'POST',
      url: base,
      headers: as,
      payload: { MAC: mac, Sex: 'female' },
    })
    assert.equal(created.statusCode, 201, created.body)
    const integrator = await createIntegrator(ctx, { canWrite: true, linkTo: [farm.uid] })
    const tag = bearer((await integratorToken(ctx, integrator.uid)).accessToken)
    const t = Date.parse(`${dateAt(50)}T12:00:00Z`)
    const readings = [{ t, c: 38.5, x: 0, y: 0, z: 1 }]
    const sent = await ctx.app.inject({
      method: 'POST',
      url: `${base}/${mac}/sensordata`,
      headers: tag,
      payload: { readings },
    })
    assert.equal(sent.statusCode, 200, sent.body)
    const cycle = (await ctx.app.inject({ method: 'GET', url: `${base}/${mac}/cycle`, headers: as })).json().data
    assert.deepEqual([cycle.state, cycle.since, cycle.days], ['gilt', TODAY, 0])
  })

  it('answers state null for a male, and 404 for an animal the user does not have', async () => {
    const male = (await call(`/animals/${MALE}/cycle`)).json().data
    assert.deepEqual([male.state, male.days, male.parity], [null, null, 0])
    assertError(await call('/animals/AA:BB:CC:77:77:77/cycle'), 404, 'Animal not found')
    assertError(await call('/animals/not-a-mac/cycle'), 404, 'Animal not found')
  })

  it('refuses a date that is not a real one', async () => {
    assertInvalid(await call(`/animals/${macs.A}/cycle?date=2026-02-30`), ['query:date'])
    assertInvalid(await call(`/animals/${macs.A}/cycle?date=yesterday`), ['query:date'])
  })
})

describe('the herd list filtered by cycle state', () => {
  const listed = async (query: string) => {
    const res = await call(`/animals?${query}`)
    assert.equal(res.statusCode, 200, res.body)
    const body = res.json()
    const names = body.data.map((a: { MAC: string }) => Object.keys(macs).find((n) => macs[n] === a.MAC)).sort()
    return [names, body.pagination.total]
  }

  it('keeps the females in the state, with the other list parameters', async () => {
    assert.deepEqual(await listed('cycleState=served'), [['A', 'C'], 2])
    assert.deepEqual(await listed('cycleState=gilt'), [['F'], 1])
    assert.deepEqual(await listed('cycleState=open'), [[], 0])
    assert.deepEqual(await listed('cycleState=served&filter[Group]=Sows%20B'), [[], 0])
    assert.deepEqual(await listed('cycleState=served&limit=1&sortBy=MAC&sortOrder=desc'), [['C'], 2])
  })

  it('refuses a state that is not one', async () => {
    assertInvalid(await call('/animals?cycleState=Served'), ['query:cycleState'])
    assertInvalid(await call('/animals?cycleState=pregnant&cycleState=open'), ['query:cycleState'])
  })
})

describe('due lists', () => {
  const names = (list: { MAC: string; dueDate: string; daysFromDue: number }[]) =>
    list.map((e) => [Object.keys(macs).find((n) => macs[n] === e.MAC), e.dueDate, e.daysFromDue])

  it('lists the sows computed by hand, today by default', async () => {
    const res = await call('/due-lists')
    assert.equal(res.statusCode, 200, res.body)
    const data = res.json().data
    assert.equal(data.date, TODAY)
    assert.equal(data.weanedDays, 7)
    for (const list of Object.keys(FIXTURE_DUE) as (keyof typeof FIXTURE_DUE)[])
      assert.deepEqual(names(data[list]), FIXTURE_DUE[list], list)
    assert.deepEqual(data.returnsToWatch[0], {
      MAC: macs.C,
      Group: 'Sows A',
      state: 'served',
      daysInState: 23,
      dueDate: dateAt(84),
      daysFromDue: 5,
    })
  })

  it('takes N, a date and a group', async () => {
    assert.deepEqual((await call('/due-lists?weanedDays=12')).json().data.weanedNotServed, [])
    const earlier = (await call(`/due-lists?date=${dateAt(50)}`)).json().data
    // Day 50: C served on day 31 is 19 days in (a return to watch); A served on day 48 is not yet.
    assert.deepEqual(names(earlier.returnsToWatch), [['C', dateAt(49), 1]])
    const groupB = (await call('/due-lists?group=Sows%20B')).json().data
    assert.deepEqual(names(groupB.dueToFarrow), FIXTURE_DUE.dueToFarrow)
    assert.deepEqual(groupB.pregnancyCheck, [])
  })

  it('refuses bad parameters', async () => {
    assertInvalid(await call('/due-lists?weanedDays=0'), ['query:weanedDays'])
    assertInvalid(await call('/due-lists?weanedDays=366'), ['query:weanedDays'])
    assertInvalid(await call('/due-lists?date=2026-13-01'), ['query:date'])
    assertInvalid(await call('/due-lists?date=9999-12-31'), ['query:date'])
    assertInvalid(await call('/kpis?from=1999-12-31&to=2000-01-10'), ['query:from'])
    assertInvalid(await call('/due-lists?group='), ['query:group'])
    assertInvalid(await call('/due-lists?sortBy=t'), ['query:sortBy'])
  })
})

describe('kpis', () => {
  it('gives every KPI of the period as computed by hand', async () => {
    const res = await call(`/kpis?from=${PERIOD.from}&to=${PERIOD.to}`)
    assert.equal(res.statusCode, 200, res.body)
    const { from, to, group, ...kpis } = res.json().data
    assert.deepEqual([from, to, group], [PERIOD.from, PERIOD.to, null])
    // Each KPI carries its published benchmark beside it.
    assert.deepEqual(kpis.farrowingRate.benchmark, { text: '83-88 %', low: 83, high: 88 })
    assert.deepEqual(kpis.returnRate.benchmark, { text: 'below 10-12 %, most of them regular', low: null, high: 12 })
    const withoutBenchmarks = Object.fromEntries(
      Object.entries(kpis).map(([name, kpi]) => {
        if (typeof kpi !== 'object' || kpi === null) return [name, kpi]
        const { benchmark, ...figures } = kpi as { benchmark: unknown }
        assert.ok(benchmark, `${name} has its benchmark`)
        return [name, figures]
      }),
    )
    assert.deepEqual(withoutBenchmarks, FIXTURE_KPIS)
  })

  it('counts one group alone, and the 365 days to today by default', async () => {
    const b = (await call(`/kpis?from=${PERIOD.from}&to=${PERIOD.to}&group=Sows%20B`)).json().data
    // E, F, G: mated days 90 + 0 + 90; G's litter alone.
    assert.deepEqual([b.females, b.matedFemaleDays, b.bornAlivePerLitter.value], [3, 180, 11])
    const byDefault = (await call('/kpis')).json().data
    assert.deepEqual([byDefault.from, byDefault.to], ['2025-04-01', TODAY])
    const empty = (await call(`/kpis?group=Nobody`)).json().data
    assert.deepEqual([empty.females, empty.farrowingRate.value, empty.nonProductiveDays.value], [0, null, null])
  })

  it('counts the females in the herd during the period: not those culled before it, nor those come after it', async () => {
    // D was culled on day 40.
    const afterTheCull = (await call(`/kpis?from=${dateAt(41)}&to=${PERIOD.to}`)).json().data
    assert.equal(afterTheCull.females, 6)
    // All were registered on TODAY; A, B, D and E have records before day 0, C from day 10, G from day 50, F none.
    const before = (await call(`/kpis?from=${dateAt(-90)}&to=${dateAt(-1)}`)).json().data
    assert.equal(before.females, 4)
  })

  it('refuses a period that is reversed, too long or not made of real dates', async () => {
    assertInvalid(await call('/kpis?from=2026-03-02&to=2026-03-01'), ['query:from'])
    assertInvalid(await call('/kpis?from=2010-01-01&to=2026-03-01'), ['query:from'])
    assertInvalid(await call('/kpis?from=2026-02-29&to=2026-03-01'), ['query:from'])
    assertInvalid(await call('/kpis?to=2026-03-01T00:00:00Z'), ['query:to'])
    const earliest = await call('/kpis?to=2000-03-01')
    assert.equal(earliest.statusCode, 200, earliest.body)
    assert.equal(earliest.json().data.from, '2000-01-01', 'the default year starts no earlier than the first day')
  })
})

describe('who may read', () => {
  it('lets a linked integrator read, and refuses another user and an unlinked integrator', async () => {
    const linked = await createIntegrator(ctx, { tier: 'starter', linkTo: [uid] })
    const asLinked = bearer((await integratorToken(ctx, linked.uid)).accessToken)
    for (const url of [`/animals/${macs.A}/cycle`, '/due-lists', '/kpis'])
      assert.equal((await call(url, asLinked)).statusCode, 200, url)
    const other = await createUser(ctx)
    const asOther = bearer((await userToken(ctx, other.email)).accessToken)
    const unlinked = await createIntegrator(ctx)
    const asUnlinked = bearer((await integratorToken(ctx, unlinked.uid)).accessToken)
    for (const url of [`/animals/${macs.A}/cycle`, '/due-lists', '/kpis']) {
      assertError(await call(url, asOther), 403, "You do not have access to this user's data")
      assertError(await call(url, asUnlinked), 403, "Integrator does not have access to this user's data")
      assertError(await call(url, {}), 401, 'Authorization header is required')
    }
  })
})
