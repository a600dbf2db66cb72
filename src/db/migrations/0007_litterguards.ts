// Litter-monitoring devices ("litterguards") and their readings. A device is named by its MAC within
// the account: keyed (uid, mac), the MAC never changes (a different MAC is a different device).
// Readings are keyed (uid, mac, t) with t in Unix SECONDS: the key makes ingestion idempotent on
// (MAC, t), and read backwards it serves the newest-first reads; like the ear-tag readings, the key
// INCLUDEs the payload, so reads of one device are index-only scans (0003, docs/storage.md).
// LastSeen and CurrentTemperature are kept on the device row by the ingestion transaction (docs/litterguards.md
// has the measurement behind that); Active is derived from last_seen when read.
import { sql, type Kysely } from 'kysely'
import { accountTable, canonicalMac, READINGS_STORAGE, rowTimestamps, sensorReadingsTable } from './building-blocks.ts'

export async function up(db: Kysely<unknown>): Promise<void> {
  await accountTable(db, 'litterguards')
    .addColumn('mac', 'text', canonicalMac)
    .addColumn('name', 'text', (c) => c.notNull())
    // Registration time, ms since epoch (the list's default sort, like every other list's t).
    .addColumn('t', 'bigint', (c) => c.notNull())
    // The newest reading's t (Unix seconds) and c; NULL until the first reading.
    .addColumn('last_seen', 'bigint')
    .addColumn('current_temperature', 'double precision')
    .$call(rowTimestamps)
    .addPrimaryKeyConstraint('litterguards_pkey', ['uid', 'mac'])
    .execute()

  await sensorReadingsTable('litterguard_readings').execute(db)
  // As for the ear-tag readings (0003): frequent insert-driven vacuums keep index-only scans index-only,
  // and one device's range is too small a read for parallel workers to pay off.
  await sql`ALTER TABLE litterguard_readings SET (${READINGS_STORAGE})`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('litterguard_readings').ifExists().execute()
  await db.schema.dropTable('litterguards').ifExists().execute()
}
