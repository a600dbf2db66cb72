// Downsampled series (GET .../sensordata/aggregate of ear tags and litter devices): one tag's readings summed up
// per bucket by the database, from the hourly rollups where the buckets are whole hours, else from the readings.
import { sql, type Kysely, type RawBuilder } from 'kysely'
import type { DB } from '../../db/schema.ts'
import { hourlyRows, readingRows, type Span } from './readings.repository.ts'
import { magnitudeSql, type Series } from './readings.series.ts'
import { fromRollups, type AggregateSpan } from './readings.rules.ts'
import type { AggregateBucketBody, AggregateSeriesBody } from './readings.schemas.ts'

/**
 * A bucket as the database gives it: its start, count, then sum, sum of squares, min and max of c and of
 * m = √(x²+y²+z²) (BUCKET_COLUMNS' order).
 */
type BucketSums = [number, number, number, number, number, number, number, number, number, number]

function toBucket([t, count, cSum, cSumsq, cMin, cMax, mSum, mSumsq, mMin, mMax]: BucketSums): AggregateBucketBody {
  const stats = (sum: number, sumOfSquares: number, min: number, max: number) => ({
    mean: sum / count,
    min,
    max,
    sum,
    sumOfSquares,
  })
  return {
    t,
    count,
    temperature: stats(cSum, cSumsq, cMin, cMax),
    accelerationMagnitude: stats(mSum, mSumsq, mMin, mMax),
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
    FROM (SELECT t, c, ${magnitudeSql()} AS m FROM ${readingRows(series, uid, mac, span)} r) r`
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
  // One JSON text of the buckets as arrays rather than a row each: up to 10,000 rows of ten columns cost more to
  // hand over (the embedded store's above all) than to parse as one value; float8 prints in its shortest exact form.
  const { rows } = await sql<{ buckets: string }>`
    SELECT coalesce(json_agg(json_build_array(bucket, n, c_sum, c_sumsq, c_min, c_max, m_sum, m_sumsq, m_min, m_max)
                             ORDER BY bucket), '[]')::text AS buckets
    FROM (SELECT bucket, sum(n) AS n,
                 sum(c_sum)::float8 AS c_sum, sum(c_sumsq)::float8 AS c_sumsq, min(c_min) AS c_min, max(c_max) AS c_max,
                 sum(m_sum)::float8 AS m_sum, sum(m_sumsq)::float8 AS m_sumsq, min(m_min) AS m_min, max(m_max) AS m_max
          FROM (${sums}) s GROUP BY bucket) b`.execute(db)
  const buckets = (JSON.parse(rows[0]!.buckets) as BucketSums[]).map(toBucket)
  return { interval: span.interval, startTime: span.start, endTime: span.end, buckets }
}
