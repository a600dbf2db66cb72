// The performance table's plans (a full run and a smoke run), its stores and the data seeded into them
// before the service starts (bench/table.ts runs the table).
import { cpSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { sql } from 'kysely'
import pg from 'pg'
import { loadConfig } from '../src/config.ts'
import { openDatabase, type Database } from '../src/db/database.ts'
import { migrateToLatest } from '../src/db/migrate.ts'
import { createIdSource } from '../src/db/ids.ts'
import { insertUser } from '../src/modules/users/users.repository.ts'
import { insertIntegrator, link } from '../src/modules/integrators/integrators.repository.ts'
import { insertAnimal } from '../src/modules/animals/animals.repository.ts'
import { bareInsert, loadHerd, sensorRows } from './readings.ts'
import { BENCH_JWT_SECRET, scratchEnv } from './support.ts'

export type Store = 'postgres' | 'embedded'

export interface Plan {
  smoke: boolean
  pairs: number
  /** Seconds of each side of a throughput pair. */
  seconds: number
  warmupSeconds: number
  animals: number
  readings: number
  herd: number
  herdMinutes: number
  ingestRows: number
  ingestBatch: number
  analyticsRequests: number
  halfRateSeconds: number
  starts: number
  startIdleMs: number
}

export const FULL: Plan = {
  smoke: false,
  pairs: 5,
  seconds: 3,
  warmupSeconds: 1,
  animals: 100,
  readings: 10_000,
  herd: 200,
  herdMinutes: 30 * 24 * 60,
  ingestRows: 100_000,
  ingestBatch: 10_000,
  analyticsRequests: 5,
  halfRateSeconds: 10,
  starts: 3,
  startIdleMs: 2000,
}
export const SMOKE: Plan = {
  smoke: true,
  pairs: 1,
  seconds: 1,
  warmupSeconds: 0.2,
  animals: 100,
  readings: 1000,
  herd: 3,
  herdMinutes: 600,
  ingestRows: 2000,
  ingestBatch: 1000,
  analyticsRequests: 1,
  halfRateSeconds: 1,
  starts: 1,
  startIdleMs: 300,
}

export const FARM = 'bench-farm'
export const HERD_FARM = 'bench-herd'
export const INTEGRATOR = 'int_bench-enterprise'
export const mac = (prefix: number, n: number) =>
  `BE:${prefix.toString(16).padStart(2, '0')}:00:00:${(n >> 8).toString(16).padStart(2, '0')}:${(n & 255).toString(16).padStart(2, '0')}`.toUpperCase()

export interface BenchStore {
  /** What the service's environment needs to use it. */
  env: Record<string, string>
  /** What the bare server needs to use the same data (an embedded store's data folder is copied for it). */
  bare: { databaseUrl: string } | { dataDir: string }
  open: () => Promise<Database>
  drop: () => Promise<void>
}

export async function newStore(store: Store, work: string, name: string): Promise<BenchStore> {
  const timeouts = {
    DB_STATEMENT_TIMEOUT_MS: '0',
    DB_QUERY_TIMEOUT_MS: '0',
    JWT_SECRET: BENCH_JWT_SECRET,
    LOG_LEVEL: 'silent',
  }
  if (store === 'postgres') {
    const scratch = await scratchEnv()
    const url = scratch.env.DATABASE_URL!
    return {
      env: { DATABASE_URL: url },
      bare: { databaseUrl: url },
      open: () => openDatabase(loadConfig({ ...timeouts, DATABASE_URL: url })),
      drop: scratch.drop,
    }
  }
  const dir = join(work, name)
  mkdirSync(dir, { recursive: true })
  // Seeding writes without fsync (one bulk load); the service opens the folder with its defaults.
  return {
    env: { DATA_DIR: dir },
    bare: { dataDir: `${dir}-bare` },
    open: () => openDatabase(loadConfig({ ...timeouts, DATA_DIR: dir, EMBEDDED_FSYNC: 'off' })),
    drop: async () => {},
  }
}

/** The bench accounts: a farm, and an Enterprise integrator (may write, no client secret) linked to it. */
async function seedAccounts(db: Database['db'], farms: string[]) {
  await insertIntegrator(db, {
    uid: INTEGRATOR,
    name: 'Bench',
    email: 'bench@bench.example',
    tier: 'enterprise',
    can_write: true,
    client_secret_hash: null,
  })
  for (const uid of farms) {
    await insertUser(db, { uid, email: `${uid}@bench.example`, name: uid })
    await link(db, uid, INTEGRATOR, 'operator')
  }
}

async function addAnimals(db: Database['db'], uid: string, prefix: number, count: number): Promise<string[]> {
  const ids = createIdSource(Date.now)
  const macs: string[] = []
  for (let n = 0; n < count; n++) {
    macs.push(mac(prefix, n))
    await insertAnimal(db, uid, { MAC: macs[n], Sex: 'female' }, ids)
  }
  return macs
}

export interface Seeded {
  readMacs: string[]
  ingestMacs: string[]
  herdMac: string
}

/**
 * The main store: the farm's animals (the first with `readings` sensor readings), animals to ingest into,
 * and a herd farm of `herd` animals with 30 days of one-minute readings each (the analytics table). On the
 * embedded store the bare server gets a copy of the folder taken before the herd goes in (it reads none of it).
 */
export async function seedMain(store: Store, main: BenchStore, plan: Plan): Promise<Seeded> {
  let database = await main.open()
  let ingestMacs: string[]
  let readMacs: string[]
  try {
    await migrateToLatest(database.db)
    await seedAccounts(database.db, [FARM, HERD_FARM])
    readMacs = await addAnimals(database.db, FARM, 1, plan.animals)
    ingestMacs = await addAnimals(database.db, FARM, 2, plan.pairs + 1)
    await bareInsert(database.db, FARM, readMacs[0]!, sensorRows(plan.readings, Date.now() - 60_000))
    await sql`VACUUM (ANALYZE)`.execute(database.db)
    if (store === 'embedded') {
      await database.close()
      cpSync(
        (main.bare as { dataDir: string }).dataDir.replace(/-bare$/, ''),
        (main.bare as { dataDir: string }).dataDir,
        { recursive: true },
      )
      database = await main.open()
    }
    const herdMacs = await addAnimals(database.db, HERD_FARM, 3, plan.herd)
    await loadHerd(database.db, HERD_FARM, herdMacs, Date.now(), plan.herdMinutes)
    return { readMacs, ingestMacs, herdMac: herdMacs[0]! }
  } finally {
    await database.close()
  }
}

/** Opens a store, migrates it, seeds it and closes it. */
async function seed(store: BenchStore, fill: (db: Database['db']) => Promise<void>) {
  const database = await store.open()
  try {
    await migrateToLatest(database.db)
    await fill(database.db)
  } finally {
    await database.close()
  }
}

/** A store holding the herd's first animal alone, with the same 30 days of readings. */
export function seedAlone(alone: BenchStore, plan: Plan) {
  return seed(alone, async (db) => {
    await seedAccounts(db, [HERD_FARM])
    const [only] = await addAnimals(db, HERD_FARM, 3, 1)
    await loadHerd(db, HERD_FARM, [only!], Date.now(), plan.herdMinutes)
  })
}

/** The farm alone (no herd), for the embedded side of the stores comparison. */
export function seedReadsOnly(store: BenchStore, plan: Plan) {
  return seed(store, async (db) => {
    await seedAccounts(db, [FARM])
    const macs = await addAnimals(db, FARM, 1, plan.animals)
    await bareInsert(db, FARM, macs[0]!, sensorRows(plan.readings, Date.now() - 60_000))
    await sql`VACUUM (ANALYZE)`.execute(db)
  })
}

/** Waits until no other session on the database runs a statement (three checks in a row), or the deadline. */
export async function databaseIdle(url: string, deadline: number) {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    let quiet = 0
    while (quiet < 3 && Date.now() < deadline) {
      const { rows } = await client.query<{ n: string }>(
        "SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND state = 'active' AND pid <> pg_backend_pid()",
      )
      quiet = Number(rows[0]!.n) === 0 ? quiet + 1 : 0
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
  } finally {
    await client.end()
  }
}

export async function serverVersions(store: Store, main: BenchStore): Promise<Record<string, string>> {
  const database = store === 'postgres' ? await main.open() : undefined
  try {
    const pgVersion = database
      ? (await sql<{ v: string }>`SELECT current_setting('server_version') AS v`.execute(database.db)).rows[0]?.v
      : undefined
    return { ...(pgVersion ? { postgres: pgVersion } : { pglite: '0.5.16 (PostgreSQL 17 in WebAssembly)' }) }
  } finally {
    await database?.close()
  }
}
