// What the rows of the readings-at-scale scenario share (readings-at-scale.ts): the plans, the readings written,
// the scratch stores and the timing.
import { sql, type Kysely } from 'kysely'
import { loadConfig } from '../src/config.ts'
import { IN_MEMORY, openDatabase, type Database } from '../src/db/database.ts'
import { migrateToLatest } from '../src/db/migrate.ts'
import type { DB } from '../src/db/schema.ts'
import { ingest } from '../src/modules/readings/ingest.ts'
import { SERIES, type ReadingKind } from '../src/modules/readings/readings.series.ts'
import { insertLitterguard } from '../src/modules/litterguards/litterguards.repository.ts'
import type { TableRow } from './scenario.ts'
import { BENCH_JWT_SECRET, scratchEnv, startBenchApp, type BenchApp } from './support.ts'

export const MINUTE = 60_000
export const HOUR = 60 * MINUTE
export const DAY = 24 * HOUR
/** The issue's target for the bytes a reading of each series. */
export const BYTES_TARGET = 40

export type Store = 'postgres' | 'embedded'

export interface Plan {
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
  /** Rows 4, 5 and 7: animals of each history farm, with the days of history of each (the short and the long). */
  scoredAnimals: number
  historyDays: readonly [number, number]
  /** Row 5 and 7: the span read from the long history, in days. */
  spanDays: number
  /** Row 6: litter devices with `deviceDays` of readings. */
  summaryDevices: number
  deviceDays: number
  smoke: boolean
}

export const PLANS: Record<Store | 'smoke', Plan> = {
  postgres: {
    // The issue's 83 hours (5,000 minutes) from fewer tags than its 200 (BENCH_LIVE_TAGS=200 for those): a tag's
    // bytes a reading do not depend on how many other tags there are, and packing, the run's longest part, costs
    // per tag and hour.
    live: { sensordata: Number(process.env.BENCH_LIVE_TAGS ?? 50), locations: 20, devicedata: 20 },
    liveMinutes: 5000,
    page: 10_000,
    pageHistory: 14 * 24 * 60,
    ingestRows: 100_000,
    ingestBatch: 10_000,
    rounds: 15,
    ingestRounds: 3,
    scoredAnimals: 5,
    historyDays: [7, 60],
    spanDays: 30,
    summaryDevices: 50,
    deviceDays: 8,
    smoke: false,
  },
  embedded: {
    live: { sensordata: 8, locations: 4, devicedata: 4 },
    liveMinutes: 1440,
    page: 10_000,
    pageHistory: 14 * 24 * 60,
    ingestRows: 20_000,
    ingestBatch: 10_000,
    rounds: 9,
    ingestRounds: 3,
    scoredAnimals: 2,
    historyDays: [7, 60],
    spanDays: 30,
    summaryDevices: 10,
    deviceDays: 8,
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
    scoredAnimals: 2,
    historyDays: [2, 3],
    spanDays: 2,
    summaryDevices: 2,
    deviceDays: 2,
    smoke: true,
  },
}

export const LABEL: Record<ReadingKind, string> = {
  sensordata: 'sensor reading',
  locations: 'location detection',
  devicedata: 'litter-device reading',
}
export const storeName = (store: Store) => (store === 'postgres' ? 'PostgreSQL' : 'embedded')
const round = (v: number, digits: number) => Math.round(v * 10 ** digits) / 10 ** digits
export const ms = (x: number) => `${x.toFixed(x < 10 ? 2 : 1)} ms`
export const count = (n: number) => n.toLocaleString('en')
export const mac = (prefix: number, n: number) =>
  `BE:${prefix.toString(16).padStart(2, '0')}:00:00:${(n >> 8).toString(16).padStart(2, '0')}:${(n & 255).toString(16).padStart(2, '0')}`.toUpperCase()

/** A seeded generator, so that every run writes the same values. */
export function randomSource(seed: number) {
  return () => ((seed = (seed * 16807) % 2147483647) - 1) / 2147483646
}

export type Reading = Record<string, number | string>

/** A reading of `kind` from tag number `tag` near `at` (ms) as a gateway sends it: values that pack exactly. */
export function reading(kind: ReadingKind, tag: number, at: number, random: () => number): Reading {
  const t = at + Math.floor(random() * 1000)
  const acceleration = { x: round(random() / 5, 3), y: round(-random() / 5, 3), z: round(0.9 + random() / 5, 3) }
  if (kind === 'sensordata') return { t, c: round(38 + random(), 2), ...acceleration }
  if (kind === 'locations')
    return { t, rssi: round(-55 - 30 * random(), 1), nodeuid: `node-${(tag + Math.floor(at / (3 * HOUR))) % 6}` }
  return { t: Math.floor(t / 1000), c: round(30 + 2 * random(), 2), ...acceleration }
}

/** One scratch database of the store, migrated, with an app on it (HTTP on a loopback port). */
export async function openStore(store: Store): Promise<{ bench: BenchApp; drop: () => Promise<void> }> {
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
export async function bytesOf(db: Kysely<DB>, tables: string[]): Promise<number> {
  let total = 0
  for (const table of tables)
    total += Number(
      (await sql<{ n: string }>`SELECT pg_total_relation_size(${table}::regclass) AS n`.execute(db)).rows[0]!.n,
    )
  return total
}

/** Registers `count` tags of `kind` (animals, or litter devices) for the user; their MACs. */
export async function addTags(bench: BenchApp, uid: string, kind: ReadingKind, prefix: number, count: number) {
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
export async function rowPerReadingTable(db: Kysely<DB>, kind: ReadingKind, name: string) {
  await sql`CREATE TABLE ${sql.table(name)} (LIKE ${sql.table(SERIES[kind].table)} INCLUDING ALL,
              FOREIGN KEY (uid) REFERENCES users (uid) ON DELETE CASCADE)`.execute(db)
  return name
}

/** One multi-row insert of `rows` (one per tag of `macs`) into `tables`, as one statement, skipping stored keys as ingestion does. */
export async function insertRows(
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

/** A timed action, and what to do before each run of it, untimed. */
export type Timed = (() => Promise<unknown>) | { run: () => Promise<unknown>; before: () => Promise<unknown> }

/** Alternating rounds of two timed actions (the order flips each round) after one warm-up of each; their times. */
export async function pairs(rounds: number, a: Timed, b: Timed) {
  const time = async (action: Timed, into?: number[]) => {
    const run = typeof action === 'function' ? action : action.run
    if (typeof action !== 'function') await action.before()
    const started = performance.now()
    await run()
    into?.push(performance.now() - started)
  }
  await time(a)
  await time(b)
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

/** One action timed `rounds` times after two warm-ups; its times. */
export async function times(rounds: number, action: () => Promise<unknown>) {
  await action()
  await action()
  const out: number[] = []
  for (let i = 0; i < rounds; i++) {
    const started = performance.now()
    await action()
    out.push(performance.now() - started)
  }
  return out
}

/** Ingests `readings` of `kind` for one tag through the service's ingestion code, in batches of `batch`. */
export async function ingestAll(
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
export function history(
  kind: ReadingKind,
  tag: number,
  end: number,
  count: number,
  everyMinutes = 1,
  seed = 7,
): Reading[] {
  const random = randomSource(seed + tag)
  return Array.from({ length: count }, (_, i) =>
    reading(kind, tag, end - (count - 1 - i) * everyMinutes * MINUTE - 1000, random),
  )
}

export const notBuilt = (scenario: string, target: string, what: string): TableRow => ({
  scenario,
  service: 'not built',
  baseline: what,
  ratio: null,
  target,
  met: null,
})

/** Whether two figures agree: exactly, or to 1e-9 of their size (sums in another order or type). */
export const agrees = (a: unknown, b: unknown) =>
  a === b || (a !== null && b !== null && Math.abs(Number(a) - Number(b)) <= 1e-9 * Math.max(1, Math.abs(Number(b))))
