// Push-token entries (the spec's UserPhone) of each account. `uid` is the tenant key; deleting the
// user deletes them (ON DELETE CASCADE), like every other table holding a farm's data.
import { sql, type Kysely } from 'kysely'
import { accountTable } from './building-blocks.ts'

export async function up(db: Kysely<unknown>): Promise<void> {
  await accountTable(db, 'user_push_tokens')
    .addColumn('token', 'text', (c) => c.notNull())
    .addColumn('custom_name', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('rank', 'smallint', (c) => c.check(sql`rank BETWEEN 1 AND 3`))
    // ms since epoch the token was added (or last registered again)
    .addColumn('t', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('user_push_tokens_pkey', ['uid', 'token'])
    .execute()
  await db.schema.createIndex('user_push_tokens_uid_t_idx').on('user_push_tokens').columns(['uid', 't']).execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('user_push_tokens').ifExists().execute()
}
