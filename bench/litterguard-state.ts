// `node bench/litterguard-state.ts` (DATABASE_URL for PostgreSQL, else the embedded store): why a litter
// device's LastSeen and CurrentTemperature are kept on its row by the ingestion transaction rather than
// looked up in its readings on every read. Times the reads that need them (a filtered list page with its
// count, the summary's totals) both ways, and what keeping them costs each ingestion (one-row batches, the
// worst case). DEVICES (100) devices of PER_DEVICE (2880) readings each; medians in ms. docs/litterguards.md
// quotes a run.
import { sql } from 'kysely'
import { loadConfig } from '../src/config.ts'
import { IN_MEMORY, openDatabase } from '../src/db/database.ts'
import { migrateToLatest } from '../src/db/migrate.ts'
import { createScratchDatabase, testEnv } from '../test/support/app.ts'
import { SERIES } from '../src/modules/readings/readings.series.ts'
import { currentStateUntil } from '../src/modules/readings/readings.rules.ts'
import { median } from './support.ts'

const DEVICES = Number(process.env.DEVICES ?? 100)
const PER_DEVICE = Number(process.env.PER_DEVICE ?? 2880)
const scratch = await createScratchDatabase()
const config = loadConfig(testEnv(scratch ? { DATABASE_URL: scratch.url } : { DATA_DIR: IN_MEMORY }))
const database = await openDatabase(config)
const db = database.db
try {
  await migrateToLatest(db)
  const uid = 'measure-farm'
  await db.insertInto('users').values({ uid, email: 'm@farm.example', name: 'M', integration_flags: '{}' }).execute()
  const now = Math.floor(Date.now() / 1000)
  const macs = Array.from({ length: DEVICES }, (_, i) =>
    `06:00:00:00:${(i >> 8).toString(16).padStart(2, '0')}:${(i & 255).toString(16).padStart(2, '0')}`.toUpperCase(),
  )
  for (const [i, mac] of macs.entries()) {
    await db
      .insertInto('litterguards')
      .values({ uid, mac, name: `Pen ${i}`, t: Date.now() + i })
      .execute()
    const end = now - (i % 3 === 0 ? 3600 : 30)
    const ts = Array.from({ length: PER_DEVICE }, (_, k) => end - k * 60)
    await sql`INSERT INTO litterguard_readings (uid, mac, t, c, x, y, z)
      SELECT ${uid}, ${mac}, t, 31.5, 0, 0, 1 FROM unnest(${ts}::bigint[]) AS t`.execute(db)
    await SERIES.devicedata.updateOwnerLatest(uid, mac, currentStateUntil(Date.now(), 1000)).execute(db)
  }
  await sql`VACUUM ANALYZE litterguard_readings`.execute(db)
  await sql`ANALYZE litterguards`.execute(db)
  const since = now - 900

  const lateral = sql`LEFT JOIN LATERAL (SELECT r.t, r.c FROM litterguard_readings r WHERE r.uid = d.uid AND r.mac = d.mac ORDER BY r.t DESC LIMIT 1) l ON true`
  const queries: Record<string, () => Promise<unknown>> = {
    'list page (active=true, 10 rows + count), denormalised': () =>
      Promise.all([
        sql`SELECT d.*, coalesce(d.last_seen >= ${since}, false) AS active FROM litterguards d WHERE d.uid = ${uid} AND coalesce(d.last_seen >= ${since}, false) ORDER BY d.t DESC, d.mac DESC LIMIT 10`.execute(
          db,
        ),
        sql`SELECT count(*) FROM litterguards d WHERE d.uid = ${uid} AND coalesce(d.last_seen >= ${since}, false)`.execute(
          db,
        ),
      ]),
    'list page (active=true, 10 rows + count), computed': () =>
      Promise.all([
        sql`SELECT d.uid, d.mac, d.name, d.t, l.t AS last_seen, l.c AS current_temperature, coalesce(l.t >= ${since}, false) AS active FROM litterguards d ${lateral} WHERE d.uid = ${uid} AND coalesce(l.t >= ${since}, false) ORDER BY d.t DESC, d.mac DESC LIMIT 10`.execute(
          db,
        ),
        sql`SELECT count(*) FROM litterguards d ${lateral} WHERE d.uid = ${uid} AND coalesce(l.t >= ${since}, false)`.execute(
          db,
        ),
      ]),
    'summary totals, denormalised': () =>
      sql`SELECT count(*), count(*) FILTER (WHERE d.last_seen >= ${since}), avg(d.current_temperature) FILTER (WHERE d.last_seen >= ${since}), max(d.last_seen) FROM litterguards d WHERE d.uid = ${uid}`.execute(
        db,
      ),
    'summary totals, computed': () =>
      sql`SELECT count(*), count(*) FILTER (WHERE l.t >= ${since}), avg(l.c) FILTER (WHERE l.t >= ${since}), max(l.t) FROM litterguards d ${lateral} WHERE d.uid = ${uid}`.execute(
        db,
      ),
  }
  const time = async (fn: () => Promise<unknown>, n: number) => {
    const out: number[] = []
    for (let i = 0; i < n; i++) {
      const t0 = performance.now()
      await fn()
      out.push(performance.now() - t0)
    }
    return median(out)
  }
  for (const fn of Object.values(queries)) await time(fn, 20)
  for (const [name, fn] of Object.entries(queries)) console.log(`${name}: ${(await time(fn, 200)).toFixed(3)} ms`)

  // Ingestion of one-row batches (a gateway sending each reading as it comes): the insert alone vs insert + state update.
  let t = now + 1
  const mac = macs[1]!
  const insertOnly = () =>
    db.transaction().execute(async (trx) => {
      await sql`SELECT 1 FROM litterguards WHERE uid = ${uid} AND mac = ${mac} FOR KEY SHARE`.execute(trx)
      await sql`INSERT INTO litterguard_readings (uid, mac, t, c, x, y, z) VALUES (${uid}, ${mac}, ${t++}, 31, 0, 0, 1) ON CONFLICT DO NOTHING`.execute(
        trx,
      )
    })
  const withState = () =>
    db.transaction().execute(async (trx) => {
      await sql`SELECT 1 FROM litterguards WHERE uid = ${uid} AND mac = ${mac} FOR KEY SHARE`.execute(trx)
      await sql`INSERT INTO litterguard_readings (uid, mac, t, c, x, y, z) VALUES (${uid}, ${mac}, ${t++}, 31, 0, 0, 1) ON CONFLICT DO NOTHING`.execute(
        trx,
      )
      await SERIES.devicedata.updateOwnerLatest(uid, mac, currentStateUntil(Date.now(), 1000)).execute(trx)
    })
  const rounds: Record<string, number[]> = {
    'ingest 1 row, insert only': [],
    'ingest 1 row, insert + state update': [],
  }
  for (let r = 0; r < 6; r++) {
    rounds['ingest 1 row, insert only']!.push(await time(insertOnly, 150))
    rounds['ingest 1 row, insert + state update']!.push(await time(withState, 150))
  }
  for (const [name, v] of Object.entries(rounds)) console.log(`${name}: ${median(v).toFixed(3)} ms`)
} finally {
  await database.close()
  await scratch?.drop()
}
