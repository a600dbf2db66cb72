// The hourly rollups (docs/storage.md#hourly-rollups): kept by ingestion, they equal the readings summed up
// from scratch whatever arrives: batches across hour boundaries, duplicates re-sent (recent or packed), late
// readings for an hour already packed, a late detection mid-hour that changes the hour's node changes; packing
// changes none of them; they follow the tag's MAC and go with the animal or device.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { sql, type Kysely } from 'kysely'
import { createTestApp, type TestContext } from '../support/app.ts'
import { packReadings } from '../../src/jobs/packing.ts'
import { BACKFILL_THRESHOLDS, backfill } from '../../src/db/migrations/0060_hourly_rollups.ts'
import { backfill as backfillActivity } from '../../src/db/migrations/0065_litterguard_activity.ts'
import { MOVING_THRESHOLD_G, TIME_RANGES, VALID_TEMPERATURE } from '../../src/modules/readings/readings.rules.ts'
import { readingRows, summedUp } from '../../src/modules/readings/readings.repository.ts'
import { herdHourlySummaries, hourlySummaries } from '../../src/modules/readings/readings.summaries.ts'
import { SERIES, type ReadingKind } from '../../src/modules/readings/readings.series.ts'
import { SUMMARY_THRESHOLDS, summarizeHours } from '../../src/modules/predictions/hour-summaries.rules.ts'
import { assertClose } from '../support/assertions.ts'
import { rawHourlySummaries, rawSensorAnalytics } from './raw.ts'
import { deviceFarm } from '../litterguards/farm.ts'
import { readingsFarm } from './farm.ts'

const HOUR = 3_600_000
const MINUTE = 60_000
// A fixed clock 40 minutes into an hour: the hours before are closed, the packing job packs them.
const NOW = Math.floor(Date.now() / HOUR) * HOUR + 40 * MINUTE
const FIRST = NOW - 6 * HOUR - 7 * MINUTE

let ctx: TestContext
/** The service's clock: NOW but where a test moves it. */
let clock = NOW
before(async () => {
  ctx = await createTestApp({ clock: () => clock })
})
after(() => ctx.close())

const round = (value: number, digits: number) => Math.round(value * 10 ** digits) / 10 ** digits

/** A reading a minute in [from, to], values at the tags' precision, some moving, some glitches. */
function sensorRows(from = FIRST, to = NOW) {
  const rows = []
  for (let t = from; t <= to; t += MINUTE) {
    const i = Math.round((t - FIRST) / MINUTE)
    rows.push({
      t: t + (i % 7) * 13,
      c: i % 41 === 0 ? 85 : round(38 + Math.sin(i / 10), 2),
      x: round(Math.cos(i) / 3, 3),
      y: round(-0.1 * (i % 5), 3) || 0,
      z: round(0.98 + (i % 3) / 100, 3),
    })
  }
  return rows
}

function detections(from = FIRST, to = NOW) {
  const rows = []
  for (let t = from; t <= to; t += 2 * MINUTE) {
    const i = Math.round((t - FIRST) / MINUTE)
    rows.push({ t: t + 5, rssi: -50 - (i % 20), nodeuid: `node-${Math.floor(i / 9) % 3}` })
  }
  return rows
}

/** The tag's rollup rows as stored, and its readings (both parts) summed up from scratch: equal. */
async function assertRollupsExact(kind: ReadingKind, uid: string, mac: string): Promise<number> {
  const series = SERIES[kind]
  const columns = ['hour', ...Object.keys(series.rollup.columns)]
  const { rows: stored } = await sql<Record<string, unknown>>`
    SELECT ${sql.join(columns.map((c) => sql.ref(c)))} FROM ${sql.table(series.rollup.table)}
    WHERE uid = ${uid} AND mac = ${mac} ORDER BY hour`.execute(ctx.database.db)
  const { rows: fromScratch } = await sql<Record<string, unknown>>`
    SELECT * FROM (${summedUp(series, readingRows(series, uid, mac, {}))}) s ORDER BY hour`.execute(ctx.database.db)
  assert.ok(stored.length > 0)
  assert.deepEqual(stored, fromScratch)
  return stored.length
}

/** The migrations sum the account's readings up into the same rows as ingestion did (in a transaction undone after). */
async function assertBackfillSame(uid: string): Promise<void> {
  const tables = ['animal_sensor_hourly', 'animal_location_hourly', 'litterguard_hourly']
  const snapshot = async (db: typeof ctx.database.db) => {
    const out = []
    for (const table of tables)
      out.push((await sql`SELECT * FROM ${sql.table(table)} WHERE uid = ${uid} ORDER BY mac, hour`.execute(db)).rows)
    return out
  }
  const ingested = await snapshot(ctx.database.db)
  await assert.rejects(
    ctx.database.db.transaction().execute(async (trx) => {
      for (const table of tables) await sql`DELETE FROM ${sql.table(table)} WHERE uid = ${uid}`.execute(trx)
      await backfill(trx as unknown as Kysely<unknown>, uid)
      await backfillActivity(trx as unknown as Kysely<unknown>, uid)
      assert.deepEqual(await snapshot(trx), ingested)
      throw new Error('undone')
    }),
    /undone/,
  )
}

async function count(table: string, uid: string): Promise<number> {
  const { rows } = await sql<{
    n: number
  }>`SELECT count(*)::int AS n FROM ${sql.table(table)} WHERE uid = ${uid}`.execute(ctx.database.db)
  return rows[0]!.n
}

describe('hourly rollups', () => {
  it('count by the thresholds the migration summed existing readings up with', () => {
    assert.deepEqual(BACKFILL_THRESHOLDS, { MOVING_THRESHOLD_G, VALID_TEMPERATURE })
  })

  it('equal the readings summed up from scratch: across hours, re-sent, packed, late, late mid-hour detections', async () => {
    const f = await readingsFarm(ctx)
    const a = await f.animal()
    const post = async (path: string, readings: unknown[]) => {
      const res = await f.inject('POST', `/${a.MAC}/${path}`, { readings })
      assert.equal(res.statusCode, 200, res.body)
      return res.json().data as { stored: number; duplicates: number }
    }
    const rows = sensorRows()
    const located = detections()
    // In batches of 25 minutes: most cross an hour's boundary.
    for (let i = 0; i < rows.length; i += 25) await post('sensordata', rows.slice(i, i + 25))
    for (let i = 0; i < located.length; i += 13) await post('locations', located.slice(i, i + 13))
    const hours = await assertRollupsExact('sensordata', f.user.uid, a.MAC)
    assert.equal(hours, 7)
    await assertRollupsExact('locations', f.user.uid, a.MAC)

    // Re-sent, overlapping new readings: the duplicates add nothing.
    const more = sensorRows(NOW - 30 * MINUTE + 7, NOW)
    assert.equal((await post('sensordata', [...rows.slice(-60), ...more])).stored, more.length)
    await assertRollupsExact('sensordata', f.user.uid, a.MAC)

    const packed = await packReadings(ctx.database.db, { now: NOW, uid: f.user.uid })
    assert.ok(packed.readings > 0)
    await assertRollupsExact('sensordata', f.user.uid, a.MAC)
    await assertRollupsExact('locations', f.user.uid, a.MAC)
    // Re-sent once packed: all duplicates, nothing added.
    assert.equal((await post('sensordata', rows)).stored, 0)
    assert.equal((await post('locations', located)).stored, 0)
    await assertRollupsExact('sensordata', f.user.uid, a.MAC)
    await assertRollupsExact('locations', f.user.uid, a.MAC)

    // Late: inside packed hours (a detection from a node of its own mid-hour adds two node changes), and days old.
    const late = [
      { t: FIRST + HOUR + 30_001, c: 37.5, x: 0.5, y: 0.25, z: 1 },
      { t: FIRST + 2 * HOUR + 1, c: 24, x: 0, y: 0, z: 1.2 },
      { t: NOW - 3 * 86_400_000, c: 39.01, x: 0, y: 0, z: 1 },
    ]
    assert.equal((await post('sensordata', late)).stored, late.length)
    const lateDetections = [
      { t: FIRST + HOUR + 61_000, rssi: -70, nodeuid: 'node-9' },
      { t: FIRST + 3 * HOUR - 1, rssi: -70, nodeuid: 'node-8' },
      { t: NOW - 3 * 86_400_000, rssi: -70, nodeuid: 'node-1' },
    ]
    assert.equal((await post('locations', lateDetections)).stored, lateDetections.length)
    await assertRollupsExact('sensordata', f.user.uid, a.MAC)
    await assertRollupsExact('locations', f.user.uid, a.MAC)
    await packReadings(ctx.database.db, { now: NOW, uid: f.user.uid })
    assert.equal(await assertRollupsExact('sensordata', f.user.uid, a.MAC), 8)
    await assertRollupsExact('locations', f.user.uid, a.MAC)
    const { rows: changed } = await sql<{ changes: number; nodes: string[] }>`
      SELECT changes, nodes FROM animal_location_hourly WHERE uid = ${f.user.uid} AND mac = ${a.MAC} AND 'node-9' = ANY (nodes)`.execute(
      ctx.database.db,
    )
    assert.equal(changed.length, 1)
    assert.ok(changed[0]!.nodes.includes('node-9'))
    await assertBackfillSame(f.user.uid)

    // They follow the MAC, and go with the animal.
    const newMac = 'AA:BB:CC:00:98:01'
    assert.equal((await f.inject('PATCH', `/${a.ID}`, { MAC: newMac })).statusCode, 200)
    await assertRollupsExact('sensordata', f.user.uid, newMac)
    await assertRollupsExact('locations', f.user.uid, newMac)
    assert.equal((await f.inject('DELETE', `/${a.ID}`)).statusCode, 200)
    assert.equal(await count('animal_sensor_hourly', f.user.uid), 0)
    assert.equal(await count('animal_location_hourly', f.user.uid), 0)
  })

  it('count every detection when batches of one tag and hour arrive at once (each sums the hour up after the other)', async () => {
    const f = await readingsFarm(ctx)
    const a = await f.animal()
    const hour = NOW - 40 * MINUTE - 3 * HOUR
    // Eight batches interleaved in time within one hour (and one reaching into the next), sent concurrently.
    const batches = Array.from({ length: 8 }, (_, k) =>
      Array.from({ length: 9 }, (_, i) => ({
        t: hour + (i * 8 + k) * 60_000 + 11,
        rssi: -60,
        nodeuid: `node-${(i + k) % 3}`,
      })),
    )
    const answers = await Promise.all(batches.map((readings) => f.inject('POST', `/${a.MAC}/locations`, { readings })))
    for (const res of answers) assert.equal(res.statusCode, 200, res.body)
    assert.equal(await assertRollupsExact('locations', f.user.uid, a.MAC), 2)
    const { rows } = await sql<{ n: number }>`
      SELECT sum(n)::int AS n FROM animal_location_hourly WHERE uid = ${f.user.uid} AND mac = ${a.MAC}`.execute(
      ctx.database.db,
    )
    assert.equal(rows[0]!.n, 72)
  })

  it('of litter devices (t in seconds) equal their readings summed up, packed or not, and go with the device', async () => {
    const f = await deviceFarm(ctx)
    const d = await f.device()
    const rows = sensorRows().map((r) => ({ ...r, t: Math.floor(r.t / 1000) }))
    for (let i = 0; i < rows.length; i += 50) await f.send(d.MAC, rows.slice(i, i + 50))
    assert.equal(await assertRollupsExact('devicedata', f.user.uid, d.MAC), 7)
    await packReadings(ctx.database.db, { now: NOW, uid: f.user.uid })
    await f.send(d.MAC, [...rows.slice(0, 100), { t: rows[70]!.t + 1, c: 30.5, x: 0, y: 0, z: 3 }])
    await assertRollupsExact('devicedata', f.user.uid, d.MAC)
    await assertBackfillSame(f.user.uid)
    assert.equal((await f.inject('DELETE', `/${d.MAC}`)).statusCode, 200)
    assert.equal(await count('litterguard_hourly', f.user.uid), 0)
  })
})

describe('acceleration components too small to square in float8', () => {
  // PostgreSQL refuses a float8 product that underflows; the magnitude counts such a component as 0.
  it('are stored and summed up as 0 in the magnitude: ingestion, analytics and aggregates answer', async () => {
    const animals = await readingsFarm(ctx)
    const a = await animals.animal()
    const tiny = [
      { t: NOW - 3 * MINUTE, c: 38.6, x: 0, y: -5e-324, z: 0.99 },
      { t: NOW - 2 * MINUTE, c: 38.7, x: 1e-160, y: 2.5e-308, z: 1 },
    ]
    const sent = await animals.inject('POST', `/${a.MAC}/sensordata`, { readings: tiny })
    assert.equal(sent.statusCode, 200, sent.body)
    await assertRollupsExact('sensordata', animals.user.uid, a.MAC)
    const analytics = await animals.inject('GET', `/${a.MAC}/sensordata/analytics?timeRange=1h`)
    assert.equal(analytics.statusCode, 200, analytics.body)
    const aggregate = await animals.inject('GET', `/${a.MAC}/sensordata/aggregate?interval=5m`)
    assert.equal(aggregate.statusCode, 200, aggregate.body)
    const stored = await animals.inject('GET', `/${a.MAC}/sensordata`)
    assert.deepEqual(
      stored.json().data.map((r: { y: number }) => r.y),
      [2.5e-308, -5e-324],
    )

    const devices = await deviceFarm(ctx)
    const d = await devices.device()
    await devices.send(d.MAC, [{ t: Math.floor(NOW / 1000) - 60, c: 0, x: 5e-324, y: 0.01, z: 1.02 }])
    await assertRollupsExact('devicedata', devices.user.uid, d.MAC)
    assert.equal((await devices.inject('GET', `/${d.MAC}/analytics?timeRange=1h`)).statusCode, 200)
  })
})

const RANGE_MS = { '1h': HOUR, '6h': 6 * HOUR, '24h': 24 * HOUR, '7d': 7 * 24 * HOUR, '30d': 30 * 24 * HOUR }

describe('sensor analytics from the rollups', () => {
  it('answer as every reading summed up raw, for every window, on and off the hour, packed or not, with late readings', async () => {
    const f = await readingsFarm(ctx)
    const a = await f.animal()
    const post = async (readings: unknown[]) => {
      const res = await f.inject('POST', `/${a.MAC}/sensordata`, { readings })
      assert.equal(res.statusCode, 200, res.body)
    }
    // 26 hours a reading a minute on the minute (so readings lie on the windows' ends), a glitch now and then.
    const first = NOW - 26 * HOUR - 40 * MINUTE
    const rows = sensorRows(first, NOW).map((r, i) => ({ ...r, t: first + i * MINUTE }))
    await post(rows)
    const hourStart = NOW - 40 * MINUTE
    // The window ends on the hour, a ms either side of it, on a reading and between readings.
    const clocks = [NOW, hourStart, hourStart + 1, hourStart - 1, NOW - 30_000]
    const answers = async () => {
      const out: unknown[] = []
      for (const at of clocks) {
        clock = at
        for (const range of TIME_RANGES) {
          const res = await f.inject('GET', `/${a.MAC}/sensordata/analytics?timeRange=${range}`)
          assert.equal(res.statusCode, 200, res.body)
          const raw = await rawSensorAnalytics(ctx.database.db, f.user.uid, a.MAC, at - RANGE_MS[range], at)
          assert.deepEqual(res.json().data, raw, `${range} at ${at - hourStart} ms from the hour`)
          out.push(raw)
        }
      }
      clock = NOW
      return out
    }
    const before = await answers()
    assert.ok(before.some((d) => (d as { dataPointsCount: number }).dataPointsCount === 1441))
    await packReadings(ctx.database.db, { now: NOW, uid: f.user.uid })
    assert.deepEqual(await answers(), before, 'the same numbers once packed')
    await post([
      { t: NOW - 5 * HOUR + 1, c: 41.07, x: 1.5, y: 0.25, z: 1 },
      { t: NOW - 20 * HOUR - 1, c: 38.123, x: 0.1234, y: 0, z: 1 },
      ...rows.slice(0, 10),
    ])
    const late = await answers()
    assert.notDeepEqual(late, before)
    await packReadings(ctx.database.db, { now: NOW, uid: f.user.uid })
    assert.deepEqual(await answers(), late)
  })
})

describe("the predictions job's hourly summaries from the rollups", () => {
  it('are the pure summaries of the readings in the span, hour boundaries and late detections included', async () => {
    const f = await readingsFarm(ctx)
    const a = await f.animal()
    const post = async (path: string, readings: unknown[]) => {
      const res = await f.inject('POST', `/${a.MAC}/${path}`, { readings })
      assert.equal(res.statusCode, 200, res.body)
    }
    const rows = sensorRows()
    // Nodes that change within hours and at their boundaries.
    const located = detections()
    await post('sensordata', rows)
    for (let i = 0; i < located.length; i += 10) await post('locations', located.slice(i, i + 10))
    const inSpan = <R extends { t: number }>(all: R[], from: number, to: number) =>
      all.filter((r) => r.t >= from && r.t < to)
    const hourStart = NOW - 40 * MINUTE
    const spans = [
      [hourStart - 5 * HOUR, hourStart],
      [FIRST - HOUR, NOW + HOUR],
      [FIRST + 20 * MINUTE, hourStart - HOUR + 5],
    ] as const
    const check = async () => {
      const out = []
      for (const [from, to] of spans) {
        const summaries = await hourlySummaries(ctx.database.db, f.user.uid, a.MAC, from, to, SUMMARY_THRESHOLDS)
        const pure = summarizeHours(inSpan(rows, from, to), inSpan(located, from, to))
        assert.deepEqual(
          summaries.map((h) => ({ ...h, temperature: 0 })),
          pure.map((h) => ({ ...h, temperature: 0 })),
        )
        assertClose(pure, summaries)
        assertClose(await rawHourlySummaries(ctx.database.db, f.user.uid, a.MAC, from, to), summaries)
        out.push(summaries)
      }
      return out
    }
    const before = await check()
    assert.ok(before[0]!.some((h) => h.nodeChanges > 0))
    // The job reads a herd's in one statement: the same, and nothing for a tag without readings.
    const other = await f.animal()
    const [from, to] = spans[1]
    assert.deepEqual(
      await herdHourlySummaries(ctx.database.db, f.user.uid, [other.MAC, a.MAC], from, to, SUMMARY_THRESHOLDS),
      new Map([
        [other.MAC, []],
        [a.MAC, before[1]],
      ]),
    )
    await packReadings(ctx.database.db, { now: NOW, uid: f.user.uid })
    assert.deepEqual(await check(), before)
    // Late: a detection from a node of its own mid-hour, one at an hour's start from the hour before's last node.
    const late = [
      { t: FIRST + 2 * HOUR + 61_000, rssi: -70, nodeuid: 'node-7' },
      { t: hourStart - 3 * HOUR, rssi: -70, nodeuid: 'node-7' },
    ]
    located.push(...late)
    located.sort((p, q) => p.t - q.t)
    rows.push({ t: hourStart - 2 * HOUR + 7, c: 40.5, x: 0.9, y: 0, z: 0.9 })
    await post('locations', late)
    await post('sensordata', rows.slice(-1))
    rows.sort((p, q) => p.t - q.t)
    const late1 = await check()
    assert.notDeepEqual(late1, before)
    await packReadings(ctx.database.db, { now: NOW, uid: f.user.uid })
    assert.deepEqual(await check(), late1)
  })

  it('refuse thresholds other than those the rollups count by', async () => {
    await assert.rejects(
      hourlySummaries(ctx.database.db, 'u', 'AA:BB:CC:DD:EE:FF', 0, HOUR, {
        ...SUMMARY_THRESHOLDS,
        MOVING_THRESHOLD_G: 0.2,
      }),
      /thresholds/,
    )
  })
})
