// Refresh-token families (modules/tokens/token-lifecycle.ts): one row per session, whose revocation time
// covers every token the session will ever hold. A rotation locks its family row, checks it is not revoked
// and inserts the next token in one transaction; a revocation locks the same row first, so it waits for a
// rotation in flight and then revokes what that rotation issued. Without it a reuse detected while the
// winner's rotation ran left the winner's new tokens working (docs/security.md).
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('token_families')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('subject_kind', 'text', (c) => c.notNull().check(sql`subject_kind IN ('integrator', 'user')`))
    .addColumn('subject_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('revoked_at', 'bigint')
    .execute()
  await db.schema
    .createIndex('token_families_subject_idx')
    .on('token_families')
    .columns(['subject_kind', 'subject_id'])
    .execute()
  // The families of the tokens issued before this migration; a family whose every token is revoked is revoked.
  await sql`
    INSERT INTO token_families (id, subject_kind, subject_id, created_at, revoked_at)
    SELECT family_id, min(subject_kind), min(subject_id), min(created_at),
           CASE WHEN bool_and(revoked_at IS NOT NULL) THEN max(revoked_at) END
    FROM refresh_tokens GROUP BY family_id`.execute(db)
  await sql`
    ALTER TABLE refresh_tokens ADD CONSTRAINT refresh_tokens_family_fk
    FOREIGN KEY (family_id) REFERENCES token_families (id) ON DELETE CASCADE`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE refresh_tokens DROP CONSTRAINT IF EXISTS refresh_tokens_family_fk`.execute(db)
  await db.schema.dropTable('token_families').ifExists().execute()
}
