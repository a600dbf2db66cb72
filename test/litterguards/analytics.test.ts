// Device analytics and the summary, on fixtures whose figures are worked out by hand below.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createTestApp, type TestContext } from '../support/app.ts'
import { assertError, assertInvalid } from '../support/assertions.ts'
import { deviceFarm, nextDeviceMac, type DeviceReading } from './farm.ts'

// 12:00:00 UTC: a multiple of 10 minutes, so the 10-minute buckets fall on round times.
const NOW = Date.UTC(2026, 5, 1, 12) / 1000
const DAY = 86_400

let ctx: TestContext
before(async () => {
  ctx = await createTestApp({ clock: () => NOW * 1000 })
})
after(() => ctx.close())

/** A reading with acceleration (0, 0, z): magnitude z, activity |z − 1|. */
const still = (t: number, c: number, z = 1): DeviceReading => ({ t, c, x: 0, y: 0, z })

function near(actual: number | null, expected: number, message?: string) {
  assert.ok(
    actual !== null && Math.abs(actual - expected) < 1e-9,
    `${message ?? ''} expected ${expected}, got ${actual}`,
  )
}

describe('GET .../litterguards/<mac_address>/analytics', () => {
  it('averages, ranges and counts the readings of the window, both ends inclusive, in the database', async () => {
    const f = await deviceFarm(ctx)
    const d = await f.device()
    await f.send(d.MAC, [
      still(NOW - 3660, 10), // before the 1-hour window: in its baseline
      still(NOW - 3600, 30), // the window's first second
      { t: NOW - 2000, c: 32, x: 0, y: 0.6, z: 0.8 }, // magnitude 1
      still(NOW - 1000, 34, 2), // magnitude 2
      { t: NOW, c: 36, x: 0, y: 3, z: 4 }, // magnitude 5, the window's last second
      still(NOW + 60, 99), // ahead of the clock (within the skew): after the window
    ])
    const oneHour = (await f.inject('GET', `/${d.MAC}/analytics?timeRange=1h`)).json().data
    // c: 30, 32, 34, 36 → mean 33. Magnitudes 1, 1, 2, 5 → mean 2.25. Activity |m − 1|: 0, 0, 1, 4 → mean 1.25 against a
    // baseline of one still reading (0, counted as the 0.01 g floor): 125× → high. One baseline bucket: nothing is unusual.
    near(oneHour.averageTemperature, 33)
    near(oneHour.averageAccelerationMagnitude, 2.25)
    assert.deepEqual(oneHour.temperatureRange, { min: 30, max: 36 })
    assert.equal(oneHour.dataPointsCount, 4)
    assert.equal(oneHour.activityLevel, 'high')
    assert.equal(oneHour.unusualActivityDetected, false)
    assert.deepEqual(oneHour.timeRange, {
      start: Date.UTC(2026, 5, 1, 11) / 1000,
      end: Date.UTC(2026, 5, 1, 12) / 1000,
    })

    // 24 hours (the default) hold the 10 °C reading too: c mean (10+30+32+34+36)/5 = 28.4, magnitudes mean 10/5 = 2; no baseline → normal.
    const day = (await f.inject('GET', `/${d.MAC.toLowerCase()}/analytics`)).json().data
    near(day.averageTemperature, 28.4)
    near(day.averageAccelerationMagnitude, 2)
    assert.deepEqual(day.temperatureRange, { min: 10, max: 36 })
    assert.equal(day.dataPointsCount, 5)
    assert.equal(day.activityLevel, 'normal')
    assert.deepEqual(day.timeRange, { start: NOW - DAY, end: NOW })
  })

  it('answers nulls, a count of 0, normal and no unusual activity for a device without readings in the window', async () => {
    const f = await deviceFarm(ctx)
    const d = await f.device()
    await f.send(d.MAC, [still(NOW - 2 * DAY, 30)])
    assert.deepEqual((await f.inject('GET', `/${d.MAC}/analytics?timeRange=24h`)).json().data, {
      averageTemperature: null,
      averageAccelerationMagnitude: null,
      temperatureRange: { min: null, max: null },
      activityLevel: 'normal',
      unusualActivityDetected: false,
      dataPointsCount: 0,
      timeRange: { start: NOW - DAY, end: NOW },
    })
  })

  it('refuses an unknown timeRange and answers 404 for a MAC that names no device', async () => {
    const f = await deviceFarm(ctx)
    const d = await f.device()
    for (const range of ['2h', '24H', '', '1d'])
      assertInvalid(await f.inject('GET', `/${d.MAC}/analytics?timeRange=${range}`), ['query:timeRange'])
    for (const range of ['1h', '6h', '24h', '7d', '30d'])
      assert.equal((await f.inject('GET', `/${d.MAC}/analytics?timeRange=${range}`)).statusCode, 200)
    assertError(await f.inject('GET', `/${nextDeviceMac()}/analytics`), 404, 'Litterguard not found')
    assertError(await f.inject('GET', '/summary/analytics'), 404, 'Litterguard not found')
  })
})

/**
 * Three devices with the same 7-day baseline before the 24-hour window: one reading every 10 minutes, alternately
 * activity 0.1 and 0.3 g (z 1.1 and 1.3): bucket mean 0.2, population standard deviation 0.1, so 3σ = 0.3.
 * In the window, one reading every 10 minutes (144), the last 5 minutes before NOW:
 * - calm:     0.1, one bucket 0.8 (c 30)         → (143 × 0.1 + 0.8) / 144 = 0.1049 → 0.52× low; one bucket beyond 3σ alone → usual
 * - restless: 0.2, two buckets in a row 0.8 (c 32) → (142 × 0.2 + 1.6) / 144 = 0.2083 → 1.04× normal; 0.6 > 0.3 twice → unusual
 * - lively:   0.3 throughout (c 34)              → 1.5× → high; buckets 0.1 from the mean → usual
 * and, for the summary, a quiet device last heard 15 minutes and 1 second ago (20 °C) and a silent one never heard.
 */
describe("activity against the device's own baseline, and the summary", () => {
  const windowStart = NOW - DAY
  const baseline = (): DeviceReading[] =>
    Array.from({ length: 7 * 144 }, (_, k) => still(windowStart - 7 * DAY + 300 + 600 * k, 25, k % 2 === 0 ? 1.1 : 1.3))
  const window = (c: number, z: (j: number) => number) =>
    Array.from({ length: 144 }, (_, j) => still(windowStart + 300 + 600 * j, c, z(j)))
  let farm: Awaited<ReturnType<typeof deviceFarm>>
  const macs: Record<string, string> = {}

  before(async () => {
    farm = await deviceFarm(ctx)
    for (const name of ['calm', 'restless', 'lively', 'quiet', 'silent']) macs[name] = (await farm.device(name)).MAC
    await farm.send(macs.calm!, [...baseline(), ...window(30, (j) => (j === 50 ? 1.8 : 1.1))])
    await farm.send(macs.restless!, [...baseline(), ...window(32, (j) => (j === 100 || j === 101 ? 1.8 : 1.2))])
    await farm.send(macs.lively!, [...baseline(), ...window(34, () => 1.3)])
    await farm.send(macs.quiet!, [still(NOW - 901, 20)])
  })

  const analytics = async (name: string) =>
    (await farm.inject('GET', `/${macs[name]}/analytics?timeRange=24h`)).json().data

  it('calm: below 0.8x its baseline is low; one bucket beyond 3 standard deviations is not unusual', async () => {
    const a = await analytics('calm')
    assert.equal(a.activityLevel, 'low')
    assert.equal(a.unusualActivityDetected, false)
    assert.equal(a.dataPointsCount, 144)
    near(a.averageTemperature, 30)
    near(a.averageAccelerationMagnitude, (143 * 1.1 + 1.8) / 144)
    assert.deepEqual(a.temperatureRange, { min: 30, max: 30 })
  })

  it('restless: two 10-minute buckets in a row beyond 3 standard deviations are unusual, while the level stays normal', async () => {
    const a = await analytics('restless')
    assert.equal(a.activityLevel, 'normal')
    assert.equal(a.unusualActivityDetected, true)
    near(a.averageAccelerationMagnitude, (142 * 1.2 + 2 * 1.8) / 144)
  })

  it('lively: above 1.2x its baseline is high, and nothing unusual', async () => {
    const a = await analytics('lively')
    assert.equal(a.activityLevel, 'high')
    assert.equal(a.unusualActivityDetected, false)
  })

  it("the summary counts devices by connectivity, averages the active ones' temperatures and counts the unusual", async () => {
    const res = await farm.inject('GET', '/summary')
    assert.equal(res.statusCode, 200)
    const summary = res.json().data
    near(summary.averageTemperature, 32, "mean of 30, 32 and 34: the quiet device's 20 °C is not current")
    assert.deepEqual(
      { ...summary, averageTemperature: 0 },
      {
        totalDevices: 5,
        activeDevices: 3,
        inactiveDevices: 2,
        averageTemperature: 0,
        devicesWithUnusualActivity: 1,
        lastDataReceived: NOW - 300,
      },
    )
  })

  it('the summary of an account without devices or data', async () => {
    const f = await deviceFarm(ctx)
    assert.deepEqual((await f.inject('GET', '/summary')).json().data, {
      totalDevices: 0,
      activeDevices: 0,
      inactiveDevices: 0,
      averageTemperature: null,
      devicesWithUnusualActivity: 0,
      lastDataReceived: null,
    })
    await f.device()
    assert.deepEqual((await f.inject('GET', '/summary')).json().data, {
      totalDevices: 1,
      activeDevices: 0,
      inactiveDevices: 1,
      averageTemperature: null,
      devicesWithUnusualActivity: 0,
      lastDataReceived: null,
    })
  })
})

describe('the OpenAPI document', () => {
  it('says how the analytics and summary figures are computed, and in which units', async () => {
    const doc = (await ctx.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json()
    const data = (path: string) =>
      doc.paths[`/api/v1/users/{userId}/litterguards${path}`].get.responses['200'].content['application/json'].schema
        .properties.data.properties
    const summary = data('/summary')
    assert.match(summary.lastDataReceived.description, /Unix SECONDS/)
    assert.match(summary.averageTemperature.description, /ACTIVE devices/)
    assert.match(summary.devicesWithUnusualActivity.description, /24 hours/)
    const analytics = data('/{macAddress}/analytics')
    assert.match(analytics.activityLevel.description, /below 0\.8× low, above 1\.2× high/)
    assert.match(
      analytics.unusualActivityDetected.description,
      /2 consecutive 10-minute buckets .* 3 standard deviations/,
    )
    const readings = doc.paths['/api/v1/users/{userId}/litterguards/{macAddress}/sensordata'].get.parameters
    assert.match(readings.find((p: { name: string }) => p.name === 'startTime').description, /Unix SECONDS/)
  })
})
