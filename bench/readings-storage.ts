// Bytes a sensor reading on disk (table + indexes, TOAST included), packed layout against row per reading:
// TAGS tags written live minute by minute (each minute one multi-row insert across the herd), the packing job run
// after each hour as the service runs it, then VACUUM ANALYZE. `node bench/readings-storage.ts` (DATABASE_URL for
// PostgreSQL, else the embedded store in memory). Figures: docs/performance.md.
import { sql } from 'kysely'
import { loadConfig } from '../src/config.ts'
import { IN_MEMORY, openDatabase } from '../src/db/database.ts'
import { migrateToLatest } from '../src/db/migrate.ts'
import { packReadings } from '../src/jobs/packing.ts'

const TAGS = Number(process.env.TAGS ?? 200)
const MINUTES = Number(process.env.MINUTES ?? 1440)
const HOUR = 3_600_000
const start = Math.floor(Date.UTC(2026, 0, 1) / HOUR) * HOUR
const uid = 'storage-bench-farm-01'
const round = (v: number, d: number) => Math.round(v * 10 ** d) / 10 ** d

const config = loadConfig({
  ...process.env,
  DATA_DIR: process.env.DATABASE_URL ? '' : IN_MEMORY,
  JWT_SECRET: 'x'.repeat(32),
})
const database = await openDatabase(config)
const db = database.db
await migrateToLatest(db)
await sql`INSERT INTO users (uid, email, name) VALUES (${uid}, 'storage@bench.example', 'bench') ON CONFLICT DO NOTHING`.execute(
  db,
)
await sql`CREATE TABLE IF NOT EXISTS row_per_reading (LIKE animal_sensor_readings INCLUDING ALL)`.execute(db)
const macs = Array.from({ length: TAGS }, (_, i) =>
  `BE:00:00:00:${(i >> 8).toString(16).padStart(2, '0')}:${(i & 255).toString(16).padStart(2, '0')}`.toUpperCase(),
)
for (const [i, mac] of macs.entries())
  await sql`INSERT INTO animals (uid, id, mac, sex, t) VALUES (${uid}, ${i + 1}, ${mac}, 'female', ${start}) ON CONFLICT DO NOTHING`.execute(
    db,
  )

let seed = 1
const random = () => ((seed = (seed * 16807) % 2147483647) - 1) / 2147483646
for (let minute = 0; minute < MINUTES; minute++) {
  const t = macs.map(() => start + minute * 60_000 + Math.floor(random() * 1000))
  const c = macs.map(() => round(38 + random(), 2))
  const x = macs.map(() => round(random() / 5, 3))
  const y = macs.map(() => round(-random() / 5, 3))
  const z = macs.map(() => round(0.9 + random() / 5, 3))
  for (const table of ['animal_sensor_readings', 'row_per_reading'])
    await sql`INSERT INTO ${sql.table(table)} (uid, mac, t, c, x, y, z)
      SELECT ${uid}, * FROM unnest(${macs}::text[], ${t}::bigint[], ${c}::float8[], ${x}::float8[], ${y}::float8[], ${z}::float8[])`.execute(
      db,
    )
  if ((minute + 1) % 60 === 0) await packReadings(db, { now: start + (minute + 1) * 60_000 + 20 * 60_000, uid })
}
await sql`VACUUM ANALYZE`.execute(db)
const size = async (tables: string[]) => {
  let total = 0
  for (const table of tables)
    total += Number(
      (await sql<{ n: number }>`SELECT pg_total_relation_size(${table}::regclass) AS n`.execute(db)).rows[0]!.n,
    )
  return total
}
const readings = TAGS * MINUTES
const packed = await size(['animal_sensor_readings', 'animal_sensor_packed'])
const rows = await size(['row_per_reading'])
console.log(
  JSON.stringify({
    store: database.kind,
    readings,
    packedBytesPerReading: Number((packed / readings).toFixed(1)),
    rowPerReadingBytesPerReading: Number((rows / readings).toFixed(1)),
    recentPartBytes: await size(['animal_sensor_readings']),
    packedPartBytes: await size(['animal_sensor_packed']),
  }),
)
await sql`DROP TABLE row_per_reading`.execute(db)
await database.close()
