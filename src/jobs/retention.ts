// Retention (docs/operations.md#retention): the maintenance job deletes raw readings, hourly rollups, settled
// events and predictions (but for alarms) older than their settings, in statements of at most RETENTION_BATCH_ROWS
// rows, each its own short transaction, then vacuums what lost rows so that new rows reuse the space.
import { sql, type Kysely } from 'kysely'
import type { RetentionConfig } from '../config.ts'
import type { DB } from '../db/schema.ts'
import { pruneEvents } from '../modules/events/events.repository.ts'
import { prunePredictions } from '../modules/predictions/predictions.repository.ts'
import { pruneReadings, pruneRollups } from '../modules/readings/readings.repository.ts'
import { SERIES } from '../modules/readings/readings.series.ts'
import { retainedFrom } from '../modules/readings/readings.rules.ts'

const DAY_MS = 86_400_000

/** Deletes what the settings no longer keep at `at` (ms); the rows deleted per table. */
export async function applyRetention(
  db: Kysely<DB>,
  retention: RetentionConfig,
  at: number,
): Promise<Record<string, number>> {
  const deleted: Record<string, number> = {}
  if (retention.readingsDays > 0)
    for (const series of Object.values(SERIES))
      Object.assign(
        deleted,
        await pruneReadings(db, series, retainedFrom(series.msPerT, at, retention.readingsDays), retention.batchRows),
      )
  if (retention.rollupsDays > 0)
    for (const series of Object.values(SERIES))
      Object.assign(
        deleted,
        await pruneRollups(db, series, retainedFrom(series.msPerT, at, retention.rollupsDays), retention.batchRows),
      )
  // Before the predictions: a prediction that a pruned alarm event named is then kept no longer.
  if (retention.eventsDays > 0)
    deleted.events = await pruneEvents(db, at - retention.eventsDays * DAY_MS, retention.batchRows)
  if (retention.predictionsDays > 0)
    deleted.predictions = await prunePredictions(db, at - retention.predictionsDays * DAY_MS, retention.batchRows)
  for (const [table, count] of Object.entries(deleted)) if (count > 0) await sql`VACUUM ${sql.table(table)}`.execute(db)
  return deleted
}
