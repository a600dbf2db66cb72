// Animals (the registry) and their ear-tag time series: sensor readings and location detections.
// Readings are keyed (uid, mac, t): one B-tree entry per reading, ordered per tag by time, so a
// time-range read of one tag is one index range scan whatever the farm's size. The key INCLUDEs the
// payload columns: reads become index-only scans that never visit the heap, where one tag's rows lie
// scattered among every other tag's (they arrive interleaved in time). Sizes: docs/storage.md.
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('animals')
    .addColumn('uid', 'text', (c) => c.notNull().references('users.uid').onDelete('cascade'))
    // Creation time in ms (the API's ID, as a decimal string), unique per user.
    .addColumn('id', 'bigint', (c) => c.notNull())
    .addColumn('mac', 'text', (c) => c.notNull().check(sql`mac ~ '^[0-9A-F]{2}(:[0-9A-F]{2}){5}$'`))
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
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('animals_pkey', ['uid', 'id'])
    .addUniqueConstraint('animals_uid_mac_key', ['uid', 'mac'])
    .execute()

  await sql`
    CREATE TABLE animal_sensor_readings (
      uid text NOT NULL REFERENCES users (uid) ON DELETE CASCADE,
      mac text NOT NULL,
      t bigint NOT NULL,
      c double precision NOT NULL,
      x double precision NOT NULL,
      y double precision NOT NULL,
      z double precision NOT NULL,
      CONSTRAINT animal_sensor_readings_pkey PRIMARY KEY (uid, mac, t) INCLUDE (c, x, y, z)
    )`.execute(db)

  await sql`
    CREATE TABLE animal_location_readings (
      uid text NOT NULL REFERENCES users (uid) ON DELETE CASCADE,
      mac text NOT NULL,
      t bigint NOT NULL,
      rssi double precision NOT NULL,
      nodeuid text NOT NULL,
      CONSTRAINT animal_location_readings_pkey PRIMARY KEY (uid, mac, t) INCLUDE (rssi, nodeuid)
    )`.execute(db)

  // Index-only scans need the visibility map current. These tables only grow, and the default insert
  // threshold (20% of the table) would leave weeks of a large table unvacuumed; vacuum every ~1%.
  // Every read is one tag's range (at most ~43,000 entries for 30 days of analytics): on a large table the
  // planner would pick a parallel scan whose worker start-up costs more than it saves, and takes cores
  // from concurrent requests; parallel_workers = 0 keeps these scans serial.
  for (const table of ['animal_sensor_readings', 'animal_location_readings']) {
    await sql`ALTER TABLE ${sql.table(table)} SET (autovacuum_vacuum_insert_scale_factor = 0.01, autovacuum_vacuum_insert_threshold = 100000, parallel_workers = 0)`.execute(
      db,
    )
  }
}
