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
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, loadavg, release, tmpdir, totalmem } from 'node:os'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import { TokenSigner } from '../src/auth/jwt.ts'
import { startService, type Child } from './processes.ts'
import { measureStartup, type StartupFigures } from './startup.ts'
import { BENCH_JWT_SECRET } from './support.ts'
import type { TableRow } from './scenario.ts'
import { databaseIdle, FULL, INTEGRATOR, SMOKE, type BenchStore, type Store } from './table-stores.ts'
import { deliveryAndFarmApp, round3, serviceScenarios, storesCompared, type TableRun } from './table-steps.ts'

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

/**
 * Runs the table: the service against the bare server on the main store (bench/table-steps.ts), the
 * embedded store against PostgreSQL, webhook delivery and the farm app, start-up; prints the rows and
 * writes the results file.
 */
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
    // The expensive-request bound (2 a caller by default) as deployed, but never reached: the bench's one caller
    // sends a whole row's connections at once, which the default would mostly answer with 429.
    EXPENSIVE_REQUESTS_PER_CALLER: limitsOn ? '1000000' : '0',
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
  const run: TableRun = { plan, store, work, auth, rows, step, start, children, stores }
  let versions: Record<string, string> = {}
  let startup: StartupFigures[] = []
  try {
    if (options.only !== 'stores') versions = await serviceScenarios(run)
    if (store === 'postgres') versions = (await storesCompared(run, options.only === 'stores')) ?? versions
    if (options.only !== 'stores') {
      await deliveryAndFarmApp(run)
      startup = await startups(run)
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

/** Start to ready and the memory at start, on each store the run has (bench/startup.ts). */
export async function startups(run: TableRun): Promise<StartupFigures[]> {
  const { plan, store } = run
  const startup: StartupFigures[] = []
  for (const s of store === 'postgres' ? (['postgres', 'embedded'] as const) : (['embedded'] as const)) {
    run.step(`start to ready and memory at start, ${s}`)
    const figures = await measureStartup(s, plan.starts, plan.startIdleMs)
    startup.push(figures)
    run.rows.push({
      scenario: `start to ready (${s === 'postgres' ? 'PostgreSQL' : 'embedded'})`,
      service: `${Math.round(figures.readyMs)} ms (${plan.starts > 1 ? `slowest of ${plan.starts - 1} starts after the first` : 'one start, which creates the store'})`,
      baseline: `target ${figures.targetMs} ms`,
      ratio: round3(figures.readyMs / figures.targetMs),
      target: 'ratio <= 1',
      met: plan.smoke ? null : figures.readyMs <= figures.targetMs,
      figures: { runs: figures.runs },
    })
    run.rows.push({
      scenario: `RSS at start (${s === 'postgres' ? 'PostgreSQL' : 'embedded'})`,
      service: `${Math.round(figures.rssIdleMb)} MB idle, ${Math.round(figures.peakMb)} MB peak`,
      baseline: `first start (creates and migrates the store): ${Math.round(figures.firstPeakMb)} MB peak`,
      ratio: null,
      target: 'reported',
      met: null,
    })
  }
  return startup
}
