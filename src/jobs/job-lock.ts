// One runner of a job at a time. Processes sharing a PostgreSQL database agree through a session-level
// advisory lock (pg_try_advisory_lock). The embedded store needs none: its data folder admits one process
// (database.ts), and there holding a lock would hold the store's only connection for the whole job, which
// Kysely serializes, stalling every request meanwhile. (PGlite has advisory locks too, but in its single
// session they are re-entrant, so they would not stop a second run anyway.) Within a process, a job that is
// already running is not started again.
import type { Kysely } from 'kysely'
import type { Database } from '../db/database.ts'
import type { DB } from '../db/schema.ts'
import { withJobLock } from './reference-temperature.ts'

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
      ? await fn(database.background)
      : await withJobLock(database.background, key, fn)
  } finally {
    keys.delete(key)
  }
}
