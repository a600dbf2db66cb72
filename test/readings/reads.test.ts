import assert from 'node:assert/strict'
import { gunzipSync } from 'node:zlib'
import { after, before, describe, it } from 'node:test'
import fastJson from 'fast-json-stringify'
import { createTestApp, type TestContext } from '../support/app.ts'
import { Envelope } from '../../src/http/envelope.ts'
import { weakEtagOf } from '../../src/http/etag.ts'
import { LocationReading, Rows, SensorReading } from '../../src/modules/readings/readings.schemas.ts'
import { bearer, userToken } from '../support/fixtures.ts'
import { assertError, nextMac, readingsFarm } from './farm.ts'

// A fixed clock: the analytics windows end at NOW.
const NOW = Math.floor(Date.now() / 60_000) * 60_000
const MINUTE = 60_000
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR

let ctx: TestContext
before(async () => {
  ctx = await createTestApp({ clock: () => NOW })
})
after(() => ctx.close())

async function farmWithReadings(count: number) {
  const f = await readingsFarm(ctx)
  const a = await f.animal()
  // One reading a minute ending at NOW - count + 1 .. NOW; c encodes the index.
  const rows = Array.from({ length: count }, (_, i) => ({
    t: NOW - (count - 1 - i) * MINUTE,
    c: 30 + i / 1000,
    x: 0,
    y: 0,
    z: 1,
  }))
  for (let i = 0; i < rows.length; i += 10_000) {
    const res = await f.inject('POST', `/${a.MAC}/sensordata`, { readings: rows.slice(i, i + 10_000) })
    assert.equal(res.statusCode, 200, res.body)
  }
  const detections = Array.from({ length: 30 }, (_, i) => ({
    t: NOW - (29 - i) * MINUTE,
    rssi: -50 - i,
    nodeuid: `node-${i % 3}`,
  }))
  assert.equal((await f.inject('POST', `/${a.MAC}/locations`, { readings: detections })).statusCode, 200)
  return { ...f, a, rows, detections }
}

describe('GET .../sensordata and .../locations', () => {
  it('returns the newest 100 by default, newest first', async () => {
    const f = await farmWithReadings(150)
    const res = await f.inject('GET', `/${f.a.MAC}/sensordata`)
    assert.equal(res.statusCode, 200)
    const data = res.json().data
    assert.equal(data.length, 100)
    assert.deepEqual(data[0], f.rows[149])
    assert.deepEqual(data[99], f.rows[50])
    assert.equal(res.json().pagination, undefined)
  })

  it('filters by startTime and endTime (both inclusive), sorts ascending on request, and honours limit', async () => {
    const f = await farmWithReadings(150)
    const start = f.rows[10]!.t
    const end = f.rows[20]!.t
    const asc = (await f.inject('GET', `/${f.a.MAC}/sensordata?startTime=${start}&endTime=${end}&sortOrder=asc`)).json()
      .data
    assert.deepEqual(asc, f.rows.slice(10, 21))
    const limited = (await f.inject('GET', `/${f.a.MAC}/sensordata?startTime=${start}&endTime=${end}&limit=3`)).json()
      .data
    assert.deepEqual(limited, [f.rows[20], f.rows[19], f.rows[18]])
    const onlyStart = (await f.inject('GET', `/${f.a.MAC}/sensordata?startTime=${f.rows[147]!.t}`)).json().data
    assert.deepEqual(onlyStart, [f.rows[149], f.rows[148], f.rows[147]])
    const same = (await f.inject('GET', `/${f.a.MAC}/sensordata?startTime=${start}&endTime=${start}`)).json().data
    assert.deepEqual(same, [f.rows[10]])
    const locations = (
      await f.inject('GET', `/${f.a.MAC}/locations?startTime=${f.detections[27]!.t}&sortOrder=asc`)
    ).json().data
    assert.deepEqual(locations, f.detections.slice(27))
  })

  it('writes what the documented schema describes: the same JSON as its compiled serializer, keys in its order', async () => {
    const f = await farmWithReadings(300)
    // Awkward values: negative zero, long fractions, tiny numbers, a node name that needs escaping.
    const awkward = [{ t: NOW + MINUTE, c: 38.123456789, x: -0, y: 1e-7, z: -0.3333333333333333 }]
    assert.equal((await f.inject('POST', `/${f.a.MAC}/sensordata`, { readings: awkward })).statusCode, 200)
    const odd = [{ t: NOW + MINUTE, rssi: -67.5, nodeuid: 'pen "7" \\ farrowing\u2028é\u0001' }]
    assert.equal((await f.inject('POST', `/${f.a.MAC}/locations`, { readings: odd })).statusCode, 200)
    for (const [path, row, first] of [
      ['sensordata?limit=1000', SensorReading, awkward[0]],
      ['locations?limit=1000', LocationReading, odd[0]],
    ] as const) {
      for (const order of ['', '&sortOrder=asc']) {
        const res = await f.inject('GET', `/${f.a.MAC}/${path}${order}`)
        assert.equal(res.statusCode, 200)
        assert.match(String(res.headers['content-type']), /^application\/json; charset=utf-8$/)
        const body = JSON.parse(res.body)
        // Parsed and written again by the schema's compiled serializer: the same keys, in the same order, with the same values.
        const compiled = fastJson(Envelope(Rows(row, 10_000)) as Parameters<typeof fastJson>[0])
        assert.equal(JSON.stringify(body), compiled(body), path)
        if (order === '') assert.deepEqual(body.data[0], JSON.parse(JSON.stringify(first)), path)
      }
    }
    const empty = await f.inject('GET', `/${f.a.MAC}/sensordata?startTime=1000000000000&endTime=1000000000001`)
    assert.deepEqual(empty.json().data, [])
  })

  it('tags a page with the ETag of its JSON (the escaped text included), answers 304 while it is unchanged, compresses it and answers HEAD', async () => {
    const f = await farmWithReadings(2000)
    const odd = [{ t: NOW + MINUTE, rssi: -67.5, nodeuid: 'pen "7" \\ farrowing\u2028é\u0001' }]
    assert.equal((await f.inject('POST', `/${f.a.MAC}/locations`, { readings: odd })).statusCode, 200)
    for (const path of ['sensordata?limit=2000', 'locations']) {
      const first = await f.inject('GET', `/${f.a.MAC}/${path}`)
      assert.equal(first.statusCode, 200)
      assert.equal(first.headers.etag, weakEtagOf(first.body), path)
      assert.equal(Number(first.headers['content-length']), first.rawPayload.length)
      const again = await ctx.app.inject({
        method: 'GET',
        url: `${f.base}/${f.a.MAC}/${path}`,
        headers: { ...f.headers, 'if-none-match': String(first.headers.etag) },
      })
      assert.equal(again.statusCode, 304, path)
      assert.equal(again.body, '')
      const gzip = await ctx.app.inject({
        method: 'GET',
        url: `${f.base}/${f.a.MAC}/${path}`,
        headers: { ...f.headers, 'accept-encoding': 'gzip' },
      })
      assert.equal(gzip.headers['content-encoding'], 'gzip', path)
      assert.equal(gzip.headers.etag, first.headers.etag)
      assert.deepEqual(JSON.parse(gunzipSync(gzip.rawPayload).toString()).data, first.json().data)
      const head = await ctx.app.inject({ method: 'HEAD', url: `${f.base}/${f.a.MAC}/${path}`, headers: f.headers })
      assert.equal(head.statusCode, 200)
      assert.equal(head.headers.etag, first.headers.etag)
      assert.equal(head.body, '')
    }
    const before = await f.inject('GET', `/${f.a.MAC}/sensordata?limit=2000`)
    assert.equal(
      (await f.inject('POST', `/${f.a.MAC}/sensordata`, { readings: [{ t: NOW + MINUTE, c: 39, x: 0, y: 0, z: 1 }] }))
        .statusCode,
      200,
    )
    const after = await ctx.app.inject({
      method: 'GET',
      url: `${f.base}/${f.a.MAC}/sensordata?limit=2000`,
      headers: { ...f.headers, 'if-none-match': String(before.headers.etag) },
    })
    assert.equal(after.statusCode, 200, 'a new reading changes the page')
  })

  it('takes limit up to 10000', async () => {
    const f = await farmWithReadings(10_050)
    const res = await f.inject('GET', `/${f.a.MAC}/sensordata?limit=10000`)
    assert.equal(res.statusCode, 200)
    assert.equal(res.json().data.length, 10_000)
    assert.deepEqual(res.json().data[9_999], f.rows[50])
  })

  it('refuses limit 0 and 10001, startTime after endTime, a bad sortOrder, non-integer times, a bad MAC (400); an unknown animal is 404', async () => {
    const f = await farmWithReadings(1)
    for (const path of ['sensordata', 'locations']) {
      assertError(await f.inject('GET', `/${f.a.MAC}/${path}?limit=0`), 400, 'Validation failed', 'query:limit')
      assertError(await f.inject('GET', `/${f.a.MAC}/${path}?limit=10001`), 400, 'Validation failed', 'query:limit')
      assertError(
        await f.inject('GET', `/${f.a.MAC}/${path}?startTime=2000&endTime=1000`),
        400,
        'Validation failed',
        'query:startTime',
      )
      assertError(
        await f.inject('GET', `/${f.a.MAC}/${path}?sortOrder=newest`),
        400,
        'Validation failed',
        'query:sortOrder',
      )
      assertError(
        await f.inject('GET', `/${f.a.MAC}/${path}?startTime=yesterday`),
        400,
        'Validation failed',
        'query:startTime',
      )
      assertError(await f.inject('GET', `/${f.a.MAC}/${path}?endTime=1.5`), 400, 'Validation failed', 'query:endTime')
      assertError(await f.inject('GET', `/AA:BB:CC:DD:EE:GG/${path}`), 404, 'Animal not found')
      assertError(await f.inject('GET', `/${nextMac()}/${path}`), 404, 'Animal not found')
    }
  })

  it('lets the owner read locations but never sensor data with a user token', async () => {
    const f = await farmWithReadings(1)
    const headers = bearer((await userToken(ctx, f.user.email)).accessToken)
    const locations = await ctx.app.inject({ method: 'GET', url: `${f.base}/${f.a.MAC}/locations`, headers })
    assert.equal(locations.statusCode, 200)
    const sensor = await ctx.app.inject({ method: 'GET', url: `${f.base}/${f.a.MAC}/sensordata`, headers })
    assertError(sensor, 403, 'Sensor data is available to integrator tokens only')
  })
})

describe('GET .../sensordata/latest', () => {
  it('returns the newest `count` readings (default 10, 1-100)', async () => {
    const f = await farmWithReadings(150)
    const byDefault = (await f.inject('GET', `/${f.a.MAC}/sensordata/latest`)).json().data
    assert.deepEqual(byDefault, f.rows.slice(140).reverse())
    assert.deepEqual((await f.inject('GET', `/${f.a.MAC}/sensordata/latest?count=1`)).json().data, [f.rows[149]])
    assert.equal((await f.inject('GET', `/${f.a.MAC}/sensordata/latest?count=100`)).json().data.length, 100)
    assertError(await f.inject('GET', `/${f.a.MAC}/sensordata/latest?count=0`), 400, 'Validation failed', 'query:count')
    assertError(
      await f.inject('GET', `/${f.a.MAC}/sensordata/latest?count=101`),
      400,
      'Validation failed',
      'query:count',
    )
    assertError(
      await f.inject('GET', `/${f.a.MAC}/sensordata/latest?count=ten`),
      400,
      'Validation failed',
      'query:count',
    )
  })
})

describe('GET .../sensordata/analytics', () => {
  // Hand-computed fixture. Magnitudes: |(2,3,6)| = 7, |(0,0,1)| = 1, |(0.6,0.8,0)| = 1, |(1,2,2)| = 3,
  // |(0,0,2)| = 2, |(0,0,4)| = 4.
  const fixture = [
    { t: NOW - 8 * DAY, c: 40, x: 0, y: 0, z: 4 }, // 30d only
    { t: NOW - 2 * HOUR, c: 30, x: 0, y: 0, z: 2 }, // 6h and wider
    { t: NOW - HOUR, c: 36, x: 2, y: 3, z: 6 }, // exactly on the 1h window's start: inside
    { t: NOW - 30 * MINUTE, c: 38, x: 0, y: 0, z: 1 },
    { t: NOW - 20 * MINUTE, c: 39, x: 0.6, y: 0.8, z: 0 },
    { t: NOW - 10 * MINUTE, c: 37, x: 1, y: 2, z: 2 },
    { t: NOW + 5 * MINUTE, c: 20, x: 0, y: 0, z: 1 }, // after now: in no window
    { t: NOW - 31 * DAY, c: 10, x: 0, y: 0, z: 9 }, // before every window
  ]
  const expected = {
    '1h': { count: 4, avgC: 37.5, minC: 36, maxC: 39, avgM: 3, minM: 1, maxM: 7 },
    '6h': { count: 5, avgC: 36, minC: 30, maxC: 39, avgM: 2.8, minM: 1, maxM: 7 },
    '24h': { count: 5, avgC: 36, minC: 30, maxC: 39, avgM: 2.8, minM: 1, maxM: 7 },
    '7d': { count: 5, avgC: 36, minC: 30, maxC: 39, avgM: 2.8, minM: 1, maxM: 7 },
    '30d': { count: 6, avgC: 220 / 6, minC: 30, maxC: 40, avgM: 3, minM: 1, maxM: 7 },
  }
  const rangeMs = { '1h': HOUR, '6h': 6 * HOUR, '24h': DAY, '7d': 7 * DAY, '30d': 30 * DAY }

  it('matches the hand-computed values for every timeRange', async () => {
    const f = await readingsFarm(ctx)
    const a = await f.animal()
    assert.equal(
      (await f.inject('POST', `/${a.MAC}/sensordata`, { readings: fixture })).json().data.stored,
      fixture.length,
    )
    for (const [range, e] of Object.entries(expected)) {
      const res = await f.inject('GET', `/${a.MAC}/sensordata/analytics?timeRange=${range}`)
      assert.equal(res.statusCode, 200, res.body)
      const d = res.json().data
      const close = (actual: number, wanted: number, what: string) =>
        assert.ok(Math.abs(actual - wanted) < 1e-9, `${range} ${what}: ${actual} != ${wanted}`)
      assert.equal(d.dataPointsCount, e.count, range)
      close(d.averageTemperature, e.avgC, 'averageTemperature')
      assert.deepEqual(d.temperatureRange, { min: e.minC, max: e.maxC }, range)
      close(d.averageAccelerationMagnitude, e.avgM, 'averageAccelerationMagnitude')
      close(d.accelerationMagnitudeRange.min, e.minM, 'magnitude min')
      close(d.accelerationMagnitudeRange.max, e.maxM, 'magnitude max')
      assert.deepEqual(d.timeRange, { start: NOW - rangeMs[range as keyof typeof rangeMs], end: NOW }, range)
    }
    const byDefault = (await f.inject('GET', `/${a.MAC}/sensordata/analytics`)).json().data
    assert.equal(byDefault.dataPointsCount, expected['24h'].count)
    assert.deepEqual(byDefault.timeRange, { start: NOW - DAY, end: NOW })
  })

  it('gives nulls and a zero count for a window without readings', async () => {
    const f = await readingsFarm(ctx)
    const a = await f.animal()
    const d = (await f.inject('GET', `/${a.MAC}/sensordata/analytics?timeRange=1h`)).json().data
    assert.deepEqual(d, {
      averageTemperature: null,
      averageAccelerationMagnitude: null,
      temperatureRange: { min: null, max: null },
      accelerationMagnitudeRange: { min: null, max: null },
      dataPointsCount: 0,
      timeRange: { start: NOW - HOUR, end: NOW },
    })
  })

  it('refuses an unknown timeRange and a bad MAC (400); an unknown animal is 404', async () => {
    const f = await readingsFarm(ctx)
    const a = await f.animal()
    for (const range of ['2h', '1d', '24H', '']) {
      assertError(
        await f.inject('GET', `/${a.MAC}/sensordata/analytics?timeRange=${range}`),
        400,
        'Validation failed',
        'query:timeRange',
      )
    }
    assertError(await f.inject('GET', '/not-a-mac/sensordata/analytics'), 404, 'Animal not found')
    assertError(await f.inject('GET', `/${nextMac()}/sensordata/analytics`), 404, 'Animal not found')
  })
})
