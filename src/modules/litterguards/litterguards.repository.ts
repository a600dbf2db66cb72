// Litter-monitoring devices as stored, their readings, and the aggregates of the analytics and the
// summary, computed by the database. Rows become the spec's device through the resource's mappers
// (litterguards.resource.ts); the aggregates become verdicts through litterguards.rules.ts.
import { sql, type Insertable, type Kysely, type RawBuilder, type Selectable } from 'kysely'
import type { DB, LitterguardsTable } from '../../db/schema.ts'
import { uniqueViolation } from '../../db/errors.ts'
import { paginate, type Page, type PageParams } from '../../db/paginate.ts'
import type { FilterValue } from '../../http/list-params.ts'
import type { ApiObject } from '../../resource/resource.ts'
import { isMac, normalizeMac } from '../animals/animals.rules.ts'
import type { DeviceRow } from '../readings/readings.schemas.ts'
import {
  hourlyRows,
  lockOwner,
  newestReadings,
  readingRows,
  summedUp,
  type Span,
} from '../readings/readings.repository.ts'
import { readingTablesOf, SERIES } from '../readings/readings.series.ts'
import { LITTER_BUCKET } from '../readings/readings.rules.ts'
import { litterguards } from './litterguards.resource.ts'
import type { BucketStats, Window } from './litterguards.rules.ts'

/** A device row with `active`, judged against `activeSince` (Unix seconds) when it was read. */
export type LitterguardRow = Selectable<LitterguardsTable> & { active: boolean }

/** Thrown when the account already has a device with this MAC. */
export class DuplicateLitterguardError extends Error {
  constructor(mac: string) {
    super(`A litterguard with MAC ${mac} already exists`)
    this.name = 'DuplicateLitterguardError'
  }
}

export const toApiLitterguard = (row: LitterguardRow): ApiObject => litterguards.toApi(row)

/** Active: the newest reading is no older than activeSince. A device without readings is inactive. */
const activeExpression = (activeSince: number) => sql<boolean>`coalesce(d.last_seen >= ${activeSince}, false)`

function selectLitterguards(db: Kysely<DB>, uid: string, activeSince: number) {
  return db
    .selectFrom('litterguards as d')
    .selectAll('d')
    .select(activeExpression(activeSince).as('active'))
    .where('d.uid', '=', uid)
}

/** A device by its MAC (either case); undefined when the MAC is malformed or none of the account's. */
export async function findLitterguard(
  db: Kysely<DB>,
  uid: string,
  mac: string,
  activeSince: number,
): Promise<LitterguardRow | undefined> {
  if (!isMac(mac)) return undefined
  return selectLitterguards(db, uid, activeSince).where('d.mac', '=', normalizeMac(mac)).executeTakeFirst()
}

/** What list and search narrow by, besides the list's filter[Field] pairs. */
export interface LitterguardCriteria {
  active?: boolean | undefined
  /** Exact, either case. */
  mac?: string | undefined
  /** Part of the name, any case. */
  name?: string | undefined
}

/** One page of the account's devices, Active judged against activeSince in SQL (filter and sort alike). */
export async function listLitterguards(
  db: Kysely<DB>,
  uid: string,
  activeSince: number,
  params: PageParams,
  filters: Record<string, FilterValue>,
  criteria: LitterguardCriteria,
): Promise<Page<LitterguardRow>> {
  const active = activeExpression(activeSince)
  let query = selectLitterguards(db, uid, activeSince)
  if (criteria.active !== undefined) query = query.where(sql<boolean>`${active} = ${criteria.active}`)
  if (criteria.mac !== undefined) query = query.where('d.mac', '=', normalizeMac(criteria.mac))
  if (criteria.name !== undefined)
    query = query.where(sql<boolean>`strpos(lower(d.name), ${criteria.name.toLowerCase()}) > 0`)
  return paginate(query, {
    columns: { ...litterguards.columns({ own: 'd' }), Active: { column: active } },
    params,
    filters: litterguards.filterValues(filters),
    tiebreak: 'd.mac',
  })
}

/** Registers a device (MAC upper-cased); a MAC the account already has is a DuplicateLitterguardError. */
export async function insertLitterguard(
  db: Kysely<DB>,
  uid: string,
  body: ApiObject,
  now: number,
): Promise<LitterguardRow> {
  const columns = litterguards.toColumns(body) as Insertable<LitterguardsTable>
  try {
    const row = await db
      .insertInto('litterguards')
      .values({ ...columns, uid, t: now })
      .returningAll()
      .executeTakeFirstOrThrow()
    return { ...row, active: false }
  } catch (err) {
    if (uniqueViolation(err) === 'litterguards_pkey') throw new DuplicateLitterguardError(columns.mac)
    throw err
  }
}

export async function updateLitterguard(
  db: Kysely<DB>,
  uid: string,
  mac: string,
  body: ApiObject,
  now: Date,
  activeSince: number,
): Promise<LitterguardRow | undefined> {
  const updated = await db
    .updateTable('litterguards')
    .set({ ...litterguards.toColumns(body), updated_at: now })
    .where('uid', '=', uid)
    .where('mac', '=', mac)
    .executeTakeFirst()
  if (Number(updated.numUpdatedRows) === 0) return undefined
  return findLitterguard(db, uid, mac, activeSince)
}

/** Deletes a device and its readings; false when there is no such device. */
export async function deleteLitterguard(db: Kysely<DB>, uid: string, mac: string): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    if (!(await lockOwner(trx, SERIES.devicedata, uid, mac, 'UPDATE'))) return false
    for (const table of readingTablesOf('litterguards'))
      await trx.deleteFrom(table).where('uid', '=', uid).where('mac', '=', mac).execute()
    await trx.deleteFrom('litterguards').where('uid', '=', uid).where('mac', '=', mac).execute()
    return true
  })
}

/** Readings in [start, end] (Unix seconds, both inclusive, either open), newest first. */
export async function readDeviceReadings(
  db: Kysely<DB>,
  uid: string,
  mac: string,
  range: { start?: number; end?: number },
  limit: number,
): Promise<DeviceRow[]> {
  return newestReadings<DeviceRow>(db, SERIES.devicedata, uid, mac, range, limit)
}

/** Aggregates of one device's readings in a window and in the baseline before it. */
export interface ActivityAggregates extends BucketStats {
  mac: string
  count: number
  averageTemperature: number | null
  minTemperature: number | null
  maxTemperature: number | null
  averageMagnitude: number | null
  /** Mean dynamic acceleration |√(x²+y²+z²) − 1| of the window's readings, and of the baseline's. */
  windowActivity: number | null
  baselineActivity: number | null
}

/**
 * Per device of the account (or the one `mac`): the window's temperature and acceleration aggregates, the mean
 * dynamic acceleration of the window and of its baseline [baselineStart, window.start), the baseline's 10-minute
 * buckets' statistics and the window's bucket means (buckets UTC-aligned, cut by the window's start; numbered
 * from the epoch). Read from the devices' hourly rollups (hourlyRows: the hours the baseline or the window cut are
 * summed up from their readings), a few hundred rows a device whatever its reading rate; `rollups: false` sums every
 * reading up instead (the same figures: the test compares them).
 */
export async function activityAggregates(
  db: Kysely<DB>,
  uid: string,
  window: Window,
  baselineStart: number,
  mac?: string,
  options: { rollups?: boolean } = {},
): Promise<ActivityAggregates[]> {
  const series = SERIES.devicedata
  const hours = (span: Span) =>
    options.rollups === false
      ? sql`(${summedUp(series, readingRows(series, uid, sql.ref('d.mac'), span))})`
      : hourlyRows(series, uid, sql.ref('d.mac'), span)
  const owned = sql`d.uid = ${uid} ${mac === undefined ? sql`` : sql`AND d.mac = ${mac}`}`
  const ratio = (sum: string, count: string, side: RawBuilder<unknown>) =>
    sql`(sum(${sql.ref(`h.${sum}`)}) FILTER (WHERE ${side}) / sum(${sql.ref(`h.${count}`)}) FILTER (WHERE ${side}))::float8`
  const [inWindow, inBaseline] = [sql`h.in_window`, sql`NOT h.in_window`]
  const { rows } = await sql<{
    mac: string
    n: number
    avg_c: number | null
    min_c: number | null
    max_c: number | null
    avg_m: number | null
    window_activity: number | null
    baseline_activity: number | null
    baseline_buckets: number | null
    baseline_mean: number | null
    baseline_sd: number | null
    window_buckets: number[] | null
    window_activities: number[] | null
  }>`
    WITH h AS (
      SELECT d.mac, false AS in_window, h.* FROM litterguards d
        CROSS JOIN LATERAL ${hours({ start: baselineStart, end: window.start - 1 })} h
        WHERE ${owned}
      UNION ALL
      SELECT d.mac, true, h.* FROM litterguards d
        CROSS JOIN LATERAL ${hours({ start: window.start, end: window.end })} h
        WHERE ${owned}
    ), sums AS (
      SELECT h.mac,
        coalesce(sum(h.n) FILTER (WHERE ${inWindow}), 0) AS n,
        ${ratio('c_sum', 'n', inWindow)} AS avg_c,
        min(h.c_min) FILTER (WHERE ${inWindow}) AS min_c,
        max(h.c_max) FILTER (WHERE ${inWindow}) AS max_c,
        ${ratio('m_sum', 'n', inWindow)} AS avg_m,
        ${ratio('a_sum', 'n', inWindow)} AS window_activity,
        ${ratio('a_sum', 'n', inBaseline)} AS baseline_activity,
        sum(h.act_n) FILTER (WHERE ${inBaseline}) AS baseline_buckets,
        ${ratio('act_mean_sum', 'act_n', inBaseline)} AS baseline_mean,
        sqrt(greatest(0, sum(h.act_mean_sumsq) FILTER (WHERE ${inBaseline}) / sum(h.act_n) FILTER (WHERE ${inBaseline})
          - (sum(h.act_mean_sum) FILTER (WHERE ${inBaseline}) / sum(h.act_n) FILTER (WHERE ${inBaseline})) ^ 2))::float8 AS baseline_sd
      FROM h GROUP BY h.mac
    ), buckets AS (
      SELECT h.mac, array_agg(h.hour / ${sql.lit(LITTER_BUCKET)} + u.bucket ORDER BY h.hour, u.bucket) AS window_buckets,
             array_agg(u.mean ORDER BY h.hour, u.bucket) AS window_activities
      FROM h CROSS JOIN LATERAL unnest(h.act_bucket, h.act_mean) AS u (bucket, mean)
      WHERE h.in_window GROUP BY h.mac
    )
    SELECT d.mac, s.n, s.avg_c, s.min_c, s.max_c, s.avg_m, s.window_activity, s.baseline_activity, s.baseline_buckets,
           s.baseline_mean, s.baseline_sd, b.window_buckets, b.window_activities
    FROM litterguards d LEFT JOIN sums s ON s.mac = d.mac LEFT JOIN buckets b ON b.mac = d.mac
    WHERE ${owned}
    ORDER BY d.mac`.execute(db)
  return rows.map((r) => ({
    mac: r.mac,
    count: Number(r.n ?? 0),
    averageTemperature: r.avg_c,
    minTemperature: r.min_c,
    maxTemperature: r.max_c,
    averageMagnitude: r.avg_m,
    windowActivity: r.window_activity,
    baselineActivity: r.baseline_activity,
    baselineBuckets: Number(r.baseline_buckets ?? 0),
    baselineMean: r.baseline_mean,
    baselineSd: r.baseline_sd,
    windowBuckets: (r.window_buckets ?? []).map((bucket, i) => ({
      bucket: Number(bucket),
      activity: Number(r.window_activities![i]),
    })),
  }))
}

/**
 * Per device of the account: the 10-minute buckets' statistics of the baseline [baselineStart, start) and the
 * window's bucket means [start, endBefore), all three on bucket boundaries (summaryWindow), from the hourly
 * rollups alone: a whole hour's bucket sums as stored, an hour a boundary cuts from its buckets' means. The
 * same figures as activityAggregates over those spans (to float8 rounding: a cut hour's bucket means are
 * summed as stored, in float8).
 */
export async function summaryBuckets(
  db: Kysely<DB>,
  uid: string,
  span: { baselineStart: number; start: number; endBefore: number },
): Promise<(BucketStats & { mac: string })[]> {
  const { baselineStart, start, endBefore } = span
  if ([baselineStart, start, endBefore].some((t) => t % LITTER_BUCKET !== 0))
    throw new Error('summaryBuckets: the spans must start and end on 10-minute buckets')
  const hour = 3600
  const { rows } = await sql<{
    mac: string
    baseline_n: number | null
    baseline_mean: number | null
    baseline_sd: number | null
    window_hours: string | null
  }>`
    WITH whole AS (
      SELECT d.mac, sum(h.act_n) AS n, sum(h.act_mean_sum) AS s, sum(h.act_mean_sumsq) AS ss
      FROM litterguards d
      JOIN litterguard_hourly h ON h.uid = d.uid AND h.mac = d.mac AND h.hour >= ${baselineStart} AND h.hour <= ${start - hour}
      WHERE d.uid = ${uid} GROUP BY d.mac
    ), cut AS (
      SELECT d.mac, count(*) AS n, sum(u.mean::numeric) AS s, sum(u.mean::numeric * u.mean::numeric) AS ss
      FROM litterguards d
      JOIN litterguard_hourly h ON h.uid = d.uid AND h.mac = d.mac
        AND ((h.hour >= ${baselineStart - (baselineStart % hour)} AND h.hour < ${baselineStart})
             OR (h.hour > ${start - hour} AND h.hour < ${start}))
      CROSS JOIN LATERAL unnest(h.act_bucket, h.act_mean) AS u (bucket, mean)
      WHERE d.uid = ${uid} AND h.hour + u.bucket * ${sql.lit(LITTER_BUCKET)} >= ${baselineStart}
        AND h.hour + u.bucket * ${sql.lit(LITTER_BUCKET)} < ${start}
      GROUP BY d.mac
    ), baseline AS (
      SELECT mac, sum(n) AS n, sum(s) AS s, sum(ss) AS ss FROM (SELECT * FROM whole UNION ALL SELECT * FROM cut) b GROUP BY mac
    ), win AS (
      SELECT d.mac, json_agg(json_build_array(h.hour, h.act_bucket, h.act_mean) ORDER BY h.hour)::text AS window_hours
      FROM litterguards d
      JOIN litterguard_hourly h ON h.uid = d.uid AND h.mac = d.mac AND h.hour > ${start - hour} AND h.hour < ${endBefore}
      WHERE d.uid = ${uid} GROUP BY d.mac
    )
    SELECT d.mac, b.n AS baseline_n, (b.s / nullif(b.n, 0))::float8 AS baseline_mean,
           sqrt(greatest(0, b.ss / nullif(b.n, 0) - (b.s / nullif(b.n, 0)) ^ 2))::float8 AS baseline_sd,
           w.window_hours
    FROM litterguards d LEFT JOIN baseline b ON b.mac = d.mac LEFT JOIN win w ON w.mac = d.mac
    WHERE d.uid = ${uid}
    ORDER BY d.mac`.execute(db)
  return rows.map((r) => {
    // The window's buckets in time order: each hour's buckets as stored (in order), those inside the window.
    const windowBuckets: { bucket: number; activity: number }[] = []
    for (const [hourStart, buckets, means] of JSON.parse(r.window_hours ?? '[]') as [number, number[], number[]][])
      buckets.forEach((b, i) => {
        const t = hourStart + b * LITTER_BUCKET
        if (t >= start && t < endBefore) windowBuckets.push({ bucket: t / LITTER_BUCKET, activity: means[i]! })
      })
    return {
      mac: r.mac,
      baselineBuckets: Number(r.baseline_n ?? 0),
      baselineMean: r.baseline_mean,
      baselineSd: r.baseline_sd,
      windowBuckets,
    }
  })
}

/** The account's device counts, the active devices' mean CurrentTemperature, and the newest LastSeen. */
export async function deviceTotals(
  db: Kysely<DB>,
  uid: string,
  activeSince: number,
): Promise<{ total: number; active: number; averageTemperature: number | null; lastSeen: number | null }> {
  const active = activeExpression(activeSince)
  const row = await db
    .selectFrom('litterguards as d')
    .select([
      sql<number>`count(*)`.as('total'),
      sql<number>`count(*) FILTER (WHERE ${active})`.as('active'),
      sql<number | null>`avg(d.current_temperature) FILTER (WHERE ${active})`.as('average_temperature'),
      sql<number | null>`max(d.last_seen)`.as('last_seen'),
    ])
    .where('d.uid', '=', uid)
    .executeTakeFirstOrThrow()
  return {
    total: Number(row.total),
    active: Number(row.active),
    averageTemperature: row.average_temperature,
    lastSeen: row.last_seen,
  }
}
