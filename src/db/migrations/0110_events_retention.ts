// The maintenance job prunes settled events (docs/operations.md#retention): resolved ones by when they were
// resolved, and all-clears (temperature-normal, litter-online, tag-heard: nothing resolves them) by when they were
// created, the time COALESCE(resolved_at, created_at) gives either. The walk goes from the oldest entry of this
// index instead of reading the whole table each run; open and acknowledged events are outside it, as they are never
// pruned. Its predicate is the prune's own (events.repository.ts pruneEvents), so that the planner may use it.
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE INDEX events_settled_idx ON events ((COALESCE(resolved_at, created_at)))
    WHERE status = 'resolved' OR event_type IN ('temperature-normal', 'litter-online', 'tag-heard')`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX events_settled_idx`.execute(db)
}
