// The browsers an account registered for Web Push (RFC 8030, 8291, 8292): the farm app on a phone gets the
// account's alerts while it is closed. One row per browser subscription, keyed by the account first (the tenant
// key); the endpoint is the browser vendor's push service URL for that browser, unique within the account.
import { sql, type Kysely } from 'kysely'
import { accountTable } from './building-blocks.ts'

export async function up(db: Kysely<unknown>): Promise<void> {
  await accountTable(db, 'web_push_subscriptions')
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('endpoint', 'text', (c) => c.notNull())
    // The browser's P-256 public key (65 bytes, uncompressed) and its 16-byte auth secret, base64url.
    .addColumn('p256dh', 'text', (c) => c.notNull())
    .addColumn('auth', 'text', (c) => c.notNull())
    .addColumn('rank', 'smallint', (c) => c.check(sql`rank BETWEEN 1 AND 3`))
    .addColumn('name', 'text')
    // ms since epoch
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('last_delivered_at', 'bigint')
    .addPrimaryKeyConstraint('web_push_subscriptions_pkey', ['uid', 'id'])
    .addUniqueConstraint('web_push_subscriptions_endpoint_key', ['uid', 'endpoint'])
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('web_push_subscriptions').ifExists().execute()
}
