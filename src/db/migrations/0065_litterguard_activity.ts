// A litter device's hourly rollup also keeps what its activity rules read (docs/litterguards.md#activity), so that
// the device summary and analytics read hours instead of every reading of 8 days: the sum of the readings' dynamic
// acceleration |m - 1| (m = sqrt(x² + y² + z²)), and of the hour's 10-minute buckets (UTC-aligned, six an hour) the
// count with readings, the sum and sum of squares of their mean |m - 1|, and each bucket's number (0-5) and mean.
// Sums are numeric, like the rollup's others: the same whatever the order the readings came in. Kept by ingestion
// with the rest of the rollup (readings.repository.ts, LITTER_ACTIVITY); the hours stored are summed up here again
// from their readings, both parts, with a copy of that SQL as it is today (a migration never changes once run).
import { sql, type Kysely, type RawBuilder } from 'kysely'
import { MAGNITUDE } from './building-blocks.ts'

const BUCKET = 600

const COLUMNS = [
  'a_sum numeric NOT NULL DEFAULT 0',
  'act_n integer NOT NULL DEFAULT 0',
  'act_mean_sum numeric NOT NULL DEFAULT 0',
  'act_mean_sumsq numeric NOT NULL DEFAULT 0',
  "act_bucket smallint[] NOT NULL DEFAULT '{}'",
  "act_mean double precision[] NOT NULL DEFAULT '{}'",
]

/** The activity figures of every litter device's hours (of one account: the test of this migration), from both parts. */
export async function backfill(db: Kysely<unknown>, uid?: string): Promise<void> {
  const only: RawBuilder<unknown> = uid === undefined ? sql`true` : sql`uid = ${uid}`
  await sql`
    UPDATE litterguard_hourly h SET a_sum = s.a_sum, act_n = s.act_n, act_mean_sum = s.act_mean_sum,
      act_mean_sumsq = s.act_mean_sumsq, act_bucket = s.act_bucket, act_mean = s.act_mean
    FROM (
      SELECT uid, mac, hour, sum(a) AS a_sum,
             count(*) FILTER (WHERE first) AS act_n,
             sum(bucket_a / bucket_n) FILTER (WHERE first) AS act_mean_sum,
             sum((bucket_a / bucket_n) * (bucket_a / bucket_n)) FILTER (WHERE first) AS act_mean_sumsq,
             array_agg(bucket::smallint ORDER BY t) FILTER (WHERE first) AS act_bucket,
             array_agg((bucket_a / bucket_n)::float8 ORDER BY t) FILTER (WHERE first) AS act_mean
      FROM (SELECT r.*, count(*) OVER w AS bucket_n, sum(r.a) OVER w AS bucket_a, row_number() OVER (w ORDER BY r.t) = 1 AS first
            FROM (SELECT uid, mac, t - t % 3600 AS hour, (t % 3600) / ${sql.lit(BUCKET)} AS bucket, t,
                         abs(sqrt(${MAGNITUDE}) - 1)::numeric AS a
                  FROM (SELECT uid, mac, t, x, y, z FROM litterguard_readings WHERE ${only}
                        UNION ALL
                        SELECT p.uid, p.mac, p.hour + u.dt, u.x::float8 / 1000, u.y::float8 / 1000, u.z::float8 / 1000
                        FROM litterguard_packed p CROSS JOIN LATERAL unnest(p.dt, p.x, p.y, p.z) AS u (dt, x, y, z)
                        WHERE ${only}) r) r
            WINDOW w AS (PARTITION BY r.uid, r.mac, r.hour, r.bucket)) r
      GROUP BY uid, mac, hour
    ) s
    WHERE h.uid = s.uid AND h.mac = s.mac AND h.hour = s.hour`.execute(db)
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE litterguard_hourly ${sql.join(COLUMNS.map((c) => sql`ADD COLUMN ${sql.raw(c)}`))}`.execute(db)
  await backfill(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE litterguard_hourly ${sql.join(COLUMNS.map((c) => sql`DROP COLUMN ${sql.raw(c.split(' ')[0]!)}`))}`.execute(
    db,
  )
}
