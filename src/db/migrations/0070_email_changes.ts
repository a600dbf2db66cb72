// An owner's e-mail change waiting for confirmation from the new address (docs/users.md#changing-the-e-mail-address):
// at most one per account, the code kept only as its SHA-256.
import { sql, type Kysely } from 'kysely'
import { ONE_ROW_PER_ACCOUNT } from './building-blocks.ts'

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE email_changes (
      ${ONE_ROW_PER_ACCOUNT},
      new_email text NOT NULL,
      code_hash text NOT NULL,
      expires_at bigint NOT NULL,
      created_at bigint NOT NULL
    )`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE email_changes`.execute(db)
}
