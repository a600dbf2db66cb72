// Idempotency keys (plugins/idempotency.ts): the first response to a create, kept for 24 hours so that
// a retry with the same key gets it again instead of creating twice. In PostgreSQL, so every process
// sees them. uid is the account the request acted on (the tenant key; NULL for POST /users): deleting
// the account deletes its keys and the responses they hold.
import { sql, type Kysely } from 'kysely'
import { accountIfAny } from './building-blocks.ts'

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('idempotency_keys')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('uid', 'text', accountIfAny)
    // integrator:<uid> or user:<uid>: keys are scoped to the caller
    .addColumn('caller', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    // SHA-256 of method, path and canonical body: the same key with another request is a 422
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    // random token of the request that holds the key while it runs
    .addColumn('owner', 'text', (c) => c.notNull())
    // NULL while the first request is in flight
    .addColumn('status_code', 'integer')
    .addColumn('body', 'text')
    .addColumn('location', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    // an in-flight claim older than this was abandoned (its process died) and may be taken over
    .addColumn('locked_until', 'bigint', (c) => c.notNull())
    .execute()
  await sql`CREATE UNIQUE INDEX idempotency_keys_scope_key ON idempotency_keys (coalesce(uid, ''), caller, key)`.execute(
    db,
  )
  await db.schema.createIndex('idempotency_keys_created_idx').on('idempotency_keys').column('created_at').execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('idempotency_keys').ifExists().execute()
}
