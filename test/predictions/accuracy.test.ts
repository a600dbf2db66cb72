// GET /users/<user_id>/predictions/accuracy through HTTP: posted predictions against records created through
// the record routes, every figure by hand; bad periods; who may read it.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createTestApp, type TestContext } from '../support/app.ts'
import { assertError, assertInvalid } from '../support/assertions.ts'
import { addAnimal, bearer, createIntegrator, createUser, integratorToken, userToken } from '../support/fixtures.ts'
import { insertScoredPredictions } from '../../src/modules/predictions/predictions.repository.ts'
import { alarmLevel } from '../../src/modules/predictions/calibration.rules.ts'

let ctx: TestContext
let uid: string
let headers: Record<string, string>
const MACS = ['AA:BB:CC:00:10:01', 'AA:BB:CC:00:10:02', 'AA:BB:CC:00:10:03']
const NOW = Date.parse('2026-03-31T10:00:00Z')

const get = (query: string, as = headers) =>
  ctx.app.inject({ method: 'GET', url: `/api/v1/users/${uid}/predictions/accuracy${query}`, headers: as })
async function post(url: string, payload: object) {
  const res = await ctx.app.inject({ method: 'POST', url: `/api/v1/users/${uid}${url}`, headers, payload })
  assert.equal(res.statusCode, 201, `POST ${url}: ${res.body}`)
}
const predict = (mac: string, classificationType: string, timestamp: string, probability: number) =>
  post(`/animals/${mac}/predictions`, { classificationType, timestamp, results: [{ timestamp, probability }] })

before(async () => {
  ctx = await createTestApp({ clock: () => NOW })
  const owner = await createUser(ctx)
  uid = owner.uid
  headers = bearer((await userToken(ctx, owner.email)).accessToken)
  for (const MAC of MACS) await post('/animals', { MAC, Sex: 'female' })
  const [a1, a2, a3] = MACS as [string, string, string]
  // Birth: a1 alarms from 00:00 (two hours, one alarm) and farrows at 09:00: lead 9 h; a2 alarms and does not
  // farrow (false); a3 farrows with no alarm (missed). a1's low score on the 5th is a scored hour, no alarm.
  await predict(a1, 'birth', '2026-03-05T00:00:00Z', 0.2)
  await predict(a1, 'birth', '2026-03-10T00:00:00Z', 0.6)
  await predict(a1, 'birth', '2026-03-10T01:00:00Z', 0.8)
  await post(`/animals/${a1}/births`, { StartDate: '2026-03-10', StartTime: '09:00', Living: 12, Dead: 1 })
  await predict(a2, 'birth', '2026-03-12T06:00:00Z', 0.7)
  await predict(a3, 'birth', '2026-03-19T00:00:00Z', 0.1)
  await post(`/animals/${a3}/births`, { StartDate: '2026-03-20', Living: 11, Dead: 0 })
  // Heat: a1 alarms at 08:00 and is served at 20:00 (12 h), and again the next morning (the same heat).
  await predict(a1, 'heat', '2026-03-15T08:00:00Z', 0.55)
  await post(`/animals/${a1}/inseminations`, { Boar: 'Duroc', StartDate: '2026-03-15', StartTime: '20:00' })
  await post(`/animals/${a1}/inseminations`, { Boar: 'Duroc', StartDate: '2026-03-16', StartTime: '08:00' })
  // a2 is served with no heat predictions at all: unscored, not missed.
  await post(`/animals/${a2}/inseminations`, { Boar: 'Duroc', StartDate: '2026-03-22' })
  // Lameness: a2 alarms on the 18th at noon and is treated for lameness on the 20th (noon: 48 h); a3's lameness
  // is recorded as a general event now (its t), with no alarm.
  await predict(a2, 'lameness', '2026-03-18T12:00:00Z', 0.9)
  await post('/treatments', {
    Mac: a2,
    Medicine: 'Meloxicam',
    Diagnose: 'Lame left hind',
    CustomName: 'Dr. Hansen',
    Comment: 'Three days',
    TreatmentAmount: 3,
    TreatmentCount: 1,
    TreatmentInterval: 24,
    StartDate: '2026-03-20',
    StartDateSeconds: 1773964800,
    Archived: false,
    PhoneHistory: [],
  })
  await predict(a3, 'lameness', '2026-03-30T00:00:00Z', 0.1)
  await post(`/animals/${a3}/general-events`, { Diagnose: 'Lameness', Description: 'Stiff on the right fore' })
})
after(() => ctx.close())

describe('prediction accuracy', () => {
  it('matches alarms with the records, every figure by hand', async () => {
    const res = await get('?from=2026-03-01&to=2026-03-31')
    assert.equal(res.statusCode, 200, res.body)
    const data = res.json().data
    assert.deepEqual(
      [data.from, data.to, data.alarmProbability],
      ['2026-03-01T00:00:00.000Z', '2026-03-31T23:59:59.999Z', 0.5],
    )
    // Each class says where the scorer's own predictions alarm: its threshold's calibrated probability.
    assert.deepEqual(
      [data.birth.alarmLevel, data.heat.alarmLevel, data.lameness.alarmLevel],
      [alarmLevel('birth'), alarmLevel('heat'), alarmLevel('lameness')],
    )
    const { falseAlarmsPerAnimalMonth, animalMonths, ...birth } = data.birth
    assert.deepEqual(birth, {
      alarmLevel: alarmLevel('birth'),
      alarms: 2,
      confirmed: 1,
      late: 0,
      falseAlarms: 1,
      events: 2,
      detected: 1,
      missed: 1,
      unscored: 0,
      sensitivity: 0.5,
      precision: 0.5,
      leadHours: { median: 9, min: 9, max: 9 },
    })
    // Five animal-hours scored (a1: 3, a2: 1, a3: 1): 5 / 730.5 animal-months, one false alarm in them.
    assert.equal(animalMonths, 0.01)
    assert.ok(Math.abs(falseAlarmsPerAnimalMonth - 730.5 / 5) < 0.01, String(falseAlarmsPerAnimalMonth))
    assert.deepEqual(
      [data.heat.alarms, data.heat.confirmed, data.heat.events, data.heat.detected, data.heat.unscored],
      [1, 1, 1, 1, 1],
    )
    assert.deepEqual(data.heat.leadHours, { median: 12, min: 12, max: 12 })
    assert.deepEqual(
      [data.lameness.confirmed, data.lameness.events, data.lameness.detected, data.lameness.missed],
      [1, 2, 1, 1],
    )
    assert.deepEqual(data.lameness.leadHours, { median: 48, min: 48, max: 48 })
  })

  it('counts only what lies in the period, and the 30 days to now by default', async () => {
    const early = (await get('?from=2026-03-01&to=2026-03-11')).json().data
    assert.deepEqual([early.birth.alarms, early.birth.events, early.heat.alarms], [1, 1, 0])
    const byDefault = (await get('')).json().data
    assert.deepEqual([byDefault.from, byDefault.to], ['2026-03-01T10:00:00.000Z', '2026-03-31T10:00:00.000Z'])
    // The default start is not before the first day a date may name.
    const first = await get('?to=2000-01-10')
    assert.equal(first.statusCode, 200, first.body)
    assert.deepEqual(
      [first.json().data.from, first.json().data.to],
      ['2000-01-01T00:00:00.000Z', '2000-01-10T23:59:59.999Z'],
    )
    const none = (await get('?from=2025-01-01&to=2025-01-31')).json().data
    assert.deepEqual(
      [none.birth.sensitivity, none.birth.leadHours, none.birth.falseAlarmsPerAnimalMonth],
      [null, null, null],
    )
  })

  it('refuses a bad period', async () => {
    assertInvalid(await get('?from=2026-03-31&to=2026-03-01'), ['query:from'])
    assertInvalid(await get('?from=2026-02-30'), ['query:from'])
    assertInvalid(await get('?from=2024-01-01&to=2026-03-01'), ['query:from'])
    assertInvalid(await get('?to=soon'), ['query:to'])
    assertInvalid(await get('?from=9999-12-01&to=9999-12-31'), ['query:from', 'query:to'])
    assertInvalid(await get('?limit=5'), ['query:limit'])
  })

  it('lets the owner and a linked integrator read, and no one else', async () => {
    const linked = await createIntegrator(ctx, { tier: 'free', linkTo: [uid] })
    assert.equal((await get('', bearer((await integratorToken(ctx, linked.uid)).accessToken))).statusCode, 200)
    const other = await createUser(ctx)
    assertError(
      await get('', bearer((await userToken(ctx, other.email)).accessToken)),
      403,
      "You do not have access to this user's data",
    )
    const unlinked = await createIntegrator(ctx)
    assertError(
      await get('', bearer((await integratorToken(ctx, unlinked.uid)).accessToken)),
      403,
      "Integrator does not have access to this user's data",
    )
    assertError(await get('', {}), 401, 'Authorization header is required')
  })
})

describe('a return to estrus the farm saw', () => {
  it('confirms a heat alarm as a service does, and counts as a heat missed where no alarm came', async () => {
    const farmer = await createUser(ctx)
    const as = bearer((await userToken(ctx, farmer.email)).accessToken)
    const [seen, unseen] = ['AA:BB:CC:00:10:21', 'AA:BB:CC:00:10:22']
    for (const MAC of [seen, unseen]) await addAnimal(ctx, farmer.uid, as, { MAC, Sex: 'female' })
    const send = async (url: string, payload: object) => {
      const res = await ctx.app.inject({
        method: 'POST',
        url: `/api/v1/users/${farmer.uid}${url}`,
        headers: as,
        payload,
      })
      assert.equal(res.statusCode, 201, `POST ${url}: ${res.body}`)
    }
    const heat = (mac: string, timestamp: string, probability: number) =>
      send(`/animals/${mac}/predictions`, {
        classificationType: 'heat',
        timestamp,
        results: [{ timestamp, probability }],
      })
    const returned = (mac: string) =>
      send(`/animals/${mac}/return-to-estrus`, {
        returnDate: '2026-03-20',
        returnType: 'regular',
        daysSinceService: 21,
      })
    // `seen` alarms at 06:00 and her return is recorded that day (noon: 6 h later), not served; `unseen` was scored
    // low and returned.
    await heat(seen, '2026-03-20T06:00:00Z', 0.55)
    await heat(unseen, '2026-03-19T06:00:00Z', 0.05)
    await returned(seen)
    await returned(unseen)
    const res = await ctx.app.inject({
      method: 'GET',
      url: `/api/v1/users/${farmer.uid}/predictions/accuracy?from=2026-03-01&to=2026-03-31`,
      headers: as,
    })
    assert.equal(res.statusCode, 200, res.body)
    const { heat: figures } = res.json().data
    assert.deepEqual(
      [figures.alarms, figures.confirmed, figures.events, figures.detected, figures.missed],
      [1, 1, 2, 1, 1],
    )
    assert.deepEqual(figures.leadHours, { median: 6, min: 6, max: 6 })
  })
})

describe("the scorer's alarms under a farm's calibration map", () => {
  it('are read from the global probability: the map renames the number, the alarm stays', async () => {
    const farmer = await createUser(ctx)
    const as = bearer((await userToken(ctx, farmer.email)).accessToken)
    const mac = 'AA:BB:CC:00:10:09'
    await addAnimal(ctx, farmer.uid, as, { MAC: mac, Sex: 'female' })
    const { id } = await ctx.app.database.db
      .selectFrom('animals')
      .select('id')
      .where('mac', '=', mac)
      .executeTakeFirstOrThrow()
    const level = alarmLevel('birth')
    // The 8th 00:00: the farm's map put this hour below the alarm level, its global probability is above: an
    // alarm, 9 h before the farrowing. The 12th: the other way round: no alarm.
    const hour = (at: string, farm: number, global: number) => ({
      animalId: Number(id),
      classificationType: 'birth' as const,
      predictedAt: Date.parse(at),
      results: [{ timestamp: at, probability: farm }],
      peakProbability: farm,
      globalProbability: global,
    })
    await insertScoredPredictions(ctx.app.database.db, farmer.uid, [
      hour('2026-03-08T00:00:00.000Z', level / 2, level + 0.1),
      hour('2026-03-12T00:00:00.000Z', level + 0.1, level / 2),
    ])
    const birth = await ctx.app.inject({
      method: 'POST',
      url: `/api/v1/users/${farmer.uid}/animals/${mac}/births`,
      headers: as,
      payload: { StartDate: '2026-03-08', StartTime: '09:00', Living: 10, Dead: 0 },
    })
    assert.equal(birth.statusCode, 201, birth.body)
    const res = await ctx.app.inject({
      method: 'GET',
      url: `/api/v1/users/${farmer.uid}/predictions/accuracy?from=2026-03-01&to=2026-03-31`,
      headers: as,
    })
    assert.equal(res.statusCode, 200, res.body)
    const data = res.json().data.birth
    assert.deepEqual(
      [data.alarms, data.confirmed, data.falseAlarms, data.detected, data.leadHours],
      [1, 1, 0, 1, { median: 9, min: 9, max: 9 }],
    )
  })
})
