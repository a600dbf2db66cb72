// Refreshes every animal's ReferenceTemperature (rules in reference-temperature.rules.ts). The window
// statistics come from the hourly rollups, one grouped query per user; Node only applies the decision.
// In the service it runs daily at 00:00 UTC (and once at start for a missed midnight) as the job's single
// runner; a run skips the animals already refreshed for that midnight (by another process, or before a restart).
import type { Kysely } from 'kysely'
import type { DB } from '../db/schema.ts'
import type { Database } from '../db/database.ts'
import type { App } from '../types.ts'
import { setReferenceTemperatures, uidsWithAnimals } from '../modules/animals/animals.repository.ts'
import { hourlyTemperatureStats, vacuumReadings } from '../modules/readings/readings.repository.ts'
import { VALID_TEMPERATURE } from '../modules/readings/readings.rules.ts'
import {
  VALID_MAX_C,
  VALID_MIN_C,
  WINDOW_DAYS,
  lastUtcMidnight,
  nextUtcMidnight,
  referenceFromStats,
  windowHours,
} from './reference-temperature.rules.ts'
import { runJobOnce, startSchedule, type ScheduledJob } from './scheduler.ts'
import { withSingleRunner } from './single-runner.ts'

/** The job's single-runner key (any constant distinct from other jobs' keys). */
export const REFERENCE_TEMPERATURE_LOCK = 6_105_001

export interface RefreshOptions {
  /** The instant the baseline is computed for: the window is the 7 days of whole hours before it (windowHours). */
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
  if (VALID_MIN_C !== VALID_TEMPERATURE.min || VALID_MAX_C !== VALID_TEMPERATURE.max)
    throw new Error('reference temperature: the valid range is not the one the rollups count by (readings.rules.ts)')
  const outcome: RefreshOutcome = { users: 0, animals: 0, withReference: 0 }
  for (const uid of await uidsWithAnimals(db, { activeOnly: false, uid: options.uid })) {
    const rows = await hourlyTemperatureStats(db, uid, {
      ...windowHours(now),
      staleBefore: options.onlyStale ? now : undefined,
    })
    if (rows.length === 0) continue
    const decided = rows.map((r) => ({
      id: r.id,
      value: referenceFromStats({ firstReadingT: r.first_t, validSamples: r.n, validMedian: r.med }, now),
    }))
    await setReferenceTemperatures(db, uid, decided, now, WINDOW_DAYS)
    outcome.users++
    outcome.animals += decided.length
    outcome.withReference += decided.filter((d) => d.value !== null).length
  }
  return outcome
}

/** On demand (the CLI): every animal (or the user's), as the job's single runner; undefined while another runs it. */
export function refreshNow(database: Database, options: RefreshOptions): Promise<RefreshOutcome | undefined> {
  return withSingleRunner(database, REFERENCE_TEMPERATURE_LOCK, (conn) => refreshReferenceTemperatures(conn, options))
}

/** The daily job at 00:00 UTC, with a catch-up run at start for the latest midnight. */
export function referenceTemperatureJob(database: Database): ScheduledJob<RefreshOutcome> {
  return {
    name: 'reference-temperature',
    lockKey: REFERENCE_TEMPERATURE_LOCK,
    firstRunAt: lastUtcMidnight,
    nextRunAt: nextUtcMidnight,
    run: async (conn, at) => {
      const result = await refreshReferenceTemperatures(conn, { now: at, onlyStale: true })
      if (database.kind === 'embedded') await vacuumReadings(conn)
      return result
    },
    done: 'reference temperatures refreshed',
  }
}

/** The scheduled run for the midnight `at`; undefined while another runner has the job. */
export function runScheduledRefresh(app: App, at: number): Promise<RefreshOutcome | undefined> {
  return runJobOnce(app, referenceTemperatureJob(app.database), at)
}

/** Starts the daily 00:00 UTC schedule, with a catch-up run for the latest midnight. Returns the stop function. */
export function startReferenceTemperatureSchedule(app: App): () => void {
  return startSchedule(app, referenceTemperatureJob(app.database))
}
