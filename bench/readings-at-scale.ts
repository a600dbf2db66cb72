// Issue 27's measured table (docs/performance.md#readings-at-scale-issue-27) as one scenario:
// `npm run bench -- readings-at-scale`. With DATABASE_URL it runs on PostgreSQL at the sizes, then on
// the embedded store at the smaller sizes of its plan (stated in each row); without, on the embedded store alone.
// BENCH_SMOKE=1: tiny sizes, no targets. Each store gets two scratch databases: one written live minute by
// minute for the bytes a reading, one with farms of history for the reads, the ingest and the jobs. Rows whose
// feature is not built yet say so instead of failing.
import { Agent } from 'node:http'
import { sql } from 'kysely'
import { packReadings, PACK_DELAY_MS } from '../src/jobs/packing.ts'
import { SERIES, type ReadingKind } from '../src/modules/readings/readings.series.ts'
import { readSensorData } from '../src/modules/readings/readings.pages.ts'
import { send } from './readings.ts'
import type { Scenario, TableRow } from './scenario.ts'
import { benchFarm, median, type BenchApp } from './support.ts'
import {
  addTags,
  BYTES_TARGET,
  bytesOf,
  count,
  history,
  HOUR,
  ingestAll,
  insertRows,
  LABEL,
  mac,
  MINUTE,
  ms,
  openStore,
  pairs,
  PLANS,
  randomSource,
  reading,
  rowPerReadingTable,
  storeName,
  type Plan,
  type Store,
} from './readings-at-scale-support.ts'
import { aggregate, analytics, litterSummary, predictionsJob, seedHistory } from './readings-at-scale-history.ts'

/**
 * Row 1: every series written live, each minute one multi-row insert per series across its tags (into the
 * recent part and, the same rows, into a row-per-reading table), the packing job run after each hour as the
 * service runs it (each hour packed once it is closed), then VACUUM ANALYZE; bytes of both parts per reading.
 */
async function bytesPerReading(store: Store, plan: Plan, bench: BenchApp): Promise<TableRow[]> {
  const db = bench.database.db
  const uid = 'bench-live-farm'
  await sql`INSERT INTO users (uid, email, name) VALUES (${uid}, 'live@bench.example', 'bench')`.execute(db)
  const kinds = Object.keys(plan.live) as ReadingKind[]
  const animals = await addTags(bench, uid, 'sensordata', 1, Math.max(plan.live.sensordata, plan.live.locations))
  const tags: Record<ReadingKind, string[]> = {
    sensordata: animals.slice(0, plan.live.sensordata),
    locations: animals.slice(0, plan.live.locations),
    devicedata: await addTags(bench, uid, 'devicedata', 2, plan.live.devicedata),
  }
  const copies = {} as Record<ReadingKind, string>
  for (const kind of kinds) copies[kind] = await rowPerReadingTable(db, kind, `row_per_reading_${kind}`)
  const random = randomSource(1)
  const start = Math.floor((Date.now() - plan.liveMinutes * MINUTE) / HOUR) * HOUR - HOUR
  const started = performance.now()
  for (let minute = 0; minute < plan.liveMinutes; minute++) {
    const at = start + minute * MINUTE
    for (const kind of kinds) {
      const rows = tags[kind].map((_, n) => reading(kind, n, at, random))
      await insertRows(db, kind, uid, tags[kind], rows, [SERIES[kind].table, copies[kind]])
    }
    if ((minute + 1) % 60 === 0) await packReadings(db, { now: at + MINUTE + PACK_DELAY_MS, uid })
  }
  await sql`VACUUM ANALYZE`.execute(db)
  const seconds = (performance.now() - started) / 1000
  const rows: TableRow[] = []
  for (const kind of kinds) {
    const readings = tags[kind].length * plan.liveMinutes
    const recent = await bytesOf(db, [SERIES[kind].table])
    const packed = await bytesOf(db, [SERIES[kind].packed])
    const rowPerReading = await bytesOf(db, [copies[kind]])
    const bytes = (recent + packed) / readings
    const before = rowPerReading / readings
    rows.push({
      scenario: `bytes a ${LABEL[kind]} on disk, both parts (${storeName(store)}: ${tags[kind].length} tags x ${count(plan.liveMinutes)} minutes live)`,
      service: `${bytes.toFixed(1)} B (packed ${(packed / 1e6).toFixed(1)} MB + recent ${(recent / 1e6).toFixed(1)} MB for ${count(readings)} readings)`,
      baseline: `row per reading: ${before.toFixed(1)} B (${(rowPerReading / 1e6).toFixed(1)} MB), ${(before / bytes).toFixed(1)}x`,
      ratio: null,
      target: `<= ${BYTES_TARGET} B`,
      met: plan.smoke ? null : bytes <= BYTES_TARGET,
      figures: { readings, recentBytes: recent, packedBytes: packed, rowPerReadingBytes: rowPerReading, seconds },
    })
  }
  // The other rows use the same database: the farm goes, with its readings.
  await sql`DELETE FROM users WHERE uid = ${uid}`.execute(db)
  for (const kind of kinds) await sql`DROP TABLE ${sql.table(copies[kind])}`.execute(db)
  await sql`VACUUM ANALYZE`.execute(db)
  return rows
}

/**
 * Row 2: a 10,000-row sensordata page (newest first) through the service's HTTP route, of a tag whose readings
 * are packed against a tag with the same readings as row per reading (the recent table, never packed) in the same
 * database; both pages must be the same text. Ratio: rows time / packed time (throughput, packed against rows).
 */
async function pageRead(store: Store, plan: Plan, bench: BenchApp): Promise<TableRow> {
  const db = bench.database.db
  const packedFarm = await benchFarm(bench)
  const rowsFarm = await benchFarm(bench)
  const end = Date.now() - MINUTE
  const sides = []
  for (const farm of [packedFarm, rowsFarm]) {
    const tag = await farm.animal()
    await ingestAll(db, farm.uid, tag, 'sensordata', history('sensordata', 0, end, plan.pageHistory), 10_000)
    sides.push({ farm, tag, path: `/api/v1/users/${farm.uid}/animals/${tag}/sensordata?limit=${plan.page}` })
  }
  await packReadings(db, { now: Date.now(), uid: packedFarm.uid })
  await sql`VACUUM ANALYZE`.execute(db)
  const [packed, rows] = sides as [(typeof sides)[number], (typeof sides)[number]]
  const packedCount = await sql<{
    n: string
  }>`SELECT coalesce(sum(n), 0) AS n FROM animal_sensor_packed WHERE uid = ${packed.farm.uid}`.execute(db)
  const query = { limit: plan.page, sortOrder: 'desc' as const }
  const pages = await Promise.all(sides.map((s) => readSensorData(db, s.farm.uid, s.tag, query)))
  if (pages[0]!.join(',') !== pages[1]!.join(','))
    throw new Error('the packed page and the row-per-reading page differ')
  const agent = new Agent({ keepAlive: true })
  const get = (side: typeof packed) => async () => {
    const res = await send(agent, bench.port, 'GET', side.path, side.farm.headers)
    if (res.status !== 200) throw new Error(`${side.path} answered ${res.status}`)
  }
  const http = await pairs(plan.rounds, get(packed), get(rows))
  const database = await pairs(
    plan.rounds,
    () => readSensorData(db, packed.farm.uid, packed.tag, query),
    () => readSensorData(db, rows.farm.uid, rows.tag, query),
  )
  agent.destroy()
  const ratio = median(http.ratios.map((r) => 1 / r))
  return {
    scenario: `sensordata page of ${count(plan.page)} readings, packed vs row per reading (${storeName(store)})`,
    service: `packed: ${ms(median(http.a))} a page over HTTP, ${ms(median(database.a))} the statement (${count(Number(packedCount.rows[0]!.n))} of the tag's ${count(plan.pageHistory)} readings packed)`,
    baseline: `row per reading: ${ms(median(http.b))} over HTTP, ${ms(median(database.b))} the statement; same page text`,
    ratio: Number(ratio.toFixed(3)),
    target: '>= 0.8',
    met: plan.smoke ? null : ratio >= 0.8,
    figures: { httpMs: http, statementMs: database, statementRatio: median(database.ratios.map((r) => 1 / r)) },
  }
}

/**
 * Row 3: `ingestRows` sensor readings through the service's ingestion code (ingest(): the owner's row held, the
 * packed part probed, the owner's latest reading updated) against the same rows as a raw multi-row insert into a
 * row-per-reading table; each batch a fresh tag. Ratio: raw time / ingest time.
 */
async function bulkIngest(store: Store, plan: Plan, bench: BenchApp): Promise<TableRow> {
  const db = bench.database.db
  const farm = await benchFarm(bench)
  const table = await rowPerReadingTable(db, 'sensordata', 'row_per_reading_ingest')
  const readings = history('sensordata', 0, Date.now() - MINUTE, plan.ingestRows)
  const batches = Math.ceil(plan.ingestRows / plan.ingestBatch)
  const batch = (i: number) => readings.slice(i * plan.ingestBatch, (i + 1) * plan.ingestBatch)
  // A fresh tag for each batch of each round (the warm-up's included), registered before the timing.
  const fresh: string[] = []
  for (let i = 0; i < (plan.ingestRounds + 1) * batches; i++) fresh.push(await farm.animal())
  let rawTag = 0
  const viaIngest = async () => {
    for (let i = 0; i < batches; i++)
      await ingestAll(db, farm.uid, fresh.pop()!, 'sensordata', batch(i), plan.ingestBatch)
  }
  const raw = async () => {
    for (let i = 0; i < batches; i++) {
      const rows = batch(i)
      const tag = mac(9, rawTag++)
      await insertRows(
        db,
        'sensordata',
        farm.uid,
        rows.map(() => tag),
        rows,
        [table],
      )
    }
  }
  const result = await pairs(plan.ingestRounds, viaIngest, raw)
  const ratio = median(result.ratios.map((r) => 1 / r))
  const perSecond = (x: number) => `${count(Math.round((plan.ingestRows / x) * 1000))} readings/s`
  return {
    scenario: `bulk ingest of ${count(plan.ingestRows)} sensor readings (${count(plan.ingestBatch)} a batch), ingestion vs raw insert (${storeName(store)})`,
    service: `ingest(): ${ms(median(result.a))}, ${perSecond(median(result.a))}`,
    baseline: `raw multi-row INSERT into a row-per-reading table: ${ms(median(result.b))}, ${perSecond(median(result.b))}`,
    ratio: Number(ratio.toFixed(3)),
    target: '>= 0.8',
    met: plan.smoke ? null : ratio >= 0.8,
    figures: result,
  }
}

async function measureStore(store: Store, plan: Plan, step: (what: string) => void): Promise<TableRow[]> {
  step(`${storeName(store)}: opening a scratch database`)
  // One database of the store for every row (opening the embedded store is slow): the live farm first, alone.
  const { bench, drop } = await openStore(store)
  try {
    const live = Object.entries(plan.live).map(([kind, tags]) => `${tags} tags of ${kind}`)
    step(`${storeName(store)}: bytes a reading, written live (${live.join(', ')}, ${count(plan.liveMinutes)} minutes)`)
    const rows = await bytesPerReading(store, plan, bench)
    step(`${storeName(store)}: ${count(plan.page)}-reading page, packed vs row per reading`)
    rows.push(await pageRead(store, plan, bench))
    step(`${storeName(store)}: bulk ingest of ${count(plan.ingestRows)} readings`)
    rows.push(await bulkIngest(store, plan, bench))
    step(
      `${storeName(store)}: history: ${plan.scoredAnimals} animals with ${plan.historyDays.join(' and ')} days, ${plan.summaryDevices} litter devices with ${plan.deviceDays} days`,
    )
    const seeded = await seedHistory(plan, bench)
    step(`${storeName(store)}: predictions job`)
    rows.push(await predictionsJob(store, plan, bench, seeded))
    step(`${storeName(store)}: analytics, litter-device summary, aggregate`)
    rows.push(await analytics(store, plan, bench, seeded))
    rows.push(await litterSummary(store, plan, bench, seeded))
    rows.push(await aggregate(store, plan, bench, seeded))
    return rows
  } finally {
    await drop()
  }
}

/** Every row on PostgreSQL (with DATABASE_URL), then on the embedded store. */
export async function measureReadingsAtScale(): Promise<TableRow[]> {
  const smoke = process.env.BENCH_SMOKE === '1'
  const all: Store[] = process.env.DATABASE_URL ? ['postgres', 'embedded'] : ['embedded']
  // BENCH_STORES=postgres (or embedded): one store alone.
  const only = process.env.BENCH_STORES?.split(',')
  const stores = only ? all.filter((store) => only.includes(store)) : all
  const clock = performance.now()
  const step = (what: string) =>
    console.log(`[${((performance.now() - clock) / 1000).toFixed(0).padStart(3)} s] ${what}`)
  const rows: TableRow[] = []
  for (const store of stores) rows.push(...(await measureStore(store, smoke ? PLANS.smoke : PLANS[store], step)))
  return rows
}

export const readingsAtScaleScenario: Scenario = {
  name: 'readings-at-scale',
  description:
    "issue 27's measured table: bytes a reading of each series written live, a packed page vs row per reading, bulk ingest vs a raw insert (PostgreSQL with DATABASE_URL, then the embedded store)",
  rows: measureReadingsAtScale,
}
