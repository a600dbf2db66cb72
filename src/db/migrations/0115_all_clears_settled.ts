// An all-clear (temperature-normal, tag-heard, litter-online: the event that says a condition is over) was stored
// open and stayed open, so it counted among the events needing attention and could be acknowledged. It is now stored
// resolved by the service at its creation (events.repository.ts eventStatement); this settles those stored before
// the same way. One statement, whose predicate is that of events_open_idx (migration 0020: unresolved events only),
// so that it reads that index and not the whole table.
import { sql, type Kysely } from 'kysely'

const ALL_CLEARS = sql`('temperature-normal', 'litter-online', 'tag-heard')`

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    UPDATE events SET status = 'resolved', resolved_by = 'service', resolved_at = created_at
    WHERE status <> 'resolved' AND event_type IN ${ALL_CLEARS}`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    UPDATE events SET status = CASE WHEN acknowledged_at IS NULL THEN 'open' ELSE 'acknowledged' END,
      resolved_by = NULL, resolved_at = NULL
    WHERE status = 'resolved' AND resolved_by = 'service' AND resolved_at = created_at AND event_type IN ${ALL_CLEARS}`.execute(
    db,
  )
}
