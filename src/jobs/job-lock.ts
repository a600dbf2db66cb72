// One runner of a job at a time. Across processes that share a PostgreSQL database, a session-level
// advisory lock decides (pg_try_advisory_lock, which the embedded PGlite has too). Advisory locks are
// re-entrant within one session, and the embedded store is one session for the whole process, so a
// process also remembers which jobs it is running itself.
import type { Kysely } from 'kysely'
import type { DB } from '../db/schema.ts'
import { withJobLock } from './reference-temperature.ts'

const runningHere = new WeakMap<Kysely<DB>, Set<number>>()

/**
 * Runs fn holding the job's lock (queries on `conn` run on the lock's own connection); undefined without
 * running it when this process or another one is running the job already.
 */
export async function withSingleRunner<T>(db: Kysely<DB>, key: number, fn: (conn: Kysely<DB>) => Promise<T>): Promise<T | undefined> {
  let keys = runningHere.get(db)
  if (!keys) runningHere.set(db, keys = new Set())
  if (keys.has(key)) return undefined
  keys.add(key)
  try {
    return await withJobLock(db, key, fn)
  } finally {
    keys.delete(key)
  }
}
