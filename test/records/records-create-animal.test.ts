// Creating farm records at animal level over HTTP (POST /users/<user_id>/animals/<animal_mac>/<segment>):
// the relaxed required fields, defaults, enumerations, the MAC from the path, and every problem of a body
// reported at once. User-level creates: records-create-user.test.ts.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { TestContext } from '../support/app.ts'
import { assertError, assertInvalid } from '../support/assertions.ts'
import { createUser } from '../support/fixtures.ts'
import {
  ANIMAL_LEVEL,
  animalBodies,
  nextMac,
  createFileFixture,
  without,
  type AnimalSegment,
  type Body,
  type RecordsFarm,
} from './records-farm.ts'

let ctx: TestContext, f: RecordsFarm, mac: string, otherMac: string, strangerMac: string
before(async () => ({ ctx, f, mac, otherMac, strangerMac } = await createFileFixture()))
after(() => ctx.close())

const REQUIRED_AT_ANIMAL_LEVEL: Record<AnimalSegment, string[]> = {
  births: ['Living', 'Dead', 'StartDate'],
  inseminations: ['Boar', 'StartDate'],
  'general-events': ['Diagnose', 'Description'],
  'pregnancy-checks': ['checkDate', 'result'],
  'return-to-estrus': ['returnDate', 'returnType', 'daysSinceService'],
  weanings: ['weaningDate', 'countWeaned'],
  movements: ['movementDate', 'fromStage', 'toStage'],
}

/** What an animal-level create adds to a minimal body besides MAC, ID and t: defaults, Uid, null Complications. */
const ANIMAL_LEVEL_ADDS = (uid: string): Record<AnimalSegment, Body> => ({
  births: { Archived: false, Complications: null, Uid: uid },
  inseminations: { Archived: false, Occupied: false, Uid: uid },
  'general-events': { Archived: false, Uid: uid },
  'pregnancy-checks': { Archived: false, checkNumber: 1, method: 'ultrasound' },
  'return-to-estrus': { Archived: false },
  weanings: { Archived: false },
  movements: { Archived: false },
})

const atAnimal = (segment: string, animal = mac) => `/animals/${animal}/${segment}`

/** Each case: a body change and the one field the 400 must name. */
async function eachInvalid(path: string, base: Body, cases: [Body, string][]) {
  for (const [changes, field] of cases) assertInvalid(await f.call('POST', path, { ...base, ...changes }), [field])
}

describe('animal-level creates: POST /users/<user_id>/animals/<animal_mac>/<segment>', () => {
  for (const segment of ANIMAL_LEVEL) {
    it(`${segment}: requires ${REQUIRED_AT_ANIMAL_LEVEL[segment].join(', ')}; the MAC may be left out and comes from the path`, async () => {
      assertInvalid(await f.call('POST', atAnimal(segment), {}), REQUIRED_AT_ANIMAL_LEVEL[segment])
      const body = animalBodies[segment]
      assert.deepEqual(Object.keys(body).sort(), [...REQUIRED_AT_ANIMAL_LEVEL[segment]].sort())
      for (const field of REQUIRED_AT_ANIMAL_LEVEL[segment])
        assertInvalid(await f.call('POST', atAnimal(segment), without(body, field)), [field])

      const before = Date.now()
      const res = await f.call('POST', atAnimal(segment, mac.toLowerCase()), body)
      assert.equal(res.statusCode, 201, res.body)
      const record = res.json().data
      assert.match(record.ID, /^[0-9]{13}$/)
      assert.ok(Number(record.ID) >= before && Number(record.ID) <= Date.now())
      assert.equal(record.t, Number(record.ID))
      assert.deepEqual(record, {
        ...body,
        ...ANIMAL_LEVEL_ADDS(f.user.uid)[segment],
        MAC: mac,
        ID: record.ID,
        t: record.t,
      })
      const location = res.headers.location as string
      assert.equal(decodeURIComponent(location), `${f.base}/animals/${mac}/${segment}/${record.ID}`)
      const read = await ctx.app.inject({ method: 'GET', url: location, headers: f.headers })
      assert.equal(read.statusCode, 200, read.body)
      assert.deepEqual(read.json().data, record)
    })

    it(`${segment}: a MAC in the body must be the path animal's (either case)`, async () => {
      assert.equal((await f.create(atAnimal(segment), { ...animalBodies[segment], MAC: mac.toLowerCase() })).MAC, mac)
      for (const wrong of [otherMac, strangerMac, 'AA:BB:CC:FF:FF:FF']) {
        assertInvalid(await f.call('POST', atAnimal(segment), { ...animalBodies[segment], MAC: wrong }), ['MAC'])
      }
    })
  }

  it("answers 404 for a path animal that is not the user's, whatever its form", async () => {
    for (const animal of [strangerMac, 'AA:BB:CC:FF:FF:FF', 'not-a-mac', '1772323200000']) {
      assertError(await f.call('POST', `/animals/${animal}/births`, animalBodies.births), 404, 'Animal not found')
    }
  })

  it("births: takes the extended fields, Complications may be null, Uid when sent must be the path's", async () => {
    const body = {
      ...animalBodies.births,
      StartTime: '06:40',
      Comment: 'Calm',
      Archived: true,
      Mummified: 1,
      Weaned: 11,
      Parity: 3,
      Assisted: true,
      FarrowingDuration: 240,
      Complications: null,
      AverageLitterWeight: 1.4,
    }
    const stored = await f.create(atAnimal('births'), body)
    for (const [k, v] of Object.entries(body)) assert.deepEqual(stored[k], v, k)
    assert.equal(
      (await f.create(atAnimal('births'), { ...body, Complications: 'Retained piglet' })).Complications,
      'Retained piglet',
    )
    assert.equal((await f.create(atAnimal('births'), { ...animalBodies.births, Uid: f.user.uid })).Uid, f.user.uid)
    assertInvalid(
      await f.call('POST', atAnimal('births'), { ...animalBodies.births, Uid: (await createUser(ctx)).uid }),
      ['Uid'],
    )
    await eachInvalid(atAnimal('births'), animalBodies.births, [
      [{ Living: '12' }, 'Living'],
      [{ Dead: -1 }, 'Dead'],
      [{ FarrowingDuration: -1 }, 'FarrowingDuration'],
      [{ AverageLitterWeight: -0.1 }, 'AverageLitterWeight'],
      [{ Complications: '' }, 'Complications'],
      [{ Assisted: 'yes' }, 'Assisted'],
    ])
  })

  it('inseminations: takes the relaxed breeding fields; serviceType is AI or natural', async () => {
    const body = {
      ...animalBodies.inseminations,
      GeneticLine: 'Landrace',
      StartTime: '07:15',
      Tubes: 2,
      serviceOrder: 1,
      serviceType: 'AI',
      semenSource: 'Station Nord',
      SemenBatch: 'B-1147',
      Technician: 'J. Larsen',
      BreedingGroup: 'Week 45',
      HeatDetectionDate: '2026-02-28',
      ExpectedFarrowingDate: '2026-06-23',
      PregnancyCheckDate: '2026-03-25',
      ReturnToEstrusDate: '2026-03-22',
      ServiceNumber: 7,
      Parity: 3,
      Archived: true,
      Occupied: true,
      ScanningResult: { Confirmed: true, ScanningDate: '2026-03-25', Notes: '8+ embryos' },
    }
    const stored = await f.create(atAnimal('inseminations'), body)
    for (const [k, v] of Object.entries(body)) assert.deepEqual(stored[k], v, k)
    assert.equal(
      (await f.create(atAnimal('inseminations'), { ...animalBodies.inseminations, serviceType: 'natural' }))
        .serviceType,
      'natural',
    )
    await eachInvalid(atAnimal('inseminations'), animalBodies.inseminations, [
      [{ serviceType: 'artificial' }, 'serviceType'],
      [{ Tubes: -1 }, 'Tubes'],
      [{ serviceOrder: '1' }, 'serviceOrder'],
      [{ Boar: '' }, 'Boar'],
      [{ ScanningResult: { Confirmed: 'yes', ScanningDate: '2026-03-25' } }, 'ScanningResult.Confirmed'],
      [{ ScanningResult: { Confirmed: true } }, 'ScanningResult.ScanningDate'],
    ])
  })

  it("general-events: Diagnose is one of Sickness, Death, Lameness, Other, Note, Recovered; the record carries the owner's Uid", async () => {
    for (const Diagnose of ['Sickness', 'Death', 'Lameness', 'Other', 'Note', 'Recovered']) {
      const stored = await f.create(atAnimal('general-events'), { ...animalBodies['general-events'], Diagnose })
      assert.equal(stored.Diagnose, Diagnose)
      assert.equal(stored.Uid, f.user.uid)
    }
    const full = { ...animalBodies['general-events'], Archived: true, Comment: 'Checked again', Token: 'evt-0042' }
    const stored = await f.create(atAnimal('general-events'), full)
    for (const [k, v] of Object.entries(full)) assert.deepEqual(stored[k], v, k)
    await eachInvalid(atAnimal('general-events'), animalBodies['general-events'], [
      [{ Diagnose: 'Fever' }, 'Diagnose'],
      [{ Diagnose: 'sickness' }, 'Diagnose'],
      [{ Description: '' }, 'Description'],
      [{ Comment: '' }, 'Comment'],
      [{ Archived: 'no' }, 'Archived'],
      [{ Uid: f.user.uid }, 'Uid'],
    ])
  })

  it('pregnancy-checks: result is pregnant, open or recheck; checkNumber defaults to 1 and method to ultrasound', async () => {
    for (const result of ['pregnant', 'open', 'recheck']) {
      const stored = await f.create(atAnimal('pregnancy-checks'), { ...animalBodies['pregnancy-checks'], result })
      assert.deepEqual(
        [stored.result, stored.checkNumber, stored.method, stored.Archived],
        [result, 1, 'ultrasound', false],
      )
    }
    const full = {
      ...animalBodies['pregnancy-checks'],
      checkNumber: 2,
      method: 'doppler',
      technician: 'J. Larsen',
      notes: 'Clear image',
      ServiceTimestamp: 1772323200000,
      Archived: true,
    }
    const stored = await f.create(atAnimal('pregnancy-checks'), full)
    for (const [k, v] of Object.entries(full)) assert.deepEqual(stored[k], v, k)
    await eachInvalid(atAnimal('pregnancy-checks'), animalBodies['pregnancy-checks'], [
      [{ result: 'positive' }, 'result'],
      [{ checkNumber: -1 }, 'checkNumber'],
      [{ checkNumber: '2' }, 'checkNumber'],
      [{ method: '' }, 'method'],
      [{ checkDate: '' }, 'checkDate'],
      [{ notes: '' }, 'notes'],
    ])
  })

  it('return-to-estrus: returnType is regular or irregular; daysSinceService is at least 0', async () => {
    for (const returnType of ['regular', 'irregular']) {
      assert.equal(
        (await f.create(atAnimal('return-to-estrus'), { ...animalBodies['return-to-estrus'], returnType })).returnType,
        returnType,
      )
    }
    const full = {
      ...animalBodies['return-to-estrus'],
      daysSinceService: 0,
      PreviousServiceTimestamp: 1772323200000,
      reasonCode: 'R2',
      Archived: true,
    }
    const stored = await f.create(atAnimal('return-to-estrus'), full)
    for (const [k, v] of Object.entries(full)) assert.deepEqual(stored[k], v, k)
    await eachInvalid(atAnimal('return-to-estrus'), animalBodies['return-to-estrus'], [
      [{ returnType: 'late' }, 'returnType'],
      [{ daysSinceService: -1 }, 'daysSinceService'],
      [{ daysSinceService: '21' }, 'daysSinceService'],
      [{ reasonCode: '' }, 'reasonCode'],
      [{ returnDate: '' }, 'returnDate'],
    ])
  })

  it('weanings: countWeaned, weaningAge, fosterIn, fosterOut and weaningWeight are at least 0', async () => {
    const full = {
      ...animalBodies.weanings,
      countWeaned: 0,
      BirthTimestamp: 1772323200000,
      weaningAge: 28,
      fosterIn: 1,
      fosterOut: 0,
      weaningWeight: 82.5,
      Archived: true,
    }
    const stored = await f.create(atAnimal('weanings'), full)
    for (const [k, v] of Object.entries(full)) assert.deepEqual(stored[k], v, k)
    await eachInvalid(atAnimal('weanings'), animalBodies.weanings, [
      ...['countWeaned', 'weaningAge', 'fosterIn', 'fosterOut', 'weaningWeight'].map((k): [Body, string] => [
        { [k]: -1 },
        k,
      ]),
      [{ countWeaned: '11' }, 'countWeaned'],
      [{ weaningDate: '' }, 'weaningDate'],
    ])
  })

  it('movements: fromStage and toStage are gilt-pool, bred, gestation, farrowing, lactation, weaned or cull', async () => {
    const stages = ['gilt-pool', 'bred', 'gestation', 'farrowing', 'lactation', 'weaned', 'cull']
    for (const [i, stage] of stages.entries()) {
      const stored = await f.create(atAnimal('movements'), {
        ...animalBodies.movements,
        fromStage: stage,
        toStage: stages[(i + 1) % stages.length],
      })
      assert.deepEqual([stored.fromStage, stored.toStage], [stage, stages[(i + 1) % stages.length]])
    }
    const full = {
      ...animalBodies.movements,
      fromLocation: 'Gestation barn, pen 4',
      toLocation: 'Farrowing room 2',
      Archived: true,
    }
    const stored = await f.create(atAnimal('movements'), full)
    for (const [k, v] of Object.entries(full)) assert.deepEqual(stored[k], v, k)
    await eachInvalid(atAnimal('movements'), animalBodies.movements, [
      [{ fromStage: 'nursery' }, 'fromStage'],
      [{ toStage: 'Farrowing' }, 'toStage'],
      [{ fromLocation: '' }, 'fromLocation'],
      [{ movementDate: '' }, 'movementDate'],
    ])
  })

  it('refuses unknown and read-only fields at animal level', async () => {
    for (const segment of ANIMAL_LEVEL) {
      await eachInvalid(atAnimal(segment), animalBodies[segment], [
        [{ Color: 'red' }, 'Color'],
        [{ ID: '1772323200000' }, 'ID'],
        [{ t: 1 }, 't'],
      ])
    }
  })

  it('reports every problem of an animal-level body at once, the MAC among them', async () => {
    assertInvalid(
      await f.call('POST', atAnimal('weanings'), { MAC: otherMac, countWeaned: -1, weaningDate: '', Color: 'red' }),
      ['MAC', 'countWeaned', 'weaningDate', 'Color'],
    )
    assertInvalid(await f.call('POST', atAnimal('movements'), { MAC: strangerMac, fromStage: 'nursery' }), [
      'MAC',
      'fromStage',
      'movementDate',
      'toStage',
    ])
  })

  it('does not create the record of a refused body', async () => {
    const animal = await f.animal(nextMac())
    await f.call('POST', `/animals/${animal.MAC}/weanings`, { ...animalBodies.weanings, countWeaned: -1 })
    await f.call('POST', `/animals/${animal.MAC}/births`, { ...animalBodies.births, MAC: otherMac })
    assert.equal((await f.get(`/animals/${animal.MAC}/weanings`)).pagination.total, 0)
    assert.equal((await f.get(`/animals/${animal.MAC}/births`)).pagination.total, 0)
  })
})
