// Downsampled series (GET .../sensordata/aggregate of ear tags and litter devices): one tag's readings summed up
// per bucket by the database, from the hourly rollups where the buckets are whole hours, else from the readings.
import { sql, type Kysely, type RawBuilder } from 'kysely'
import type { DB } from '../../db/schema.ts'
import { hourlyRows, readingRows, type Series, type Span } from './readings.repository.ts'
import { fromRollups, type AggregateSpan } from './readings.rules.ts'
import type { AggregateBucketBody, AggregateSeriesBody } from './readings.schemas.ts'

/** A bucket's sums as the database gives them: count, then sum, sum of squares, min and max of c and of m = √(x²+y²+z²). */
interface BucketSums {
  bucket: number | string
  n: number | string
  c_sum: number
  c_sumsq: number
  c_min: number
  c_max: number
  m_sum: number
  m_sumsq: number
  m_min: number
  m_max: number
}

function toBucket(r: BucketSums): AggregateBucketBody {
  const count = Number(r.n)
  const stats = (sum: number, sumOfSquares: number, min: number, max: number) => ({
    mean: sum / count,
    min,
    max,
    sum,
    sumOfSquares,
  })
  return {
    t: Number(r.bucket),
    count,
    temperature: stats(r.c_sum, r.c_sumsq, r.c_min, r.c_max),
    accelerationMagnitude: stats(r.m_sum, r.m_sumsq, r.m_min, r.m_max),
  }
}

/**
 * Each reading of one tag in `span` as the sums of a bucket of one reading (n = 1). Sums are `numeric`: each value
 * enters as its decimal, so a sum is exact whatever the order or grouping of its terms, and a bucket summed from
 * readings equals one summed from hourly rollups to the last digit.
 */
function readingSums(series: Series, uid: string, mac: string, span: Span, size: number): RawBuilder<unknown> {
  return sql`
    SELECT t - t % ${size} AS bucket, 1 AS n,
           c::numeric AS c_sum, c::numeric * c::numeric AS c_sumsq, c AS c_min, c AS c_max,
           m::numeric AS m_sum, m::numeric * m::numeric AS m_sumsq, m AS m_min, m AS m_max
    FROM (SELECT t, c, sqrt(x * x + y * y + z * z) AS m FROM ${readingRows(series, uid, mac, span)} r) r`
}

/** The sums of a bucket, in the order of BucketSums (and of the rollup's columns). */
const BUCKET_COLUMNS = ['n', 'c_sum', 'c_sumsq', 'c_min', 'c_max', 'm_sum', 'm_sumsq', 'm_min', 'm_max']

/**
 * One tag's readings (ear tag or litter device) in the span, summed up per bucket of `span.size` aligned to the
 * epoch: the buckets with readings, in time order, computed by the database. Buckets of whole hours sum the
 * hourly rollups (hourlyRows: an hour the span cuts is summed from its readings in the span); shorter ones, or
 * with `rollups: false`, the readings themselves. Both give the same numbers (the sums are exact).
 */
export async function aggregateReadings(
  db: Kysely<DB>,
  series: Series,
  uid: string,
  mac: string,
  span: AggregateSpan,
  options: { rollups?: boolean } = {},
): Promise<AggregateSeriesBody> {
  const sums =
    options.rollups !== false && fromRollups(span.interval)
      ? sql`SELECT hour - hour % ${span.size} AS bucket, ${sql.join(BUCKET_COLUMNS.map((c) => sql.ref(c)))}
            FROM ${hourlyRows(series, uid, mac, span)} h`
      : readingSums(series, uid, mac, span, span.size)
  const { rows } = await sql<BucketSums>`
    SELECT bucket, sum(n) AS n,
           sum(c_sum)::float8 AS c_sum, sum(c_sumsq)::float8 AS c_sumsq, min(c_min) AS c_min, max(c_max) AS c_max,
           sum(m_sum)::float8 AS m_sum, sum(m_sumsq)::float8 AS m_sumsq, min(m_min) AS m_min, max(m_max) AS m_max
    FROM (${sums}) s
    GROUP BY bucket ORDER BY bucket`.execute(db)
  return { interval: span.interval, startTime: span.start, endTime: span.end, buckets: rows.map(toBucket) }
}
