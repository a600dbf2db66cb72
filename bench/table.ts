// `npm run bench`: the performance table (docs/performance.md). The service runs as in production
// (`node bin/serve.js`, its own process, on PostgreSQL + Redis when DATABASE_URL / REDIS_URL are set, on the
// embedded store otherwise);
// each scenario is paired with a baseline measured in the same run: the bare node:http + driver server of
// bare-server.ts on the same data, the same database without the herd, or a target. Load comes from this
// process (autocannon, over loopback, bounded in time), in alternating pairs whose order flips each
// pair; a ratio is the median of the pairs' ratios. Prints the table and writes bench/results.json.
// `npm run bench -- smoke` (or BENCH_SMOKE=1): every scenario for about a second on tiny data, no
// thresholds, results to a temp file. BENCH_CPU_PROF=1 keeps a V8 CPU profile of the service.
import { execFileSync } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, loadavg, release, tmpdir, totalmem } from 'node:os'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import { sql } from 'kysely'
import pg from 'pg'
import { loadConfig } from '../src/config.ts'
import { openDatabase, type Database } from '../src/db/database.ts'
import { migrateToLatest } from '../src/db/migrate.ts'
import { createIdSource } from '../src/db/ids.ts'
import { TokenSigner } from '../src/auth/jwt.ts'
import { insertUser } from '../src/modules/users/users.repository.ts'
import { insertIntegrator, link } from '../src/modules/integrators/integrators.repository.ts'
import { insertAnimal } from '../src/modules/animals/animals.repository.ts'
import { expectOnly, load, type LoadResult } from './cannon.ts'
import { startBare, startFastifyHello, startService, type Child } from './processes.ts'
import { bareInsert, loadHerd, sensorRows } from './readings.ts'
import { measureStartup, type StartupFigures } from './startup.ts'
import { BENCH_JWT_SECRET, median, scratchEnv } from './support.ts'
import { farmAppRows, measureFarmApp } from './farm-app.ts'
import { deliveryRows, measureDelivery } from './delivery.ts'
import type { TableRow } from './scenario.ts'

type Store = 'postgres' | 'embedded'

interface Plan {
  smoke: boolean
  pairs: number
  /** Seconds of each side of a throughput pair. */
  seconds: number
  warmupSeconds: number
  animals: number
  readings: number
  herd: number
  herdMinutes: number
  ingestRows: number
  ingestBatch: number
  analyticsRequests: number
  halfRateSeconds: number
  starts: number
  startIdleMs: number
}

const FULL: Plan = {
  smoke: false,
  pairs: 5,
  seconds: 3,
  warmupSeconds: 1,
  animals: 100,
  readings: 10_000,
  herd: 200,
  herdMinutes: 30 * 24 * 60,
  ingestRows: 100_000,
  ingestBatch: 10_000,
  analyticsRequests: 5,
  halfRateSeconds: 10,
  starts: 3,
  startIdleMs: 2000,
}
const SMOKE: Plan = {
  smoke: true,
  pairs: 1,
  seconds: 1,
  warmupSeconds: 0.2,
  animals: 100,
  readings: 1000,
  herd: 3,
  herdMinutes: 600,
  ingestRows: 2000,
  ingestBatch: 1000,
  analyticsRequests: 1,
  halfRateSeconds: 1,
  starts: 1,
  startIdleMs: 300,
}

const FARM = 'bench-farm'
const HERD_FARM = 'bench-herd'
const INTEGRATOR = 'int_bench-enterprise'
const mac = (prefix: number, n: number) =>
  `BE:${prefix.toString(16).padStart(2, '0')}:00:00:${(n >> 8).toString(16).padStart(2, '0')}:${(n & 255).toString(16).padStart(2, '0')}`.toUpperCase()

interface Side {
  rps: number
  p50Ms: number
  p99Ms: number
}
const sideOf = (runs: LoadResult[]): Side => ({
  rps: median(runs.map((r) => r.rps)),
  p50Ms: median(runs.map((r) => r.p50Ms)),
  p99Ms: median(runs.map((r) => r.p99Ms)),
})
const describe = (s: Side) =>
  `${Math.round(s.rps).toLocaleString('en')} req/s, p50 ${s.p50Ms.toFixed(2)} ms, p99 ${s.p99Ms.toFixed(2)} ms`
const round3 = (x: number) => Number(x.toFixed(3))

// ---------------------------------------------------------------------------------------------------
// Stores and data

interface BenchStore {
  /** What the service's environment needs to use it. */
  env: Record<string, string>
  /** What the bare server needs to use the same data (an embedded store's data folder is copied for it). */
  bare: { databaseUrl: string } | { dataDir: string }
  open: () => Promise<Database>
  drop: () => Promise<void>
}

async function newStore(store: Store, work: string, name: string): Promise<BenchStore> {
  const timeouts = {
    DB_STATEMENT_TIMEOUT_MS: '0',
    DB_QUERY_TIMEOUT_MS: '0',
    JWT_SECRET: BENCH_JWT_SECRET,
    LOG_LEVEL: 'silent',
  }
  if (store === 'postgres') {
    const scratch = await scratchEnv()
    const url = scratch.env.DATABASE_URL!
    return {
      env: { DATABASE_URL: url },
      bare: { databaseUrl: url },
      open: () => openDatabase(loadConfig({ ...timeouts, DATABASE_URL: url })),
      drop: scratch.drop,
    }
  }
  const dir = join(work, name)
  mkdirSync(dir, { recursive: true })
  // Seeding writes without fsync (one bulk load); the service opens the folder with its defaults.
  return {
    env: { DATA_DIR: dir },
    bare: { dataDir: `${dir}-bare` },
    open: () => openDatabase(loadConfig({ ...timeouts, DATA_DIR: dir, EMBEDDED_FSYNC: 'off' })),
    drop: async () => {},
  }
}

/** The bench accounts: a farm, and an Enterprise integrator (may write, no client secret) linked to it. */
async function seedAccounts(db: Database['db'], farms: string[]) {
  await insertIntegrator(db, {
    uid: INTEGRATOR,
    name: 'Bench',
    email: 'bench@bench.example',
    tier: 'enterprise',
    can_write: true,
    client_secret_hash: null,
  })
  for (const uid of farms) {
    await insertUser(db, { uid, email: `${uid}@bench.example`, name: uid })
    await link(db, uid, INTEGRATOR, 'operator')
  }
}

async function addAnimals(db: Database['db'], uid: string, prefix: number, count: number): Promise<string[]> {
  const ids = createIdSource(Date.now)
  const macs: string[] = []
  for (let n = 0; n < count; n++) {
    macs.push(mac(prefix, n))
    await insertAnimal(db, uid, { MAC: macs[n], Sex: 'female' }, ids)
  }
  return macs
}

interface Seeded {
  readMacs: string[]
  ingestMacs: string[]
  herdMac: string
}

/**
 * The main store: the farm's animals (the first with `readings` sensor readings), animals to ingest into,
 * and a herd farm of `herd` animals with 30 days of one-minute readings each (the analytics table). On the
 * embedded store the bare server gets a copy of the folder taken before the herd goes in (it reads none of it).
 */
async function seedMain(store: Store, main: BenchStore, plan: Plan): Promise<Seeded> {
  let database = await main.open()
  let ingestMacs: string[]
  let readMacs: string[]
  try {
    await migrateToLatest(database.db)
    await seedAccounts(database.db, [FARM, HERD_FARM])
    readMacs = await addAnimals(database.db, FARM, 1, plan.animals)
    ingestMacs = await addAnimals(database.db, FARM, 2, plan.pairs + 1)
    await bareInsert(database.db, FARM, readMacs[0]!, sensorRows(plan.readings, Date.now() - 60_000))
    await sql`VACUUM (ANALYZE)`.execute(database.db)
    if (store === 'embedded') {
      await database.close()
      cpSync(
        (main.bare as { dataDir: string }).dataDir.replace(/-bare$/, ''),
        (main.bare as { dataDir: string }).dataDir,
        { recursive: true },
      )
      database = await main.open()
    }
    const herdMacs = await addAnimals(database.db, HERD_FARM, 3, plan.herd)
    await loadHerd(database.db, HERD_FARM, herdMacs, Date.now(), plan.herdMinutes)
    return { readMacs, ingestMacs, herdMac: herdMacs[0]! }
  } finally {
    await database.close()
  }
}

/** Opens a store, migrates it, seeds it and closes it. */
async function seed(store: BenchStore, fill: (db: Database['db']) => Promise<void>) {
  const database = await store.open()
  try {
    await migrateToLatest(database.db)
    await fill(database.db)
  } finally {
    await database.close()
  }
}

/** A store holding the herd's first animal alone, with the same 30 days of readings. */
function seedAlone(alone: BenchStore, plan: Plan) {
  return seed(alone, async (db) => {
    await seedAccounts(db, [HERD_FARM])
    const [only] = await addAnimals(db, HERD_FARM, 3, 1)
    await loadHerd(db, HERD_FARM, [only!], Date.now(), plan.herdMinutes)
  })
}

/** The farm alone (no herd), for the embedded side of the stores comparison. */
function seedReadsOnly(store: BenchStore, plan: Plan) {
  return seed(store, async (db) => {
    await seedAccounts(db, [FARM])
    const macs = await addAnimals(db, FARM, 1, plan.animals)
    await bareInsert(db, FARM, macs[0]!, sensorRows(plan.readings, Date.now() - 60_000))
    await sql`VACUUM (ANALYZE)`.execute(db)
  })
}

/** Waits until no other session on the database runs a statement (three checks in a row), or the deadline. */
async function databaseIdle(url: string, deadline: number) {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    let quiet = 0
    while (quiet < 3 && Date.now() < deadline) {
      const { rows } = await client.query<{ n: string }>(
        "SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND state = 'active' AND pid <> pg_backend_pid()",
      )
      quiet = Number(rows[0]!.n) === 0 ? quiet + 1 : 0
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
  } finally {
    await client.end()
  }
}

// ---------------------------------------------------------------------------------------------------
// Measuring

interface Target {
  child: Child
  path: string
  headers?: Record<string, string>
}

/** `plan.pairs` alternating pairs of timed runs; the ratio is the median of the pairs' measured/baseline. */
async function throughputPairs(plan: Plan, measured: Target, baseline: Target, connections: number) {
  const run = async (target: Target, seconds: number) =>
    expectOnly(
      await load({
        port: target.child.port,
        path: target.path,
        headers: target.headers,
        duration: seconds,
        connections,
      }),
      200,
      `${target.child.name} ${target.path}`,
    )
  await run(baseline, plan.warmupSeconds)
  await run(measured, plan.warmupSeconds)
  const a: LoadResult[] = []
  const b: LoadResult[] = []
  const ratios: number[] = []
  for (let pair = 0; pair < plan.pairs; pair++) {
    if (pair % 2 === 0) {
      b.push(await run(baseline, plan.seconds))
      a.push(await run(measured, plan.seconds))
    } else {
      a.push(await run(measured, plan.seconds))
      b.push(await run(baseline, plan.seconds))
    }
    ratios.push(a.at(-1)!.rps / b.at(-1)!.rps)
  }
  return { measured: sideOf(a), baseline: sideOf(b), ratio: median(ratios), ratios: ratios.map(round3), connections }
}

async function post(port: number, path: string, headers: Record<string, string>, body: string): Promise<void> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body,
  })
  const text = await res.text()
  if (res.status !== 200) throw new Error(`POST ${path} answered ${res.status}: ${text.slice(0, 200)}`)
}

async function getJson(
  port: number,
  path: string,
  headers: Record<string, string>,
): Promise<{ ms: number; body: unknown }> {
  const started = performance.now()
  const res = await fetch(`http://127.0.0.1:${port}${path}`, { headers })
  const body = (await res.json()) as unknown
  const ms = performance.now() - started
  if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status}: ${JSON.stringify(body).slice(0, 200)}`)
  return { ms, body }
}

// ---------------------------------------------------------------------------------------------------

export interface TableOptions {
  smoke?: boolean
  only?: 'stores'
}

/** The machine a run was measured on, for its results file. */
export function machine() {
  const cpu = cpus()
  let commit: string | undefined
  try {
    const git = (...args: string[]) => execFileSync('git', args, { cwd: import.meta.dirname, encoding: 'utf8' }).trim()
    commit =
      git('rev-parse', '--short', 'HEAD') +
      (git('status', '--porcelain', '--untracked-files=no') ? ' with uncommitted changes' : '')
  } catch {
    /* not a checkout */
  }
  return {
    cpu: cpu[0]?.model,
    cores: cpu.length,
    memoryGb: Math.round(totalmem() / 2 ** 30),
    kernel: release(),
    node: process.version,
    commit,
  }
}

async function serverVersions(store: Store, main: BenchStore): Promise<Record<string, string>> {
  const database = store === 'postgres' ? await main.open() : undefined
  try {
    const pgVersion = database
      ? (await sql<{ v: string }>`SELECT current_setting('server_version') AS v`.execute(database.db)).rows[0]?.v
      : undefined
    return { ...(pgVersion ? { postgres: pgVersion } : { pglite: '0.5.16 (PostgreSQL 17 in WebAssembly)' }) }
  } finally {
    await database?.close()
  }
}

/** Prints the rows as a table (ratio to 3 places, met as yes / NO / blank). */
export function printRows(rows: TableRow[]) {
  console.table(
    rows.map(({ scenario, service, baseline, ratio, target, met }) => ({
      scenario,
      service,
      baseline,
      ratio: ratio === null ? '' : ratio.toFixed(3),
      target,
      met: met === null ? '' : met ? 'yes' : 'NO',
    })),
  )
}

export async function runTable(options: TableOptions = {}): Promise<TableRow[]> {
  const plan = options.smoke || process.env.BENCH_SMOKE === '1' ? SMOKE : FULL
  const store: Store = process.env.DATABASE_URL ? 'postgres' : 'embedded'
  const redisUrl = process.env.REDIS_URL
  if (options.only === 'stores' && store !== 'postgres')
    throw new Error('bench stores compares the embedded store with PostgreSQL: set DATABASE_URL')
  const startedAt = new Date()
  const clock = performance.now()
  const loadBefore = loadavg()
  const work = mkdtempSync(join(tmpdir(), 'lsapi-bench-'))
  const profileDir = process.env.BENCH_CPU_PROF === '1' ? mkdtempSync(join(tmpdir(), 'lsapi-bench-prof-')) : undefined
  // Node options for the service process, to try V8 heap settings (BENCH_NODE_FLAGS='--max-semi-space-size=8').
  const nodeFlags = (process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean)
  const rows: TableRow[] = []
  const children: Child[] = []
  const stores: BenchStore[] = []
  const step = (what: string) =>
    console.log(`[${((performance.now() - clock) / 1000).toFixed(0).padStart(3)} s] ${what}`)
  const token = (
    await new TokenSigner({
      secret: BENCH_JWT_SECRET,
      issuer: 'livestock-api',
      audience: 'livestock-api',
      clock: Date.now,
    }).sign({ kind: 'integrator', id: INTEGRATOR }, 'access', 86_400)
  ).token
  const auth = { authorization: `Bearer ${token}` }
  // Limits on, as deployed, but never reached: every request runs the IP-limit check (in Redis with
  // REDIS_URL); the Enterprise quota is unlimited. BENCH_LIMITS=off turns the IP limit off.
  const limitsOn = process.env.BENCH_LIMITS !== 'off'
  const serviceEnv = (storeEnv: Record<string, string>) => ({
    LOG_LEVEL: 'warn',
    JWT_SECRET: BENCH_JWT_SECRET,
    ...storeEnv,
    RATE_LIMIT_IP_MAX: limitsOn ? '1000000000' : '0',
    QUOTA_ENTERPRISE: '0',
    // The seeded readings stay rows, the layout the bare server's statements read (docs/storage.md#readings).
    PACKING_INTERVAL_SECONDS: '0',
    ...(redisUrl ? { REDIS_URL: redisUrl, REDIS_KEY_PREFIX: `bench:${randomBytes(4).toString('hex')}:` } : {}),
  })
  const start = async (name: string, storeEnv: Record<string, string>, profile = false) => {
    const child = await startService({
      name,
      env: serviceEnv(storeEnv),
      logFile: join(work, `${name}.log`),
      cpuProfileDir: profile ? profileDir : undefined,
      nodeFlags,
    })
    children.push(child)
    // The start-up jobs (reference temperatures, predictions, pruning) run first, as after any start: until
    // the service's process is idle and, on PostgreSQL, its database runs no statement.
    const deadline = Date.now() + (plan.smoke ? 3000 : 60_000)
    await child.settle(deadline - Date.now())
    if (storeEnv.DATABASE_URL) await databaseIdle(storeEnv.DATABASE_URL, deadline)
    return child
  }
  let versions: Record<string, string> = {}
  let startup: StartupFigures[] = []
  try {
    const reads = `/users/${FARM}/animals`
    if (options.only !== 'stores') {
      step(
        `seeding the ${store === 'postgres' ? 'PostgreSQL' : 'embedded'} store: ${plan.animals} animals, ${plan.readings.toLocaleString('en')} readings, a herd of ${plan.herd} x ${plan.herdMinutes.toLocaleString('en')} readings`,
      )
      const main = await newStore(store, work, 'main')
      stores.push(main)
      const alone = await newStore(store, work, 'alone')
      stores.push(alone)
      const seeded = await seedMain(store, main, plan)
      await seedAlone(alone, plan)
      versions = await serverVersions(store, main)
      step('starting the service and the bare server')
      const service = await start('service', main.env, true)
      const bare = await startBare(main.bare, join(work, 'bare.log'))
      children.push(bare)
      const one = `${reads}/${encodeURIComponent(seeded.readMacs[0]!)}`
      // The service's peak RSS after each scenario, so that the peak row can say which scenario reached it.
      const peaks: { after: string; peakMb: number }[] = []
      const notePeak = (after: string) => peaks.push({ after, peakMb: Math.round(service.memory().peakMb) })
      notePeak('start')
      const cases = [
        {
          scenario: '/health vs a bare JSON hello',
          service: '/api/v1/health',
          bare: '/hello',
          headers: {},
          connections: 32,
          min: 0.85,
        },
        {
          scenario: 'authenticated one-animal read',
          service: `/api/v1${one}`,
          bare: one,
          headers: auth,
          connections: 32,
          min: 0.7,
        },
        {
          scenario: 'authenticated list limit=100',
          service: `/api/v1${reads}?limit=100`,
          bare: `${reads}?limit=100`,
          headers: auth,
          connections: 32,
          min: 0.8,
        },
        {
          scenario: `sensordata ${plan.readings.toLocaleString('en')} rows`,
          service: `/api/v1${one}/sensordata?limit=${plan.readings}`,
          bare: `${one}/sensordata?limit=${plan.readings}`,
          headers: auth,
          connections: 4,
          min: 0.85,
        },
      ]
      let oneAnimalMax = 0
      let bareOneMax = 0
      for (const c of cases) {
        step(c.scenario)
        const result = await throughputPairs(
          plan,
          { child: service, path: c.service, headers: c.headers },
          { child: bare, path: c.bare },
          c.connections,
        )
        if (c.scenario.startsWith('authenticated one')) {
          oneAnimalMax = result.measured.rps
          bareOneMax = result.baseline.rps
        }
        notePeak(c.scenario)
        rows.push({
          scenario: c.scenario,
          service: describe(result.measured),
          baseline: `bare: ${describe(result.baseline)}`,
          ratio: round3(result.ratio),
          target: `>= ${c.min}`,
          met: plan.smoke ? null : result.ratio >= c.min,
          figures: result,
        })
        if (c.scenario.startsWith('/health')) {
          // Where /health's distance from the bare hello comes from: Fastify's share, the rest is the service's.
          step('Fastify alone vs the bare hello (reference)')
          const fastify = await startFastifyHello(join(work, 'fastify-hello.log'))
          children.push(fastify)
          const reference = await throughputPairs(
            plan,
            { child: fastify, path: '/hello' },
            { child: bare, path: '/hello' },
            c.connections,
          )
          rows.push({
            scenario: 'reference: Fastify alone (one route, no hooks) vs the bare hello',
            service: `Fastify: ${describe(reference.measured)}`,
            baseline: `bare: ${describe(reference.baseline)}`,
            ratio: round3(reference.ratio),
            target: 'reported (no target)',
            met: null,
            figures: reference,
          })
          await fastify.stop()
        }
      }

      step('latency at half the maximum throughput (one-animal read)')
      const half = async (target: Target, rate: number) =>
        expectOnly(
          await load({
            port: target.child.port,
            path: target.path,
            headers: target.headers,
            duration: plan.halfRateSeconds,
            connections: 16,
            overallRate: rate,
          }),
          200,
          'rate-limited run',
        )
      const atHalf = await half({ child: service, path: `/api/v1${one}`, headers: auth }, oneAnimalMax / 2)
      const bareAtHalf = await half({ child: bare, path: one }, bareOneMax / 2)
      const tail = atHalf.p99Ms / atHalf.p50Ms
      notePeak('p99 at half the maximum throughput')
      rows.push({
        scenario: 'p99 at half the maximum throughput',
        service: `${Math.round(atHalf.rps)} req/s: p50 ${atHalf.p50Ms.toFixed(2)} ms, p99 ${atHalf.p99Ms.toFixed(2)} ms`,
        baseline: `bare at half its maximum (${Math.round(bareAtHalf.rps)} req/s): p50 ${bareAtHalf.p50Ms.toFixed(2)} ms, p99 ${bareAtHalf.p99Ms.toFixed(2)} ms`,
        ratio: round3(tail),
        target: 'p99 <= 5 x p50',
        met: plan.smoke ? null : tail <= 5,
        figures: { service: atHalf, bare: bareAtHalf, rate: oneAnimalMax / 2 },
      })

      if (store === 'postgres') {
        // serve --workers 2 on the same store against the single process above: how far the second core carries.
        step('scaling: serve --workers 2 vs 1 (one-animal read)')
        const two = await start('service-2-workers', { ...main.env, WORKERS: '2' })
        await new Promise((resolve) => setTimeout(resolve, plan.smoke ? 2000 : 8000)) // the second worker's start
        const scaling = await throughputPairs(
          plan,
          { child: two, path: `/api/v1${one}`, headers: auth },
          { child: service, path: `/api/v1${one}`, headers: auth },
          32,
        )
        rows.push({
          scenario: 'scaling: 2 workers vs 1 (one-animal read)',
          service: `2 workers: ${describe(scaling.measured)}`,
          baseline: `1 process: ${describe(scaling.baseline)}`,
          ratio: round3(scaling.ratio),
          target: 'reported (2 cores, load generator included)',
          met: null,
          figures: scaling,
        })
        await two.stop()
      }

      step(`bulk ingest of ${plan.ingestRows.toLocaleString('en')} rows`)
      const rowsToIngest = sensorRows(plan.ingestRows, Date.now() - 60_000)
      const bodies: string[] = []
      for (let i = 0; i < rowsToIngest.length; i += plan.ingestBatch)
        bodies.push(JSON.stringify({ readings: rowsToIngest.slice(i, i + plan.ingestBatch) }))
      const ingestVia = async (port: number, path: string, headers: Record<string, string>) => {
        const started = performance.now()
        for (const body of bodies) await post(port, path, headers, body)
        return performance.now() - started
      }
      let bareMac = 0
      const viaApi = (target: string) =>
        ingestVia(service.port, `/api/v1${reads}/${encodeURIComponent(target)}/sensordata`, auth)
      const viaBare = () => ingestVia(bare.port, `${reads}/${encodeURIComponent(mac(4, bareMac++))}/sensordata`, {})
      await viaApi(seeded.ingestMacs[plan.pairs]!)
      await viaBare()
      const apiMs: number[] = []
      const bareMs: number[] = []
      const ingestRatios: number[] = []
      for (let pair = 0; pair < plan.pairs; pair++) {
        if (pair % 2 === 0) {
          bareMs.push(await viaBare())
          apiMs.push(await viaApi(seeded.ingestMacs[pair]!))
        } else {
          apiMs.push(await viaApi(seeded.ingestMacs[pair]!))
          bareMs.push(await viaBare())
        }
        ingestRatios.push(bareMs.at(-1)! / apiMs.at(-1)!)
      }
      const rowsPerS = (msTaken: number) =>
        `${Math.round((plan.ingestRows / msTaken) * 1000).toLocaleString('en')} rows/s (${(msTaken / 1000).toFixed(2)} s)`
      const ingestRatio = median(ingestRatios)
      notePeak('bulk ingest')
      rows.push({
        scenario: `bulk ingest ${plan.ingestRows.toLocaleString('en')} rows (${plan.ingestBatch.toLocaleString('en')} per request)`,
        service: `API: ${rowsPerS(median(apiMs))}`,
        baseline: `bare multi-row INSERT over HTTP: ${rowsPerS(median(bareMs))}`,
        ratio: round3(ingestRatio),
        target: '>= 0.5',
        met: plan.smoke ? null : ingestRatio >= 0.5,
        figures: { apiMs, bareMs, ratios: ingestRatios.map(round3) },
      })

      step(`30-day analytics: ${plan.herd}-animal table vs 1-animal table`)
      const aloneService = await start('alone', alone.env)
      const analytics = `/api/v1/users/${HERD_FARM}/animals/${encodeURIComponent(seeded.herdMac)}/sensordata/analytics?timeRange=30d`
      const timeOf = async (child: Child) => {
        const times: number[] = []
        for (let i = 0; i < plan.analyticsRequests; i++) {
          const { ms, body } = await getJson(child.port, analytics, auth)
          const points = (body as { data: { dataPointsCount: number } }).data.dataPointsCount
          if (points < plan.herdMinutes * 0.9) throw new Error(`analytics on ${child.name} counted ${points} readings`)
          times.push(ms)
        }
        return median(times)
      }
      await timeOf(service)
      await timeOf(aloneService)
      const herdMs: number[] = []
      const aloneMs: number[] = []
      const analyticsRatios: number[] = []
      for (let pair = 0; pair < Math.max(plan.pairs, plan.smoke ? 1 : 7); pair++) {
        if (pair % 2 === 0) {
          aloneMs.push(await timeOf(aloneService))
          herdMs.push(await timeOf(service))
        } else {
          herdMs.push(await timeOf(service))
          aloneMs.push(await timeOf(aloneService))
        }
        analyticsRatios.push(herdMs.at(-1)! / aloneMs.at(-1)!)
      }
      const analyticsRatio = median(analyticsRatios)
      notePeak('30-day analytics')
      rows.push({
        scenario: `30-day analytics (${plan.herdMinutes.toLocaleString('en')} readings), ${plan.herd}-animal table vs alone`,
        service: `${median(herdMs).toFixed(1)} ms in a table of ${((plan.herd * plan.herdMinutes) / 1e6).toFixed(2)}M rows`,
        baseline: `${median(aloneMs).toFixed(1)} ms with the animal alone`,
        ratio: round3(analyticsRatio),
        target: '<= 1.5',
        met: plan.smoke ? null : analyticsRatio <= 1.5,
        figures: { herdMs, aloneMs, ratios: analyticsRatios.map(round3) },
      })
      await aloneService.stop()
      const memory = service.memory()
      const bareMemory = bare.memory()
      rows.push({
        scenario: `peak RSS of the service over the bench (${store === 'postgres' ? 'PostgreSQL' : 'embedded'})`,
        service: `${Math.round(memory.peakMb)} MB peak (reached in: ${peaks.find((p) => p.peakMb >= Math.round(memory.peakMb))?.after ?? 'the last scenario'}), ${Math.round(memory.rssMb)} MB now`,
        baseline: `bare server: ${Math.round(bareMemory.peakMb)} MB peak`,
        ratio: null,
        target: store === 'postgres' ? '<= 256 MB' : 'reported (the target is for PostgreSQL)',
        met: store === 'postgres' && !plan.smoke ? memory.peakMb <= 256 : null,
        figures: { ...memory, peakAfter: peaks },
      })
      await bare.stop()
      await service.stop()
    }

    if (store === 'postgres') {
      step('embedded vs PostgreSQL on the same reads')
      const pgStore = await newStore('postgres', work, 'reads-pg')
      const embeddedStore = await newStore('embedded', work, 'reads-embedded')
      stores.push(pgStore, embeddedStore)
      await seedReadsOnly(pgStore, plan)
      if (options.only === 'stores') versions = await serverVersions('postgres', pgStore)
      await seedReadsOnly(embeddedStore, plan)
      const onPg = await start('reads-pg', pgStore.env)
      const onEmbedded = await start('reads-embedded', embeddedStore.env)
      const oneMac = `${reads}/${encodeURIComponent(mac(1, 0))}`
      for (const c of [
        { name: 'one-animal read', path: `/api/v1${oneMac}`, connections: 32 },
        { name: 'list limit=100', path: `/api/v1${reads}?limit=100`, connections: 32 },
        {
          name: `sensordata ${plan.readings.toLocaleString('en')} rows`,
          path: `/api/v1${oneMac}/sensordata?limit=${plan.readings}`,
          connections: 4,
        },
      ]) {
        step(`stores: ${c.name}`)
        const result = await throughputPairs(
          plan,
          { child: onEmbedded, path: c.path, headers: auth },
          { child: onPg, path: c.path, headers: auth },
          c.connections,
        )
        rows.push({
          scenario: `stores: ${c.name}, embedded vs PostgreSQL`,
          service: `embedded: ${describe(result.measured)}`,
          baseline: `PostgreSQL: ${describe(result.baseline)}`,
          ratio: round3(result.ratio),
          target: 'reported (no target)',
          met: null,
          figures: result,
        })
      }
      await onPg.stop()
      await onEmbedded.stop()
    }

    if (options.only !== 'stores') {
      step('events to a webhook receiver: reading to webhook, and 10,000 events at once')
      const deliveryStore = await newStore(store, work, 'delivery')
      stores.push(deliveryStore)
      const deliveryFigures = await measureDelivery(
        deliveryStore.env,
        plan.smoke ? { samples: 20, events: 200 } : { samples: 200, events: 10_000 },
      )
      rows.push(...deliveryRows(deliveryFigures, store === 'postgres' ? 'PostgreSQL' : 'embedded', plan.smoke))
      step('the farm app in Chromium: first load and the herd screen')
      rows.push(...farmAppRows(await measureFarmApp(plan.smoke ? 50 : 1000, plan.smoke ? 1 : 5), plan.smoke))
    }

    if (options.only !== 'stores') {
      startup = []
      for (const s of store === 'postgres' ? (['postgres', 'embedded'] as const) : (['embedded'] as const)) {
        step(`start to ready and memory at start, ${s}`)
        const figures = await measureStartup(s, plan.starts, plan.startIdleMs)
        startup.push(figures)
        rows.push({
          scenario: `start to ready (${s === 'postgres' ? 'PostgreSQL' : 'embedded'})`,
          service: `${Math.round(figures.readyMs)} ms (${plan.starts > 1 ? `slowest of ${plan.starts - 1} starts after the first` : 'one start, which creates the store'})`,
          baseline: `target ${figures.targetMs} ms`,
          ratio: round3(figures.readyMs / figures.targetMs),
          target: 'ratio <= 1',
          met: plan.smoke ? null : figures.readyMs <= figures.targetMs,
          figures: { runs: figures.runs },
        })
        rows.push({
          scenario: `RSS at start (${s === 'postgres' ? 'PostgreSQL' : 'embedded'})`,
          service: `${Math.round(figures.rssIdleMb)} MB idle, ${Math.round(figures.peakMb)} MB peak`,
          baseline: `first start (creates and migrates the store): ${Math.round(figures.firstPeakMb)} MB peak`,
          ratio: null,
          target: 'reported',
          met: null,
        })
      }
    }
  } finally {
    for (const child of children) await child.stop().catch(() => {})
    for (const s of stores)
      await s.drop().catch((err: unknown) => console.error(`could not drop a scratch database: ${String(err)}`))
    rmSync(work, { recursive: true, force: true })
  }

  const seconds = (performance.now() - clock) / 1000
  printRows(rows)
  const results = {
    date: startedAt.toISOString(),
    mode: plan.smoke ? 'smoke' : (options.only ?? 'full'),
    durationSeconds: Math.round(seconds),
    store,
    redis: Boolean(redisUrl),
    serviceNodeFlags: nodeFlags,
    logLevel: 'warn',
    limits: limitsOn ? 'IP limit on at 1e9 per window, Enterprise quota unlimited' : 'off',
    machine: {
      ...machine(),
      ...versions,
      loadAverageBefore: loadBefore.map((x) => round3(x)),
      loadAverageAfter: loadavg().map((x) => round3(x)),
    },
    plan,
    rows,
    startup,
    cpuProfileDir: profileDir,
  }
  // bench/results.json holds full runs of the whole table only; a smoke run or the stores alone go to the temp folder.
  const partial = plan.smoke ? 'smoke' : options.only
  const file =
    process.env.BENCH_RESULTS ??
    (partial ? join(tmpdir(), `livestock-api-bench-${partial}.json`) : join(import.meta.dirname, 'results.json'))
  writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`)
  console.log(
    `${rows.length} rows in ${seconds.toFixed(0)} s; results in ${file}${profileDir ? `; CPU profile of the service in ${profileDir}` : ''}`,
  )
  const missed = rows.filter((r) => r.met === false)
  if (missed.length > 0) console.log(`targets missed: ${missed.map((r) => r.scenario).join('; ')}`)
  return rows
}
