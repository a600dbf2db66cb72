// The aggregate route's query (GET .../sensordata/aggregate, interval=1h over 30 days) served from the hourly
// rollups against the same buckets computed from the readings: one animal with 30 days at a reading a minute,
// ingested as the service does (rollups kept by the ingestion transaction), closed hours packed, VACUUM ANALYZE,
// then alternating rounds of both. `node bench/aggregate.ts` (DATABASE_URL for PostgreSQL, in a scratch database;
// else the embedded store in memory). Figures: docs/performance.md.
import assert from 'node:assert/strict'
import { sql } from 'kysely'
import { packReadings } from '../src/jobs/packing.ts'
import { aggregateReadings } from '../src/modules/readings/readings.aggregate.ts'
import { storeReadings } from '../src/modules/readings/readings.repository.ts'
import { SERIES } from '../src/modules/readings/readings.series.ts'
import { aggregateSpan } from '../src/modules/readings/readings.rules.ts'
import { alternatingMedians, openScratchStore } from './support.ts'

const DAYS = Number(process.env.DAYS ?? 30)
const ROUNDS = Number(process.env.ROUNDS ?? 15)
const MINUTE = 60_000
const DAY = 24 * 60 * MINUTE
const uid = 'aggregate-bench-farm'
const mac = 'BE:00:00:00:A6:01'
const round = (v: number, d: number) => Math.round(v * 10 ** d) / 10 ** d

const store = await openScratchStore()
const database = store.database
const db = database.withoutTimeouts
try {
  const end = Math.floor(Date.now() / DAY) * DAY
  const start = end - DAYS * DAY
  await sql`INSERT INTO users (uid, email, name) VALUES (${uid}, 'aggregate@bench.example', 'bench')`.execute(db)
  await sql`INSERT INTO animals (uid, id, mac, sex, t) VALUES (${uid}, 1, ${mac}, 'female', ${start})`.execute(db)

  // A reading a minute, a few ms after the minute, values at the tag's precision (as a gateway sends them).
  let seed = 1
  const random = () => ((seed = (seed * 16807) % 2147483647) - 1) / 2147483646
  const rows = Array.from({ length: DAYS * 1440 }, (_, i) => ({
    t: start + i * MINUTE + Math.floor(random() * 1000),
    c: round(38 + random(), 2),
    x: round(random() / 5, 3),
    y: round(-random() / 5, 3),
    z: round(0.9 + random() / 5, 3),
  }))
  for (let i = 0; i < rows.length; i += 10_000)
    await storeReadings(db, uid, mac, { kind: 'sensordata', rows: rows.slice(i, i + 10_000) }, end)
  await packReadings(db, { now: end + 20 * MINUTE, uid })
  await sql`VACUUM ANALYZE`.execute(db)

  const span = aggregateSpan({ interval: '1h', startTime: start, endTime: end - 1 }, end)
  assert.ok(!('problem' in span))
  const fromReadings = () => aggregateReadings(db, SERIES.sensordata, uid, mac, span, { rollups: false })
  const fromRollups = () => aggregateReadings(db, SERIES.sensordata, uid, mac, span)
  const raw = await fromReadings()
  assert.equal(raw.buckets.length, DAYS * 24)
  assert.deepEqual(await fromRollups(), raw, 'the same numbers from rollups and from readings')
  const timed = (f: () => Promise<unknown>) => async () => {
    const t0 = performance.now()
    await f()
    return performance.now() - t0
  }
  const { baseline, measured } = await alternatingMedians(ROUNDS, timed(fromReadings), timed(fromRollups))
  console.log(
    JSON.stringify({
      store: database.kind,
      readings: rows.length,
      buckets: raw.buckets.length,
      rounds: ROUNDS,
      fromReadingsMs: round(baseline, 2),
      fromRollupsMs: round(measured, 2),
      ratio: round(baseline / measured, 1),
      sameNumbers: true,
    }),
  )
} finally {
  await store.close()
}
