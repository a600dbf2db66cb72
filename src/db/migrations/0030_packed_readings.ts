// The packed part of the three readings series (docs/storage.md#readings). Readings arrive in the tables of
// 0003 and 0007 (the recent part, one row a reading); the packing job moves each closed hour of one tag into one
// row of arrays: offsets from the hour and values scaled to small integers, exact (an hour whose values do not fit
// its scales stays as rows). Keyed (uid, mac, hour), the tenant first, like every readings key; `n` (the readings
// in the row) is in the key so that a read finds how many hours it needs without detoasting them.
// STORAGE MAIN and a low toast_tuple_target: PostgreSQL compresses a row's arrays in place from 128 bytes on.
import { sql, type Kysely } from 'kysely'
import { TENANT_KEY } from './building-blocks.ts'

/** An accelerometer tag's packed hour (ear tag or litter device). */
const SENSOR_PACKED =
  'dt integer[] NOT NULL, c smallint[] NOT NULL, x smallint[] NOT NULL, y smallint[] NOT NULL, z smallint[] NOT NULL'

const TABLES = {
  animal_sensor_packed: SENSOR_PACKED,
  animal_location_packed:
    'dt integer[] NOT NULL, rssi smallint[] NOT NULL, nodes text[] NOT NULL, node smallint[] NOT NULL',
  litterguard_packed: SENSOR_PACKED,
}

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const [table, columns] of Object.entries(TABLES)) {
    await sql`
      CREATE TABLE ${sql.table(table)} (
        ${TENANT_KEY},
        mac text NOT NULL,
        hour bigint NOT NULL,
        n integer NOT NULL,
        ${sql.raw(columns)},
        CONSTRAINT ${sql.raw(`${table}_pkey`)} PRIMARY KEY (uid, mac, hour) INCLUDE (n)
      )`.execute(db)
    for (const column of columns.split(',').map((c) => c.trim().split(' ')[0]!))
      await sql`ALTER TABLE ${sql.table(table)} ALTER COLUMN ${sql.ref(column)} SET STORAGE MAIN`.execute(db)
    await sql`ALTER TABLE ${sql.table(table)} SET (toast_tuple_target = 128, parallel_workers = 0)`.execute(db)
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of Object.keys(TABLES)) await db.schema.dropTable(table).ifExists().execute()
}
