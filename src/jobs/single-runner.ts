// One runner of a job at a time, the one path every job takes (scheduled or from the CLI). Processes
// sharing a PostgreSQL database agree through a session-level advisory lock (pg_try_advisory_lock) held
// on one connection of the background pool. The embedded store takes no lock: its data folder admits one
// process (database.ts), and a lock there would hold the store's only connection for the whole job, which
// Kysely serializes, stalling every request meanwhile (PGlite's advisory locks are re-entrant in its single
// session anyway). Within a process, a job that is already running is not started again.
import { sql, type Kysely } from 'kysely'
import type { Database } from '../db/database.ts'
import type { DB } from '../db/schema.ts'

const runningHere = new WeakMap<Database, Set<number>>()

/**
 * Runs fn as the job's one runner (on PostgreSQL its queries on `conn` use the lock's own connection);
 * undefined without running it when this process or another one is running the job already.
 */
export async function withSingleRunner<T>(
  database: Database,
  key: number,
  fn: (conn: Kysely<DB>) => Promise<T>,
): Promise<T | undefined> {
  let keys = runningHere.get(database)
  if (!keys) runningHere.set(database, (keys = new Set()))
  if (keys.has(key)) return undefined
  keys.add(key)
  try {
    return database.kind === 'embedded'
      ? await fn(database.withoutTimeouts)
      : await withAdvisoryLock(database.withoutTimeouts, key, fn)
  } finally {
    keys.delete(key)
  }
}

/** Runs fn holding the advisory lock on one connection; undefined without running it when another session holds it. */
async function withAdvisoryLock<T>(
  db: Kysely<DB>,
  key: number,
  fn: (conn: Kysely<DB>) => Promise<T>,
): Promise<T | undefined> {
  return db.connection().execute(async (conn) => {
    const { rows } = await sql<{ locked: boolean }>`SELECT pg_try_advisory_lock(${key}) AS locked`.execute(conn)
    if (!rows[0]?.locked) return undefined
    try {
      return await fn(conn)
    } finally {
      await sql`SELECT pg_advisory_unlock(${key})`.execute(conn)
    }
  })
}
