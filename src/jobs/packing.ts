// Packs the readings of closed hours (docs/storage.md#readings): every PACKING_INTERVAL_SECONDS (10 minutes), for each tag with readings
// older than the last closed hour, one short transaction per tag moves them into the packed part. The transaction
// holds the owner's row (FOR UPDATE), which ingestion of that tag holds too (FOR KEY SHARE): a reading is in
// exactly one part whenever either looks. Late readings for a packed hour arrive as rows and are merged into it
// the next time. One process packs at a time (withSingleRunner).
import { sql, type Kysely } from 'kysely'
import type { DB } from '../db/schema.ts'
import type { App } from '../types.ts'
import { lockOwner, packTag } from '../modules/readings/readings.repository.ts'
import { SERIES, hourOf, type ReadingKind } from '../modules/readings/readings.series.ts'
import { withSingleRunner } from './single-runner.ts'

/** pg_try_advisory_lock key of this job (distinct from the other jobs' keys). */
export const PACKING_LOCK = 6_105_004
/** An hour is closed this long after its end: gateways send its last readings a little late (later ones merge in). */
export const PACK_DELAY_MS = 15 * 60_000

export interface PackOutcome {
  tags: number
  readings: number
}

/** The first t (in the series' unit) not yet closed at `now`: readings before it are packed. */
export function packBefore(kind: ReadingKind, now: number): number {
  const series = SERIES[kind]
  const hour = hourOf(series)
  const closedBy = (now - PACK_DELAY_MS) / series.msPerT
  return Math.floor(closedBy / hour) * hour
}

/** Packs every tag's closed hours (of one user, or all); each tag in its own short transaction. */
export async function packReadings(db: Kysely<DB>, options: { now: number; uid?: string }): Promise<PackOutcome> {
  const outcome: PackOutcome = { tags: 0, readings: 0 }
  for (const kind of Object.keys(SERIES) as ReadingKind[]) {
    const series = SERIES[kind]
    const before = packBefore(kind, options.now)
    const { rows: tags } = await sql<{ uid: string; mac: string }>`
      SELECT DISTINCT uid, mac FROM ${sql.table(series.table)}
      WHERE t < ${before} ${options.uid === undefined ? sql`` : sql`AND uid = ${options.uid}`}
      ORDER BY uid, mac`.execute(db)
    for (const { uid, mac } of tags) {
      const moved = await db.transaction().execute(async (trx) => {
        const owned = await lockOwner(trx, series, uid, mac, 'UPDATE')
        return owned ? packTag(trx, series, uid, mac, before) : 0
      })
      if (moved > 0) outcome.tags++
      outcome.readings += moved
    }
    // The moved rows' space is reused by the next hour's rows only once vacuumed (docs/storage.md#readings).
    if (tags.length > 0) await sql`VACUUM ${sql.table(series.table)}`.execute(db)
  }
  return outcome
}

/** The scheduled run: every process may call it; one packs, the others skip. */
export function runScheduledPacking(app: App, now: number): Promise<PackOutcome | undefined> {
  return withSingleRunner(app.database, PACKING_LOCK, (conn) => packReadings(conn, { now }))
}

/** Packs at start and every PACKING_INTERVAL_SECONDS. Returns the stop function. */
export function startPackingSchedule(app: App): () => void {
  const run = async () => {
    try {
      const outcome = await runScheduledPacking(app, app.clock())
      if (outcome && outcome.readings > 0) app.log.info({ job: 'packing', ...outcome }, 'readings packed')
    } catch (err) {
      app.log.error({ err, job: 'packing' }, 'packing readings failed; the next run packs them')
    }
  }
  const timer = setInterval(() => void run(), app.config.readings.packingIntervalSeconds * 1000)
  timer.unref()
  void run()
  return () => clearInterval(timer)
}
