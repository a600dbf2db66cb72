// Deleting old rows without holding up the writers of the same table (docs/operations.md#retention): one
// group of the key at a time (a tag's readings, an animal's predictions), found by walking the key's distinct
// leading pairs (a loose index scan), and in each group the oldest rows in statements of at most `batchRows`
// rows, each its own short transaction, so that a delete locks few rows, briefly, and a reader or writer of the
// same tag waits at most one statement.
import { sql, type Kysely, type RawBuilder } from 'kysely'
import type { DB } from './schema.ts'

/** A table whose key leads with two columns that name a group of rows ordered by time. */
export interface PruneTarget {
  table: keyof DB
  /** The key's leading columns naming one group: (uid, mac) of a tag, (uid, animal_id) of an animal. */
  group: readonly [string, string]
  /** The time column (in the key after the group): rows with it below the bound go. */
  time: string
  /** The column that tells a group's rows apart: the time itself where the key is (group, time), else an id. */
  row: string
  /** Rows that stay whatever their age, as a condition on the row `r`. */
  keep?: RawBuilder<boolean>
}

/**
 * Runs a delete of at most `batchRows` rows again and again until one deletes fewer (nothing older is left): each
 * statement its own short transaction. `statement` returns the rows it deleted. Returns them all.
 */
export async function deleteInBatches(batchRows: number, statement: () => Promise<number>): Promise<number> {
  let deleted = 0
  for (;;) {
    const count = await statement()
    deleted += count
    if (count < batchRows) return deleted
  }
}

/** Deletes the target's rows whose time lies before `before`, at most `batchRows` a statement. Returns the rows deleted. */
export async function pruneBefore(
  db: Kysely<DB>,
  target: PruneTarget,
  before: number,
  batchRows: number,
): Promise<number> {
  const table = sql.table(target.table)
  const [a, b] = target.group.map((c) => sql.ref(c))
  const [ra, rb, rTime, rRow] = [...target.group, target.time, target.row].map((c) => sql.ref(`r.${c}`))
  const oldRows = (ga: unknown, gb: unknown) =>
    sql`FROM ${table} r WHERE ${ra} = ${ga} AND ${rb} = ${gb} AND ${rTime} < ${before}
        ${target.keep ? sql`AND NOT (${target.keep})` : sql``}`
  // The groups holding rows to delete: each next pair of the key is one index probe, whatever the group's size.
  const { rows: groups } = await sql<{ a: unknown; b: unknown }>`
    WITH RECURSIVE g (a, b) AS (
      (SELECT ${a}, ${b} FROM ${table} ORDER BY 1, 2 LIMIT 1)
      UNION ALL
      SELECT n.a, n.b FROM g CROSS JOIN LATERAL (
        SELECT ${a} AS a, ${b} AS b FROM ${table} WHERE (${a}, ${b}) > (g.a, g.b) ORDER BY 1, 2 LIMIT 1) n
    )
    SELECT g.a, g.b FROM g WHERE EXISTS (SELECT 1 ${oldRows(sql.ref('g.a'), sql.ref('g.b'))})`.execute(db)
  let deleted = 0
  for (const g of groups)
    deleted += await deleteInBatches(batchRows, async () => {
      const result = await sql`
        DELETE FROM ${table} WHERE ${a} = ${g.a} AND ${b} = ${g.b} AND ${sql.ref(target.row)} IN (
          SELECT ${rRow} ${oldRows(g.a, g.b)} ORDER BY ${rTime} LIMIT ${batchRows})`.execute(db)
      return Number(result.numAffectedRows ?? 0n)
    })
  return deleted
}
