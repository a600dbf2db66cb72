// The delivery log read by one event (`userId` and `eventId`) or by its failed attempts only
// (GET .../deliveries, docs/delivery.md): without these a receiver's question about one event read every attempt
// of the subscription kept for DELIVERY_LOG_RETENTION_DAYS.
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE INDEX delivery_attempts_event_idx
      ON delivery_attempts (integrator_uid, subscription_id, uid, event_id, attempted_at DESC)`.execute(db)
  await sql`
    CREATE INDEX delivery_attempts_failed_idx
      ON delivery_attempts (integrator_uid, subscription_id, attempted_at DESC) WHERE error IS NOT NULL`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX delivery_attempts_failed_idx`.execute(db)
  await sql`DROP INDEX delivery_attempts_event_idx`.execute(db)
}
