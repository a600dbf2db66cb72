// The performance table's steps, in the order bench/table.ts runs them; each step pushes its rows.
import { join } from 'node:path'
import { expectOnly, load, type LoadResult } from './cannon.ts'
import { startBare, startFastifyHello, type Child } from './processes.ts'
import { sensorRows } from './readings.ts'
import { median } from './support.ts'
import { farmAppRows, measureFarmApp } from './farm-app.ts'
import { deliveryRows, measureDelivery } from './delivery.ts'
import { eventDerivationRow, measureEventDerivation } from './event-derivation.ts'
import type { TableRow } from './scenario.ts'
import {
  FARM,
  HERD_FARM,
  mac,
  newStore,
  seedAlone,
  seedMain,
  seedReadsOnly,
  serverVersions,
  type BenchStore,
  type Plan,
  type Seeded,
  type Store,
} from './table-stores.ts'

/** What every step shares: the plan, the store, the rows so far, and how to start a service. */
export interface TableRun {
  plan: Plan
  store: Store
  /** The run's temp folder (embedded stores, logs). */
  work: string
  auth: Record<string, string>
  rows: TableRow[]
  step: (what: string) => void
  /** Starts the service on a store and waits until its start-up jobs are done. */
  start: (name: string, storeEnv: Record<string, string>, profile?: boolean) => Promise<Child>
  /** Every process started, stopped at the end whatever happens. */
  children: Child[]
  /** Every store created, dropped at the end whatever happens. */
  stores: BenchStore[]
}

const READS = `/users/${FARM}/animals`

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
export const round3 = (x: number) => Number(x.toFixed(3))

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

/** The service and the bare server, both on the main store, and what the scenarios below measure them by. */
interface Serving {
  service: Child
  bare: Child
  /** The one-animal read's path (without /api/v1). */
  one: string
  seeded: Seeded
  /** Notes the service's peak RSS after a scenario, so that the peak row can say which scenario reached it. */
  notePeak: (after: string) => void
}

/**
 * The service against the bare server on the same data (throughput, latency at half rate, scaling, ingest),
 * the 30-day analytics against the herd's animal alone, and the service's peak RSS over all of them.
 * Returns the database server's version.
 */
export async function serviceScenarios(run: TableRun): Promise<Record<string, string>> {
  const { plan, store } = run
  run.step(
    `seeding the ${store === 'postgres' ? 'PostgreSQL' : 'embedded'} store: ${plan.animals} animals, ${plan.readings.toLocaleString('en')} readings, a herd of ${plan.herd} x ${plan.herdMinutes.toLocaleString('en')} readings`,
  )
  const main = await newStore(store, run.work, 'main')
  run.stores.push(main)
  const alone = await newStore(store, run.work, 'alone')
  run.stores.push(alone)
  const seeded = await seedMain(store, main, plan)
  await seedAlone(alone, plan)
  const versions = await serverVersions(store, main)
  run.step('starting the service and the bare server')
  const service = await run.start('service', main.env, true)
  const bare = await startBare(main.bare, join(run.work, 'bare.log'))
  run.children.push(bare)
  const peaks: { after: string; peakMb: number }[] = []
  const notePeak = (after: string) => peaks.push({ after, peakMb: Math.round(service.memory().peakMb) })
  notePeak('start')
  const serving: Serving = {
    service,
    bare,
    one: `${READS}/${encodeURIComponent(seeded.readMacs[0]!)}`,
    seeded,
    notePeak,
  }

  const max = await againstBare(run, serving)
  await halfRate(run, serving, max)
  if (store === 'postgres') await twoWorkers(run, serving, main)
  await bulkIngest(run, serving)
  await analytics(run, serving, alone)

  const memory = service.memory()
  const bareMemory = bare.memory()
  run.rows.push({
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
  return versions
}

/**
 * Throughput of /health, the one-animal read, the list and the sensor data against the bare server, with
 * Fastify alone as a reference after /health. Returns the one-animal read's maximum on both sides.
 */
async function againstBare(run: TableRun, { service, bare, one, notePeak }: Serving) {
  const { plan, auth } = run
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
      service: `/api/v1${READS}?limit=100`,
      bare: `${READS}?limit=100`,
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
    run.step(c.scenario)
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
    run.rows.push({
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
      run.step('Fastify alone vs the bare hello (reference)')
      const fastify = await startFastifyHello(join(run.work, 'fastify-hello.log'))
      run.children.push(fastify)
      const reference = await throughputPairs(
        plan,
        { child: fastify, path: '/hello' },
        { child: bare, path: '/hello' },
        c.connections,
      )
      run.rows.push({
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
  return { oneAnimalMax, bareOneMax }
}

/** p99 against p50 of the one-animal read at half the maximum throughput measured above, on both sides. */
async function halfRate(
  run: TableRun,
  { service, bare, one, notePeak }: Serving,
  { oneAnimalMax, bareOneMax }: { oneAnimalMax: number; bareOneMax: number },
) {
  const { plan, auth } = run
  run.step('latency at half the maximum throughput (one-animal read)')
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
  run.rows.push({
    scenario: 'p99 at half the maximum throughput',
    service: `${Math.round(atHalf.rps)} req/s: p50 ${atHalf.p50Ms.toFixed(2)} ms, p99 ${atHalf.p99Ms.toFixed(2)} ms`,
    baseline: `bare at half its maximum (${Math.round(bareAtHalf.rps)} req/s): p50 ${bareAtHalf.p50Ms.toFixed(2)} ms, p99 ${bareAtHalf.p99Ms.toFixed(2)} ms`,
    ratio: round3(tail),
    target: 'p99 <= 5 x p50',
    met: plan.smoke ? null : tail <= 5,
    figures: { service: atHalf, bare: bareAtHalf, rate: oneAnimalMax / 2 },
  })
}

/** serve --workers 2 on the same store against the single process above: how far the second core carries. */
async function twoWorkers(run: TableRun, { service, one }: Serving, main: BenchStore) {
  const { plan, auth } = run
  run.step('scaling: serve --workers 2 vs 1 (one-animal read)')
  const two = await run.start('service-2-workers', { ...main.env, WORKERS: '2' })
  await new Promise((resolve) => setTimeout(resolve, plan.smoke ? 2000 : 8000)) // the second worker's start
  const scaling = await throughputPairs(
    plan,
    { child: two, path: `/api/v1${one}`, headers: auth },
    { child: service, path: `/api/v1${one}`, headers: auth },
    32,
  )
  run.rows.push({
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

/** The same batches of readings posted to the API and to the bare server's multi-row INSERT, in pairs. */
async function bulkIngest(run: TableRun, { service, bare, seeded, notePeak }: Serving) {
  const { plan, auth } = run
  run.step(`bulk ingest of ${plan.ingestRows.toLocaleString('en')} rows`)
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
    ingestVia(service.port, `/api/v1${READS}/${encodeURIComponent(target)}/sensordata`, auth)
  const viaBare = () => ingestVia(bare.port, `${READS}/${encodeURIComponent(mac(4, bareMac++))}/sensordata`, {})
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
  run.rows.push({
    scenario: `bulk ingest ${plan.ingestRows.toLocaleString('en')} rows (${plan.ingestBatch.toLocaleString('en')} per request)`,
    service: `API: ${rowsPerS(median(apiMs))}`,
    baseline: `bare multi-row INSERT over HTTP: ${rowsPerS(median(bareMs))}`,
    ratio: round3(ingestRatio),
    target: '>= 0.5',
    met: plan.smoke ? null : ingestRatio >= 0.5,
    figures: { apiMs, bareMs, ratios: ingestRatios.map(round3) },
  })
}

/** One animal's 30-day analytics in the herd's table against the same animal alone in its own store. */
async function analytics(run: TableRun, { service, seeded, notePeak }: Serving, alone: BenchStore) {
  const { plan, auth } = run
  run.step(`30-day analytics: ${plan.herd}-animal table vs 1-animal table`)
  const aloneService = await run.start('alone', alone.env)
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
  run.rows.push({
    scenario: `30-day analytics (${plan.herdMinutes.toLocaleString('en')} readings), ${plan.herd}-animal table vs alone`,
    service: `${median(herdMs).toFixed(1)} ms in a table of ${((plan.herd * plan.herdMinutes) / 1e6).toFixed(2)}M rows`,
    baseline: `${median(aloneMs).toFixed(1)} ms with the animal alone`,
    ratio: round3(analyticsRatio),
    target: '<= 1.5',
    met: plan.smoke ? null : analyticsRatio <= 1.5,
    figures: { herdMs, aloneMs, ratios: analyticsRatios.map(round3) },
  })
  await aloneService.stop()
}

/**
 * The embedded store against PostgreSQL on the same reads (the farm alone, no herd). Returns PostgreSQL's
 * version when `versions` is asked for (a run of the stores alone seeds no main store to read it from).
 */
export async function storesCompared(run: TableRun, versions: boolean): Promise<Record<string, string> | undefined> {
  const { plan, auth } = run
  run.step('embedded vs PostgreSQL on the same reads')
  const pgStore = await newStore('postgres', run.work, 'reads-pg')
  const embeddedStore = await newStore('embedded', run.work, 'reads-embedded')
  run.stores.push(pgStore, embeddedStore)
  await seedReadsOnly(pgStore, plan)
  const pgVersions = versions ? await serverVersions('postgres', pgStore) : undefined
  await seedReadsOnly(embeddedStore, plan)
  const onPg = await run.start('reads-pg', pgStore.env)
  const onEmbedded = await run.start('reads-embedded', embeddedStore.env)
  const oneMac = `${READS}/${encodeURIComponent(mac(1, 0))}`
  for (const c of [
    { name: 'one-animal read', path: `/api/v1${oneMac}`, connections: 32 },
    { name: 'list limit=100', path: `/api/v1${READS}?limit=100`, connections: 32 },
    {
      name: `sensordata ${plan.readings.toLocaleString('en')} rows`,
      path: `/api/v1${oneMac}/sensordata?limit=${plan.readings}`,
      connections: 4,
    },
  ]) {
    run.step(`stores: ${c.name}`)
    const result = await throughputPairs(
      plan,
      { child: onEmbedded, path: c.path, headers: auth },
      { child: onPg, path: c.path, headers: auth },
      c.connections,
    )
    run.rows.push({
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
  return pgVersions
}

/**
 * Events: ingestion with derivation on vs off (bench/event-derivation.ts), events to a webhook receiver
 * (bench/delivery.ts); then the farm app in Chromium (bench/farm-app.ts).
 */
export async function deliveryAndFarmApp(run: TableRun) {
  const { plan, store } = run
  run.step('ingestion with event derivation on vs off')
  const derivationStore = await newStore(store, run.work, 'derivation')
  run.stores.push(derivationStore)
  const derivation = await measureEventDerivation(
    plan.smoke ? { requests: 50, rounds: 1, share: 0.016 } : { requests: 3000, rounds: 5, share: 0.016 },
    derivationStore.env,
  )
  run.rows.push(eventDerivationRow(derivation, store === 'postgres' ? 'PostgreSQL' : 'embedded', plan.smoke))
  run.step('events to a webhook receiver: reading to webhook, and 10,000 events at once')
  // The smoke run's delivery shares the store just migrated (its own farm); a full run's starts on an empty one.
  const deliveryStore = plan.smoke ? derivationStore : await newStore(store, run.work, 'delivery')
  if (!plan.smoke) run.stores.push(deliveryStore)
  const deliveryFigures = await measureDelivery(
    deliveryStore.env,
    plan.smoke ? { samples: 20, events: 200 } : { samples: 200, events: 10_000 },
  )
  run.rows.push(...deliveryRows(deliveryFigures, store === 'postgres' ? 'PostgreSQL' : 'embedded', plan.smoke))
  run.step('the farm app in Chromium: first load and the herd screen')
  run.rows.push(...farmAppRows(await measureFarmApp(plan.smoke ? 50 : 1000, plan.smoke ? 1 : 5), plan.smoke))
}
