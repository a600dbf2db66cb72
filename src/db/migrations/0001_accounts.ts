// Accounts: users, integrators, the links between them, and the durable token state (refresh-token
// families, revocations). users and user_integrator_links carry the user's Uid as tenant key;
// integrators and the token tables are global (a sharded deployment keeps them as reference tables).
import { sql, type Kysely } from 'kysely'
import { accountTable, rowTimestamps } from './building-blocks.ts'

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('users')
    .addColumn('uid', 'text', (c) => c.primaryKey())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('phone', 'text')
    .addColumn('language', 'text')
    .addColumn('flagged', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('inactive', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('bd_user', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('admin', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('request_deletion', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('beta_user', 'boolean')
    // <Vendor>Integration flags: {"AcmeIntegration": true, ...}
    .addColumn('integration_flags', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('password_hash', 'text')
    .addColumn('password_changed_at', 'timestamptz')
    .$call(rowTimestamps)
    .execute()
  await sql`CREATE UNIQUE INDEX users_email_lower_key ON users (lower(email))`.execute(db)

  await db.schema
    .createTable('integrators')
    .addColumn('uid', 'text', (c) => c.primaryKey())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('tier', 'text', (c) => c.notNull().check(sql`tier IN ('free', 'starter', 'pro', 'enterprise')`))
    .addColumn('is_active', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('can_read', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('can_write', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('can_delete', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('client_secret_hash', 'text')
    .$call(rowTimestamps)
    .execute()

  await accountTable(db, 'user_integrator_links')
    .addColumn('integrator_uid', 'text', (c) => c.notNull().references('integrators.uid').onDelete('cascade'))
    .addColumn('linked_by', 'text', (c) => c.notNull().check(sql`linked_by IN ('owner', 'operator')`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('user_integrator_links_pkey', ['uid', 'integrator_uid'])
    .execute()
  await db.schema
    .createIndex('user_integrator_links_integrator_idx')
    .on('user_integrator_links')
    .column('integrator_uid')
    .execute()

  // One row per refresh token ever issued. Rotation marks a row used and adds the next one in the same
  // family; a used token presented again revokes the whole family (reuse detection).
  await db.schema
    .createTable('refresh_tokens')
    .addColumn('jti', 'text', (c) => c.primaryKey())
    .addColumn('family_id', 'text', (c) => c.notNull())
    .addColumn('subject_kind', 'text', (c) => c.notNull().check(sql`subject_kind IN ('integrator', 'user')`))
    .addColumn('subject_id', 'text', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull())
    .addColumn('access_jti', 'text', (c) => c.notNull())
    .addColumn('access_expires_at', 'bigint', (c) => c.notNull())
    .addColumn('access_ttl_seconds', 'integer', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('used_at', 'bigint')
    .addColumn('revoked_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('refresh_tokens_family_idx').on('refresh_tokens').column('family_id').execute()
  await db.schema.createIndex('refresh_tokens_access_jti_idx').on('refresh_tokens').column('access_jti').execute()
  await db.schema.createIndex('refresh_tokens_expires_idx').on('refresh_tokens').column('expires_at').execute()

  // Revoked access tokens until they would have expired anyway; pruned after that.
  await db.schema
    .createTable('revoked_tokens')
    .addColumn('jti', 'text', (c) => c.primaryKey())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('revoked_at', 'bigint', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('revoked_tokens_expires_idx').on('revoked_tokens').column('expires_at').execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['revoked_tokens', 'refresh_tokens', 'user_integrator_links', 'integrators', 'users']) {
    await db.schema.dropTable(table).ifExists().execute()
  }
}
