// Retention (docs/operations.md#retention): the maintenance job, run from the CLI and as the job, deletes raw
// readings (recent rows and packed hours of the three series) and the scorer's predictions older than their
// settings, in statements of at most RETENTION_BATCH_ROWS rows; young rows, alarms and posted predictions stay,
// the owners' latest state stays, and late readings are still stored and packed.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { sql, type KyselyPlugin } from 'kysely'
import { createTestApp, type TestContext } from '../support/app.ts'
import { bearer, integratorToken, manualClock } from '../support/fixtures.ts'
import { cliInProcess } from '../support/cli.ts'
import { PACKING_LOCK, packReadings } from '../../src/jobs/packing.ts'
import { MAINTENANCE_LOCK } from '../../src/jobs/maintenance.ts'
import { EVENTS_LOCK } from '../../src/jobs/events.ts'
import { PREDICTIONS_LOCK } from '../../src/jobs/predictions.ts'
import { REFERENCE_TEMPERATURE_LOCK } from '../../src/jobs/reference-temperature.ts'
import { applyRetention } from '../../src/jobs/retention.ts'
import { insertScoredPredictions } from '../../src/modules/predictions/predictions.repository.ts'
import { derivePredictionEvents } from '../../src/modules/events/prediction-events.ts'
import { defaultRules } from '../../src/modules/events/alert-rules.rules.ts'
import { nextDeviceMac } from '../litterguards/farm.ts'
import { readingsFarm } from './farm.ts'

const HOUR = 3_600_000
const MINUTE = 60_000
const DAY = 86_400_000
const KEEP_DAYS = 40
const BATCH = 7
// The CLI runs at the real clock: the data lie around it.
const NOW = Date.now()
/** The first hour kept: the start of the hour KEEP_DAYS before now (a run in the next hour keeps one hour less: none of the data lies there). */
const KEPT_FROM = Math.floor((NOW - KEEP_DAYS * DAY) / HOUR) * HOUR
const OLD = KEPT_FROM - 5 * DAY
const MIDDLE = KEPT_FROM - DAY
const YOUNG = KEPT_FROM + 2 * DAY

let ctx: TestContext
// The service's clock: the old readings arrive while young, 10 days back; then it is now.
const clock = manualClock(NOW - 10 * DAY)
before(async () => {
  ctx = await createTestApp({
    clock: () => clock.now,
    env: {
      READINGS_RETENTION_DAYS: String(KEEP_DAYS),
      ROLLUPS_RETENTION_DAYS: String(KEEP_DAYS + 2),
      PREDICTIONS_RETENTION_DAYS: '60',
      RETENTION_BATCH_ROWS: String(BATCH),
      PACKING_INTERVAL_SECONDS: '0',
    },
  })
})
after(() => ctx.close())

/** A reading a minute for `minutes` minutes from `from` (ms), values at the tags' precision. */
function sensorRows(from: number, minutes: number, c = 38.5) {
  return Array.from({ length: minutes }, (_, i) => ({ t: from + i * MINUTE, c, x: 0.01, y: 0.02, z: 0.99 }))
}

async function rowsOf(table: string, uid: string): Promise<number> {
  const { rows } = await sql<{
    n: number
  }>`SELECT count(*)::int AS n FROM ${sql.table(table)} WHERE uid = ${uid}`.execute(ctx.database.db)
  return rows[0]!.n
}

/** The readings an animal's sensor rollup counts, per hour. */
async function rollupHours(uid: string, mac: string): Promise<Record<number, number>> {
  const rows = await ctx.database.db
    .selectFrom('animal_sensor_hourly')
    .select(['hour', 'n'])
    .where('uid', '=', uid)
    .where('mac', '=', mac)
    .execute()
  return Object.fromEntries(rows.map((r) => [Number(r.hour), Number(r.n)]))
}

describe('retention', () => {
  it('deletes old readings of both parts and rollups, keeps young ones, the latest state and late packing (jobs maintenance)', async () => {
    const f = await readingsFarm(ctx)
    const a = await f.animal()
    // Tokens issued now: the clock moves on 10 days.
    let headers = f.headers
    const inject = (method: 'GET' | 'POST', url: string, payload?: object) =>
      ctx.app.inject({ method, url, headers, ...(payload ? { payload } : {}) })
    const post = async (path: string, readings: unknown[]) => {
      const res = await inject('POST', `${f.base}${path}`, { readings })
      assert.equal(res.statusCode, 200, res.body)
      return res.json().data as { stored: number; duplicates: number }
    }
    const devices = `/api/v1/users/${f.user.uid}/litterguards`
    const registered = await inject('POST', devices, { MAC: nextDeviceMac(), Name: 'Pen 1' })
    assert.equal(registered.statusCode, 201, registered.body)
    const d = registered.json().data as { MAC: string }
    const sendDevice = async (readings: unknown[]) => {
      const res = await inject('POST', `${devices}/${d.MAC}/sensordata`, { readings })
      assert.equal(res.statusCode, 200, res.body)
    }
    const seconds = <R extends { t: number }>(rows: R[]) => rows.map((r) => ({ ...r, t: Math.floor(r.t / 1000) }))
    // Old hours (gone with their rollups), a middle hour (its readings gone, its rollup kept) and young hours, packed.
    const old = sensorRows(OLD, 150)
    const middle = sensorRows(MIDDLE, 60)
    const young = sensorRows(YOUNG, 150)
    await post(`/${a.MAC}/sensordata`, [...old, ...middle, ...young])
    await post(
      `/${a.MAC}/locations`,
      [...old, ...young].map((r, i) => ({ t: r.t, rssi: -60, nodeuid: `node-${i % 2}` })),
    )
    await sendDevice(seconds([...old, ...young]))
    await packReadings(ctx.database.db, { now: NOW })
    // Late readings of an old hour arrive after packing: recent rows of an old hour.
    const lateOld = sensorRows(OLD - 3 * HOUR, 20)
    assert.equal((await post(`/${a.MAC}/sensordata`, lateOld)).stored, 20)
    // Now: the newest readings stay recent rows.
    clock.now = NOW
    headers = bearer((await integratorToken(ctx, f.integrator.uid)).accessToken)
    const newest = sensorRows(NOW - 20 * MINUTE, 10, 39.1)
    await post(`/${a.MAC}/sensordata`, newest)
    await sendDevice(seconds(newest))
    const packed = [
      await rowsOf('animal_sensor_packed', f.user.uid),
      await rowsOf('animal_location_packed', f.user.uid),
      await rowsOf('litterguard_packed', f.user.uid),
    ]
    assert.deepEqual(packed, [7, 6, 6])

    const res = await cliInProcess(ctx, ['jobs', 'maintenance'])
    assert.equal(res.code, 0, res.stderr)
    const { deleted } = res.json()
    assert.equal(deleted.animal_sensor_readings, 20)
    assert.equal(deleted.animal_sensor_packed, 4)
    assert.equal(deleted.animal_location_packed, 3)
    assert.equal(deleted.litterguard_packed, 3)
    assert.equal(deleted.animal_sensor_hourly, 4)
    assert.equal(deleted.animal_location_hourly, 3)
    assert.equal(deleted.litterguard_hourly, 3)

    const series = async (path: string) => {
      const res = await inject('GET', `${f.base}${path}?startTime=0&endTime=${NOW + HOUR}&limit=10000&sortOrder=asc`)
      assert.equal(res.statusCode, 200, res.body)
      return res.json().data as { t: number }[]
    }
    assert.deepEqual(
      (await series(`/${a.MAC}/sensordata`)).map((r) => r.t),
      [...young, ...newest].map((r) => r.t),
    )
    assert.deepEqual(
      (await series(`/${a.MAC}/locations`)).map((r) => r.t),
      young.map((r) => r.t),
    )
    // Newest first up to the young hours' 11th minute: nothing older than their first reading is left.
    const deviceRows = await inject('GET', `${devices}/${d.MAC}/sensordata?startTime=0&endTime=${young[10]!.t / 1000}`)
    assert.deepEqual(
      deviceRows.json().data.map((r: { t: number }) => r.t),
      young
        .slice(0, 11)
        .reverse()
        .map((r) => Math.floor(r.t / 1000)),
    )
    const hours = await rollupHours(f.user.uid, a.MAC)
    assert.equal(hours[MIDDLE], 60)
    assert.ok(Object.keys(hours).every((hour) => Number(hour) >= MIDDLE))

    // The owners' latest state is on their rows.
    const animal = (await inject('GET', `${f.base}/${a.MAC}`)).json().data
    assert.equal(animal.CurrentTemperature, 39.1)
    const device = (await inject('GET', `${devices}/${d.MAC}`)).json().data
    assert.equal(device.CurrentTemperature, 39.1)
    assert.equal(device.LastSeen.seconds, Math.floor(newest.at(-1)!.t / 1000))

    // A late reading for a kept, packed hour is stored once and merged; one older than the retention is not stored,
    // re-sent or new: nothing is left to tell which, and the middle hour's rollup would count it twice.
    const lateYoung = { t: YOUNG + 30 * MINUTE + 1, c: 37.9, x: 0, y: 0, z: 1 }
    assert.equal((await post(`/${a.MAC}/sensordata`, [lateYoung, ...young.slice(0, 3)])).stored, 1)
    const beyond = await post(`/${a.MAC}/sensordata`, [{ ...middle[5]! }, { t: OLD + 7, c: 37.9, x: 0, y: 0, z: 1 }])
    assert.deepEqual(beyond, { received: 2, stored: 0, duplicates: 2 })
    await packReadings(ctx.database.db, { now: NOW })
    assert.deepEqual(
      (await series(`/${a.MAC}/sensordata`)).map((r) => r.t),
      [...young.slice(0, 31), lateYoung, ...young.slice(31), ...newest].map((r) => r.t),
    )
    assert.equal((await post(`/${a.MAC}/sensordata`, [lateYoung])).duplicates, 1)
    assert.deepEqual(await rollupHours(f.user.uid, a.MAC), { ...hours, [YOUNG]: 61 })
    const again = (await cliInProcess(ctx, ['jobs', 'maintenance'])).json().deleted
    assert.equal(again.animal_sensor_packed, 0)
    assert.equal(typeof again.accessLog, 'number')
  })

  it('keeps every alarm and posted prediction, deletes old hourly scores, never more than the batch a statement', async () => {
    const f = await readingsFarm(ctx)
    const a = await f.animal()
    const animalId = Number(
      (
        await ctx.database.db
          .selectFrom('animals')
          .select('id')
          .where('uid', '=', f.user.uid)
          .where('mac', '=', a.MAC)
          .executeTakeFirstOrThrow()
      ).id,
    )
    const prediction = (at: number, probability: number, globalProbability = probability) => ({
      animalId,
      classificationType: 'heat' as const,
      predictedAt: at,
      results: [{ timestamp: new Date(at).toISOString(), probability }],
      peakProbability: probability,
      globalProbability,
    })
    const OLD_SCORES = NOW - 70 * DAY
    // 30 old quiet hours, an old alarm at 0.5, an old 0.35 that raised the farm's alarm (its threshold 0.3), young hours.
    const quiet = Array.from({ length: 30 }, (_, i) => prediction(OLD_SCORES + i * HOUR, 0.1))
    const alarm = prediction(OLD_SCORES + 40 * HOUR, 0.5)
    const farmAlarm = prediction(OLD_SCORES + 50 * HOUR, 0.35)
    // An old alarm whose probability the farm's calibration map put at 0.05: alarms are read from the global one.
    const mapped = prediction(OLD_SCORES + 45 * HOUR, 0.05, 0.5)
    const youngScores = Array.from({ length: 5 }, (_, i) => prediction(NOW - 2 * DAY + i * HOUR, 0.1))
    await insertScoredPredictions(ctx.database.db, f.user.uid, [...quiet, alarm, mapped, farmAlarm, ...youngScores])
    const rules = defaultRules()
    rules.thresholds.heatProbability = 0.3
    const raised = await derivePredictionEvents(
      ctx.database.db,
      f.user.uid,
      rules,
      [
        {
          animalId,
          mac: a.MAC,
          group: null,
          classificationType: 'heat',
          predictedAt: farmAlarm.predictedAt,
          probability: 0.35,
        },
      ],
      NOW,
    )
    assert.equal(raised.length, 1)
    const posted = await f.inject('POST', `/${a.MAC}/predictions`, {
      classificationType: 'heat',
      timestamp: new Date(OLD_SCORES).toISOString(),
      results: [{ timestamp: new Date(OLD_SCORES).toISOString(), probability: 0.2 }],
    })
    assert.equal(posted.statusCode, 201, posted.body)

    // The job's entry, on a connection that records the rows each DELETE statement removed.
    const deletes: number[] = []
    const isDelete = new WeakMap<object, boolean>()
    const recorder: KyselyPlugin = {
      transformQuery: (args) => {
        const node = args.node as { kind: string; sqlFragments?: readonly string[] }
        isDelete.set(args.queryId, node.kind === 'RawNode' && /^\s*DELETE\b/.test(node.sqlFragments?.[0] ?? ''))
        return args.node
      },
      transformResult: async (args) => {
        if (isDelete.get(args.queryId)) deletes.push(Number(args.result.numAffectedRows))
        return args.result
      },
    }
    const db = ctx.database.withoutTimeouts.withPlugin(recorder)
    const deleted = await applyRetention(
      db,
      { ...ctx.config.retention, readingsDays: 0, rollupsDays: 0, eventsDays: 0 },
      NOW,
    )
    assert.equal(deleted.predictions, 30)
    assert.deepEqual(deletes, [7, 7, 7, 7, 2])

    const listed = await f.inject('GET', `/${a.MAC}/predictions?limit=100`)
    assert.equal(listed.statusCode, 200, listed.body)
    const left = (listed.json().data as { timestamp: string; results: { probability: number }[] }[])
      .map((p) => [Date.parse(p.timestamp), p.results[0]!.probability])
      .sort((x, y) => x[0]! - y[0]!)
    assert.deepEqual(left, [
      [OLD_SCORES, 0.2],
      [alarm.predictedAt, 0.5],
      [mapped.predictedAt, 0.05],
      [farmAlarm.predictedAt, 0.35],
      ...youngScores.map((p) => [p.predictedAt, 0.1]),
    ])
    assert.equal(await rowsOf('events', f.user.uid), 1)
  })

  it('runs beside packing and event derivation: every job has a single-runner key of its own', () => {
    const keys = [MAINTENANCE_LOCK, PACKING_LOCK, EVENTS_LOCK, PREDICTIONS_LOCK, REFERENCE_TEMPERATURE_LOCK]
    assert.equal(new Set(keys).size, keys.length)
  })
})
