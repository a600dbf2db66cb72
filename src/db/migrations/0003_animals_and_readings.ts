// Animals (the registry) and their ear-tag time series: sensor readings and location detections.
// Readings are keyed (uid, mac, t): one B-tree entry per reading, ordered per tag by time, so a
// time-range read of one tag is one index range scan whatever the farm's size. The key INCLUDEs the
// payload columns: reads become index-only scans that never visit the heap, where one tag's rows lie
// scattered among every other tag's (they arrive interleaved in time). Sizes: docs/storage.md.
import { sql, type Kysely } from 'kysely'
import {
  accountTable,
  canonicalMac,
  readingsTable,
  READINGS_STORAGE,
  rowTimestamps,
  sensorReadingsTable,
} from './building-blocks.ts'

export async function up(db: Kysely<unknown>): Promise<void> {
  await accountTable(db, 'animals')
    // Creation time in ms (the API's ID, as a decimal string), unique per user.
    .addColumn('id', 'bigint', (c) => c.notNull())
    .addColumn('mac', 'text', canonicalMac)
    .addColumn('sex', 'text', (c) => c.notNull().check(sql`sex IN ('male', 'female')`))
    .addColumn('active', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('battery', 'double precision', (c) => c.check(sql`battery BETWEEN 0 AND 100`))
    .addColumn('current_activity', 'double precision')
    .addColumn('current_temperature', 'double precision')
    .addColumn('reference_temperature', 'double precision')
    .addColumn('reference_temperature_updated_at', 'bigint')
    .addColumn('reference_temperature_window_days', 'integer')
    .addColumn('eartag_start', 'double precision')
    .addColumn('father', 'text')
    .addColumn('mother', 'text')
    .addColumn('group_name', 'text')
    .addColumn('node', 'text')
    .addColumn('node_weight', 'double precision')
    .addColumn('signal_strength', 'double precision')
    .addColumn('watchdog_weight', 'double precision')
    // Latest sensor reading's time once there is one, else the creation time.
    .addColumn('t', 'bigint', (c) => c.notNull())
    .addColumn('suspicious', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('health_score', 'double precision', (c) => c.check(sql`health_score BETWEEN 0 AND 100`))
    .addColumn('diagnosed', 'jsonb')
    // Times of the readings the latest state was taken from, so an older batch arriving late never overwrites it.
    .addColumn('last_sensor_t', 'bigint')
    .addColumn('last_location_t', 'bigint')
    .$call(rowTimestamps)
    .addPrimaryKeyConstraint('animals_pkey', ['uid', 'id'])
    .addUniqueConstraint('animals_uid_mac_key', ['uid', 'mac'])
    .execute()

  await sensorReadingsTable('animal_sensor_readings').execute(db)
  await readingsTable('animal_location_readings', { rssi: 'double precision', nodeuid: 'text' }).execute(db)

  // Index-only scans need the visibility map current. These tables only grow, and the default insert
  // threshold (20% of the table) would leave weeks of a large table unvacuumed; vacuum every ~1%.
  // Every read is one tag's range (at most ~43,000 entries for 30 days of analytics): on a large table the
  // planner would pick a parallel scan whose worker start-up costs more than it saves, and takes cores
  // from concurrent requests; parallel_workers = 0 keeps these scans serial.
  for (const table of ['animal_sensor_readings', 'animal_location_readings']) {
    await sql`ALTER TABLE ${sql.table(table)} SET (${READINGS_STORAGE})`.execute(db)
  }
}
