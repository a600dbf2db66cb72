// An owner's e-mail change waiting for confirmation from the new address (docs/users.md#changing-the-e-mail-address):
// at most one per account, the code kept only as its SHA-256.
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE email_changes (
      uid text PRIMARY KEY REFERENCES users (uid) ON DELETE CASCADE,
      new_email text NOT NULL,
      code_hash text NOT NULL,
      expires_at bigint NOT NULL,
      created_at bigint NOT NULL
    )`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE email_changes`.execute(db)
}
