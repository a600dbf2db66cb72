// The readers of the hourly rollups measured (docs/performance.md#readings-at-scale-issue-27):
// `node bench/rollups.ts`, DATABASE_URL for PostgreSQL (a scratch database), else the embedded store.
// Animals with a reading a minute and a detection every 5 minutes, ingested through ingest() (so the rollups
// are kept as in service) and packed up to the last closed hour, then VACUUM ANALYZE:
// - the 30-day analytics of one animal (sensorAnalytics, what GET .../sensordata/analytics runs), against the
//   same figures summed up from every raw reading (readingRows);
// - the predictions job (scorePredictions) for one hour of a herd with 7 days of history and of one with 60,
//   in ms per animal-hour, and the hourly summaries it reads per animal, from the rollups against raw.
// ROLLUP_BENCH_ANIMALS (default 10) animals per herd; medians of ROLLUP_BENCH_ROUNDS (default 15) rounds.
import { sql, type Kysely } from 'kysely'
import { loadConfig } from '../src/config.ts'
import { IN_MEMORY, openDatabase } from '../src/db/database.ts'
import { migrateToLatest } from '../src/db/migrate.ts'
import type { DB } from '../src/db/schema.ts'
import { createIdSource } from '../src/db/ids.ts'
import { packReadings } from '../src/jobs/packing.ts'
import { scorePredictions } from '../src/jobs/predictions.ts'
import { insertAnimal } from '../src/modules/animals/animals.repository.ts'
import { ingest } from '../src/modules/readings/ingest.ts'
import { hourlyRows, readingRows, sensorAnalytics } from '../src/modules/readings/readings.repository.ts'
import { herdHourlySummaries } from '../src/modules/readings/readings.summaries.ts'
import { SERIES } from '../src/modules/readings/readings.series.ts'
import { HOUR_MS, SUMMARY_THRESHOLDS } from '../src/modules/predictions/hour-summaries.rules.ts'
import { LOOKBACK_HOURS } from '../src/modules/predictions/scorer-settings.rules.ts'
import { insertUser } from '../src/modules/users/users.repository.ts'
import { BENCH_JWT_SECRET, median, scratchEnv } from './support.ts'

const MINUTE = 60_000
const DAY = 24 * HOUR_MS
const ANIMALS = Number(process.env.ROLLUP_BENCH_ANIMALS ?? 10)
const ROUNDS = Number(process.env.ROLLUP_BENCH_ROUNDS ?? 15)
// 40 minutes into an hour: the analytics window cuts an hour at both ends.
const NOW = Math.floor(Date.now() / HOUR_MS) * HOUR_MS - 2 * HOUR_MS + 40 * MINUTE

const scratch = await scratchEnv()
const env = process.env.DATABASE_URL ? scratch.env : { DATABASE_URL: '', DATA_DIR: IN_MEMORY }
const database = await openDatabase(
  loadConfig({ JWT_SECRET: BENCH_JWT_SECRET, DB_STATEMENT_TIMEOUT_MS: '0', DB_QUERY_TIMEOUT_MS: '0', ...env }),
)
const db = database.db
await migrateToLatest(db)
const store = process.env.DATABASE_URL ? 'PostgreSQL' : 'embedded'

/** A herd of `animals` with `days` of history up to NOW, packed or not; returns its account and MACs. */
async function herd(
  name: string,
  days: number,
  animals: number,
  pack: boolean,
): Promise<{ uid: string; macs: string[] }> {
  const uid = `rollups-${name}`
  await insertUser(db, { uid, email: `${uid}@bench.example`, name })
  const ids = createIdSource(() => NOW - 90 * DAY)
  const macs: string[] = []
  for (let k = 0; k < animals; k++) {
    const mac =
      `BF:00:${name.length.toString(16).padStart(2, '0')}:${days.toString(16).padStart(2, '0')}:00:${k.toString(16).padStart(2, '0')}`.toUpperCase()
    await insertAnimal(db, uid, { MAC: mac, Sex: 'female', Group: 'Pen 1' }, ids)
    macs.push(mac)
    const first = NOW - days * DAY
    for (let from = first; from <= NOW; from += 10_000 * MINUTE) {
      const rows = []
      for (let t = from; t < Math.min(from + 10_000 * MINUTE, NOW + 1); t += MINUTE) {
        const i = (t - first) / MINUTE
        rows.push({
          t,
          c: Math.round(3800 + 80 * Math.sin(i / 300) + (i % 7)) / 100,
          x: ((i * 37) % 200) / 1000,
          y: -((i * 11) % 90) / 1000,
          z: (980 + (i % 40)) / 1000,
        })
      }
      await ingest(db, uid, mac, { kind: 'sensordata', rows }, NOW)
      const located = rows
        .filter((r) => (r.t - first) % (5 * MINUTE) === 0)
        .map((r, i) => ({ t: r.t + 3, rssi: -60 - (i % 15), nodeuid: `node-${Math.floor(i / 17) % 4}` }))
      await ingest(db, uid, mac, { kind: 'locations', rows: located }, NOW)
    }
  }
  if (pack) await packReadings(db, { now: NOW, uid })
  return { uid, macs }
}

async function timed(f: () => Promise<unknown>): Promise<number> {
  const started = process.hrtime.bigint()
  await f()
  return Number(process.hrtime.bigint() - started) / 1e6
}

/** Median and least of ROUNDS timed calls, after one untimed: the least is the figure with the least of the machine's other load. */
async function medianOf(f: () => Promise<unknown>): Promise<{ median: number; least: number }> {
  await f()
  const times: number[] = []
  for (let i = 0; i < ROUNDS; i++) times.push(await timed(f))
  return { median: median(times), least: Math.min(...times) }
}

/** The 30-day figures from every raw reading (what the endpoint computed before the rollups). */
function rawAnalytics(kdb: Kysely<DB>, uid: string, mac: string, start: number, end: number) {
  return sql`
    SELECT count(*), avg(c::numeric)::float8, min(c), max(c), avg(m::numeric)::float8, min(m), max(m)
    FROM (SELECT c, sqrt(x * x + y * y + z * z) AS m FROM ${readingRows(SERIES.sensordata, uid, mac, { start, end })} r) r`.execute(
    kdb,
  )
}

/** One animal's hourly summaries of the job's span from raw readings (the job's SQL before the rollups). */
function rawSummaries(kdb: Kysely<DB>, uid: string, mac: string, from: number, to: number) {
  const span = { start: from, end: to - 1 }
  return sql`
    SELECT * FROM
      (SELECT t / ${HOUR_MS} AS hour, count(*), avg(CASE WHEN abs(sqrt(x * x + y * y + z * z) - 1) > 0.1 THEN 1 ELSE 0 END),
              avg(c) FILTER (WHERE c >= 25 AND c <= 42)
       FROM ${readingRows(SERIES.sensordata, uid, mac, span)} r GROUP BY 1) s
    FULL JOIN
      (SELECT t / ${HOUR_MS} AS hour, count(*), count(*) FILTER (WHERE previous <> nodeuid)
       FROM (SELECT t, nodeuid, lag(nodeuid) OVER (ORDER BY t) AS previous
             FROM ${readingRows(SERIES.locations, uid, mac, span)} r) d GROUP BY 1) l USING (hour)`.execute(kdb)
}

const started = Date.now()
// The analytics' animal packed as in service; the herds' readings left recent (packing them is the load's
// longest part, and the job reads whole hours, all from the rollups).
const single = await herd('analytics', 31, 1, true)
const week = await herd('week', 7, ANIMALS, false)
const twoMonths = await herd('twomonths', 60, ANIMALS, false)
await sql`VACUUM ANALYZE`.execute(db)
const loadedIn = (Date.now() - started) / 1000

const [uid, mac] = [single.uid, single.macs[0]!]
const analytics = await medianOf(() => sensorAnalytics(db, uid, mac, NOW - 30 * DAY, NOW))
const analyticsRaw = await medianOf(() => rawAnalytics(db, uid, mac, NOW - 30 * DAY, NOW))
const explain = () =>
  sql<{ 'QUERY PLAN': [{ 'Planning Time': number; 'Execution Time': number }] }>`EXPLAIN (ANALYZE, FORMAT JSON)
  SELECT coalesce(sum(h.n), 0), (sum(h.c_sum) / sum(h.n))::float8, min(h.c_min), max(h.c_max),
         (sum(h.m_sum) / sum(h.n))::float8, min(h.m_min), max(h.m_max)
  FROM ${hourlyRows(SERIES.sensordata, uid, mac, { start: NOW - 30 * DAY, end: NOW })} h`.execute(db)
const plans = []
for (let i = 0; i <= ROUNDS; i++) plans.push((await explain()).rows[0]!['QUERY PLAN'])
const planningMs = median(plans.slice(1).map((p) => p[0]['Planning Time']))
const executionMs = median(plans.slice(1).map((p) => p[0]['Execution Time']))
const leastDatabaseMs = Math.min(...plans.slice(1).map((p) => p[0]['Planning Time'] + p[0]['Execution Time']))

// The job's span for one scored hour, as scoreUser computes it.
const lastEnd = Math.floor(NOW / HOUR_MS) * HOUR_MS
const firstHour = lastEnd - HOUR_MS - LOOKBACK_HOURS * HOUR_MS
/** The herd's summaries in one statement, as the job reads them, per animal. */
const summaries = async (h: { uid: string; macs: string[] }) => {
  const { median: m, least } = await medianOf(() =>
    herdHourlySummaries(db, h.uid, h.macs, firstHour, lastEnd, SUMMARY_THRESHOLDS),
  )
  return { median: m / h.macs.length, least: least / h.macs.length }
}
const summariesRaw = async (h: { uid: string; macs: string[] }) =>
  medianOf(() => rawSummaries(db, h.uid, h.macs[0]!, firstHour, lastEnd))

/** One scheduled run a round, each the next hour (a run scores the hours since the last): ms per animal-hour. */
async function jobPerAnimalHour(h: { uid: string }): Promise<{ median: number; least: number }> {
  await scorePredictions(db, { now: NOW, uid: h.uid })
  const times: number[] = []
  for (let i = 1; i <= ROUNDS; i++) {
    const ms = await timed(() => scorePredictions(db, { now: NOW + i * HOUR_MS, uid: h.uid }))
    times.push(ms / ANIMALS)
  }
  return { median: median(times), least: Math.min(...times) }
}

const result = {
  store,
  animalsPerHerd: ANIMALS,
  rounds: ROUNDS,
  loadedInSeconds: loadedIn,
  analytics30dMs: analytics,
  analytics30dPlanningMs: planningMs,
  analytics30dExecutionMs: executionMs,
  analytics30dLeastDatabaseMs: leastDatabaseMs,
  analytics30dRawMs: analyticsRaw,
  summariesPerAnimalMs: { days7: await summaries(week), days60: await summaries(twoMonths) },
  summariesRawPerAnimalMs: { days7: await summariesRaw(week), days60: await summariesRaw(twoMonths) },
  jobMsPerAnimalHour: { days7: await jobPerAnimalHour(week), days60: await jobPerAnimalHour(twoMonths) },
}
console.log(JSON.stringify(result, null, 2))
await database.close()
await scratch.drop()
