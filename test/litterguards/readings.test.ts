// Device readings: ingestion through the one ingestion path (t in Unix seconds), and the sensordata
// and latest reads with every parameter's bounds.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createTestApp, type TestContext } from '../support/app.ts'
import { assertError, assertInvalid } from '../support/assertions.ts'
import { addAnimal, bearer, createIntegrator, integratorToken, userToken } from '../support/fixtures.ts'
import { deviceFarm, nextDeviceMac, storedReadings, type DeviceReading } from './farm.ts'

// A fixed clock, 400 ms into a second: windows end at the whole second NOW.
const NOW = Math.floor(Date.UTC(2026, 5, 1, 12) / 1000)
const NOW_MS = NOW * 1000 + 400

let ctx: TestContext
before(async () => {
  ctx = await createTestApp({ clock: () => NOW_MS })
})
after(() => ctx.close())

/** `count` readings a minute apart ending at `end` (Unix seconds); c encodes the index. */
function rows(count: number, end = NOW, step = 60): DeviceReading[] {
  return Array.from({ length: count }, (_, i) => ({
    t: end - (count - 1 - i) * step,
    c: 30 + i / 100,
    x: 0.01 * (i % 5),
    y: -0.02,
    z: 0.99,
  }))
}

describe('POST .../litterguards/<mac_address>/sensordata', () => {
  it('stores the rows, counts them, and sets LastSeen and CurrentTemperature from the newest', async () => {
    const f = await deviceFarm(ctx)
    const d = await f.device()
    const batch = rows(5)
    batch[4]!.c = 33.25
    const res = await f.inject('POST', `/${d.MAC}/sensordata`, { readings: batch })
    assert.equal(res.statusCode, 200, res.body)
    assert.deepEqual(res.json().data, { received: 5, stored: 5, duplicates: 0 })
    assert.equal(res.json().message, '5 of 5 readings stored')
    const device = (await f.inject('GET', `/${d.MAC}`)).json().data
    assert.deepEqual(device.LastSeen, { seconds: NOW, nanoseconds: 0 })
    assert.equal(device.CurrentTemperature, 33.25)
    assert.equal(device.Active, true)
  })

  it('is idempotent on (MAC, t): a re-sent batch stores nothing twice and counts duplicates; an overlap stores only what is new', async () => {
    const f = await deviceFarm(ctx)
    const d = await f.device()
    const first = rows(100, NOW - 3600)
    assert.deepEqual((await f.inject('POST', `/${d.MAC}/sensordata`, { readings: first })).json().data, {
      received: 100,
      stored: 100,
      duplicates: 0,
    })
    assert.deepEqual((await f.inject('POST', `/${d.MAC}/sensordata`, { readings: first })).json().data, {
      received: 100,
      stored: 0,
      duplicates: 100,
    })
    const overlap = rows(100, NOW - 3600 + 30 * 60)
    assert.deepEqual((await f.inject('POST', `/${d.MAC}/sensordata`, { readings: overlap })).json().data, {
      received: 100,
      stored: 30,
      duplicates: 70,
    })
    assert.equal(await storedReadings(ctx, f.user.uid, d.MAC), 130)
    const twice = [
      { t: NOW, c: 30, x: 0, y: 0, z: 1 },
      { t: NOW, c: 31, x: 0, y: 0, z: 1 },
    ]
    assert.deepEqual((await f.inject('POST', `/${d.MAC}/sensordata`, { readings: twice })).json().data, {
      received: 2,
      stored: 1,
      duplicates: 1,
    })
  })

  it('takes the MAC in either case, and an older batch arriving late never moves LastSeen back', async () => {
    const f = await deviceFarm(ctx)
    const d = await f.device()
    await f.inject('POST', `/${d.MAC.toLowerCase()}/sensordata`, {
      readings: [{ t: NOW - 10, c: 31.5, x: 0, y: 0, z: 1 }],
    })
    await f.inject('POST', `/${d.MAC}/sensordata`, { readings: [{ t: NOW - 7200, c: 20, x: 0, y: 0, z: 1 }] })
    const device = (await f.inject('GET', `/${d.MAC}`)).json().data
    assert.deepEqual(device.LastSeen, { seconds: NOW - 10, nanoseconds: 0 })
    assert.equal(device.CurrentTemperature, 31.5)
    assert.equal(await storedReadings(ctx, f.user.uid, d.MAC), 2)
  })

  it('stores a reading stamped minutes ahead but never lets it pin LastSeen and CurrentTemperature', async () => {
    const f = await deviceFarm(ctx)
    const d = await f.device()
    await f.inject('POST', `/${d.MAC}/sensordata`, { readings: [{ t: NOW + 14 * 60, c: 45, x: 0, y: 0, z: 1 }] })
    await f.inject('POST', `/${d.MAC}/sensordata`, { readings: [{ t: NOW - 5, c: 31.2, x: 0, y: 0, z: 1 }] })
    const device = (await f.inject('GET', `/${d.MAC}`)).json().data
    assert.deepEqual(device.LastSeen, { seconds: NOW - 5, nanoseconds: 0 })
    assert.equal(device.CurrentTemperature, 31.2)
    assert.equal(await storedReadings(ctx, f.user.uid, d.MAC), 2)
  })

  it('takes exactly INGEST_MAX_ROWS rows (10,000) and refuses one more, storing nothing', async () => {
    const f = await deviceFarm(ctx)
    const d = await f.device()
    const many = rows(10_001, NOW, 1)
    assertError(
      await f.inject('POST', `/${d.MAC}/sensordata`, { readings: many }),
      400,
      'Validation failed',
      'readings',
    )
    assert.equal(await storedReadings(ctx, f.user.uid, d.MAC), 0)
    const res = await f.inject('POST', `/${d.MAC}/sensordata`, { readings: many.slice(1) })
    assert.deepEqual(res.json().data, { received: 10_000, stored: 10_000, duplicates: 0 })
  })

  it('refuses the whole batch for one bad row, naming its index; a t in ms is a 400, not the year 50,000', async () => {
    const f = await deviceFarm(ctx)
    const d = await f.device()
    const cases: [(r: any[]) => void, string][] = [
      [
        (r) => {
          r[3].t = r[3].t * 1000
        },
        'readings[3].t',
      ],
      [
        (r) => {
          r[2].t = NOW_MS
        },
        'readings[2].t',
      ],
      [
        (r) => {
          r[0].t = 946_684_799
        },
        'readings[0].t',
      ],
      [
        (r) => {
          r[1].t = NOW + 0.5
        },
        'readings[1].t',
      ],
      [
        (r) => {
          r[6].t = NOW + 901
        },
        'readings[6].t',
      ],
      [
        (r) => {
          r[7].c = '31.5'
        },
        'readings[7].c',
      ],
      [
        (r) => {
          r[4].c = 151
        },
        'readings[4].c',
      ],
      [
        (r) => {
          r[5].z = 65
        },
        'readings[5].z',
      ],
      [
        (r) => {
          delete r[8].x
        },
        'readings[8].x',
      ],
      [
        (r) => {
          r[9].rssi = -60
        },
        'readings[9].rssi',
      ],
      [
        (r) => {
          r[1] = null
        },
        'readings[1]',
      ],
    ]
    for (const [spoil, field] of cases) {
      const batch: any[] = rows(10)
      spoil(batch)
      assertInvalid(await f.inject('POST', `/${d.MAC}/sensordata`, { readings: batch }), [field])
    }
    assert.equal(await storedReadings(ctx, f.user.uid, d.MAC), 0)
    assert.equal((await f.inject('GET', `/${d.MAC}`)).json().data.LastSeen, null)
    // At the skew limit exactly (15 minutes ahead) a reading is taken.
    assert.equal(
      (await f.inject('POST', `/${d.MAC}/sensordata`, { readings: [{ t: NOW + 900, c: 30, x: 0, y: 0, z: 1 }] }))
        .statusCode,
      200,
    )
  })

  it('refuses a body without rows, with other fields, or that is not an object', async () => {
    const f = await deviceFarm(ctx)
    const d = await f.device()
    for (const body of [{}, { readings: [] }, { readings: rows(1), gateway: 'g1' }, [], { readings: 'x' }]) {
      assertError(await f.inject('POST', `/${d.MAC}/sensordata`, body), 400, 'Validation failed')
    }
  })

  it("answers 404 for a MAC that is none of the account's devices, whatever its form (an animal's tag included)", async () => {
    const f = await deviceFarm(ctx)
    for (const mac of [nextDeviceMac(), 'AA:BB', 'x'.repeat(200)]) {
      assertError(await f.inject('POST', `/${mac}/sensordata`, { readings: rows(1) }), 404, 'Litterguard not found')
    }
    await addAnimal(ctx, f.user.uid, f.headers, { MAC: 'AB:CD:EF:00:00:01', Sex: 'female' })
    assertError(
      await f.inject('POST', '/AB:CD:EF:00:00:01/sensordata', { readings: rows(1) }),
      404,
      'Litterguard not found',
    )
  })

  it('follows the sensor-data rule: Pro or Enterprise integrators with write permission; never a user token', async () => {
    const f = await deviceFarm(ctx)
    const d = await f.device()
    const as = async (options: Parameters<typeof createIntegrator>[1]) =>
      bearer(
        (await integratorToken(ctx, (await createIntegrator(ctx, { ...options, linkTo: [f.user.uid] })).uid))
          .accessToken,
      )
    const post = async (headers: Record<string, string>) =>
      ctx.app.inject({ method: 'POST', url: `${f.base}/${d.MAC}/sensordata`, headers, payload: { readings: rows(1) } })
    assertError(await post(await as({ tier: 'enterprise' })), 403, 'Integrator does not have write permission')
    assertError(
      await post(await as({ tier: 'starter', canWrite: true })),
      403,
      'Sensor data requires the Pro or Enterprise tier',
    )
    assertError(
      await post(bearer((await userToken(ctx, `${f.user.uid}@farm.example`)).accessToken)),
      403,
      'Sensor data is available to integrator tokens only',
    )
    assert.equal((await post(await as({ tier: 'enterprise', canWrite: true }))).statusCode, 200)
  })
})

describe('GET .../litterguards/<mac_address>/sensordata and .../sensordata/latest', () => {
  async function deviceWithReadings(count: number) {
    const f = await deviceFarm(ctx)
    const d = await f.device()
    const stored = rows(count)
    await f.send(d.MAC, stored)
    return { ...f, d, stored }
  }

  it('returns the newest 100 by default, newest first, t in seconds', async () => {
    const f = await deviceWithReadings(150)
    const res = await f.inject('GET', `/${f.d.MAC.toLowerCase()}/sensordata`)
    assert.equal(res.statusCode, 200)
    const data: DeviceReading[] = res.json().data
    assert.equal(data.length, 100)
    assert.deepEqual(data[0], f.stored[149])
    assert.deepEqual(data[99], f.stored[50])
    assert.equal(data[0]!.t, NOW)
  })

  it('takes timeRange (ending now) or startTime/endTime (both inclusive), and limit 1-100', async () => {
    const f = await deviceWithReadings(150)
    const newestFirst = (from: number, to: number) => f.stored.slice(from, to + 1).reverse()
    assert.deepEqual((await f.inject('GET', `/${f.d.MAC}/sensordata?timeRange=1h`)).json().data, newestFirst(89, 149))
    assert.deepEqual(
      (await f.inject('GET', `/${f.d.MAC}/sensordata?timeRange=1h&limit=2`)).json().data,
      newestFirst(148, 149),
    )
    const start = f.stored[10]!.t
    const end = f.stored[20]!.t
    assert.deepEqual(
      (await f.inject('GET', `/${f.d.MAC}/sensordata?startTime=${start}&endTime=${end}`)).json().data,
      newestFirst(10, 20),
    )
    assert.deepEqual(
      (await f.inject('GET', `/${f.d.MAC}/sensordata?startTime=${start}&endTime=${start}`)).json().data,
      [f.stored[10]],
    )
    assert.deepEqual(
      (await f.inject('GET', `/${f.d.MAC}/sensordata?endTime=${f.stored[1]!.t}`)).json().data,
      newestFirst(0, 1),
    )
    assert.deepEqual(
      (await f.inject('GET', `/${f.d.MAC}/sensordata?startTime=${f.stored[148]!.t}`)).json().data,
      newestFirst(148, 149),
    )
    assert.equal((await f.inject('GET', `/${f.d.MAC}/sensordata?limit=1`)).json().data.length, 1)
    assert.equal((await f.inject('GET', `/${f.d.MAC}/sensordata?limit=100&timeRange=30d`)).json().data.length, 100)
  })

  it('refuses bad parameters with 400: ms for seconds, both forms at once, an unknown range, limit out of 1-100', async () => {
    const f = await deviceWithReadings(3)
    const bad: [string, string][] = [
      [`startTime=${NOW_MS}`, 'query:startTime'],
      [`endTime=${NOW_MS}`, 'query:endTime'],
      ['startTime=-1', 'query:startTime'],
      ['startTime=abc', 'query:startTime'],
      ['startTime=1.5', 'query:startTime'],
      [`startTime=${NOW}&endTime=${NOW - 1}`, 'query:startTime'],
      [`timeRange=1h&startTime=${NOW - 60}`, 'query:timeRange'],
      ['timeRange=2h', 'query:timeRange'],
      ['timeRange=', 'query:timeRange'],
      ['limit=0', 'query:limit'],
      ['limit=101', 'query:limit'],
      ['limit=ten', 'query:limit'],
    ]
    for (const [query, field] of bad) assertInvalid(await f.inject('GET', `/${f.d.MAC}/sensordata?${query}`), [field])
    assert.equal(
      (await f.inject('GET', `/${f.d.MAC}/sensordata?startTime=4102444800`)).statusCode,
      200,
      'the year 2100 is the last second taken',
    )
  })

  it('latest: the newest count readings (default 10, 1-100)', async () => {
    const f = await deviceWithReadings(120)
    const latest = (query = '') => f.inject('GET', `/${f.d.MAC}/sensordata/latest${query}`)
    assert.deepEqual((await latest()).json().data, f.stored.slice(110).reverse())
    assert.deepEqual((await latest('?count=1')).json().data, [f.stored[119]])
    assert.equal((await latest('?count=100')).json().data.length, 100)
    for (const query of ['?count=0', '?count=101', '?count=x']) assertInvalid(await latest(query), ['query:count'])
  })

  it('answers an empty array for a device without readings, and 404 for a MAC that names none', async () => {
    const f = await deviceFarm(ctx)
    const d = await f.device()
    assert.deepEqual((await f.inject('GET', `/${d.MAC}/sensordata`)).json().data, [])
    assert.deepEqual((await f.inject('GET', `/${d.MAC}/sensordata/latest`)).json().data, [])
    for (const path of ['/sensordata', '/sensordata/latest']) {
      assertError(await f.inject('GET', `/${nextDeviceMac()}${path}`), 404, 'Litterguard not found')
      assertError(await f.inject('GET', `/not-a-mac${path}`), 404, 'Litterguard not found')
    }
  })
})
