// Refreshes every animal's ReferenceTemperature (rules in reference-temperature.rules.ts). The window
// statistics come from the database, one grouped query per user; Node only applies the decision.
// In the service it runs daily at 00:00 UTC (and once at start for a missed midnight); when several
// processes share a database, a PostgreSQL advisory lock lets one of them do it, and the others skip
// the animals it has already refreshed for that midnight.
import { sql, type Kysely } from 'kysely'
import type { DB } from '../db/schema.ts'
import type { App } from '../types.ts'
import {
  VALID_MAX_C,
  VALID_MIN_C,
  WINDOW_DAYS,
  WINDOW_MS,
  lastUtcMidnight,
  nextUtcMidnight,
  referenceFromStats,
} from './reference-temperature.rules.ts'

/** pg_try_advisory_lock key of this job (any constant distinct from other jobs' keys). */
export const REFERENCE_TEMPERATURE_LOCK = 6_105_001

export interface RefreshOptions {
  /** The instant the baseline is computed for: the window is (now - 7 days, now]. */
  now: number
  /** Only this user's animals. */
  uid?: string | undefined
  /** Skip animals already refreshed at or after `now` (the scheduled run; another process may have done them). */
  onlyStale?: boolean
}

export interface RefreshOutcome {
  users: number
  animals: number
  withReference: number
}

export async function refreshReferenceTemperatures(db: Kysely<DB>, options: RefreshOptions): Promise<RefreshOutcome> {
  const { now } = options
  let users = db.selectFrom('animals').select('uid').distinct()
  if (options.uid !== undefined) users = users.where('uid', '=', options.uid)
  const outcome: RefreshOutcome = { users: 0, animals: 0, withReference: 0 }
  for (const { uid } of await users.orderBy('uid').execute()) {
    const { rows } = await sql<{ id: number; first_t: number | null; n: number; med: number | null }>`
      SELECT a.id, f.first_t, s.n, s.med
      FROM animals a
      CROSS JOIN LATERAL (SELECT min(r.t) AS first_t FROM animal_sensor_readings r WHERE r.uid = a.uid AND r.mac = a.mac) f
      CROSS JOIN LATERAL (
        SELECT count(*) AS n, percentile_cont(0.5) WITHIN GROUP (ORDER BY r.c) AS med
        FROM animal_sensor_readings r
        WHERE r.uid = a.uid AND r.mac = a.mac AND r.t > ${now - WINDOW_MS} AND r.t <= ${now}
          AND r.c >= ${VALID_MIN_C} AND r.c <= ${VALID_MAX_C}
      ) s
      WHERE a.uid = ${uid}
        ${options.onlyStale ? sql`AND (a.reference_temperature_updated_at IS NULL OR a.reference_temperature_updated_at < ${now})` : sql``}`.execute(
      db,
    )
    if (rows.length === 0) continue
    const decided = rows.map((r) => ({
      id: r.id,
      value: referenceFromStats({ firstReadingT: r.first_t, validSamples: Number(r.n), validMedian: r.med }, now),
    }))
    await db.transaction().execute(async (trx) => {
      for (const { id, value } of decided) {
        await trx
          .updateTable('animals')
          .set({
            reference_temperature: value,
            reference_temperature_updated_at: now,
            reference_temperature_window_days: WINDOW_DAYS,
          })
          .where('uid', '=', uid)
          .where('id', '=', id)
          .execute()
      }
    })
    outcome.users++
    outcome.animals += decided.length
    outcome.withReference += decided.filter((d) => d.value !== null).length
  }
  return outcome
}

/**
 * Runs fn holding the job's advisory lock on one connection; returns undefined without running it when
 * another process holds the lock.
 */
export async function withJobLock<T>(
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

/** The scheduled run for the midnight `at`. */
export async function runScheduledRefresh(app: App, at: number): Promise<RefreshOutcome | undefined> {
  const outcome = await withJobLock(app.database.background, REFERENCE_TEMPERATURE_LOCK, async (conn) => {
    const result = await refreshReferenceTemperatures(conn, { now: at, onlyStale: true })
    // The embedded store has no autovacuum; without it the visibility map goes stale and reads of the
    // readings tables stop being index-only.
    if (app.database.kind === 'embedded')
      await sql`VACUUM (ANALYZE) animal_sensor_readings, animal_location_readings`.execute(conn)
    return result
  })
  return outcome
}

/** Starts the daily 00:00 UTC schedule, with a catch-up run for the latest midnight. Returns the stop function. */
export function startReferenceTemperatureSchedule(app: App): () => void {
  let timer: NodeJS.Timeout | undefined
  let stopped = false
  const run = async (at: number) => {
    try {
      const outcome = await runScheduledRefresh(app, at)
      if (outcome)
        app.log.info(
          { job: 'reference-temperature', at: new Date(at).toISOString(), ...outcome },
          'reference temperatures refreshed',
        )
      else
        app.log.info({ job: 'reference-temperature' }, 'another process holds the reference-temperature lock; skipped')
    } catch (err) {
      app.log.error(
        { err, job: 'reference-temperature' },
        'reference-temperature job failed; next run at the next midnight',
      )
    }
  }
  const schedule = () => {
    if (stopped) return
    const at = nextUtcMidnight(app.clock())
    timer = setTimeout(() => {
      void run(at).then(schedule)
    }, at - app.clock())
    timer.unref()
  }
  void run(lastUtcMidnight(app.clock())).then(schedule)
  return () => {
    stopped = true
    if (timer) clearTimeout(timer)
  }
}
