// Ear-tag readings at volume, each against a bare baseline measured in the same run:
//   (a) ingest 100,000 readings through the HTTP API vs the same rows in one multi-row INSERT by a bare script;
//   (b) GET .../sensordata?limit=10000 vs the same SELECT and JSON.stringify in a bare script;
//   (c) 30-day analytics of one animal (43,200 one-minute readings) in a table of 200 such animals vs a
//       table holding that animal alone.
import { Agent, request } from 'node:http'
import { sql, type Kysely } from 'kysely'
import { benchFarm, median, scratchEnv, startBenchApp } from './support.ts'
import type { Scenario } from './scenario.ts'
import type { DB } from '../src/db/schema.ts'
import { sensorAnalytics, sumUpRollups } from '../src/modules/readings/readings.repository.ts'
import { SERIES } from '../src/modules/readings/readings.series.ts'

const MINUTE = 60_000
const DAY = 86_400_000
const ms = (x: number) => `${x.toFixed(1)} ms`

export function sensorRows(count: number, end: number) {
  return Array.from({ length: count }, (_, i) => ({
    t: end - (count - 1 - i) * MINUTE,
    c: 36 + (i % 300) / 100,
    x: (i % 17) / 100,
    y: -(i % 13) / 100,
    z: 0.98 + (i % 5) / 100,
  }))
}

/** One HTTP request over a keep-alive agent, reading the whole response. */
export function send(
  agent: Agent,
  port: number,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        agent,
        headers: {
          ...headers,
          ...(body ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) } : {}),
        },
      },
      (res) => {
        let bytes = 0
        res.on('data', (chunk: Buffer) => {
          bytes += chunk.length
        })
        res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes }))
      },
    )
    req.on('error', reject)
    req.end(body)
  })
}

export async function bareInsert(db: Kysely<DB>, uid: string, mac: string, rows: ReturnType<typeof sensorRows>) {
  await sql`
    INSERT INTO animal_sensor_readings (uid, mac, t, c, x, y, z)
    SELECT ${uid}, ${mac}, r.t, r.c, r.x, r.y, r.z
    FROM unnest(${rows.map((r) => r.t)}::bigint[], ${rows.map((r) => r.c)}::float8[], ${rows.map((r) => r.x)}::float8[],
                ${rows.map((r) => r.y)}::float8[], ${rows.map((r) => r.z)}::float8[]) AS r (t, c, x, y, z)`.execute(db)
}

const INGEST_ROWS = 100_000
const INGEST_ROUNDS = 3

export const ingestScenario: Scenario = {
  name: 'ingest',
  description: `(a) ${INGEST_ROWS.toLocaleString('en')} readings: POST .../sensordata in 10,000-row requests over HTTP vs one multi-row INSERT by a bare script (${INGEST_ROUNDS} alternating rounds, medians)`,
  run: async () => {
    const scratch = await scratchEnv()
    const bench = await startBenchApp(scratch.env)
    try {
      const farm = await benchFarm(bench)
      const agent = new Agent({ keepAlive: true })
      const api: number[] = []
      const bare: number[] = []
      const rows = sensorRows(INGEST_ROWS, Date.now() - MINUTE)
      const bodies: string[] = []
      for (let i = 0; i < rows.length; i += 10_000) bodies.push(JSON.stringify({ readings: rows.slice(i, i + 10_000) }))
      const viaApi = async () => {
        const mac = await farm.animal()
        const started = performance.now()
        for (const body of bodies) {
          const res = await send(
            agent,
            bench.port,
            'POST',
            `/api/v1/users/${farm.uid}/animals/${mac}/sensordata`,
            farm.headers,
            body,
          )
          if (res.status !== 200) throw new Error(`ingest answered ${res.status}`)
        }
        api.push(performance.now() - started)
      }
      const viaBare = async () => {
        const mac = await farm.animal()
        const started = performance.now()
        await bareInsert(bench.database.db, farm.uid, mac, rows)
        bare.push(performance.now() - started)
      }
      for (let round = 0; round < INGEST_ROUNDS; round++) {
        if (round % 2 === 0) {
          await viaBare()
          await viaApi()
        } else {
          await viaApi()
          await viaBare()
        }
      }
      agent.destroy()
      const ratio = median(bare) / median(api)
      return {
        baseline: `${ms(median(bare))} bare INSERT (${((INGEST_ROWS / median(bare)) * 1000).toFixed(0)} rows/s)`,
        measured: `${ms(median(api))} via HTTP (${((INGEST_ROWS / median(api)) * 1000).toFixed(0)} rows/s)`,
        ratio: Number(ratio.toFixed(3)),
        target: 'API/bare throughput >= 0.5',
        met: ratio >= 0.5,
      }
    } finally {
      await bench.close()
      await scratch.drop()
    }
  },
}

const READ_ROUNDS = 15

export const readScenario: Scenario = {
  name: 'read',
  description: `(b) GET .../sensordata?limit=10000 over HTTP vs the same SELECT + JSON.stringify in a bare script (${READ_ROUNDS} alternating rounds, medians)`,
  run: async () => {
    const scratch = await scratchEnv()
    const bench = await startBenchApp(scratch.env)
    try {
      const farm = await benchFarm(bench)
      const mac = await farm.animal()
      await bareInsert(bench.database.db, farm.uid, mac, sensorRows(20_000, Date.now() - MINUTE))
      const agent = new Agent({ keepAlive: true })
      const path = `/api/v1/users/${farm.uid}/animals/${mac}/sensordata?limit=10000`
      const api: number[] = []
      const bare: number[] = []
      let bytes = 0
      const viaApi = async () => {
        const started = performance.now()
        const res = await send(agent, bench.port, 'GET', path, farm.headers)
        api.push(performance.now() - started)
        if (res.status !== 200) throw new Error(`read answered ${res.status}`)
        bytes = res.bytes
      }
      const viaBare = async () => {
        const started = performance.now()
        const { rows } = await sql<{ t: number; c: number; x: number; y: number; z: number }>`
          SELECT t, c, x, y, z FROM animal_sensor_readings WHERE uid = ${farm.uid} AND mac = ${mac} ORDER BY t DESC LIMIT 10000`.execute(
          bench.database.db,
        )
        const text = JSON.stringify(rows)
        bare.push(performance.now() - started)
        if (rows.length !== 10_000 || text.length === 0) throw new Error('bare read returned the wrong rows')
      }
      for (let i = 0; i < 3; i++) {
        await viaApi()
        await viaBare()
      }
      api.length = 0
      bare.length = 0
      for (let round = 0; round < READ_ROUNDS; round++) {
        if (round % 2 === 0) {
          await viaBare()
          await viaApi()
        } else {
          await viaApi()
          await viaBare()
        }
      }
      agent.destroy()
      const ratio = median(bare) / median(api)
      return {
        baseline: `${ms(median(bare))} bare SELECT + JSON.stringify`,
        measured: `${ms(median(api))} via HTTP (${(bytes / 1024).toFixed(0)} KiB)`,
        ratio: Number(ratio.toFixed(3)),
        target: 'bare/API time >= 0.6',
        met: ratio >= 0.6,
      }
    } finally {
      await bench.close()
      await scratch.drop()
    }
  },
}

const HERD = 200
const MINUTES_30D = 30 * 24 * 60
const ANALYTICS_ROUNDS = 15

/** BENCH_INTERLEAVED=1: load the herd in time order, as live ingestion writes it (slower to set up). */
const INTERLEAVED = process.env.BENCH_INTERLEAVED === '1'

/**
 * 30 days of one-minute readings for `macs`, then VACUUM ANALYZE (what autovacuum does on PostgreSQL and
 * the daily job does on the embedded store). By default the rows go in tag by tag with the key in place;
 * the query is an index-only scan of the covering key (checked below), so where the rows lie in the heap
 * does not enter. With BENCH_INTERLEAVED=1 they go in minute by minute across the herd, so one tag's rows
 * are spread over the whole heap, and the key is rebuilt after the load as a restore does. Either way the
 * load skips the foreign-key checks on the user (as pg_restore --disable-triggers does): the user exists.
 */
export async function loadHerd(db: Kysely<DB>, uid: string, macs: string[], end: number, minutes = MINUTES_30D) {
  const values = sql`${uid}, m.mac, ${end}::bigint - (${minutes - 1} - s.i)::bigint * 60000, 36 + 3 * random(), random() - 0.5, random() - 0.5, 0.5 + random()`
  if (INTERLEAVED) {
    await sql`ALTER TABLE animal_sensor_readings DROP CONSTRAINT animal_sensor_readings_pkey`.execute(db)
    await db.transaction().execute(async (trx) => {
      await sql`SET LOCAL session_replication_role = replica`.execute(trx)
      // LATERAL keeps time as the outer loop without sorting 8.6M rows.
      await sql`
        INSERT INTO animal_sensor_readings (uid, mac, t, c, x, y, z)
        SELECT ${values} FROM generate_series(0, ${minutes - 1}) AS s (i)
        CROSS JOIN LATERAL (SELECT mac FROM unnest(${macs}::text[]) AS mac WHERE s.i IS NOT NULL) AS m`.execute(trx)
    })
    await db.transaction().execute(async (trx) => {
      await sql`SET LOCAL maintenance_work_mem = '256MB'`.execute(trx)
      await sql`ALTER TABLE animal_sensor_readings ADD CONSTRAINT animal_sensor_readings_pkey PRIMARY KEY (uid, mac, t) INCLUDE (c, x, y, z)`.execute(
        trx,
      )
    })
  } else {
    await db.transaction().execute(async (trx) => {
      await sql`SET LOCAL session_replication_role = replica`.execute(trx)
      await sql`
        INSERT INTO animal_sensor_readings (uid, mac, t, c, x, y, z)
        SELECT ${values} FROM unnest(${macs}::text[]) AS m (mac)
        CROSS JOIN LATERAL (SELECT i FROM generate_series(0, ${minutes - 1}) AS i WHERE m.mac IS NOT NULL) AS s`.execute(
        trx,
      )
    })
  }
  // The load bypasses ingestion, which keeps the hourly rollups that analytics read: sum them up as it would have.
  for (const mac of macs) await sumUpRollups(db, SERIES.sensordata, uid, mac)
  await sql`VACUUM (ANALYZE) animal_sensor_readings, ${sql.table(SERIES.sensordata.rollup.table)}`.execute(db)
}

/** The plan of the analytics scan: it must read the covering key only. */
async function scanPlan(
  db: Kysely<DB>,
  uid: string,
  mac: string,
  start: number,
  end: number,
): Promise<{ node: string; heapFetches: number }> {
  const { rows } = await sql<{ 'QUERY PLAN': unknown }>`
    EXPLAIN (ANALYZE, FORMAT JSON) SELECT c, x, y, z FROM animal_sensor_readings WHERE uid = ${uid} AND mac = ${mac} AND t >= ${start} AND t <= ${end}`.execute(
    db,
  )
  const raw = rows[0]!['QUERY PLAN']
  const plan = (typeof raw === 'string' ? JSON.parse(raw) : raw) as { Plan: Record<string, unknown> }[]
  const find = (node: Record<string, unknown>): Record<string, unknown> =>
    String(node['Node Type']).includes('Scan')
      ? node
      : find(((node.Plans as Record<string, unknown>[] | undefined) ?? [{}])[0]!)
  const scan = find(plan[0]!.Plan)
  return { node: String(scan['Node Type']), heapFetches: Number(scan['Heap Fetches'] ?? Number.NaN) }
}

export const analyticsScenario: Scenario = {
  name: 'analytics',
  description: `(c) 30-day analytics of one animal (${MINUTES_30D.toLocaleString('en')} one-minute readings) in a table of ${HERD} such animals vs a table holding it alone (${ANALYTICS_ROUNDS} rounds, medians)`,
  run: async () => {
    const herdDb = await scratchEnv()
    const aloneDb = await scratchEnv()
    const herd = await startBenchApp(herdDb.env)
    const alone = await startBenchApp(aloneDb.env)
    try {
      const end = Date.now()
      const setups = await Promise.all(
        [herd, alone].map(async (bench, i) => {
          const farm = await benchFarm(bench)
          const macs: string[] = []
          for (let n = 0; n < (i === 0 ? HERD : 1); n++) macs.push(await farm.animal())
          return { bench, farm, mac: macs[0]!, macs }
        }),
      )
      const loadStarted = performance.now()
      for (const s of setups) await loadHerd(s.bench.database.db, s.farm.uid, s.macs, end)
      const loadSeconds = (performance.now() - loadStarted) / 1000
      const agent = new Agent({ keepAlive: true })
      const measure = async (s: (typeof setups)[number], sqlTimes: number[], apiTimes: number[]) => {
        let started = performance.now()
        const result = await sensorAnalytics(s.bench.database.db, s.farm.uid, s.mac, end - 30 * DAY, end)
        sqlTimes.push(performance.now() - started)
        if (result.dataPointsCount !== MINUTES_30D) throw new Error(`analytics counted ${result.dataPointsCount} rows`)
        started = performance.now()
        const res = await send(
          agent,
          s.bench.port,
          'GET',
          `/api/v1/users/${s.farm.uid}/animals/${s.mac}/sensordata/analytics?timeRange=30d`,
          s.farm.headers,
        )
        apiTimes.push(performance.now() - started)
        if (res.status !== 200) throw new Error(`analytics answered ${res.status}`)
      }
      const herdSql: number[] = []
      const herdApi: number[] = []
      const aloneSql: number[] = []
      const aloneApi: number[] = []
      for (let i = 0; i < 3; i++) {
        await measure(setups[0]!, [], [])
        await measure(setups[1]!, [], [])
      }
      for (let round = 0; round < ANALYTICS_ROUNDS; round++) {
        if (round % 2 === 0) {
          await measure(setups[0]!, herdSql, herdApi)
          await measure(setups[1]!, aloneSql, aloneApi)
        } else {
          await measure(setups[1]!, aloneSql, aloneApi)
          await measure(setups[0]!, herdSql, herdApi)
        }
      }
      agent.destroy()
      const plan = await scanPlan(
        setups[0]!.bench.database.db,
        setups[0]!.farm.uid,
        setups[0]!.mac,
        end - 30 * DAY,
        end,
      )
      if (plan.node !== 'Index Only Scan' || plan.heapFetches !== 0)
        throw new Error(`analytics scan is ${plan.node} with ${plan.heapFetches} heap fetches`)
      // Alone, every row matches: the planner may rightly read the whole table instead.
      const alonePlan = await scanPlan(
        setups[1]!.bench.database.db,
        setups[1]!.farm.uid,
        setups[1]!.mac,
        end - 30 * DAY,
        end,
      )
      const ratio = median(herdSql) / median(aloneSql)
      return {
        baseline: `${ms(median(aloneSql))} query (${ms(median(aloneApi))} via HTTP), animal alone (${alonePlan.node})`,
        measured:
          `${ms(median(herdSql))} query (${ms(median(herdApi))} via HTTP), ${HERD} animals, ${((HERD * MINUTES_30D) / 1e6).toFixed(2)}M rows ` +
          `(${INTERLEAVED ? 'interleaved' : 'tag by tag'}, loaded in ${loadSeconds.toFixed(0)} s), index-only scan, 0 heap fetches`,
        ratio: Number(ratio.toFixed(3)),
        target: 'herd/alone query time <= 1.5',
        met: ratio <= 1.5,
      }
    } finally {
      await herd.close()
      await alone.close()
      await herdDb.drop()
      await aloneDb.drop()
    }
  },
}

export const readingScenarios = [ingestScenario, readScenario, analyticsScenario]
