// Rows 4-7 of the readings-at-scale scenario (readings-at-scale.ts): farms with days of history, then the
// predictions job, the analytics, the litter-device summary and the aggregate route on them.
import { sql, type Kysely } from 'kysely'
import type { DB } from '../src/db/schema.ts'
import { packReadings } from '../src/jobs/packing.ts'
import { RUN_MINUTES_PAST, scorePredictions } from '../src/jobs/predictions.ts'
import { readingRows, sensorAnalytics, summedUp } from '../src/modules/readings/readings.repository.ts'
import { SERIES, type ReadingKind } from '../src/modules/readings/readings.series.ts'
import { aggregateReadings } from '../src/modules/readings/readings.aggregate.ts'
import type { AggregateSpan } from '../src/modules/readings/readings.rules.ts'
import type { TableRow } from './scenario.ts'
import { benchFarm, median, type BenchApp } from './support.ts'
import {
  addTags,
  agrees,
  count,
  DAY,
  history,
  HOUR,
  ingestAll,
  MINUTE,
  ms,
  notBuilt,
  pairs,
  storeName,
  times,
  type Plan,
  type Store,
} from './readings-at-scale-support.ts'

type Farm = Awaited<ReturnType<typeof benchFarm>>

interface HistoryFarm {
  farm: Farm
  days: number
  macs: string[]
}

export interface History {
  /** The short and the long history, each `scoredAnimals` animals. */
  farms: [HistoryFarm, HistoryFarm]
  devices: { farm: Farm; macs: string[] }
  /** The newest reading's time, ms. */
  end: number
}

/** Tags of a farm whose readings of `kind` come every `everyMinutes`. */
interface Sending {
  kind: ReadingKind
  tags: string[]
  everyMinutes: number
}

/**
 * `days` of readings up to `end`, a day at a time as they would arrive: each tag's day through the service's
 * ingestion code (which keeps the hourly rollups), then the packing job as it runs by the day's end.
 */
async function writeDays(db: Kysely<DB>, uid: string, sendings: Sending[], days: number, end: number) {
  for (let day = days - 1; day >= 0; day--) {
    const dayEnd = end - day * DAY
    for (const { kind, tags, everyMinutes } of sendings)
      for (const [n, tag] of tags.entries()) {
        const readings = history(kind, n, dayEnd, DAY / (everyMinutes * MINUTE), everyMinutes, 7 + 1000 * day)
        await ingestAll(db, uid, tag, kind, readings, 10_000)
      }
    await packReadings(db, { now: dayEnd, uid })
  }
}

/**
 * Farms with history: the two history farms, each `scoredAnimals` animals with a sensor reading a minute and a
 * location detection every 5 minutes, and a farm of `summaryDevices` litter devices with a reading a minute.
 */
export async function seedHistory(plan: Plan, bench: BenchApp): Promise<History> {
  const db = bench.database.db
  const end = Date.now() - MINUTE
  const farms: HistoryFarm[] = []
  for (const days of plan.historyDays) {
    const farm = await benchFarm(bench)
    const macs: string[] = []
    for (let n = 0; n < plan.scoredAnimals; n++) macs.push(await farm.animal())
    const sendings: Sending[] = [
      { kind: 'sensordata', tags: macs, everyMinutes: 1 },
      { kind: 'locations', tags: macs, everyMinutes: 5 },
    ]
    await writeDays(db, farm.uid, sendings, days, end)
    farms.push({ farm, days, macs })
  }
  const devicesFarm = await benchFarm(bench)
  const devices = await addTags(bench, devicesFarm.uid, 'devicedata', 3, plan.summaryDevices)
  await writeDays(db, devicesFarm.uid, [{ kind: 'devicedata', tags: devices, everyMinutes: 1 }], plan.deviceDays, end)
  await sql`VACUUM ANALYZE`.execute(db)
  return { farms: farms as [HistoryFarm, HistoryFarm], devices: { farm: devicesFarm, macs: devices }, end }
}

/**
 * Row 4: the predictions job's hourly run (the hour after a first run's catch-up) of the farm with the short
 * history against the farm with the long one, the same number of animals; its predictions of that hour are
 * removed (untimed) before each run. Milliseconds per animal-hour: a run's time / animals.
 */
export async function predictionsJob(store: Store, plan: Plan, bench: BenchApp, seeded: History): Promise<TableRow> {
  const db = bench.database.db
  const lastHourEnd = Math.floor(seeded.end / HOUR) * HOUR
  for (const { farm } of seeded.farms)
    await scorePredictions(db, { now: lastHourEnd - HOUR + RUN_MINUTES_PAST * MINUTE, uid: farm.uid })
  const hourly = ({ farm }: HistoryFarm) => ({
    before: () => sql`DELETE FROM predictions WHERE uid = ${farm.uid} AND predicted_at >= ${lastHourEnd}`.execute(db),
    run: async () => {
      const outcome = await scorePredictions(db, { now: lastHourEnd + RUN_MINUTES_PAST * MINUTE, uid: farm.uid })
      if (outcome.hours !== 1 || outcome.animals !== plan.scoredAnimals)
        throw new Error(`the predictions run scored ${outcome.animals} animals for ${outcome.hours} hours`)
    },
  })
  const [short, long] = seeded.farms
  const result = await pairs(plan.rounds, hourly(long), hourly(short))
  const perAnimalHour = (runs: number[]) => median(runs) / plan.scoredAnimals
  const ratio = median(result.ratios)
  const longMs = perAnimalHour(result.a)
  return {
    scenario: `predictions job, ms per animal-hour, ${long.days} vs ${short.days} days of history (${storeName(store)}: ${plan.scoredAnimals} animals)`,
    service: `${long.days} days: ${ms(longMs)} (${ms(median(result.a))} a run)`,
    baseline: `${short.days} days: ${ms(perAnimalHour(result.b))} (${ms(median(result.b))} a run)`,
    ratio: Number(ratio.toFixed(3)),
    target: '<= 2 ms, and <= 1.2',
    met: plan.smoke ? null : longMs <= 2 && ratio <= 1.2,
    figures: result,
  }
}

/**
 * Row 5: 30-day analytics of one animal of the long history, the repository's call as the route makes it
 * (database time, round trip included), against the raw-row computation of the same figures (the readings of both
 * parts summed up per hour, then over the span); both must agree.
 */
export async function analytics(store: Store, plan: Plan, bench: BenchApp, seeded: History): Promise<TableRow> {
  const db = bench.database.db
  const { farm, macs } = seeded.farms[1]
  const span = { start: seeded.end - plan.spanDays * DAY, end: seeded.end }
  const raw = () =>
    sql<{ n: string; avg_c: string; min_c: number; max_c: number; avg_m: string; min_m: number; max_m: number }>`
      SELECT sum(n) AS n, sum(c_sum) / sum(n) AS avg_c, min(c_min) AS min_c, max(c_max) AS max_c,
             sum(m_sum) / sum(n) AS avg_m, min(m_min) AS min_m, max(m_max) AS max_m
      FROM (${summedUp(SERIES.sensordata, readingRows(SERIES.sensordata, farm.uid, macs[0]!, span))}) h`.execute(db)
  const service = () => sensorAnalytics(db, farm.uid, macs[0]!, span.start, span.end)
  const [mine, theirs] = [await service(), (await raw()).rows[0]!]
  const same =
    mine.dataPointsCount === Number(theirs.n) &&
    agrees(mine.averageTemperature, theirs.avg_c) &&
    agrees(mine.temperatureRange.min, theirs.min_c) &&
    agrees(mine.temperatureRange.max, theirs.max_c) &&
    agrees(mine.averageAccelerationMagnitude, theirs.avg_m) &&
    agrees(mine.accelerationMagnitudeRange.min, theirs.min_m) &&
    agrees(mine.accelerationMagnitudeRange.max, theirs.max_m)
  const result = await pairs(plan.rounds, service, raw)
  const serviceMs = median(result.a)
  return {
    scenario: `${plan.spanDays}-day analytics of one animal, database time (${storeName(store)}: ${count(mine.dataPointsCount)} readings of ${seeded.farms[1].days} days)`,
    service: `${ms(serviceMs)} (sensorAnalytics)${same ? '' : '; NOT the figures of the raw computation'}`,
    baseline: `raw rows summed up: ${ms(median(result.b))}, ${(median(result.b) / serviceMs).toFixed(1)}x${same ? ', same figures' : ''}`,
    ratio: null,
    target: '<= 5 ms',
    met: plan.smoke ? null : serviceMs <= 5 && same,
    figures: { ...result, same },
  }
}

/** Row 6: the litter-device summary of the farm of `summaryDevices` devices through its route. */
export async function litterSummary(store: Store, plan: Plan, bench: BenchApp, seeded: History): Promise<TableRow> {
  const { farm, macs } = seeded.devices
  const path = `/api/v1/users/${farm.uid}/litterguards/summary`
  const get = async () => {
    const res = await fetch(`http://127.0.0.1:${bench.port}${path}`, { headers: farm.headers })
    const body = (await res.json()) as { data?: { totalDevices?: number } }
    if (res.status !== 200 || body.data?.totalDevices !== macs.length)
      throw new Error(`${path} answered ${res.status}: ${JSON.stringify(body).slice(0, 200)}`)
  }
  const runs = await times(plan.rounds, get)
  const summaryMs = median(runs)
  const readings = (macs.length * plan.deviceDays * DAY) / MINUTE
  return {
    scenario: `litter-device summary over HTTP (${storeName(store)}: ${macs.length} devices, ${plan.deviceDays} days of a reading a minute)`,
    service: `${ms(summaryMs)} a request`,
    baseline: `${count(readings)} readings stored (issue 27, before: 450 ms for 50 devices)`,
    ratio: null,
    target: '<= 20 ms',
    met: plan.smoke ? null : summaryMs <= 20,
    figures: { runs },
  }
}

interface BucketStats {
  mean: number
  min: number
  max: number
  sum: number
  sumOfSquares: number
}

/**
 * Row 7: `GET .../sensordata/aggregate?interval=1h` over 30 whole days of one animal of the long history, the
 * route's repository call against the raw-row computation (the readings of both parts summed up per hour); every
 * bucket of the route's answer must agree. Ratio: raw time / the call's time.
 */
export async function aggregate(store: Store, plan: Plan, bench: BenchApp, seeded: History): Promise<TableRow> {
  const db = bench.database.db
  const { farm, macs } = seeded.farms[1]
  const start = Math.floor((seeded.end - plan.spanDays * DAY) / HOUR) * HOUR
  const end = start + plan.spanDays * DAY - 1
  const scenario = `aggregate interval=1h over ${plan.spanDays} days vs the raw rows (${storeName(store)})`
  const path = `/api/v1/users/${farm.uid}/animals/${macs[0]}/sensordata/aggregate?interval=1h&startTime=${start}&endTime=${end}`
  const get = async () => {
    const res = await fetch(`http://127.0.0.1:${bench.port}${path}`, { headers: farm.headers })
    return { status: res.status, body: (await res.json()) as Record<string, unknown> }
  }
  const probe = await get()
  if (probe.status === 404 && String(probe.body.error).startsWith('Route '))
    return notBuilt(scenario, '>= 10, same numbers', 'the aggregate route is not on main yet')
  if (probe.status !== 200)
    throw new Error(`${path} answered ${probe.status}: ${JSON.stringify(probe.body).slice(0, 200)}`)
  const raw = () =>
    sql<Record<string, number | string>>`
      SELECT * FROM (${summedUp(SERIES.sensordata, readingRows(SERIES.sensordata, farm.uid, macs[0]!, { start, end }))}) h
      ORDER BY hour`.execute(db)
  const buckets = (
    probe.body.data as {
      buckets: { t: number; count: number; temperature: BucketStats; accelerationMagnitude: BucketStats }[]
    }
  ).buckets
  const hours = (await raw()).rows
  const differ =
    hours.filter((h, i) => {
      const b = buckets[i]
      const stats = (s: BucketStats | undefined, v: string) =>
        agrees(s?.sum, h[`${v}_sum`]) &&
        agrees(s?.sumOfSquares, h[`${v}_sumsq`]) &&
        agrees(s?.min, h[`${v}_min`]) &&
        agrees(s?.max, h[`${v}_max`])
      return !(
        b &&
        b.t === Number(h.hour) &&
        b.count === Number(h.n) &&
        stats(b.temperature, 'c') &&
        stats(b.accelerationMagnitude, 'm')
      )
    }).length + Math.abs(buckets.length - hours.length)
  const route = async () => {
    if ((await get()).status !== 200) throw new Error(`${path} failed`)
  }
  // The route's repository call (database time, round trip included) is what the raw computation compares with;
  // the whole request (its 720 buckets as JSON over HTTP) is reported beside.
  const span: AggregateSpan = { interval: '1h', start, end, size: HOUR }
  const statement = await pairs(
    plan.rounds,
    () => aggregateReadings(db, SERIES.sensordata, farm.uid, macs[0]!, span),
    raw,
  )
  const http = await times(plan.rounds, route)
  const ratio = median(statement.ratios.map((r) => 1 / r))
  return {
    scenario,
    service: `aggregateReadings: ${ms(median(statement.a))} for ${buckets.length} buckets (the request over HTTP: ${ms(median(http))})${differ === 0 ? '' : `; ${differ} buckets differ from the raw rows`}`,
    baseline: `raw rows summed up per hour: ${ms(median(statement.b))}${differ === 0 ? ', same numbers' : ''}`,
    ratio: Number(ratio.toFixed(3)),
    target: '>= 10, same numbers',
    met: plan.smoke ? null : ratio >= 10 && differ === 0,
    figures: { ...statement, httpMs: http, differ },
  }
}
