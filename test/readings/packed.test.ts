// The packed part (docs/storage.md#readings): packing closed hours changes no answer of any read (rows, order,
// limits, ETags), a re-sent batch is all duplicates across both parts, a late reading for a packed hour is stored
// and merged, and an hour whose values do not pack exactly stays as rows.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { sql } from 'kysely'
import { createTestApp, type TestContext } from '../support/app.ts'
import { assertClose } from '../support/assertions.ts'
import { packReadings } from '../../src/jobs/packing.ts'
import { MOVING_THRESHOLD_G, VALID_TEMPERATURE } from '../../src/modules/predictions/hour-summaries.rules.ts'
import { type TimeQuery } from '../../src/modules/readings/readings.repository.ts'
import { hourlySummaries } from '../../src/modules/readings/readings.summaries.ts'
import { sensorWindowStats } from './raw.ts'
import { readLocations, readSensorData } from '../../src/modules/readings/readings.pages.ts'
import { deviceFarm } from '../litterguards/farm.ts'
import { readingsFarm } from './farm.ts'

const HOUR = 3_600_000
const MINUTE = 60_000
// A fixed clock 40 minutes into an hour: the last 6 hours are closed but for the current one.
const NOW = Math.floor(Date.now() / HOUR) * HOUR + 40 * MINUTE
const FIRST = NOW - 6 * HOUR - 7 * MINUTE

let ctx: TestContext
before(async () => {
  ctx = await createTestApp({ clock: () => NOW })
})
after(() => ctx.close())

const round = (value: number, digits: number) => Math.round(value * 10 ** digits) / 10 ** digits

/** A reading a minute from FIRST to NOW, values at the tags' precision (exact when packed). */
function sensorRows() {
  const rows = []
  for (let t = FIRST; t <= NOW; t += MINUTE) {
    const i = (t - FIRST) / MINUTE
    rows.push({
      t: t + (i % 7) * 13,
      c: round(38 + Math.sin(i / 10), 2),
      x: round(Math.cos(i) / 3, 3),
      y: round(-0.1 * (i % 5), 3) || 0,
      z: round(0.98 + (i % 3) / 100, 3),
    })
  }
  return rows
}

async function count(table: string, uid: string): Promise<number> {
  const { rows } = await sql<{
    n: number
  }>`SELECT count(*)::int AS n FROM ${sql.table(table)} WHERE uid = ${uid}`.execute(ctx.database.db)
  return rows[0]!.n
}

describe('packed readings', () => {
  it('answers every read as before packing, and counts re-sent and late readings right across both parts', async () => {
    const f = await readingsFarm(ctx)
    const a = await f.animal()
    const rows = sensorRows()
    // One hour holds a value that packs inexactly (38.123 °C at 0.01 °C): it stays as rows.
    const odd = rows.findIndex((r) => r.t >= FIRST + 2 * HOUR)
    rows[odd] = { ...rows[odd]!, c: 38.123 }
    assert.equal((await f.inject('POST', `/${a.MAC}/sensordata`, { readings: rows })).json().data.stored, rows.length)
    const detections = rows.map((r, i) => ({ t: r.t, rssi: -50 - (i % 20), nodeuid: `node-${i % 3}` }))
    assert.equal((await f.inject('POST', `/${a.MAC}/locations`, { readings: detections })).statusCode, 200)

    const reads = [
      '/sensordata',
      '/sensordata?limit=10000',
      '/sensordata?limit=10000&sortOrder=asc',
      '/sensordata?limit=7&sortOrder=asc',
      `/sensordata?startTime=${FIRST + 30 * MINUTE}&endTime=${FIRST + 200 * MINUTE}&limit=1000`,
      `/sensordata?startTime=${FIRST + 30 * MINUTE}&endTime=${FIRST + 200 * MINUTE}&limit=70&sortOrder=asc`,
      `/sensordata?endTime=${FIRST + 3 * HOUR + 1}&limit=5`,
      `/sensordata?startTime=${NOW - 90 * MINUTE}&limit=3&sortOrder=asc`,
      '/sensordata/latest?count=100',
      '/locations?limit=10000',
      `/locations?startTime=${FIRST + 61 * MINUTE}&endTime=${FIRST + 122 * MINUTE}&limit=30&sortOrder=asc`,
    ]
    // One at a time: a caller may run only a few expensive reads at once.
    const answers = async () => {
      const out = []
      for (const path of reads) {
        const res = await f.inject('GET', `/${a.MAC}${path}`)
        assert.equal(res.statusCode, 200, res.body)
        out.push({ path, data: res.json().data, etag: res.headers.etag })
      }
      return out
    }
    const before = await answers()
    const analyticsBefore = (await f.inject('GET', `/${a.MAC}/sensordata/analytics?timeRange=24h`)).json().data
    // What the jobs read: the hourly summaries of the scorer and the reference temperature's window statistics.
    const jobInputs = async () => ({
      hours: await hourlySummaries(ctx.database.db, f.user.uid, a.MAC, FIRST - HOUR, NOW + HOUR, {
        HOUR_MS: HOUR,
        MOVING_THRESHOLD_G,
        VALID_TEMPERATURE,
      }),
      window: await sensorWindowStats(ctx.database.db, f.user.uid, {
        from: NOW - 86_400_000,
        to: NOW,
        validMin: 25,
        validMax: 42,
      }),
    })
    const jobInputsBefore = await jobInputs()

    const packed = await packReadings(ctx.database.db, { now: NOW, uid: f.user.uid })
    assert.ok(packed.readings > 0)
    assert.ok((await count('animal_sensor_packed', f.user.uid)) >= 5)
    assert.ok((await count('animal_location_packed', f.user.uid)) >= 6)
    // The current hour, the one not closed yet and the inexact one are rows still.
    const stillRows = await count('animal_sensor_readings', f.user.uid)
    assert.ok(stillRows > 60 && stillRows < 200, `${stillRows} rows`)
    assert.deepEqual(await answers(), before)
    assertClose(jobInputsBefore, await jobInputs())
    // Analytics sum in another order: equal to the last bits of a double.
    assertClose(analyticsBefore, (await f.inject('GET', `/${a.MAC}/sensordata/analytics?timeRange=24h`)).json().data)

    // Re-sent: every reading is a duplicate, packed or not.
    const again = (await f.inject('POST', `/${a.MAC}/sensordata`, { readings: rows })).json().data
    assert.deepEqual(again, { received: rows.length, stored: 0, duplicates: rows.length })
    const againLocations = (await f.inject('POST', `/${a.MAC}/locations`, { readings: detections })).json().data
    assert.equal(againLocations.stored, 0)

    // Late readings (days old, and inside a packed hour) are stored, read, and merged by the next packing.
    const late = [
      { t: FIRST + HOUR + 30_001, c: 37.5, x: 0.5, y: 0.25, z: 1 },
      { t: NOW - 3 * 86_400_000, c: 39.01, x: 0, y: 0, z: 1 },
    ]
    assert.deepEqual((await f.inject('POST', `/${a.MAC}/sensordata`, { readings: late })).json().data, {
      received: 2,
      stored: 2,
      duplicates: 0,
    })
    const all = [...rows, ...late].sort((p, q) => q.t - p.t)
    const read = async () => (await f.inject('GET', `/${a.MAC}/sensordata?limit=10000`)).json().data
    assert.deepEqual(await read(), all)
    await packReadings(ctx.database.db, { now: NOW, uid: f.user.uid })
    assert.equal(await count('animal_sensor_readings', f.user.uid), stillRows)
    assert.deepEqual(await read(), all)
    assert.deepEqual(
      (await f.inject('POST', `/${a.MAC}/sensordata`, { readings: late })).json().data.duplicates,
      2,
      'the late readings are duplicates once packed',
    )
    // The latest state never moves back.
    const animal = (await f.inject('GET', `/${a.MAC}`)).json().data
    assert.equal(animal.CurrentTemperature, rows.at(-1)!.c)
  })

  it('reads a page in chunks (as the embedded store does for long pages) as in one statement', async () => {
    const f = await readingsFarm(ctx)
    const a = await f.animal()
    const rows = sensorRows()
    const odd = rows.findIndex((r) => r.t >= FIRST + 2 * HOUR)
    rows[odd] = { ...rows[odd]!, c: 38.123 }
    await f.inject('POST', `/${a.MAC}/sensordata`, { readings: rows })
    const detections = rows.map((r, i) => ({ t: r.t, rssi: -50 - (i % 20), nodeuid: `node-${i % 3}` }))
    await f.inject('POST', `/${a.MAC}/locations`, { readings: detections })
    await packReadings(ctx.database.db, { now: NOW, uid: f.user.uid })
    // A late reading in a packed hour: the chunks cross both parts.
    await f.inject('POST', `/${a.MAC}/sensordata`, { readings: [{ t: FIRST + HOUR + 7, c: 38.5, x: 0, y: 0, z: 1 }] })
    const queries: TimeQuery[] = [
      { limit: 10_000, sortOrder: 'desc' },
      { limit: 10_000, sortOrder: 'asc' },
      { limit: 74, sortOrder: 'asc' },
      { limit: 111, sortOrder: 'desc', startTime: FIRST + 30 * MINUTE, endTime: FIRST + 200 * MINUTE },
      { limit: 1000, sortOrder: 'asc', startTime: FIRST + 30 * MINUTE, endTime: FIRST + 200 * MINUTE },
      { limit: 5, sortOrder: 'desc', endTime: FIRST - 1 },
    ]
    for (const [name, read] of Object.entries({ readSensorData, readLocations })) {
      for (const q of queries) {
        const whole = (await read(ctx.database.db, f.user.uid, a.MAC, q)).join(',')
        const chunked = (await read(ctx.database.db, f.user.uid, a.MAC, q, 37)).join(',')
        assert.equal(chunked, whole, `${name} ${JSON.stringify(q)}`)
      }
    }
    const all = JSON.parse(`[${(await readSensorData(ctx.database.db, f.user.uid, a.MAC, queries[0]!, 37)).join(',')}]`)
    assert.equal(all.length, rows.length + 1)
  })

  it('moves with a new MAC and goes with a deleted animal', async () => {
    const f = await readingsFarm(ctx)
    const a = await f.animal()
    const rows = sensorRows().slice(0, 120)
    await f.inject('POST', `/${a.MAC}/sensordata`, { readings: rows })
    await packReadings(ctx.database.db, { now: NOW, uid: f.user.uid })
    const newMac = 'AA:BB:CC:00:99:01'
    assert.equal((await f.inject('PATCH', `/${a.ID}`, { MAC: newMac })).statusCode, 200)
    assert.equal((await f.inject('GET', `/${newMac}/sensordata?limit=10000`)).json().data.length, rows.length)
    assert.equal((await f.inject('DELETE', `/${a.ID}`)).statusCode, 200)
    assert.equal(await count('animal_sensor_packed', f.user.uid), 0)
  })

  it('packs litter-device readings (t in seconds) with the same reads', async () => {
    const f = await deviceFarm(ctx)
    const d = await f.device()
    const rows = sensorRows().map((r) => ({ ...r, t: Math.floor(r.t / 1000) }))
    await f.send(d.MAC, rows)
    const reads = [
      '/sensordata?limit=100',
      `/sensordata?startTime=${rows[10]!.t}&endTime=${rows[200]!.t}`,
      '/summary',
      `/${d.MAC}/analytics?timeRange=24h`,
    ]
    const answers = async () => {
      const out = []
      for (const p of reads)
        out.push((await f.inject('GET', p.startsWith('/s') && p !== '/summary' ? `/${d.MAC}${p}` : p)).json().data)
      return out
    }
    const before = await answers()
    await packReadings(ctx.database.db, { now: NOW, uid: f.user.uid })
    assert.ok((await count('litterguard_packed', f.user.uid)) >= 5)
    assertClose(before, await answers())
    const again = (await f.inject('POST', `/${d.MAC}/sensordata`, { readings: rows })).json().data
    assert.equal(again.duplicates, rows.length)
    assert.equal((await f.inject('DELETE', `/${d.MAC}`)).statusCode, 200)
    assert.equal(await count('litterguard_packed', f.user.uid), 0)
  })
})
