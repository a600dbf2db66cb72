import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { cliInProcess, cliStore, type CliStore } from '../support/cli.ts'
import { createTestApp, testEnv, type TestContext } from '../support/app.ts'
import { simulateReadings, simulatedHerd, type SimulatedBatch } from '../../src/simulation/herd-simulator.ts'
import { isMac } from '../../src/modules/animals/animals.rules.ts'
import { createPayloadValidator } from '../../src/modules/readings/ingest.ts'
import { loadConfig } from '../../src/config.ts'

const DAY = 86_400_000

describe('simulator', () => {
  const end = Date.UTC(2026, 5, 1, 12)
  const herd = simulatedHerd('farm-sim', 25)
  const window = { uid: 'farm-sim', start: end - 10 * DAY, end, intervalMs: 60_000, batchSize: 10_000 }
  const batches: SimulatedBatch[] = [...simulateReadings(herd[3]!, window)]
  const sensor = batches.filter((b) => b.kind === 'sensordata').flatMap((b) => b.rows)
  const locations = batches.filter((b) => b.kind === 'locations').flatMap((b) => b.rows)

  it('builds a deterministic herd with valid, distinct MACs, mostly sows, in pens with a few nodes', () => {
    assert.deepEqual(simulatedHerd('farm-sim', 25), herd)
    assert.equal(new Set(herd.map((a) => a.MAC)).size, 25)
    assert.ok(herd.every((a) => isMac(a.MAC) && a.MAC === a.MAC.toUpperCase()))
    assert.equal(herd.filter((a) => a.Sex === 'male').length, 1)
    assert.deepEqual([...new Set(herd.map((a) => a.Group))], ['Pen 1', 'Pen 2', 'Pen 3'])
    assert.ok(new Set(herd.map((a) => a.homeNode)).size <= 6)
    assert.notDeepEqual(simulatedHerd('another-farm', 1)[0]!.MAC, herd[0]!.MAC)
  })

  it('samples every interval over the window, in batches the ingestion accepts', () => {
    assert.equal(sensor.length, 10 * 24 * 60 + (sensor[0]!.t === window.start ? 1 : 0))
    assert.ok(batches.every((b) => b.rows.length <= window.batchSize))
    assert.ok(sensor.every((r, i) => i === 0 || r.t - sensor[i - 1]!.t === 60_000))
    assert.ok(sensor[0]!.t >= window.start && sensor.at(-1)!.t <= end)
    const validate = createPayloadValidator(loadConfig(testEnv()).limits)
    for (const batch of batches) assert.equal(validate(batch.kind, { readings: batch.rows }).ok, true)
    assert.equal(locations.length, 10 * 24 * 12)
  })

  it('keeps the pinna temperature within 35-39 °C with a daily rhythm, except rare glitches', () => {
    const glitches = sensor.filter((r) => r.c < 35 || r.c > 39)
    assert.ok(glitches.length > 0 && glitches.length < sensor.length * 0.005, `glitches: ${glitches.length}`)
    const byHour = new Map<number, number[]>()
    for (const r of sensor)
      if (r.c >= 35 && r.c <= 39)
        byHour.set(new Date(r.t).getUTCHours(), [...(byHour.get(new Date(r.t).getUTCHours()) ?? []), r.c])
    const mean = (v: number[]) => v.reduce((s, x) => s + x, 0) / v.length
    const means = [...byHour.values()].map(mean)
    assert.ok(Math.max(...means) - Math.min(...means) > 0.5, 'a diurnal swing')
  })

  it('has resting and active acceleration, and detections from the home node and a neighbour', () => {
    const magnitude = sensor.map((r) => Math.hypot(r.x, r.y, r.z))
    const still = magnitude.filter((m) => Math.abs(m - 1) < 0.05).length
    assert.ok(still > sensor.length * 0.5, 'mostly resting')
    assert.ok(still < sensor.length * 0.98, 'but sometimes active')
    assert.deepEqual(new Set(locations.map((l) => l.nodeuid)), new Set([herd[3]!.homeNode, herd[3]!.neighbourNode]))
  })
})

describe('livestock-api simulate and jobs reference-temperature', () => {
  let ctx: TestContext
  let store: CliStore
  before(async () => {
    ctx = await createTestApp()
    store = await cliStore('simulate')
  })
  after(async () => {
    await ctx.close()
    await store.cleanup()
  })
  const cli = (args: string[]) => cliInProcess(ctx, args)

  it("fills a user's account through the ingestion code, idempotently, with reference temperatures", async () => {
    assert.equal(
      (await cli(['user', 'create', '--uid', 'sim-farm', '--email', 'sim@farm.example', '--name', 'Sim farm'])).code,
      0,
    )
    const first = await cli(['simulate', '--user', 'sim-farm', '--animals', '3', '--days', '8', '--interval', '600'])
    assert.equal(first.code, 0, first.stderr)
    const out = first.json()
    assert.equal(out.animals, 3)
    assert.equal(out.created, 3)
    // Every 10 minutes for 8 days, less the hours a tag dropped out (the simulator's tags drop out for 2-36 h now and then).
    assert.ok(
      out.sensordata.stored >= 3 * 8 * 144 * 0.8 && out.sensordata.duplicates === 0,
      JSON.stringify(out.sensordata),
    )
    assert.ok(out.locations.stored > 0)
    assert.deepEqual(out.referenceTemperature, { animals: 3, withReference: 3 })
    const again = (
      await cli(['simulate', '--user', 'sim-farm', '--animals', '3', '--days', '8', '--interval', '600'])
    ).json()
    assert.equal(again.created, 0)
    assert.ok(again.sensordata.duplicates >= again.sensordata.received - 3, 'a re-run stores only what is new')
    const job = await cli(['jobs', 'reference-temperature', '--user', 'sim-farm'])
    assert.equal(job.code, 0, job.stderr)
    assert.deepEqual(job.json(), {
      job: 'reference-temperature',
      user: 'sim-farm',
      users: 1,
      animals: 3,
      withReference: 3,
    })
    assert.equal((await cli(['jobs', 'reference-temperature'])).json().animals, 3)
  })

  it("simulates one of the evaluation's farm profiles: on the missed-returns farm, sows scanned open", async () => {
    const create = ['user', 'create', '--uid', 'scan-farm', '--email', 'scan@farm.example', '--name', 'Scan farm']
    assert.equal((await cli(create)).code, 0)
    const args = ['--animals', '10', '--days', '1', '--interval', '3600', '--profile', 'missed-returns']
    const run = await cli(['simulate', '--user', 'scan-farm', ...args])
    assert.equal(run.code, 0, run.stderr)
    assert.equal(run.json().profile, 'missed-returns')
    const open = await ctx.database.db
      .selectFrom('pregnancy_checks')
      .select('id')
      .where('uid', '=', 'scan-farm')
      .where('result', '=', 'open')
      .execute()
    assert.ok(open.length > 0, 'a sow found open')
    const bad = await cli(['simulate', '--user', 'scan-farm', '--profile', 'summer'])
    assert.equal(bad.code, 2)
    assert.match(bad.stderr, /--profile must be one of default, .*missed-returns/)
  })

  it('refuses bad options (exit 2) and an unknown user (exit 1), as the real binary', async () => {
    const bin = (args: string[]) => store.run(args)
    assert.equal(bin(['simulate']).code, 2)
    assert.equal(bin(['simulate', '--user', 'sim-farm', '--animals', '0']).code, 2)
    // The other bad values take the same path: in process, as the binary's each start costs a second of CPU.
    for (const bad of [['--animals', '0'], ['--days', 'many'], ['--interval=-5'], ['--days', '400']]) {
      const res = await cli(['simulate', '--user', 'sim-farm', ...bad])
      assert.equal(res.code, 2, bad.join(' '))
      assert.match(res.stderr, /must be a whole number/)
    }
    const unknown = bin(['simulate', '--user', 'nobody-here', '--animals', '1', '--days', '1'])
    assert.equal(unknown.code, 1)
    assert.match(unknown.stderr, /User nobody-here not found/)
    assert.equal(bin(['jobs', 'reference-temperature', '--user', 'nobody-here']).code, 1)
  })
})
