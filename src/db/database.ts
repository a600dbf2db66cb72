// Opens the one SQL store: embedded PGlite in DATA_DIR when DATABASE_URL is unset, else a pg pool.
// Both speak PostgreSQL, so one Kysely query layer and one set of migrations serve both. PGlite runs in a thread
// of its own (embedded-store.ts), which alone imports it: a service on PostgreSQL never loads it.
import { closeSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs'
import { hostname } from 'node:os'
import { join, resolve } from 'node:path'
import { Kysely, PostgresDialect, sql, type PostgresPool, type PostgresPoolClient } from 'kysely'
import pg from 'pg'
import type { FastifyBaseLogger } from 'fastify'
import type { Config } from '../config.ts'
import type { DB } from './schema.ts'
import { EmbeddedStore, embeddedDialect } from './embedded-store.ts'
import { isQueryTimeout, StoreBusyError } from './errors.ts'
import { preparedStatementName } from './prepared.ts'
import { rowObjects } from './row-objects.ts'

export interface Database {
  /** For requests: every wait on the store is bounded (a hung or saturated store gives 503 within seconds). */
  db: Kysely<DB>
  /**
   * For work that may rightly run for minutes on a large database, migrations and scheduled jobs: on
   * PostgreSQL a small pool of its own without the statement and query timeouts; on the embedded store the same
   * one connection as `db`, without its timeouts.
   */
  withoutTimeouts: Kysely<DB>
  kind: 'embedded' | 'postgres'
  /** Resolves when the database answers a trivial query; rejects otherwise. */
  ping(): Promise<void>
  close(): Promise<void>
  /** The embedded store only: LISTEN on its session, which delivers in this process; returns the UNLISTEN. */
  listen?: (channel: string, onPayload: (payload: string) => void) => Promise<() => Promise<void>>
  /** PostgreSQL only: the pool's connections (for /metrics). */
  poolStats?: () => { total: number; idle: number; waiting: number }
}

/** DATA_DIR value that keeps the embedded store in memory (tests, throwaway runs). */
export const IN_MEMORY = ':memory:'

const INT8_OID = 20
const NUMERIC_OID = 1700

// int8 (counts, ms timestamps) and numeric arrive as strings from pg and partly as strings from PGlite;
// both stores must give the same JSON, so both parse them to numbers. Millisecond timestamps stay far
// below 2^53, so no precision is lost.
const parseNumber = (value: string) => Number(value)

export class DataDirLockedError extends Error {
  constructor(dir: string, holder: string) {
    super(
      `DATA_DIR ${dir} is in use by another livestock-api process (${holder}). ` +
        'PGlite allows one process per data folder: stop the other process, point DATA_DIR elsewhere, ' +
        'or use DATABASE_URL for several processes.',
    )
    this.name = 'DataDirLockedError'
  }
}

/**
 * The configuration without the request timeouts, for work that may rightly take minutes on a large
 * database: migrations, operator commands.
 */
export function withoutRequestTimeouts(config: Config): Config {
  return { ...config, dbStatementTimeoutMs: 0, dbQueryTimeoutMs: 0 }
}

export async function openDatabase(config: Config, log?: FastifyBaseLogger): Promise<Database> {
  return config.databaseUrl ? openPostgres(config, config.databaseUrl, log) : openEmbedded(config)
}

async function openEmbedded(config: Config): Promise<Database> {
  if (config.dataDir === IN_MEMORY)
    return embeddedDatabase(await EmbeddedStore.open({ pgdata: undefined, fsync: false }), config, () => {})
  const dir = resolve(config.dataDir)
  mkdirSync(dir, { recursive: true })
  const release = lockDataDir(dir)
  try {
    const store = await EmbeddedStore.open({ pgdata: join(dir, 'pgdata'), fsync: config.embeddedFsync })
    return embeddedDatabase(store, config, release)
  } catch (err) {
    release()
    throw err
  }
}

/**
 * An in-memory embedded store started from a data-folder snapshot (PGlite dumpDataDir): the test runner
 * migrates one store per run and every test file starts from its copy, skipping initdb and migrations.
 * `timeouts`: the configuration whose request timeouts it keeps (none when not given).
 */
export async function openEmbeddedSnapshot(snapshot: Blob, timeouts?: Config): Promise<Database> {
  const store = await EmbeddedStore.open({ pgdata: undefined, fsync: false, snapshot: await snapshot.arrayBuffer() })
  return embeddedDatabase(store, timeouts, () => {})
}

/** A snapshot of an embedded store's data folder, for openEmbeddedSnapshot. */
export async function snapshotEmbedded(database: Database): Promise<Blob> {
  const store = embeddedStores.get(database)
  if (!store) throw new Error('snapshotEmbedded needs an embedded store')
  return store.dump()
}

const embeddedStores = new WeakMap<Database, { dump(): Promise<Blob>; syncs: number; fsync: boolean }>()

/** fsync(2) calls the embedded store has made for commits and checkpoints; undefined when it does not sync. */
export function embeddedSyncCount(database: Database): number | undefined {
  const store = embeddedStores.get(database)
  return store?.fsync ? store.syncs : undefined
}

function embeddedDatabase(store: EmbeddedStore, timeouts: Config | undefined, release: () => void): Database {
  // Requests wait for the one connection and for an answer as long as on PostgreSQL; background work without bound.
  const db = new Kysely<DB>({
    dialect: embeddedDialect(store, {
      waitMs: timeouts?.dbConnectTimeoutMs ?? 0,
      queryMs: timeouts?.dbStatementTimeoutMs ?? 0,
    }),
  })
  const background = new Kysely<DB>({ dialect: embeddedDialect(store, { waitMs: 0, queryMs: 0 }) })
  let closed = false
  const database: Database = {
    db,
    withoutTimeouts: background,
    kind: 'embedded',
    listen: (channel, onPayload) => store.listen(channel, onPayload),
    async ping() {
      if (closed || store.closed) throw new Error('Embedded database is closed')
      await sql`select 1`.execute(db)
    },
    async close() {
      if (closed) return
      closed = true
      try {
        await Promise.all([db.destroy(), background.destroy()])
        await store.close()
      } finally {
        release()
      }
    },
  }
  embeddedStores.set(database, {
    dump: () => store.dump(),
    get syncs() {
      return store.syncs
    },
    fsync: store.fsync,
  })
  return database
}

/**
 * Creates the database a PostgreSQL URL names when the server does not have it yet, as migration tools do
 * (`migrate` calls it): connects to the server's `postgres` database for the CREATE. Returns whether it created
 * it; another process creating it at the same moment is fine.
 */
export async function createDatabaseIfMissing(url: string, connectTimeoutMs = 5000): Promise<boolean> {
  const probe = new pg.Client({ connectionString: url, connectionTimeoutMillis: connectTimeoutMs })
  try {
    await probe.connect()
    return false
  } catch (err) {
    if ((err as { code?: string }).code !== '3D000') throw err // invalid_catalog_name: no such database
  } finally {
    await probe.end().catch(() => {})
  }
  const target = new URL(url)
  const name = decodeURIComponent(target.pathname.slice(1))
  const maintenance = new URL(url)
  maintenance.pathname = '/postgres'
  const admin = new pg.Client({ connectionString: maintenance.toString(), connectionTimeoutMillis: connectTimeoutMs })
  await admin.connect()
  try {
    await admin.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`)
    return true
  } catch (err) {
    if ((err as { code?: string }).code === '42P04') return false // duplicate_database: created meanwhile
    throw err
  } finally {
    await admin.end()
  }
}

async function openPostgres(config: Config, url: string, log?: FastifyBaseLogger): Promise<Database> {
  // Waiting for a connection (a new one, or one of a full pool) and for a query's answer are both bounded,
  // so that a hung server (it accepts connections but answers nothing) gives 503 within seconds.
  const pool = newPool(url, log, {
    max: config.dbPoolMax,
    connectTimeoutMs: config.dbConnectTimeoutMs,
    statementTimeoutMs: config.dbStatementTimeoutMs,
    queryTimeoutMs: config.dbQueryTimeoutMs,
  })
  // Two connections, so that background work never waits behind requests, nor they behind it.
  const backgroundPool = newPool(url, log, {
    max: 2,
    connectTimeoutMs: config.dbConnectTimeoutMs,
    statementTimeoutMs: 0,
    queryTimeoutMs: 0,
  })
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool: droppingTimedOutConnections(pool) }) })
  const background = new Kysely<DB>({ dialect: new PostgresDialect({ pool: backgroundPool }) })
  let closed = false
  return {
    db,
    withoutTimeouts: background,
    kind: 'postgres',
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    async ping() {
      await sql`select 1`.execute(db)
    },
    async close() {
      if (closed) return
      closed = true
      await Promise.all([db.destroy(), background.destroy()])
    },
  }
}

function newPool(
  url: string,
  log: FastifyBaseLogger | undefined,
  options: { max: number; connectTimeoutMs: number; statementTimeoutMs: number; queryTimeoutMs: number },
): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max,
    connectionTimeoutMillis: options.connectTimeoutMs,
    query_timeout: options.queryTimeoutMs || undefined,
    idleTimeoutMillis: 30_000,
    statement_timeout: options.statementTimeoutMs || undefined,
    application_name: 'livestock-api',
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === INT8_OID || oid === NUMERIC_OID
          ? parseNumber
          : (pg.types.getTypeParser(oid, format) as unknown)) as typeof pg.types.getTypeParser,
    },
  })
  // An idle client losing its connection emits 'error' on the pool; unhandled, it would crash the process.
  pool.on('error', (err) => log?.error({ err }, 'PostgreSQL pool client error'))
  // A checked-out client has no listener of the pool's: a connection dropped mid-query would emit an
  // unhandled 'error' and crash the process. The query itself is rejected as well (and answered with 503),
  // so the event only needs logging. pg-pool discards a client that saw an error when it is released.
  pool.on('connect', (client) => {
    client.on('error', (err) => log?.warn({ err }, 'PostgreSQL connection lost'))
  })
  return pool
}

/**
 * The pool as Kysely sees it, with four changes. A wait for a connection of a full pool that times out is a
 * StoreBusyError (the server is up; 503 "busy"). The hot statements of prepared.ts run as named prepared
 * statements (pg prepares each once per connection). Rows come from pg as arrays and become objects in
 * row-objects.ts, more cheaply than pg builds them. And a connection on which a query timed out is dropped. pg's
 * query_timeout rejects the query but leaves its connection waiting for the answer, so the pool would lend
 * that connection out again and each query on it would wait behind the lost one (a transaction's ROLLBACK
 * too, for another full timeout). Here any later query on it fails at once, and its release closes it.
 */
function droppingTimedOutConnections(pool: pg.Pool): PostgresPool {
  const views = new WeakMap<pg.PoolClient, PostgresPoolClient>()
  const viewOf = (client: pg.PoolClient): PostgresPoolClient => {
    let timedOut: Error | undefined
    const query = async (text: string, parameters: ReadonlyArray<unknown>) => {
      if (timedOut) throw new Error('Query read timeout: the connection was dropped', { cause: timedOut })
      try {
        const name = preparedStatementName(text)
        // Without a name pg runs the text unnamed, as it does for a plain query(text, values).
        const result = await client.query<unknown[]>({ name, text, values: parameters as unknown[], rowMode: 'array' })
        // Several statements in one text (simple protocol, no parameters) answer a list of results: passed on as pg gives them.
        if (Array.isArray(result)) return result
        return {
          command: result.command,
          rowCount: result.rowCount,
          fields: result.fields,
          rows: rowObjects(result.fields, result.rows),
        }
      } catch (err) {
        if (isQueryTimeout(err)) timedOut = err as Error
        throw err
      }
    }
    return {
      // Kysely's second form of query (a cursor) is used only when a cursor class is configured; none is.
      query: query as unknown as PostgresPoolClient['query'],
      release: (destroy) => client.release(destroy === true || timedOut !== undefined),
    }
  }
  return {
    options: pool.options,
    connect: async () => {
      // Every connection lent out: a wait that times out is the pool's saturation, not an unreachable server.
      const saturated = pool.totalCount >= (pool.options.max ?? 10) && pool.idleCount === 0
      let client: pg.PoolClient
      try {
        client = await pool.connect()
      } catch (err) {
        if (saturated && err instanceof Error && err.message.includes('timeout exceeded when trying to connect'))
          throw new StoreBusyError(`no PostgreSQL connection of ${pool.totalCount} came free in time`, { cause: err })
        throw err
      }
      let view = views.get(client)
      if (!view) {
        view = viewOf(client)
        views.set(client, view)
      }
      return view
    },
    end: () => pool.end(),
  }
}

/**
 * PGlite has no lock of its own: two processes on one data folder would corrupt it. A lock file
 * created with O_EXCL holds the owner's pid; a lock left by a dead process on this host is taken over.
 */
function lockDataDir(dir: string): () => void {
  const lockPath = join(dir, 'livestock-api.lock')
  const me = JSON.stringify({ pid: process.pid, hostname: hostname(), startedAt: new Date().toISOString() })
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(lockPath, 'wx', 0o600)
      writeSync(fd, me)
      closeSync(fd)
      let released = false
      return () => {
        if (released) return
        released = true
        try {
          unlinkSync(lockPath)
        } catch {
          /* already gone */
        }
      }
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
      const holder = readLockHolder(lockPath)
      if (holder && holder.hostname === hostname() && !isProcessAlive(holder.pid)) {
        try {
          unlinkSync(lockPath)
        } catch {
          /* raced with another starter; retry decides */
        }
        continue
      }
      throw new DataDirLockedError(
        dir,
        holder ? `pid ${holder.pid} on ${holder.hostname} since ${holder.startedAt}` : 'unknown holder',
      )
    }
  }
  throw new DataDirLockedError(dir, 'lock file could not be taken over')
}

function readLockHolder(lockPath: string): { pid: number; hostname: string; startedAt: string } | undefined {
  try {
    const parsed = JSON.parse(readFileSync(lockPath, 'utf8')) as {
      pid?: unknown
      hostname?: unknown
      startedAt?: unknown
    }
    if (typeof parsed.pid === 'number' && typeof parsed.hostname === 'string') {
      return { pid: parsed.pid, hostname: parsed.hostname, startedAt: String(parsed.startedAt) }
    }
  } catch {
    /* unreadable or half-written: treat as held */
  }
  return undefined
}

function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
}
