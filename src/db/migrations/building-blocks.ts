// What several released migrations declare alike, declared once. Frozen: each block is part of the SQL those
// migrations ran on farms, so none ever changes (test/db/released-migrations.test.ts fails if one does); a migration
// that wants another shape writes its own or adds a block. Not a migration itself: index.ts lists the migrations.
import { sql, type ColumnDefinitionBuilder, type CreateTableBuilder, type Kysely } from 'kysely'

/** The tenant key: the owning account's Uid, and the row goes with the account (Kysely column builder). */
export const tenantKey = (c: ColumnDefinitionBuilder) => c.notNull().references('users.uid').onDelete('cascade')

/** The account a row was about when there was one (NULL outside an account); it goes with the account. */
export const accountIfAny = (c: ColumnDefinitionBuilder) => c.references('users.uid').onDelete('cascade')

/** The tenant key as a column of a table written in SQL. */
export const TENANT_KEY = sql.raw('uid text NOT NULL REFERENCES users (uid) ON DELETE CASCADE')

/** The key of a table with one row per account: the account's Uid; the row goes with the account. */
export const ONE_ROW_PER_ACCOUNT = sql.raw('uid text PRIMARY KEY REFERENCES users (uid) ON DELETE CASCADE')

/** A table of an account's data, opened with its tenant key. */
export function accountTable(db: Kysely<unknown>, table: string) {
  return db.schema.createTable(table).addColumn('uid', 'text', tenantKey)
}

/** When a row was created and last updated (the store's clock). */
export function rowTimestamps<T extends string, C extends string>(table: CreateTableBuilder<T, C>) {
  return table
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
}

/** A tag's or device's MAC, in the one form the API stores: six upper-case hex pairs joined by colons. */
export const canonicalMac = (c: ColumnDefinitionBuilder) =>
  c.notNull().check(sql`mac ~ '^[0-9A-F]{2}(:[0-9A-F]{2}){5}$'`)

/**
 * A readings series' table: one row a reading, keyed (uid, mac, t), the key INCLUDEs the payload so that a read of
 * one tag is an index-only range scan (docs/storage.md).
 */
export function readingsTable(table: string, payload: Record<string, string>) {
  const columns = Object.entries(payload).map(([name, type]) => `      ${name} ${type} NOT NULL,\n`)
  return sql`
    CREATE TABLE ${sql.raw(table)} (
      ${TENANT_KEY},
      mac text NOT NULL,
      t bigint NOT NULL,
${sql.raw(columns.join(''))}      CONSTRAINT ${sql.raw(`${table}_pkey`)} PRIMARY KEY (uid, mac, t) INCLUDE (${sql.raw(Object.keys(payload).join(', '))})
    )`
}

/**
 * The readings table of an accelerometer tag (an animal's ear tag or a litter device): temperature `c` and
 * acceleration `x`, `y`, `z`.
 */
export function sensorReadingsTable(table: string) {
  return readingsTable(table, {
    c: 'double precision',
    x: 'double precision',
    y: 'double precision',
    z: 'double precision',
  })
}

/** The storage settings of every readings table (0003 says why). */
export const READINGS_STORAGE = sql.raw(
  'autovacuum_vacuum_insert_scale_factor = 0.01, autovacuum_vacuum_insert_threshold = 100000, parallel_workers = 0',
)

/** sqrt(x² + y² + z²) in SQL; a component whose square underflows float8 counts as 0 (PostgreSQL refuses it). */
export const MAGNITUDE = sql.raw(
  ['x', 'y', 'z'].map((v) => `CASE WHEN abs(${v}) < 1e-150 THEN 0 ELSE ${v} * ${v} END`).join(' + '),
)
