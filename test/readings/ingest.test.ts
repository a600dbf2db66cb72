import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createTestApp, type TestContext } from '../support/app.ts'
import { bearer, createIntegrator, integratorToken } from '../support/fixtures.ts'
import { assertError, nextMac, readingsFarm } from './farm.ts'

let ctx: TestContext
before(async () => {
  ctx = await createTestApp()
})
after(() => ctx.close())

const MINUTE = 60_000
const now = () => Date.now()

function sensorRows(count: number, end: number, step = MINUTE) {
  return Array.from({ length: count }, (_, i) => ({
    t: end - (count - 1 - i) * step,
    c: 37 + (i % 10) / 10,
    x: 0.01 * (i % 7),
    y: -0.02,
    z: 0.98,
  }))
}

async function storedCount(
  uid: string,
  mac: string,
  table: 'animal_sensor_readings' | 'animal_location_readings' = 'animal_sensor_readings',
) {
  const row = await ctx.database.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('uid', '=', uid)
    .where('mac', '=', mac)
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

describe('POST .../animals/<animal_mac>/sensordata', () => {
  it('stores the rows, reports how many were new, and updates CurrentTemperature and t from the newest', async () => {
    const f = await readingsFarm(ctx)
    const a = await f.animal()
    const end = now() - MINUTE
    const rows = sensorRows(5, end)
    rows[4]!.c = 38.75
    const res = await f.inject('POST', `/${a.MAC}/sensordata`, { readings: rows })
    assert.equal(res.statusCode, 200, res.body)
    assert.deepEqual(res.json().data, { received: 5, stored: 5, duplicates: 0 })
    assert.equal(res.json().message, '5 of 5 readings stored')
    const animal = (await f.inject('GET', `/${a.ID}`)).json().data
    assert.equal(animal.CurrentTemperature, 38.75)
    assert.equal(animal.t, end)
  })

  it('is idempotent on (MAC, t): a re-sent batch stores nothing twice; an overlapping one stores only the new rows', async () => {
    const f = await readingsFarm(ctx)
    const a = await f.animal()
    const end = now() - 120 * MINUTE
    const rows = sensorRows(100, end)
    assert.deepEqual((await f.inject('POST', `/${a.MAC}/sensordata`, { readings: rows })).json().data, {
      received: 100,
      stored: 100,
      duplicates: 0,
    })
    assert.deepEqual((await f.inject('POST', `/${a.MAC}/sensordata`, { readings: rows })).json().data, {
      received: 100,
      stored: 0,
      duplicates: 100,
    })
    const overlapping = sensorRows(100, end + 30 * MINUTE)
    assert.deepEqual((await f.inject('POST', `/${a.MAC}/sensordata`, { readings: overlapping })).json().data, {
      received: 100,
      stored: 30,
      duplicates: 70,
    })
    assert.equal(await storedCount(f.user.uid, a.MAC), 130)
    // The same t twice within one request is stored once.
    const twice = [
      { t: end + 60 * MINUTE, c: 38, x: 0, y: 0, z: 1 },
      { t: end + 60 * MINUTE, c: 39, x: 0, y: 0, z: 1 },
    ]
    assert.deepEqual((await f.inject('POST', `/${a.MAC}/sensordata`, { readings: twice })).json().data, {
      received: 2,
      stored: 1,
      duplicates: 1,
    })
  })

  it('accepts the MAC in either case and stores it under the animal', async () => {
    const f = await readingsFarm(ctx)
    const a = await f.animal()
    const res = await f.inject('POST', `/${a.MAC.toLowerCase()}/sensordata`, { readings: sensorRows(3, now()) })
    assert.equal(res.json().data.stored, 3)
    assert.equal(await storedCount(f.user.uid, a.MAC), 3)
  })

  it('never lets an older batch arriving late overwrite the latest state', async () => {
    const f = await readingsFarm(ctx)
    const a = await f.animal()
    const end = now()
    await f.inject('POST', `/${a.MAC}/sensordata`, { readings: [{ t: end, c: 38.1, x: 0, y: 0, z: 1 }] })
    await f.inject('POST', `/${a.MAC}/sensordata`, { readings: [{ t: end - 60 * MINUTE, c: 36.2, x: 0, y: 0, z: 1 }] })
    const animal = (await f.inject('GET', `/${a.ID}`)).json().data
    assert.equal(animal.CurrentTemperature, 38.1)
    assert.equal(animal.t, end)
  })

  it('stores a reading stamped minutes ahead but never lets it pin CurrentTemperature', async () => {
    const f = await readingsFarm(ctx)
    const a = await f.animal()
    const start = now()
    // 14 minutes ahead: inside the 15 minutes a gateway's clock may drift, beyond the 2 that set the current state.
    const ahead = await f.inject('POST', `/${a.MAC}/sensordata`, {
      readings: [{ t: start + 14 * MINUTE, c: 41.9, x: 0, y: 0, z: 1 }],
    })
    assert.deepEqual(ahead.json().data, { received: 1, stored: 1, duplicates: 0 })
    await f.inject('POST', `/${a.MAC}/sensordata`, { readings: [{ t: start, c: 38.3, x: 0, y: 0, z: 1 }] })
    let animal = (await f.inject('GET', `/${a.ID}`)).json().data
    assert.equal(animal.CurrentTemperature, 38.3)
    assert.equal(animal.t, start)
    // A minute ahead is clock skew the current state still follows.
    await f.inject('POST', `/${a.MAC}/sensordata`, { readings: [{ t: start + MINUTE, c: 38.4, x: 0, y: 0, z: 1 }] })
    animal = (await f.inject('GET', `/${a.ID}`)).json().data
    assert.equal(animal.CurrentTemperature, 38.4)
    assert.equal(await storedCount(f.user.uid, a.MAC), 3)
  })

  it('takes exactly INGEST_MAX_ROWS rows (10,000) and refuses one more with 400', async () => {
    const f = await readingsFarm(ctx)
    const a = await f.animal()
    const rows = sensorRows(10_001, now() - MINUTE, 1000)
    assertError(
      await f.inject('POST', `/${a.MAC}/sensordata`, { readings: rows }),
      400,
      'Validation failed',
      'readings',
    )
    assert.equal(await storedCount(f.user.uid, a.MAC), 0)
    const res = await f.inject('POST', `/${a.MAC}/sensordata`, { readings: rows.slice(1) })
    assert.equal(res.statusCode, 200, res.body)
    assert.deepEqual(res.json().data, { received: 10_000, stored: 10_000, duplicates: 0 })
  })

  it('rejects the whole request when one row is bad, naming the row index; nothing is stored', async () => {
    const f = await readingsFarm(ctx)
    const a = await f.animal()
    const base = () => sensorRows(10, now() - MINUTE)
    const cases: [(rows: any[]) => void, string][] = [
      [
        (r) => {
          r[7].c = '38.5'
        },
        'readings[7].c',
      ],
      [
        (r) => {
          delete r[3].x
        },
        'readings[3].x',
      ],
      [
        (r) => {
          r[9].extra = 1
        },
        'readings[9].extra',
      ],
      [
        (r) => {
          r[0].t = 1.5e12 + 0.5
        },
        'readings[0].t',
      ],
      [
        (r) => {
          r[2].t = Math.floor(r[2].t / 1000)
        },
        'readings[2].t',
      ],
      [
        (r) => {
          r[4].c = 400
        },
        'readings[4].c',
      ],
      [
        (r) => {
          r[5].z = -100
        },
        'readings[5].z',
      ],
      [
        (r) => {
          r[6].t = now() + 60 * MINUTE
        },
        'readings[6].t',
      ],
      [
        (r) => {
          r[1] = null
        },
        'readings[1]',
      ],
    ]
    for (const [spoil, field] of cases) {
      const rows = base()
      spoil(rows)
      assertError(await f.inject('POST', `/${a.MAC}/sensordata`, { readings: rows }), 400, 'Validation failed', field)
    }
    assert.equal(await storedCount(f.user.uid, a.MAC), 0)
    const animal = (await f.inject('GET', `/${a.ID}`)).json().data
    assert.equal('CurrentTemperature' in animal, false)
  })

  it('refuses a body without rows, with extra fields, or that is not an object', async () => {
    const f = await readingsFarm(ctx)
    const a = await f.animal()
    for (const body of [
      {},
      { readings: [] },
      { readings: sensorRows(1, now()), gateway: 'g1' },
      [],
      { readings: 'x' },
    ]) {
      assertError(await f.inject('POST', `/${a.MAC}/sensordata`, body), 400, 'Validation failed')
    }
  })

  it("404 for a MAC that is none of the user's animals, whatever its form", async () => {
    const f = await readingsFarm(ctx)
    assertError(
      await f.inject('POST', `/${nextMac()}/sensordata`, { readings: sensorRows(1, now()) }),
      404,
      'Animal not found',
    )
    assertError(
      await f.inject('POST', '/AA:BB:CC/sensordata', { readings: sensorRows(1, now()) }),
      404,
      'Animal not found',
    )
  })

  it("needs the integrator's write permission", async () => {
    const f = await readingsFarm(ctx)
    const a = await f.animal()
    const reader = await createIntegrator(ctx, { tier: 'enterprise', linkTo: [f.user.uid] })
    const res = await ctx.app.inject({
      method: 'POST',
      url: `${f.base}/${a.MAC}/sensordata`,
      headers: bearer((await integratorToken(ctx, reader.uid)).accessToken),
      payload: { readings: sensorRows(1, now()) },
    })
    assertError(res, 403, 'Integrator does not have write permission')
  })
})

describe('POST .../animals/<animal_mac>/locations', () => {
  it('stores detections idempotently and updates Node and SignalStrength from the newest', async () => {
    const f = await readingsFarm(ctx)
    const a = await f.animal()
    const end = now()
    const rows = [
      { t: end - 10 * MINUTE, rssi: -70, nodeuid: 'node-2' },
      { t: end - 5 * MINUTE, rssi: -55.5, nodeuid: 'node-1' },
    ]
    assert.deepEqual((await f.inject('POST', `/${a.MAC}/locations`, { readings: rows })).json().data, {
      received: 2,
      stored: 2,
      duplicates: 0,
    })
    assert.deepEqual((await f.inject('POST', `/${a.MAC}/locations`, { readings: rows })).json().data, {
      received: 2,
      stored: 0,
      duplicates: 2,
    })
    const animal = (await f.inject('GET', `/${a.ID}`)).json().data
    assert.equal(animal.Node, 'node-1')
    assert.equal(animal.SignalStrength, -55.5)
    assert.equal(animal.t, Number(a.ID), 't follows sensor readings, not detections')
    assert.equal(await storedCount(f.user.uid, a.MAC, 'animal_location_readings'), 2)
  })

  it('rejects a bad row with its index', async () => {
    const f = await readingsFarm(ctx)
    const a = await f.animal()
    const rows = [
      { t: now(), rssi: -70, nodeuid: 'n' },
      { t: now(), rssi: -70, nodeuid: '' },
      { t: now(), rssi: '-70', nodeuid: 'n' },
    ]
    const res = await f.inject('POST', `/${a.MAC}/locations`, { readings: rows })
    assertError(res, 400, 'Validation failed', 'readings[1].nodeuid')
    assertError(res, 400, 'Validation failed', 'readings[2].rssi')
    assert.equal(await storedCount(f.user.uid, a.MAC, 'animal_location_readings'), 0)
  })
})

describe('animal changes and readings', () => {
  it('a new MAC carries the readings along; deleting the animal deletes them', async () => {
    const f = await readingsFarm(ctx)
    const a = await f.animal()
    await f.inject('POST', `/${a.MAC}/sensordata`, { readings: sensorRows(4, now()) })
    await f.inject('POST', `/${a.MAC}/locations`, { readings: [{ t: now(), rssi: -60, nodeuid: 'n1' }] })
    const newMac = nextMac()
    assert.equal((await f.inject('PATCH', `/${a.ID}`, { MAC: newMac.toLowerCase() })).statusCode, 200)
    assert.equal(await storedCount(f.user.uid, a.MAC), 0)
    assert.equal(await storedCount(f.user.uid, newMac), 4)
    assert.equal(await storedCount(f.user.uid, newMac, 'animal_location_readings'), 1)
    assertError(await f.inject('GET', `/${a.MAC}/locations`), 404, 'Animal not found')
    assert.equal((await f.inject('DELETE', `/${a.ID}`)).statusCode, 200)
    assert.equal(await storedCount(f.user.uid, newMac), 0)
    assert.equal(await storedCount(f.user.uid, newMac, 'animal_location_readings'), 0)
  })
})
