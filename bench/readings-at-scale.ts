// Issue 27's measured table (docs/performance.md#readings-at-scale-issue-27) as one scenario:
// `npm run bench -- readings-at-scale`. With DATABASE_URL it runs on PostgreSQL at the issue's sizes, then on
// the embedded store at the smaller sizes of its plan (stated in each row); without, on the embedded store alone.
// BENCH_SMOKE=1: tiny sizes, no targets. Each store gets two scratch databases: one written live minute by
// minute for the bytes a reading, one with farms of history for the reads, the ingest and the jobs. Rows whose
// feature is not built yet say so instead of failing.
import { Agent } from 'node:http'
import { sql, type Kysely } from 'kysely'
import { loadConfig } from '../src/config.ts'
import { IN_MEMORY, openDatabase, type Database } from '../src/db/database.ts'
import { migrateToLatest } from '../src/db/migrate.ts'
import type { DB } from '../src/db/schema.ts'
import { packReadings, PACK_DELAY_MS } from '../src/jobs/packing.ts'
import { ingest } from '../src/modules/readings/ingest.ts'
import { readSensorData, SERIES, type ReadingKind } from '../src/modules/readings/readings.repository.ts'
import { insertLitterguard } from '../src/modules/litterguards/litterguards.repository.ts'
import { send } from './readings.ts'
import type { Scenario, TableRow } from './scenario.ts'
import { BENCH_JWT_SECRET, benchFarm, median, scratchEnv, startBenchApp, type BenchApp } from './support.ts'

const MINUTE = 60_000
const HOUR = 60 * MINUTE
/** The issue's target for the bytes a reading of each series. */
const BYTES_TARGET = 40

type Store = 'postgres' | 'embedded'

interface Plan {
  /** Row 1: tags of each series written live, one reading a tag a minute, for `liveMinutes`. */
  live: Record<ReadingKind, number>
  liveMinutes: number
  /** Row 2: readings of the page, and of the tag read (newest first). */
  page: number
  pageHistory: number
  /** Row 3: readings ingested each round (in batches, each batch a fresh tag). */
  ingestRows: number
  ingestBatch: number
  /** Alternating rounds of each timed pair, and of the ingest's (each round ingests `ingestRows` a side). */
  rounds: number
  ingestRounds: number
  smoke: boolean
}

const PLANS: Record<Store | 'smoke', Plan> = {
  postgres: {
    // Sensor readings at the issue's size (1,000,000 from 200 tags); locations and litter devices over the same
    // 83 hours from fewer tags: a tag's bytes a reading do not depend on how many other tags there are, and
    // packing, the run's longest part, costs per tag and hour.
    live: { sensordata: 200, locations: 40, devicedata: 40 },
    liveMinutes: 5000,
    page: 10_000,
    pageHistory: 14 * 24 * 60,
    ingestRows: 100_000,
    ingestBatch: 10_000,
    rounds: 15,
    ingestRounds: 3,
    smoke: false,
  },
  embedded: {
    live: { sensordata: 16, locations: 8, devicedata: 8 },
    liveMinutes: 1440,
    page: 10_000,
    pageHistory: 14 * 24 * 60,
    ingestRows: 20_000,
    ingestBatch: 10_000,
    rounds: 9,
    ingestRounds: 3,
    smoke: false,
  },
  smoke: {
    live: { sensordata: 4, locations: 2, devicedata: 2 },
    liveMinutes: 130,
    page: 500,
    pageHistory: 1000,
    ingestRows: 1000,
    ingestBatch: 500,
    rounds: 1,
    ingestRounds: 1,
    smoke: true,
  },
}

const LABEL: Record<ReadingKind, string> = {
  sensordata: 'sensor reading',
  locations: 'location detection',
  devicedata: 'litter-device reading',
}
const storeName = (store: Store) => (store === 'postgres' ? 'PostgreSQL' : 'embedded')
const round = (v: number, digits: number) => Math.round(v * 10 ** digits) / 10 ** digits
const ms = (x: number) => `${x.toFixed(x < 10 ? 2 : 1)} ms`
const count = (n: number) => n.toLocaleString('en')
const mac = (prefix: number, n: number) =>
  `BE:${prefix.toString(16).padStart(2, '0')}:00:00:${(n >> 8).toString(16).padStart(2, '0')}:${(n & 255).toString(16).padStart(2, '0')}`.toUpperCase()

/** A seeded generator, so that every run writes the same values. */
function randomSource(seed: number) {
  return () => ((seed = (seed * 16807) % 2147483647) - 1) / 2147483646
}

type Reading = Record<string, number | string>

/** A reading of `kind` from tag number `tag` near `at` (ms) as a gateway sends it: values that pack exactly. */
function reading(kind: ReadingKind, tag: number, at: number, random: () => number): Reading {
  const t = at + Math.floor(random() * 1000)
  const acceleration = { x: round(random() / 5, 3), y: round(-random() / 5, 3), z: round(0.9 + random() / 5, 3) }
  if (kind === 'sensordata') return { t, c: round(38 + random(), 2), ...acceleration }
  if (kind === 'locations')
    return { t, rssi: round(-55 - 30 * random(), 1), nodeuid: `node-${(tag + Math.floor(at / (3 * HOUR))) % 6}` }
  return { t: Math.floor(t / 1000), c: round(30 + 2 * random(), 2), ...acceleration }
}

/** One scratch database of the store, migrated, with an app on it (HTTP on a loopback port). */
async function openStore(store: Store): Promise<{ bench: BenchApp; drop: () => Promise<void> }> {
  const scratch = store === 'postgres' ? await scratchEnv() : { env: {}, drop: async () => {} }
  const env = store === 'postgres' ? scratch.env : { DATABASE_URL: '', DATA_DIR: IN_MEMORY }
  const database: Database = await openDatabase(
    loadConfig({ JWT_SECRET: BENCH_JWT_SECRET, DB_STATEMENT_TIMEOUT_MS: '0', DB_QUERY_TIMEOUT_MS: '0', ...env }),
  )
  await migrateToLatest(database.db)
  const bench = await startBenchApp(env, { database })
  return {
    bench,
    drop: async () => {
      await bench.close()
      await database.close()
      await scratch.drop()
    },
  }
}

/** pg_total_relation_size of the tables: heap, TOAST and indexes. */
async function bytesOf(db: Kysely<DB>, tables: string[]): Promise<number> {
  let total = 0
  for (const table of tables)
    total += Number(
      (await sql<{ n: string }>`SELECT pg_total_relation_size(${table}::regclass) AS n`.execute(db)).rows[0]!.n,
    )
  return total
}

/** Registers `count` tags of `kind` (animals, or litter devices) for the user; their MACs. */
async function addTags(bench: BenchApp, uid: string, kind: ReadingKind, prefix: number, count: number) {
  const macs = Array.from({ length: count }, (_, n) => mac(prefix, n))
  const db = bench.database.db
  for (const [n, tag] of macs.entries()) {
    if (kind === 'devicedata') await insertLitterguard(db, uid, { MAC: tag, Name: `bench ${n}` }, Date.now())
    else
      await sql`INSERT INTO animals (uid, id, mac, sex, t) VALUES (${uid}, ${n + 1}, ${tag}, 'female', ${Date.now()})
                ON CONFLICT DO NOTHING`.execute(db)
  }
  return macs
}

/** A row-per-reading table as the series' recent part (its key and reference to the account), the layout before issue 27. */
async function rowPerReadingTable(db: Kysely<DB>, kind: ReadingKind, name: string) {
  await sql`CREATE TABLE ${sql.table(name)} (LIKE ${sql.table(SERIES[kind].table)} INCLUDING ALL,
              FOREIGN KEY (uid) REFERENCES users (uid) ON DELETE CASCADE)`.execute(db)
  return name
}

/** One multi-row insert of `rows` (one per tag of `macs`) into `tables`, as one statement, skipping stored keys as ingestion does. */
async function insertRows(
  db: Kysely<DB>,
  kind: ReadingKind,
  uid: string,
  macs: string[],
  rows: Reading[],
  tables: string[],
) {
  const columns = ['t', ...Object.keys(SERIES[kind].columns)]
  const type = (c: string) => sql.raw(c === 't' ? 'bigint[]' : `${SERIES[kind].columns[c]}[]`)
  const list = sql.join(columns.map((c) => sql.ref(c)))
  const [first, ...copies] = tables
  await sql`
    WITH r AS (SELECT * FROM unnest(${macs}::text[], ${sql.join(columns.map((c) => sql`${rows.map((row) => row[c])}::${type(c)}`))})
                 AS r (mac, ${list}))
    ${sql.join(
      copies.map(
        (table, i) =>
          sql`, ${sql.ref(`copy${i}`)} AS (INSERT INTO ${sql.table(table)} (uid, mac, ${list}) SELECT ${uid}, * FROM r ON CONFLICT DO NOTHING)`,
      ),
      sql``,
    )}
    INSERT INTO ${sql.table(first!)} (uid, mac, ${list}) SELECT ${uid}, * FROM r ON CONFLICT DO NOTHING`.execute(db)
}

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

/** Alternating rounds of two timed actions (the order flips each round) after one warm-up of each; their times. */
async function pairs(rounds: number, a: () => Promise<unknown>, b: () => Promise<unknown>) {
  const time = async (action: () => Promise<unknown>, into: number[]) => {
    const started = performance.now()
    await action()
    into.push(performance.now() - started)
  }
  await a()
  await b()
  const as: number[] = []
  const bs: number[] = []
  for (let i = 0; i < rounds; i++) {
    if (i % 2 === 0) {
      await time(a, as)
      await time(b, bs)
    } else {
      await time(b, bs)
      await time(a, as)
    }
  }
  return { a: as, b: bs, ratios: as.map((x, i) => x / bs[i]!) }
}

/** Ingests `readings` of `kind` for one tag through the service's ingestion code, in batches of `batch`. */
async function ingestAll(
  db: Kysely<DB>,
  uid: string,
  tag: string,
  kind: ReadingKind,
  readings: Reading[],
  batch: number,
) {
  for (let i = 0; i < readings.length; i += batch) {
    const outcome = await ingest(db, uid, tag, { kind, rows: readings.slice(i, i + batch) } as never, Date.now())
    if (outcome.outcome !== 'stored') throw new Error(`ingest of ${tag} answered ${outcome.outcome}`)
  }
}

/** `count` readings of `kind` a minute apart (locations every `everyMinutes`), the newest at `end`. */
function history(kind: ReadingKind, tag: number, end: number, count: number, everyMinutes = 1, seed = 7): Reading[] {
  const random = randomSource(seed + tag)
  return Array.from({ length: count }, (_, i) =>
    reading(kind, tag, end - (count - 1 - i) * everyMinutes * MINUTE - 1000, random),
  )
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
    return rows
  } finally {
    await drop()
  }
}

/** Every row on PostgreSQL (with DATABASE_URL), then on the embedded store. */
export async function measureReadingsAtScale(): Promise<TableRow[]> {
  const smoke = process.env.BENCH_SMOKE === '1'
  const stores: Store[] = process.env.DATABASE_URL ? ['postgres', 'embedded'] : ['embedded']
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
