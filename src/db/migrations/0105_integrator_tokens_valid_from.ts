// A new client secret ends what the old one obtained (docs/authentication-and-limits.md#tokens): an integrator token
// issued before `tokens_valid_from` is refused as revoked. Null: no secret was ever changed.
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE integrators ADD COLUMN tokens_valid_from timestamptz`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE integrators DROP COLUMN tokens_valid_from`.execute(db)
}
