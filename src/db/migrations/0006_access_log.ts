// The access log (the spec's UsageRecord): one row per request an integrator token made. uid is the
// account whose data the request read or wrote (the tenant key); it is NULL for requests outside an
// account (POST /tokens/revoke, GET /tokens/usage) and for requests refused because no link allowed them.
// Deleting the account deletes its rows; deleting the integrator deletes its rows.
import { sql, type Kysely } from 'kysely'
import { accountIfAny } from './building-blocks.ts'

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('access_log')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('uid', 'text', accountIfAny)
    .addColumn('integrator_uid', 'text', (c) => c.notNull().references('integrators.uid').onDelete('cascade'))
    .addColumn('at', 'timestamptz', (c) => c.notNull())
    .addColumn('method', 'text', (c) => c.notNull())
    // the route template (/api/v1/users/:userId/animals), never the concrete path: no ids or query strings
    .addColumn('endpoint', 'text', (c) => c.notNull())
    .addColumn('response_code', 'smallint', (c) => c.notNull())
    .addColumn('response_time_ms', 'double precision', (c) => c.notNull())
    .addColumn('data_size', 'integer')
    .addColumn('user_agent', 'text')
    .addColumn('ip_address', 'text')
    .execute()
  await sql`CREATE INDEX access_log_account_idx ON access_log (uid, at DESC, id DESC) WHERE uid IS NOT NULL`.execute(db)
  await db.schema.createIndex('access_log_integrator_idx').on('access_log').columns(['integrator_uid', 'at']).execute()
  await db.schema.createIndex('access_log_at_idx').on('access_log').column('at').execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('access_log').ifExists().execute()
}
