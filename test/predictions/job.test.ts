// The predictions job: its SQL summaries agree with the pure ones, it stores one prediction per active
// animal, class and hour through the CLI (and nothing twice), the API reads them, and one runner at a time
// (two concurrent runs: one scores, the other skips; across processes in real-server mode).
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createTestApp, usingRealServers, type TestContext } from '../support/app.ts'
import { bearer, createUser } from '../support/fixtures.ts'
import { cliInProcess } from '../support/cli.ts'
import { openDatabase } from '../../src/db/database.ts'
import { createIdSource } from '../../src/db/ids.ts'
import { insertAnimal } from '../../src/modules/animals/animals.repository.ts'
import { ingest } from '../../src/modules/readings/ingest.ts'
import { HOUR_MS, SUMMARY_THRESHOLDS, summarizeHours } from '../../src/modules/predictions/hour-summaries.rules.ts'
import { PREDICTIONS_LOCK, runScheduledPredictions, scorePredictions } from '../../src/jobs/predictions.ts'
import { hourlySummaries } from '../../src/modules/readings/readings.summaries.ts'
import { withSingleRunner } from '../../src/jobs/single-runner.ts'
import { findFarmSettings, saveFarmSettings } from '../../src/modules/predictions/farm-settings.repository.ts'
import { IDENTITY_MAP, recalibrate } from '../../src/modules/predictions/farm-calibration.rules.ts'

let ctx: TestContext
before(async () => {
  ctx = await createTestApp()
})
after(() => ctx.close())
const cli = (args: string[]) => cliInProcess(ctx, args)

describe('hourly summaries in SQL', () => {
  it('are the pure summaries of the same readings: samples, share moving, valid temperature, detections, node changes', async () => {
    const { uid } = await createUser(ctx)
    const mac = 'AA:CC:00:00:00:01'
    await insertAnimal(
      ctx.database.db,
      uid,
      { MAC: mac, Sex: 'female' },
      createIdSource(() => Date.UTC(2026, 0, 1)),
    )
    const start = Date.UTC(2026, 0, 10)
    const sensor = Array.from({ length: 300 }, (_, i) => ({
      t: start + i * 37_000,
      c: i % 50 === 0 ? 85 : 36 + (i % 30) / 10,
      x: i % 7 === 0 ? 0.4 : 0.01,
      y: -0.02,
      z: i % 11 === 0 ? 1.3 : 0.99,
    }))
    const locations = Array.from({ length: 60 }, (_, i) => ({
      t: start + i * 180_000 + 5,
      rssi: -60,
      nodeuid: i % 4 === 0 ? 'node-2' : 'node-1',
    }))
    await ingest(ctx.database.db, uid, mac, { kind: 'sensordata', rows: sensor }, Date.now())
    await ingest(ctx.database.db, uid, mac, { kind: 'locations', rows: locations }, Date.now())
    const fromSql = await hourlySummaries(ctx.database.db, uid, mac, start, start + 4 * HOUR_MS, SUMMARY_THRESHOLDS)
    const pure = summarizeHours(sensor, locations)
    assert.equal(fromSql.length, pure.length)
    fromSql.forEach((s, i) => {
      const p = pure[i]!
      assert.deepEqual({ ...s, activity: 0, temperature: 0 }, { ...p, activity: 0, temperature: 0 })
      assert.ok(
        Math.abs(s.activity - p.activity) < 1e-9 && Math.abs(s.temperature! - p.temperature!) < 1e-9,
        JSON.stringify([s, p]),
      )
    })
  })
})

describe('livestock-api jobs predictions', () => {
  let uid: string
  /** Four sows whose tags sent a sample every 10 minutes for the last 3 days (moving in every fourth one). */
  before(async () => {
    uid = (await createUser(ctx)).uid
    const now = Date.now()
    const ids = createIdSource(() => now - 10 * 86_400_000)
    for (let k = 0; k < 4; k++) {
      const mac = `AA:CC:00:00:01:0${k}`
      await insertAnimal(ctx.database.db, uid, { MAC: mac, Sex: 'female', Group: 'Pen 1' }, ids)
      const rows = Array.from({ length: 3 * 144 }, (_, i) => ({
        t: now - i * 600_000,
        c: 37.5,
        x: 0,
        y: 0,
        z: i % 4 === 0 ? 1.4 : 1,
      }))
      await ingest(ctx.database.db, uid, mac, { kind: 'sensordata', rows }, now)
    }
  })

  it('stores one prediction per active animal, class and hour for the last 24 hours, and nothing twice', async () => {
    const first = await cli(['jobs', 'predictions', '--user', uid])
    assert.equal(first.code, 0, first.stderr)
    assert.deepEqual(first.json(), {
      job: 'predictions',
      user: uid,
      users: 1,
      animals: 4,
      hours: 24,
      stored: 4 * 24 * 3,
    })
    const again = await cli(['jobs', 'predictions', '--user', uid])
    assert.deepEqual(again.json(), { job: 'predictions', user: uid, users: 1, animals: 0, hours: 0, stored: 0 })
    // Each Animal's CurrentActivity: the share of the last hour's samples that moved (one or two of its six).
    const token = bearer((await ctx.app.tokens.sign({ kind: 'user', id: uid }, 'access', 600)).token)
    const herd = await ctx.app.inject({ method: 'GET', url: `/api/v1/users/${uid}/animals`, headers: token })
    const activities = (herd.json().data as { CurrentActivity?: number }[]).map((a) => a.CurrentActivity)
    assert.equal(activities.length, 4)
    assert.ok(
      activities.every((a) => a === 0.167 || a === 0.333),
      JSON.stringify(activities),
    )
  })

  it('shows the stored predictions through the API: hourly, one result each, probabilities 0-1', async () => {
    const animal = await ctx.database.db
      .selectFrom('animals')
      .select(['mac', 'id'])
      .where('uid', '=', uid)
      .orderBy('id')
      .executeTakeFirstOrThrow()
    const token = bearer((await ctx.app.tokens.sign({ kind: 'user', id: uid }, 'access', 600)).token)
    const res = await ctx.app.inject({
      method: 'GET',
      url: `/api/v1/users/${uid}/animals/${animal.mac}/predictions/recent?classificationType=birth&limit=100`,
      headers: token,
    })
    const predictions = res.json().data as {
      timestamp: string
      results: { timestamp: string; probability: number }[]
      animal: { id: string }
    }[]
    assert.equal(predictions.length, 24)
    const times = predictions.map((p) => Date.parse(p.timestamp))
    assert.ok(
      times.every((t, i) => t % HOUR_MS === 0 && (i === 0 || times[i - 1]! - t === HOUR_MS)),
      'hour ends, newest first, one an hour',
    )
    assert.ok(
      predictions.every(
        (p) =>
          p.results.length === 1 &&
          p.results[0]!.timestamp === p.timestamp &&
          p.results[0]!.probability >= 0 &&
          p.results[0]!.probability <= 1,
      ),
    )
    assert.equal(predictions[0]!.animal.id, String(animal.id))
  })

  it('scores active animals only, the next hour', async () => {
    const [inactive] = await ctx.database.db
      .updateTable('animals')
      .set({ active: false })
      .where('uid', '=', uid)
      .where('id', '=', (eb) =>
        eb
          .selectFrom('animals')
          .select((x) => x.fn.min('id').as('id'))
          .where('uid', '=', uid),
      )
      .returning('id')
      .execute()
    const outcome = await scorePredictions(ctx.database.db, { now: Date.now() + HOUR_MS, uid })
    assert.deepEqual(outcome, { users: 1, animals: 3, hours: 1, stored: 3 * 3 })
    const newest = await ctx.database.db
      .selectFrom('predictions')
      .select((eb) => eb.fn.max('predicted_at').as('t'))
      .where('animal_id', '=', inactive!.id)
      .executeTakeFirstOrThrow()
    assert.ok((newest.t ?? 0) <= Date.now(), 'the inactive animal got no prediction for the new hour')
  })

  it("stores the farm's probability through its calibration map and the global one beside it", async () => {
    const rows = () =>
      ctx.database.db
        .selectFrom('predictions')
        .select(['classification_type', 'predicted_at', 'peak_probability', 'global_probability'])
        .where('uid', '=', uid)
        .execute()
    // No map fitted (no records): the farm's probability is the global one.
    for (const r of await rows()) assert.equal(r.peak_probability, r.global_probability)
    const now = Date.now() + 2 * HOUR_MS
    const stored = (await findFarmSettings(ctx.database.db, uid))!
    const fit = (map: typeof IDENTITY_MAP) => ({
      map,
      fitted: map,
      events: 9,
      hours: 100,
      observed: 0.01,
      meanPredicted: 0.02,
      reason: 'test',
    })
    const birthMap = { intercept: -1, slope: 0.5 }
    await saveFarmSettings(ctx.database.db, uid, {
      ...stored,
      learnedAt: now,
      calibration: { birth: fit(birthMap), heat: fit(IDENTITY_MAP), lameness: fit(IDENTITY_MAP) },
    })
    const outcome = await scorePredictions(ctx.database.db, { now, uid })
    assert.equal(outcome.hours, 1)
    const newest = (await rows()).filter((r) => r.predicted_at === Math.floor(now / HOUR_MS) * HOUR_MS)
    assert.equal(newest.length, outcome.stored)
    for (const r of newest) {
      const expected =
        r.classification_type === 'birth'
          ? Math.round(recalibrate(birthMap, r.global_probability!) * 10_000) / 10_000
          : r.global_probability
      assert.equal(r.peak_probability, expected, r.classification_type)
    }
  })

  it('refuses an unknown user (exit 1) and prints usage for a bad option (exit 2)', async () => {
    const unknown = await cli(['jobs', 'predictions', '--user', 'nobody-here'])
    assert.equal(unknown.code, 1)
    assert.match(unknown.stderr, /User nobody-here not found/)
    assert.equal((await cli(['jobs', 'evaluate-predictions', '--animals', '5'])).code, 2)
    assert.equal((await cli(['jobs', 'evaluate-predictions', '--days', 'many'])).code, 2)
    const history = await cli(['jobs', 'evaluate-predictions', '--history', '-1'])
    assert.equal(history.code, 2)
    assert.match(history.stderr, /--history must be a whole number from 0 to 365/)
    const family = await cli(['jobs', 'evaluate-predictions', '--family', 'imaginary'])
    assert.equal(family.code, 2)
    assert.match(family.stderr, /--family must be one of cycle, ethogram/)
    const profile = await cli(['jobs', 'evaluate-predictions', '--profile', 'imaginary'])
    assert.equal(profile.code, 2)
    assert.match(profile.stderr, /--profile must be one of default, late-crates/)
  })
})

describe('livestock-api simulate and the scorer', () => {
  it('gives each new animal the farm records of its simulated life, which the job then reads; a re-run adds none', async () => {
    const { uid } = await createUser(ctx)
    const first = await cli(['simulate', '--user', uid, '--animals', '10', '--days', '2', '--interval', '600'])
    assert.equal(first.code, 0, first.stderr)
    const { records } = first.json()
    // Every sow has farrowed at least once (her simulated life starts at a farrowing up to 150 days back).
    assert.ok(records.births >= 10 && records.inseminations > 0 && records.weanings > 0, JSON.stringify(records))
    assert.ok(records['pregnancy-checks'] > 0, JSON.stringify(records))
    const stored = await ctx.database.db
      .selectFrom('animals')
      .innerJoin('predictions', 'predictions.animal_id', 'animals.id')
      .select('animals.id')
      .where('animals.uid', '=', uid)
      .execute()
    assert.equal(stored.length, 0)
    const again = await cli(['simulate', '--user', uid, '--animals', '10', '--days', '2', '--interval', '600'])
    assert.ok(
      Object.values(again.json().records).every((n) => n === 0),
      JSON.stringify(again.json().records),
    )
    const job = await cli(['jobs', 'predictions', '--user', uid])
    assert.equal(job.code, 0, job.stderr)
    assert.ok(job.json().stored > 0)
  })
})

describe('one runner at a time', () => {
  it('of two concurrent runs in one process, one scores and the other skips', async () => {
    const now = Date.now() + 3 * HOUR_MS
    const [a, b] = await Promise.all([runScheduledPredictions(ctx.app, now), runScheduledPredictions(ctx.app, now)])
    assert.equal([a, b].filter((o) => o === undefined).length, 1, JSON.stringify([a, b]))
    assert.ok((a ?? b)!.users >= 1)
  })

  it('the CLI skips while the service is scoring', async () => {
    let release!: () => void
    const held = withSingleRunner(
      ctx.database,
      PREDICTIONS_LOCK,
      () =>
        new Promise<void>((resolve) => {
          release = resolve
        }),
    )
    try {
      const res = await cli(['jobs', 'predictions'])
      assert.equal(res.code, 0, res.stderr)
      assert.deepEqual(res.json(), { job: 'predictions', skipped: 'another process is scoring predictions now' })
    } finally {
      release()
      await held
    }
    assert.notEqual((await cli(['jobs', 'predictions'])).json().skipped, 'another process is scoring predictions now')
  })

  it(
    'across processes: the advisory lock admits one session',
    { skip: !usingRealServers && 'needs two database sessions (real-server mode)' },
    async () => {
      const other = await openDatabase(ctx.config)
      try {
        const inner = await withSingleRunner(ctx.database, PREDICTIONS_LOCK, () =>
          withSingleRunner(other, PREDICTIONS_LOCK, async () => 'ran'),
        )
        assert.equal(inner, undefined, 'the second session must not get the lock while the first holds it')
        assert.equal(await withSingleRunner(other, PREDICTIONS_LOCK, async () => 'ran'), 'ran', 'released afterwards')
      } finally {
        await other.close()
      }
    },
  )
})
