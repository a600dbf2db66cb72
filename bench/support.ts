// Shared pieces of the benchmarks: an app on the configured store; the load comes from load-generator.ts.
import { loadConfig, type Config } from '../src/config.ts'
import { IN_MEMORY, openDatabase, type Database } from '../src/db/database.ts'
import { migrateToLatest } from '../src/db/migrate.ts'
import { openRedis, waitForRedis, type Redis } from '../src/redis.ts'
import { buildApp } from '../src/app.ts'
import type { App } from '../src/types.ts'
import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { insertUser } from '../src/modules/users/users.repository.ts'
import { insertIntegrator, link } from '../src/modules/integrators/integrators.repository.ts'
import { insertAnimal } from '../src/modules/animals/animals.repository.ts'
import { createIdSource } from '../src/db/ids.ts'

/** The middle value of a set of measurements (the upper middle for an even count). */
export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

export const BENCH_JWT_SECRET = 'bench-secret-0123456789abcdef0123456789abcdef'

export interface BenchApp {
  app: App
  config: Config
  database: Database
  redis: Redis | undefined
  port: number
  close: () => Promise<void>
}

/**
 * An app listening on a free loopback port; REDIS_URL from the environment when set. With DATABASE_URL set
 * (and no database shared or given in `env`) it gets a scratch database on that server, dropped at close.
 */
export async function startBenchApp(env: Record<string, string>, shared?: { database: Database }): Promise<BenchApp> {
  const scratch = !shared && !env.DATABASE_URL ? await scratchEnv() : undefined
  const config = loadConfig({
    LOG_LEVEL: 'silent',
    JWT_SECRET: BENCH_JWT_SECRET,
    DATA_DIR: IN_MEMORY,
    PASSWORD_SCRYPT_LOG_N: '14',
    // Loading a herd is one statement over millions of rows: no request timeouts.
    DB_STATEMENT_TIMEOUT_MS: '0',
    DB_QUERY_TIMEOUT_MS: '0',
    ...(process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {}),
    ...scratch?.env,
    ...env,
  })
  const database = shared?.database ?? (await openDatabase(config))
  if (!shared) await migrateToLatest(database.db)
  let redis: Redis | undefined
  if (config.redisUrl) {
    redis = openRedis(config.redisUrl)
    if (!(await waitForRedis(redis, 3000))) throw new Error(`Redis at ${config.redisUrl} is not reachable`)
  }
  const app = await buildApp({ config, database, redis, logger: false })
  await app.listen({ port: 0, host: '127.0.0.1' })
  const address = app.server.address()
  const port = typeof address === 'object' && address ? address.port : 0
  return {
    app,
    config,
    database,
    redis,
    port,
    close: async () => {
      await app.close()
      redis?.disconnect()
      if (!shared) await database.close()
      await scratch?.drop()
    },
  }
}

/** A user, a linked Enterprise integrator that may write, and its bearer header. */
export async function benchFarm(bench: BenchApp) {
  const db = bench.database.db
  const uid = `bench-${randomBytes(4).toString('hex')}`
  await insertUser(db, { uid, email: `${uid}@bench.example`, name: 'Bench farm' })
  const integratorUid = `int_${uid}`
  await insertIntegrator(db, {
    uid: integratorUid,
    name: 'Bench',
    email: 'bench@bench.example',
    tier: 'enterprise',
    can_write: true,
    client_secret_hash: null,
  })
  await link(db, uid, integratorUid, 'operator')
  const token = (
    await bench.app.inject({
      method: 'POST',
      url: '/api/v1/tokens',
      payload: { integratorUID: integratorUid, expiresIn: 86400 },
    })
  ).json().data.accessToken as string
  const ids = createIdSource(Date.now)
  let n = 0
  const animal = async () => {
    n++
    const mac =
      `BE:00:00:00:${(n >> 8).toString(16).padStart(2, '0')}:${(n & 255).toString(16).padStart(2, '0')}`.toUpperCase()
    await insertAnimal(db, uid, { MAC: mac, Sex: 'female' }, ids)
    return mac
  }
  return { uid, headers: { authorization: `Bearer ${token}` }, animal }
}

/** A database of its own: a scratch database on the server in PostgreSQL mode, a fresh PGlite otherwise. */
export async function scratchEnv(): Promise<{ env: Record<string, string>; drop: () => Promise<void> }> {
  const base = process.env.DATABASE_URL
  if (!base) return { env: {}, drop: async () => {} }
  const name = `lsapi_bench_${randomBytes(4).toString('hex')}`
  const admin = async (text: string) => {
    const client = new pg.Client({ connectionString: base })
    await client.connect()
    try {
      await client.query(text)
    } finally {
      await client.end()
    }
  }
  await admin(`CREATE DATABASE "${name}"`)
  const url = new URL(base)
  url.pathname = `/${name}`
  return { env: { DATABASE_URL: url.toString() }, drop: () => admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`) }
}

/**
 * A migrated store for a bench script: a scratch database on DATABASE_URL's server (dropped by close), else the
 * embedded store in memory. Its `database.withoutTimeouts` suits seeding and statements timed alone.
 */
export async function openScratchStore(): Promise<{ database: Database; close: () => Promise<void> }> {
  const scratch = await scratchEnv()
  const config = loadConfig({
    ...process.env,
    ...scratch.env,
    DATA_DIR: scratch.env.DATABASE_URL ? '' : IN_MEMORY,
    JWT_SECRET: 'x'.repeat(32),
  })
  const database = await openDatabase(config)
  await migrateToLatest(database.withoutTimeouts)
  return {
    database,
    close: async () => {
      await database.close()
      await scratch.drop()
    },
  }
}

export { loadGet } from './load-generator.ts'

/**
 * Measures two sides in `rounds` alternating rounds (the order flips each round, so that a drift in machine
 * load hits both alike) and returns the median of each side.
 */
export async function alternatingMedians(
  rounds: number,
  baseline: () => Promise<number>,
  measured: () => Promise<number>,
): Promise<{ baseline: number; measured: number }> {
  const baselineRuns: number[] = []
  const measuredRuns: number[] = []
  for (let round = 0; round < rounds; round++) {
    if (round % 2 === 0) {
      baselineRuns.push(await baseline())
      measuredRuns.push(await measured())
    } else {
      measuredRuns.push(await measured())
      baselineRuns.push(await baseline())
    }
  }
  return { baseline: median(baselineRuns), measured: median(measuredRuns) }
}
