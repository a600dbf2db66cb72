// The litter-device summary's statements (GET .../litterguards/summary: each device's 24 hours of whole 10-minute
// buckets against its 7 days before, summaryBuckets) from the devices' hourly rollups against the same figures summed
// up from every reading, and against the statement it replaced (activityAggregates over the window ending now, the
// hours it cuts summed up from their readings): 50 devices with
// 8 days of a reading a minute, ingested a device-day at a time as the service does (rollups kept by the ingestion
// transaction), VACUUM ANALYZE, then alternating rounds of both, with a clock that cuts an hour and a 10-minute
// bucket. `node bench/litterguard-summary.ts` (DATABASE_URL for PostgreSQL, in a scratch database; else the
// embedded store in memory). DEVICES, DAYS, ROUNDS, PACK=1 (pack the closed hours first). Figures: docs/performance.md.
import { sql } from 'kysely'
import { packReadings } from '../src/jobs/packing.ts'
import {
  activityAggregates,
  deviceTotals,
  summaryBuckets,
} from '../src/modules/litterguards/litterguards.repository.ts'
import {
  activeSince,
  baselineWindow,
  deviceWindow,
  summaryWindow,
  unusualActivity,
} from '../src/modules/litterguards/litterguards.rules.ts'
import { storeReadings } from '../src/modules/readings/readings.repository.ts'
import { alternatingMedians, openScratchStore } from './support.ts'

const DEVICES = Number(process.env.DEVICES ?? 50)
const DAYS = Number(process.env.DAYS ?? 8)
const ROUNDS = Number(process.env.ROUNDS ?? 15)
const DAY = 86_400
const uid = 'litter-summary-bench-farm'
const round = (v: number, d: number) => Math.round(v * 10 ** d) / 10 ** d

const store = await openScratchStore()
const database = store.database
const db = database.withoutTimeouts
try {
  // Now: 37 minutes 13 seconds into an hour, so the window and the baseline cut an hour and a bucket.
  const now = Math.floor(Date.now() / 3_600_000) * 3600 + 37 * 60 + 13
  const first = now - DAYS * DAY
  await sql`INSERT INTO users (uid, email, name) VALUES (${uid}, 'litter@bench.example', 'bench')`.execute(db)
  const macs = Array.from({ length: DEVICES }, (_, i) =>
    `BE:00:00:00:${(i >> 8).toString(16).padStart(2, '0')}:${(i & 255).toString(16).padStart(2, '0')}`.toUpperCase(),
  )
  for (const [i, mac] of macs.entries())
    await sql`INSERT INTO litterguards (uid, mac, name, t) VALUES (${uid}, ${mac}, ${`Pen ${i}`}, ${first * 1000})`.execute(
      db,
    )
  let seed = 7
  const random = () => ((seed = (seed * 16807) % 2147483647) - 1) / 2147483646
  const r3 = (v: number) => Math.round(v * 1000) / 1000
  for (let day = 0; day < DAYS; day++)
    for (const mac of macs) {
      const rows = Array.from({ length: 1440 }, (_, m) => {
        const stir = 0.02 + 0.1 * random()
        return {
          t: first + day * DAY + m * 60 + Math.floor(random() * 5),
          c: Math.round((31 + 2 * random()) * 100) / 100,
          x: r3(stir * (random() - 0.5)),
          y: r3(stir * (random() - 0.5)),
          z: r3(1 + stir * (random() - 0.5)),
        }
      })
      await storeReadings(db, uid, mac, { kind: 'devicedata', rows }, now)
    }
  if (process.env.PACK === '1') await packReadings(db, { now: now * 1000 })
  await sql`VACUUM ANALYZE`.execute(db)

  const window = deviceWindow('24h', now * 1000)
  const baselineStart = baselineWindow(window).start
  const span = summaryWindow(now * 1000)
  const totals = () => deviceTotals(db, uid, activeSince(now * 1000, 15))
  const summary = () => Promise.all([totals(), summaryBuckets(db, uid, span)])
  const raw = () =>
    Promise.all([
      totals(),
      activityAggregates(db, uid, { start: span.start, end: span.endBefore - 1 }, span.baselineStart, undefined, {
        rollups: false,
      }),
    ])
  const previous = () => Promise.all([totals(), activityAggregates(db, uid, window, baselineStart)])
  const [, fromRollups] = await summary()
  const [, fromReadings] = await raw()
  const worst = fromRollups.reduce((most, a, i) => {
    const b = fromReadings[i]!
    if (unusualActivity(a) !== unusualActivity(b) || a.baselineBuckets !== b.baselineBuckets) return Infinity
    const gap =
      Math.abs((a.baselineSd ?? 0) - (b.baselineSd ?? 0)) + Math.abs((a.baselineMean ?? 0) - (b.baselineMean ?? 0))
    return Math.max(most, gap)
  }, 0)
  if (fromRollups.length !== DEVICES || worst > 1e-12) throw new Error(`rollups and readings differ (${worst})`)
  const timed = (f: () => Promise<unknown>) => async () => {
    const t0 = performance.now()
    await f()
    return performance.now() - t0
  }
  if (process.env.EXPLAIN === '1') {
    let compiled: { sql: string; parameters: readonly unknown[] } | undefined
    const recorder = db.withPlugin({
      transformQuery: (args) => {
        compiled ??= db.getExecutor().compileQuery(args.node, args.queryId)
        return args.node
      },
      transformResult: async (args) => args.result,
    })
    await summaryBuckets(recorder, uid, span)
    const { rows } = await sql
      .raw<Record<string, string>>(
        `EXPLAIN (ANALYZE, BUFFERS) ${compiled!.sql.replace(/\$(\d+)/g, (_, i) => `'${String(compiled!.parameters[Number(i) - 1])}'`)}`,
      )
      .execute(db)
    console.log(rows.map((r) => Object.values(r)[0]).join('\n'))
  }
  const { baseline, measured } = await alternatingMedians(ROUNDS, timed(raw), timed(summary))
  const before = await alternatingMedians(ROUNDS, timed(previous), timed(summary))
  console.log(
    JSON.stringify({
      store: database.kind,
      devices: DEVICES,
      readings: DEVICES * DAYS * 1440,
      packed: process.env.PACK === '1',
      rounds: ROUNDS,
      fromReadingsMs: round(baseline, 2),
      fromRollupsMs: round(measured, 2),
      ratio: round(baseline / measured, 1),
      previousStatementMs: round(before.baseline, 2),
      againstPrevious: round(before.baseline / before.measured, 1),
      sameFigures: true,
    }),
  )
} finally {
  await store.close()
}
