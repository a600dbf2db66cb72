// Pages of an animal's readings as the routes send them: JSON text written by the database, read in chunks on the
// embedded store.
import { sql, type Kysely } from 'kysely'
import type { DB } from '../../db/schema.ts'
import { readingRows, type TimeQuery } from './readings.repository.ts'
import { SERIES, type Series } from './readings.series.ts'

/** Readings per piece of a page's JSON: each piece stays below V8's large-object size (128 kB). */
const ITEMS_PER_PIECE = 500

/**
 * A page of readings as the items of a JSON array (`{"t":...},{"t":...}`), written by the database: text
 * instead of up to 10,000 row objects to decode in this process and serialize again (docs/performance.md).
 * The text comes in pieces of ITEMS_PER_PIECE items, to be joined with commas, because one string of a whole
 * page goes straight to V8's old generation. The keys come in the selected column order, the schema's;
 * numbers in PostgreSQL's shortest exact form (1e-07 where JavaScript writes 1e-7).
 */
async function jsonItems(
  db: Kysely<DB>,
  series: Series,
  uid: string,
  mac: string,
  q: TimeQuery,
  chunkRows = Infinity,
): Promise<string[]> {
  const pieces: string[] = []
  let { startTime, endTime } = q
  // A page longer than chunkRows is read as several statements, each continuing after the last row of the one
  // before (t is unique per tag): on the embedded store's one connection, other requests' statements run between.
  for (let left = q.limit; left > 0;) {
    const limit = Math.min(left, chunkRows)
    const chunk = await jsonItemsOnce(db, series, uid, mac, { startTime, endTime, limit, sortOrder: q.sortOrder })
    pieces.push(...chunk.items)
    if (chunk.count < limit || chunk.edge === undefined) break
    left -= chunk.count
    if (q.sortOrder === 'asc') startTime = chunk.edge + 1
    else endTime = chunk.edge - 1
  }
  return pieces
}

async function jsonItemsOnce(
  db: Kysely<DB>,
  series: Series,
  uid: string,
  mac: string,
  q: TimeQuery,
): Promise<{ items: string[]; count: number; edge: number | undefined }> {
  const order = sql.raw(q.sortOrder === 'asc' ? 'ASC' : 'DESC')
  // One sorted array of the items' texts, cut into slices: the cheapest way to pieces that was measured
  // (docs/performance.md), cheaper than numbering the rows and grouping them. `edge`: the page's last t.
  const { rows } = await sql<{ items: string; count: number; edge: number }>`
    SELECT array_to_string(page.items[k * ${sql.lit(ITEMS_PER_PIECE)} + 1 : (k + 1) * ${sql.lit(ITEMS_PER_PIECE)}], ',') AS items,
           cardinality(page.items) AS count, page.edge
    FROM (SELECT array_agg(row_to_json(r)::text ORDER BY r.t ${order}) AS items,
                 ${q.sortOrder === 'asc' ? sql`max(r.t)` : sql`min(r.t)`} AS edge
          FROM (SELECT * FROM ${readingRows(series, uid, mac, { start: q.startTime, end: q.endTime }, { order: q.sortOrder, limit: q.limit })} r
                ORDER BY t ${order} LIMIT ${q.limit}) r) page,
         generate_series(0, (cardinality(page.items) - 1) / ${sql.lit(ITEMS_PER_PIECE)}) k
    ORDER BY k`.execute(db)
  return {
    items: rows.map((row) => row.items),
    count: rows[0] ? Number(rows[0].count) : 0,
    edge: rows[0] ? Number(rows[0].edge) : undefined,
  }
}

/** A page reader of one series: an animal's readings in [startTime, endTime] as pieces of JSON array items. */
function pageReader(series: Series) {
  return (db: Kysely<DB>, uid: string, mac: string, q: TimeQuery, chunkRows?: number): Promise<string[]> =>
    jsonItems(db, series, uid, mac, q, chunkRows)
}

export const readSensorData = pageReader(SERIES.sensordata)
export const readLocations = pageReader(SERIES.locations)
