// The simulated farm's litter devices: the generator, and `livestock-api simulate` showing device
// summaries and analytics through the API.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createTestApp, testEnv, type TestContext } from '../support/app.ts'
import { cliInProcess } from '../support/cli.ts'
import { bearer, createIntegrator, integratorToken } from '../support/fixtures.ts'
import { loadConfig } from '../../src/config.ts'
import { isMac } from '../../src/modules/animals/animals.rules.ts'
import { dynamicAcceleration } from '../../src/modules/litterguards/litterguards.rules.ts'
import { simulateLitterguardReadings, simulatedLitterguards } from '../../src/simulation/litterguard-simulator.ts'
import { createPayloadValidator } from '../../src/modules/readings/ingest.ts'
import { simulatedHerd } from '../../src/simulation/herd-simulator.ts'

const DAY = 86_400

describe('simulated litter devices', () => {
  const end = Date.UTC(2026, 5, 1, 12) / 1000
  const devices = simulatedLitterguards('farm-sim')
  const window = { uid: 'farm-sim', start: end - 8 * DAY, end, intervalSeconds: 60, batchSize: 10_000 }
  const readings = devices.map((d) => [...simulateLitterguardReadings(d, window)])

  it('gives a farm two named devices with valid MACs of their own, the same on every run', () => {
    assert.deepEqual(simulatedLitterguards('farm-sim'), devices)
    assert.deepEqual(
      devices.map((d) => d.Name),
      ['Farrowing pen 1 litter', 'Farrowing pen 2 litter'],
    )
    assert.ok(devices.every((d) => isMac(d.MAC) && d.MAC === d.MAC.toUpperCase()))
    const animalMacs = new Set(simulatedHerd('farm-sim', 20).map((a) => a.MAC))
    assert.ok(devices.every((d) => !animalMacs.has(d.MAC)))
    assert.notEqual(simulatedLitterguards('another-farm')[0]!.MAC, devices[0]!.MAC)
  })

  it('samples in Unix seconds every interval, in batches the ingestion accepts; pen 2 falls silent 40 minutes before the end', () => {
    const validate = createPayloadValidator(loadConfig(testEnv()).limits)
    for (const batches of readings) {
      for (const rows of batches) assert.equal(validate('devicedata', { readings: rows }).ok, true)
      const rows = batches.flat()
      assert.ok(rows.every((r, i) => i === 0 || r.t - rows[i - 1]!.t === 60))
      assert.ok(rows[0]!.t >= window.start && rows.at(-1)!.t <= end)
      assert.ok(
        rows.every((r) => r.c > 28 && r.c < 36),
        'a creep area under its heat lamp',
      )
    }
    assert.ok(readings[0]!.flat().at(-1)!.t > end - 60)
    assert.ok(readings[1]!.flat().at(-1)!.t <= end - 40 * 60)
    assert.ok(readings[1]!.flat().at(-1)!.t > end - 41 * 60)
  })

  it('turns pen 1 restless in its last 3 hours', () => {
    const rows = readings[0]!.flat()
    const mean = (v: number[]) => v.reduce((s, x) => s + x, 0) / v.length
    const activity = (from: number, to: number) =>
      mean(rows.filter((r) => r.t >= from && r.t < to).map((r) => dynamicAcceleration(r.x, r.y, r.z)))
    assert.ok(activity(end - 3 * 3600, end + 1) > 5 * activity(end - 2 * DAY, end - 3 * 3600))
  })
})

describe("livestock-api simulate: the farm's devices through the API", () => {
  let ctx: TestContext
  before(async () => {
    ctx = await createTestApp()
  })
  after(() => ctx.close())

  it('registers two devices with 8 days of readings, idempotently; summary and analytics show them', async () => {
    const cli = (args: string[]) => cliInProcess(ctx, args)
    assert.equal(
      (
        await cli([
          'user',
          'create',
          '--uid',
          'sim-devices',
          '--email',
          'devices@farm.example',
          '--name',
          'Sim devices',
        ])
      ).code,
      0,
    )
    const first = await cli(['simulate', '--user', 'sim-devices', '--animals', '1', '--days', '8'])
    assert.equal(first.code, 0, first.stderr)
    const out = first.json().litterguards
    assert.equal(out.devices, 2)
    assert.equal(out.created, 2)
    assert.ok(out.readings.stored > 2 * 8 * 1400 && out.readings.duplicates === 0, JSON.stringify(out.readings))
    const again = (await cli(['simulate', '--user', 'sim-devices', '--animals', '1', '--days', '8'])).json()
      .litterguards
    assert.equal(again.created, 0)
    assert.ok(again.readings.duplicates >= again.readings.received - 4, 'a re-run stores only what is new')

    const integrator = await createIntegrator(ctx, { tier: 'pro', linkTo: ['sim-devices'] })
    const headers = bearer((await integratorToken(ctx, integrator.uid)).accessToken)
    const get = async (path: string) => {
      const res = await ctx.app.inject({ method: 'GET', url: `/api/v1/users/sim-devices/litterguards${path}`, headers })
      assert.equal(res.statusCode, 200, res.body)
      return res.json().data
    }
    const summary = await get('/summary')
    assert.equal(summary.totalDevices, 2)
    assert.equal(summary.activeDevices, 1)
    assert.equal(summary.inactiveDevices, 1)
    assert.equal(summary.devicesWithUnusualActivity, 1)
    assert.ok(summary.averageTemperature > 28 && summary.averageTemperature < 36)
    assert.ok(Math.abs(summary.lastDataReceived - Date.now() / 1000) < 120)
    const [pen1, pen2] = out.macs as string[]
    const restless = await get(`/${pen1}/analytics`)
    assert.equal(restless.activityLevel, 'high')
    assert.equal(restless.unusualActivityDetected, true)
    assert.ok(restless.dataPointsCount >= 1439)
    const quiet = await get(`/${pen2}/analytics`)
    assert.equal(quiet.activityLevel, 'normal')
    assert.equal(quiet.unusualActivityDetected, false)
    assert.equal((await get(`/${pen2}`)).Active, false)
    assert.equal((await get(`/${pen1}/sensordata/latest?count=5`)).length, 5)
  })
})
