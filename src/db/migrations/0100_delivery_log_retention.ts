// The maintenance job prunes the delivery log (docs/operations.md#retention): finished deliveries by the time
// their last attempt was due, and attempts by when they were made. Both walk these indexes from the oldest row
// instead of reading the whole table each run; pending deliveries are outside the first one, as they are never pruned.
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE INDEX deliveries_finished_idx ON deliveries (next_attempt_at) WHERE status <> 'pending'`.execute(db)
  await sql`CREATE INDEX delivery_attempts_attempted_at_idx ON delivery_attempts (attempted_at)`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX delivery_attempts_attempted_at_idx`.execute(db)
  await sql`DROP INDEX deliveries_finished_idx`.execute(db)
}
