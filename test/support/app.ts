// Builds a migrated app for one test file. Embedded store by default (PGlite in memory); with
// DATABASE_URL set, a database of its own on that server, dropped when the file is done; with
// REDIS_URL set, a Redis key prefix of its own.
import { spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import pg from 'pg'
import { loadConfig, type Config } from '../../src/config.ts'
import { IN_MEMORY, openDatabase, openEmbeddedSnapshot, type Database } from '../../src/db/database.ts'
import { migrateToLatest } from '../../src/db/migrate.ts'
import { openRedis, waitForRedis, type Redis } from '../../src/redis.ts'
import { buildApp, type AppDependencies } from '../../src/app.ts'
import type { App, Clock } from '../../src/types.ts'

export const TEST_JWT_SECRET = 'test-secret-0123456789abcdef0123456789abcdef'
/** The tests' VAPID key (Web Push): a fixed one, so that a test can check the signature against its public key. */
export const TEST_WEB_PUSH_PRIVATE_KEY = 'amX3fMyS-W2gmyC1KsovdE4duf7VPFYLOgAaruHTvgg'

export interface TestContext {
  app: App
  config: Config
  database: Database
  redis: Redis | undefined
  close: () => Promise<void>
}

export interface TestAppOptions {
  /** Extra environment for loadConfig (limits, TRUST_PROXY, ...). */
  env?: Record<string, string>
  clock?: Clock
  extend?: AppDependencies['extend']
  /** Skip opening Redis even when REDIS_URL is set. */
  noRedis?: boolean
  /** A logger instead of none (tests about logging). */
  logger?: AppDependencies['logger']
  /**
   * Another test app whose store (already migrated) this app is built on, instead of a copy of its own: for a
   * file whose apps differ in configuration only. The store keeps the settings it was opened with (the DB_*
   * timeouts and pool). Closing this app leaves that store open.
   */
  store?: TestContext
}

/** Environment of the mode under test: the real servers when the suite runs with DATABASE_URL/REDIS_URL. */
export function testEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    LOG_LEVEL: 'silent',
    // The OWASP cost (2^17) takes ~350 ms a hash here; tests check behaviour, not cost.
    PASSWORD_SCRYPT_LOG_N: '14',
    // Rate limits and quotas off unless a test sets them: suites make hundreds of requests from one IP.
    RATE_LIMIT_IP_MAX: '0',
    RATE_LIMIT_TOKENS_MAX: '0',
    AUTH_FAILURES_MAX: '0',
    LOGIN_FAILURES_MAX: '0',
    QUOTA_FREE: '0',
    QUOTA_STARTER: '0',
    QUOTA_PRO: '0',
    QUOTA_ENTERPRISE: '0',
    QUOTA_USER: '0',
    JWT_SECRET: TEST_JWT_SECRET,
    WEB_PUSH_PRIVATE_KEY: TEST_WEB_PUSH_PRIVATE_KEY,
    DATA_DIR: IN_MEMORY,
    ...(process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {}),
    ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}),
    ...extra,
  }
}

export const usingRealServers = Boolean(process.env.DATABASE_URL)

export async function createTestApp(options: TestAppOptions = {}): Promise<TestContext> {
  const shared = options.store
  const scratch = shared ? undefined : await createScratchDatabase()
  const databaseUrl = shared ? shared.config.databaseUrl : scratch?.url
  const config = loadConfig(
    testEnv({
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
      REDIS_KEY_PREFIX: `test:${randomBytes(6).toString('hex')}:`,
      ...options.env,
    }),
  )
  const database = shared ? shared.database : await openTestDatabase(config)
  if (!shared) await migrateToLatest(database.withoutTimeouts)
  let redis: Redis | undefined
  if (config.redisUrl && !options.noRedis) {
    redis = openRedis(config.redisUrl)
    await waitForRedis(redis, 5000)
  }
  let app: App
  try {
    app = await buildApp({
      config,
      database,
      redis,
      clock: options.clock,
      logger: options.logger ?? false,
      extend: options.extend,
    })
  } catch (err) {
    redis?.disconnect()
    if (!shared) await database.close()
    await scratch?.drop()
    throw err
  }
  return {
    app,
    config,
    database,
    redis,
    close: async () => {
      await app.close()
      redis?.disconnect()
      if (!shared) await database.close()
      await scratch?.drop()
    },
  }
}

/** The embedded store from the run's migrated snapshot (test/run.ts), or as the config says. */
export async function openTestDatabase(config: Config): Promise<Database> {
  const snapshot = process.env.TEST_PGLITE_SNAPSHOT
  if (!config.databaseUrl && config.dataDir === IN_MEMORY && snapshot)
    return openEmbeddedSnapshot(new Blob([readFileSync(snapshot)]), config)
  return openDatabase(config)
}

/**
 * Fills an empty DATA_DIR with the run's migrated embedded store (test/run.ts's snapshot, PGlite's dump of a data
 * folder: a tar of pgdata), so what opens it there need not migrate it all. False outside a run, where there is none.
 */
export function migratedDataDir(dataDir: string): boolean {
  const snapshot = process.env.TEST_PGLITE_SNAPSHOT
  if (!snapshot) return false
  mkdirSync(join(dataDir, 'pgdata'))
  const untar = spawnSync('tar', ['-xf', snapshot, '-C', join(dataDir, 'pgdata')], { encoding: 'utf8' })
  if (untar.status !== 0) throw new Error(`could not unpack ${snapshot}: ${untar.stderr}`)
  return true
}

/**
 * With DATABASE_URL set: a fresh database on that server, named after the run, and its drop. It is a
 * copy of the run's migrated template when there is one (test/run.ts).
 */
export async function createScratchDatabase(): Promise<{ url: string; drop: () => Promise<void> } | undefined> {
  const base = process.env.DATABASE_URL
  if (!base) return undefined
  const name = `${process.env.TEST_DB_PREFIX ?? 'lsapi_test_'}${randomBytes(5).toString('hex')}`
  const template = process.env.TEST_DB_TEMPLATE
  await adminQuery(base, `CREATE DATABASE "${name}"${template ? ` TEMPLATE "${template}"` : ''}`)
  const url = new URL(base)
  url.pathname = `/${name}`
  return {
    url: url.toString(),
    drop: async () => {
      await adminQuery(base, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)
    },
  }
}

export async function adminQuery(url: string, text: string): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 })
  await client.connect()
  try {
    return await client.query(text)
  } finally {
    await client.end()
  }
}
