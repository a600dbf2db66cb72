// A push delivery goes to every phone and browser of the ranks its event notifies. When one of them fails (a
// push service's 5xx, no answer) the delivery is tried again: without this column the retry sent the alert again
// to every phone and browser that had already shown it. It names the targets the delivery is done with
// (delivered, gone or refused for good), so that a retry sends only to the rest (docs/delivery.md).
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE deliveries ADD COLUMN push_targets_done text[] NOT NULL DEFAULT '{}'`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE deliveries DROP COLUMN push_targets_done`.execute(db)
}
