// GET .../sensordata/aggregate of ear tags (t in ms) and litter devices (t in Unix seconds): buckets worked out by
// hand on a small fixture at every interval, cut spans, empty spans, the default span, packed and late readings,
// bad inputs and who may not read it.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createTestApp, type TestContext } from '../support/app.ts'
import { assertClose } from '../support/assertions.ts'
import { bearer, createIntegrator, createUser, integratorToken, userToken } from '../support/fixtures.ts'
import { ok } from '../../src/http/envelope.ts'
import { packReadings } from '../../src/jobs/packing.ts'
import { aggregateReadings } from '../../src/modules/readings/readings.aggregate.ts'
import { SERIES } from '../../src/modules/readings/readings.series.ts'
import { aggregateSpan, type AggregateInterval } from '../../src/modules/readings/readings.rules.ts'
import { deviceFarm, nextDeviceMac } from '../litterguards/farm.ts'
import { assertError, nextMac, readingsFarm } from './farm.ts'

const MINUTE = 60_000
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR
/** A UTC midnight, the day before yesterday: the fixture's first day. */
const D = Math.floor(Date.now() / DAY) * DAY - 2 * DAY
/** The service's clock: ten minutes into the second day. */
const NOW = D + DAY + 10 * MINUTE

let ctx: TestContext
/** Holds the probe's requests in flight until opened: they take the caller's places for expensive requests. */
let open: () => void = () => {}
let gate = Promise.resolve()
before(async () => {
  ctx = await createTestApp({
    clock: () => NOW,
    env: { EXPENSIVE_REQUESTS_PER_CALLER: '2' },
    extend: (api) => {
      api.get('/probe/expensive', { config: { access: 'bearer', cost: 'expensive' } }, async () => {
        await gate
        return ok({})
      })
    },
  })
})
after(() => ctx.close())

/** The fixture, each reading with its acceleration magnitude √(x²+y²+z²) worked out. */
const READINGS = [
  { t: D + 1 * MINUTE, c: 38, x: 0, y: 0, z: 1, m: 1 },
  { t: D + 4 * MINUTE, c: 39, x: 0, y: 0.6, z: 0.8, m: 1 },
  { t: D + 6 * MINUTE, c: 37, x: 0, y: 0, z: 2, m: 2 },
  { t: D + 20 * MINUTE, c: 38.5, x: 3, y: 4, z: 0, m: 5 },
  { t: D + 70 * MINUTE, c: 40, x: 0, y: 0, z: -1, m: 1 },
  { t: D + 7 * HOUR, c: 36, x: 0, y: 1, z: 0, m: 1 },
  { t: D + DAY + 5 * MINUTE, c: 38, x: 1, y: 2, z: 2, m: 3 },
]
const rows = READINGS.map(({ m: _, ...row }) => row)

/** A bucket of the readings with these indexes of READINGS, its figures summed by hand below. */
function bucket(t: number, indexes: number[]) {
  const of = (v: (r: (typeof READINGS)[number]) => number) => {
    const values = indexes.map((i) => v(READINGS[i]!))
    const sum = values.reduce((a, b) => a + b, 0)
    return {
      mean: sum / values.length,
      min: Math.min(...values),
      max: Math.max(...values),
      sum,
      sumOfSquares: values.reduce((a, b) => a + b * b, 0),
    }
  }
  return { t, count: indexes.length, temperature: of((r) => r.c), accelerationMagnitude: of((r) => r.m) }
}

/** Every interval over the fixture's two days: which readings land in which bucket. */
const EXPECTED: Record<string, ReturnType<typeof bucket>[]> = {
  '5m': [
    bucket(D, [0, 1]),
    bucket(D + 5 * MINUTE, [2]),
    bucket(D + 20 * MINUTE, [3]),
    bucket(D + 70 * MINUTE, [4]),
    bucket(D + 7 * HOUR, [5]),
    bucket(D + DAY + 5 * MINUTE, [6]),
  ],
  '15m': [
    bucket(D, [0, 1, 2]),
    bucket(D + 15 * MINUTE, [3]),
    bucket(D + HOUR, [4]),
    bucket(D + 7 * HOUR, [5]),
    bucket(D + DAY, [6]),
  ],
  '1h': [bucket(D, [0, 1, 2, 3]), bucket(D + HOUR, [4]), bucket(D + 7 * HOUR, [5]), bucket(D + DAY, [6])],
  '6h': [bucket(D, [0, 1, 2, 3, 4]), bucket(D + 6 * HOUR, [5]), bucket(D + DAY, [6])],
  '1d': [bucket(D, [0, 1, 2, 3, 4, 5]), bucket(D + DAY, [6])],
}

/** The hand-made figures of one bucket, spot-checked so that `bucket` above cannot be wrong the same way twice. */
it('the fixture sums as worked out by hand', () => {
  assert.deepEqual(EXPECTED['1h']![0], {
    t: D,
    count: 4,
    temperature: {
      mean: 38.125,
      min: 37,
      max: 39,
      sum: 152.5,
      sumOfSquares: 38 * 38 + 39 * 39 + 37 * 37 + 38.5 * 38.5,
    },
    accelerationMagnitude: { mean: 2.25, min: 1, max: 5, sum: 9, sumOfSquares: 31 },
  })
})

/** An answer's data in ms, whatever the series' unit (`perT`: 1 for ms, 1000 for seconds). */
function inMs(data: { startTime: number; endTime: number; buckets: { t: number }[] }, perT: number) {
  return {
    ...data,
    startTime: data.startTime * perT,
    endTime: data.endTime * perT,
    buckets: data.buckets.map((b) => ({ ...b, t: b.t * perT })),
  }
}

/** Both series' routes, the same fixture sent to each (the devices' in seconds). */
async function bothSeries() {
  const animals = await readingsFarm(ctx)
  const a = await animals.animal()
  assert.equal((await animals.inject('POST', `/${a.MAC}/sensordata`, { readings: rows })).statusCode, 200)
  const devices = await deviceFarm(ctx)
  const d = await devices.device()
  await devices.send(
    d.MAC,
    rows.map((r) => ({ ...r, t: r.t / 1000 })),
  )
  return [
    {
      name: 'ear tag',
      series: SERIES.sensordata,
      uid: animals.user.uid,
      perT: 1,
      get: (query: string, mac = a.MAC) => animals.inject('GET', `/${mac}/sensordata/aggregate${query}`),
      path: (mac: string) => `${animals.base}/${mac}/sensordata/aggregate`,
      mac: a.MAC,
      headers: animals.headers,
      post: (readings: typeof rows) => animals.inject('POST', `/${a.MAC}/sensordata`, { readings }),
      notFound: 'Animal not found',
      otherMac: nextMac(),
    },
    {
      name: 'litter device',
      series: SERIES.devicedata,
      uid: devices.user.uid,
      perT: 1000,
      get: (query: string, mac = d.MAC) => devices.inject('GET', `/${mac}/sensordata/aggregate${query}`),
      path: (mac: string) => `${devices.base}/${mac}/sensordata/aggregate`,
      mac: d.MAC,
      headers: devices.headers,
      post: (readings: typeof rows) =>
        devices.inject('POST', `/${d.MAC}/sensordata`, { readings: readings.map((r) => ({ ...r, t: r.t / 1000 })) }),
      notFound: 'Litterguard not found',
      otherMac: nextDeviceMac(),
    },
  ]
}

/** The query of [start, end] given in ms, in the series' unit. */
const span = (perT: number, start: number, end: number, interval?: string) =>
  `?startTime=${start / perT}&endTime=${end / perT}${interval ? `&interval=${interval}` : ''}`

describe('GET .../sensordata/aggregate', () => {
  it('sums the readings per bucket at every interval, aligned to UTC, only buckets with readings, before and after packing', async () => {
    for (const s of await bothSeries()) {
      const answers = async () => {
        const out: Record<string, unknown> = {}
        for (const interval of Object.keys(EXPECTED)) {
          const res = await s.get(span(s.perT, D, D + 2 * DAY, interval))
          assert.equal(res.statusCode, 200, res.body)
          out[interval] = res.json().data
        }
        return out
      }
      const before = await answers()
      for (const [interval, buckets] of Object.entries(EXPECTED)) {
        const data = before[interval] as Parameters<typeof inMs>[0]
        assertClose(
          { interval, startTime: D, endTime: D + 2 * DAY, buckets },
          inMs(data, s.perT),
          `${s.name} ${interval}`,
        )
      }
      // Every closed hour moves to the packed part: the same answers.
      assert.equal((await packReadings(ctx.database.db, { now: NOW, uid: s.uid })).readings, 6)
      assertClose(before, await answers(), s.name)
    }
  })

  it('counts only the readings inside the span in its first and last bucket, answers an empty span with no buckets, and defaults to 1h over the day before now', async () => {
    for (const s of await bothSeries()) {
      const cut = (await s.get(span(s.perT, D + 5 * MINUTE, D + 70 * MINUTE))).json().data
      assertClose(
        {
          interval: '1h',
          startTime: D + 5 * MINUTE,
          endTime: D + 70 * MINUTE,
          buckets: [bucket(D, [2, 3]), bucket(D + HOUR, [4])],
        },
        inMs(cut, s.perT),
        s.name,
      )
      const same = (await s.get(span(s.perT, D + 7 * HOUR, D + 7 * HOUR, '5m'))).json().data
      assertClose([bucket(D + 7 * HOUR, [5])], inMs(same, s.perT).buckets, s.name)
      const empty = await s.get(span(s.perT, D + 2 * DAY, D + 3 * DAY, '5m'))
      assert.equal(empty.statusCode, 200)
      assert.deepEqual(empty.json().data.buckets, [])
      // The default: interval 1h, endTime now, startTime the day before.
      const byDefault = (await s.get('')).json().data
      assertClose(
        {
          interval: '1h',
          startTime: NOW - DAY,
          endTime: NOW,
          buckets: [bucket(D, [3]), bucket(D + HOUR, [4]), bucket(D + 7 * HOUR, [5]), bucket(D + DAY, [6])],
        },
        inMs(byDefault, s.perT),
        s.name,
      )
      const onlyEnd = (await s.get(`?endTime=${(D + 2 * HOUR) / s.perT}&interval=1d`)).json().data
      assertClose(
        { interval: '1d', startTime: D + 2 * HOUR - DAY, endTime: D + 2 * HOUR, buckets: [bucket(D, [0, 1, 2, 3, 4])] },
        inMs(onlyEnd, s.perT),
      )
    }
  })

  it('counts a re-sent reading once and a late one (for a packed hour) where it belongs', async () => {
    for (const s of await bothSeries()) {
      await packReadings(ctx.database.db, { now: NOW, uid: s.uid })
      const late = { t: D + 30 * MINUTE, c: 41, x: 0, y: 0, z: 3 }
      assert.equal((await s.post([...rows, late])).json().data.stored, 1)
      const expected = [bucket(D, [0, 1, 2, 3]), bucket(D + HOUR, [4])]
      expected[0] = {
        ...expected[0]!,
        count: 5,
        temperature: {
          mean: 193.5 / 5,
          min: 37,
          max: 41,
          sum: 193.5,
          sumOfSquares: expected[0]!.temperature.sumOfSquares + 41 * 41,
        },
        accelerationMagnitude: { mean: 12 / 5, min: 1, max: 5, sum: 12, sumOfSquares: 31 + 9 },
      }
      const read = async () => inMs((await s.get(span(s.perT, D, D + 2 * HOUR - s.perT))).json().data, s.perT).buckets
      assertClose(expected, await read(), s.name)
      await packReadings(ctx.database.db, { now: NOW, uid: s.uid })
      assertClose(expected, await read(), `${s.name}, packed`)
    }
  })

  it('answers 1h, 6h and 1d (served from the hourly rollups) with the very numbers of the readings, through late and re-sent readings and packing', async () => {
    let seed = 7
    const random = () => ((seed = (seed * 16807) % 2147483647) - 1) / 2147483646
    const round = (v: number, d: number) => Math.round(v * 10 ** d) / 10 ** d
    /** Readings about every 7 minutes over [from, from + days), at the tags' precision but for a few (which stay as rows). */
    const readingsOver = (from: number, days: number) =>
      Array.from({ length: Math.floor((days * DAY) / (7 * MINUTE)) }, (_, i) => ({
        t: from + i * 7 * MINUTE + Math.floor(random() * 60) * 1000,
        c: i % 97 === 5 ? 38.123 : round(36 + 4 * random(), 2),
        x: round(random() - 0.5, 3),
        y: round(random() - 0.5, 3),
        z: round(0.8 + random() / 2, 3),
      }))
    const first = D - 2 * DAY
    const history = readingsOver(first, 3)
    for (const s of await bothSeries()) {
      const spans: [number, number][] = [
        [first, NOW],
        [first + 17 * MINUTE + 123_000, D + 5 * HOUR + 59 * MINUTE],
        [first + 3 * HOUR + 1000, first + 3 * HOUR + 59 * MINUTE],
        [first + 59 * MINUTE, first + 2 * HOUR + 1000],
        [first + HOUR, first + 26 * HOUR - 1000],
      ]
      const compare = async (when: string) => {
        for (const [start, end] of spans)
          for (const interval of ['1h', '6h', '1d'] as AggregateInterval[]) {
            const query = { interval, startTime: start / s.perT, endTime: end / s.perT }
            const span = aggregateSpan(query, NOW, s.perT as 1 | 1000)
            assert.ok(!('problem' in span))
            const res = await s.get(`?interval=${interval}&startTime=${query.startTime}&endTime=${query.endTime}`)
            assert.equal(res.statusCode, 200, res.body)
            const fromReadings = await aggregateReadings(ctx.database.db, s.series, s.uid, s.mac, span, {
              rollups: false,
            })
            assert.deepEqual(res.json().data, fromReadings, `${s.name}, ${when}: ${interval} over ${start}-${end}`)
          }
      }
      const send = async (readings: typeof rows) => {
        for (let i = 0; i < readings.length; i += 10_000)
          assert.equal((await s.post(readings.slice(i, i + 10_000))).statusCode, 200)
      }
      await send(history)
      await compare('as sent')
      await send(history.slice(100, 300))
      await send(readingsOver(first + 3 * MINUTE, 1).slice(0, 50))
      await compare('with re-sent and late readings')
      await packReadings(ctx.database.db, { now: NOW, uid: s.uid })
      await compare('packed')
      await send([...history.slice(0, 40), ...readingsOver(first + 5 * MINUTE, 2).slice(0, 200)])
      await compare('with late readings for packed hours')
      await packReadings(ctx.database.db, { now: NOW, uid: s.uid })
      await compare('packed again')
    }
  })

  it('refuses a bad interval, bad times, a start after the end and a span of more than 10,000 buckets (400); a MAC none of the account names is 404', async () => {
    for (const s of await bothSeries()) {
      assertError(await s.get('?interval=2h'), 400, 'Validation failed', 'query:interval')
      assertError(await s.get('?interval='), 400, 'Validation failed', 'query:interval')
      assertError(await s.get(span(s.perT, D + HOUR, D)), 400, 'Validation failed', 'query:startTime')
      assert.deepEqual((await s.get(span(s.perT, D + HOUR, D))).json().details, [
        { field: 'query:startTime', message: 'must not be after endTime' },
      ])
      assertError(await s.get(`?startTime=${NOW / s.perT + 60}`), 400, 'Validation failed', 'query:startTime')
      assertError(await s.get('?startTime=yesterday'), 400, 'Validation failed', 'query:startTime')
      assertError(await s.get('?endTime=1.5'), 400, 'Validation failed', 'query:endTime')
      assertError(await s.get('?endTime=-1'), 400, 'Validation failed', 'query:endTime')
      // 10,000 buckets of 5 minutes are about 34.7 days: 10,000 pass, 10,001 do not.
      const fiveMinutes = 5 * MINUTE
      assert.equal((await s.get(span(s.perT, D, D + 9_999 * fiveMinutes, '5m'))).statusCode, 200)
      const tooMany = await s.get(span(s.perT, D, D + 10_000 * fiveMinutes, '5m'))
      assertError(tooMany, 400, 'Validation failed', 'query:interval')
      assert.match(tooMany.json().details[0].message, /10001 buckets of 5m; at most 10000 a request/)
      assertError(await s.get(span(s.perT, 0, D, '1h')), 400, 'Validation failed', 'query:interval')
      assert.equal((await s.get(span(s.perT, D - 400 * DAY, D, '1d'))).statusCode, 200)
      assertError(await s.get('', s.otherMac), 404, s.notFound)
      assertError(await s.get('', 'not-a-mac'), 404, s.notFound)
    }
    // The device's times are seconds: a value in ms is refused, never read as the year 50,000.
    const [, device] = await bothSeries()
    assertError(await device!.get(`?startTime=${D}`), 400, 'Validation failed', 'query:startTime')
  })

  it('is for linked integrators on Pro or Enterprise only: never a user token, a Starter integrator, or one not linked', async () => {
    for (const s of await bothSeries()) {
      const get = async (token: string) => ctx.app.inject({ method: 'GET', url: s.path(s.mac), headers: bearer(token) })
      const owner = await ctx.database.db
        .selectFrom('users')
        .select('email')
        .where('uid', '=', s.uid)
        .executeTakeFirstOrThrow()
      assertError(
        await get((await userToken(ctx, owner.email)).accessToken),
        403,
        'Sensor data is available to integrator tokens only',
      )
      const stranger = await createUser(ctx)
      assertError(
        await get((await userToken(ctx, stranger.email)).accessToken),
        403,
        'Sensor data is available to integrator tokens only',
      )
      const starter = await createIntegrator(ctx, { tier: 'starter', linkTo: [s.uid] })
      assertError(
        await get((await integratorToken(ctx, starter.uid)).accessToken),
        403,
        'Sensor data requires the Pro or Enterprise tier',
      )
      const unlinked = await createIntegrator(ctx, { tier: 'enterprise' })
      assertError(
        await get((await integratorToken(ctx, unlinked.uid)).accessToken),
        403,
        "Integrator does not have access to this user's data",
      )
      const enterprise = await createIntegrator(ctx, { tier: 'enterprise', linkTo: [s.uid] })
      assert.equal((await get((await integratorToken(ctx, enterprise.uid)).accessToken)).statusCode, 200)
    }
  })

  it("counts against the caller's bound on expensive requests when summed from the readings (5m, 15m), not from the rollups", async () => {
    for (const s of await bothSeries()) {
      gate = new Promise((resolve) => (open = resolve))
      const probe = () => ctx.app.inject({ method: 'GET', url: '/api/v1/probe/expensive', headers: s.headers })
      const running = [probe(), probe()]
      await new Promise((resolve) => setTimeout(resolve, 50))
      for (const interval of ['5m', '15m'])
        assertError(
          await s.get(`?interval=${interval}`),
          429,
          'Too many expensive requests at once: at most 2 per caller (analytics, statistics, long series, deep or sorted pages); retry when one has finished',
        )
      for (const interval of ['1h', '6h', '1d']) assert.equal((await s.get(`?interval=${interval}`)).statusCode, 200)
      // Over more than 1,000 hours the rollups are expensive too.
      assert.equal((await s.get(span(s.perT, D - 1001 * HOUR, D, '1d'))).statusCode, 429)
      open()
      for (const res of await Promise.all(running)) assert.equal(res.statusCode, 200)
      assert.equal((await s.get('?interval=5m')).statusCode, 200)
    }
  })
})
