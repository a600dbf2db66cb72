// What a migration after a refit of the scorer's calibration runs (0090, 0095): each stored global probability of the
// scorer taken back through the knots it was stored with to its raw score and forward through the new ones, as the
// scorer stores it, alarms staying alarms (docs/predictions.md#calibration). Released migrations run this: it must
// never change (a new way of remapping is a new function).
import { sql, type Kysely, type RawBuilder } from 'kysely'
import { interpolate, type Knots } from '../../math/piecewise-linear.ts'

export type Kind = 'birth' | 'heat' | 'lameness'
export type ClassKnots = Record<Kind, Knots>

const RAW_ALARM = 0.5
const round4 = (p: number) => Math.round(p * 10_000) / 10_000

/** A class's alarm level under some knots: its threshold's raw score, calibrated and stored to 4 decimals. */
const levelOf = (knots: Knots) => round4(interpolate(knots, RAW_ALARM, 0, 1))

/**
 * The new global probability of an old one, as the scorer would store it now: back to the raw score, an old alarm
 * kept at least at the threshold and a quiet hour under it, then forward, a quiet hour kept under the new level.
 */
export function remappedProbability(oldKnots: ClassKnots, newKnots: ClassKnots, kind: Kind, old: number): number {
  const oldAlarm = old >= levelOf(oldKnots[kind])
  const raw = interpolate(oldKnots[kind], old, 1, 0)
  const score = oldAlarm ? Math.max(raw, RAW_ALARM) : Math.min(raw, RAW_ALARM - 1e-9)
  const p = round4(interpolate(newKnots[kind], score, 0, 1))
  return score >= RAW_ALARM ? p : Math.min(p, round4(levelOf(newKnots[kind]) - 0.0001))
}

/** `x` through `knots` in SQL (`from`/`to` as in interpolate): one row per segment, the first that holds x. */
function interpolated(kind: RawBuilder<unknown>, x: RawBuilder<unknown>, knots: ClassKnots, from: 0 | 1) {
  const to = from === 0 ? 1 : 0
  const rows = Object.entries(knots).flatMap(([name, list]) =>
    list.map((knot, k) => {
      const next = list[k + 1]
      const nextFrom = next ? sql`${sql.lit(next[from])}::float8` : sql`NULL::float8`
      const nextTo = next ? sql`${sql.lit(next[to])}::float8` : sql`NULL::float8`
      return sql`(${sql.lit(name)}, ${sql.lit(k)}, ${sql.lit(knot[from])}::float8, ${sql.lit(knot[to])}::float8, ${nextFrom}, ${nextTo})`
    }),
  )
  return sql<number>`(SELECT CASE
      WHEN ${x} <= s.a AND s.k = 0 THEN s.b
      WHEN s.next_a IS NULL THEN s.b
      ELSE s.b + (s.next_b - s.b) * (${x} - s.a) / (s.next_a - s.a)
    END
    FROM (VALUES ${sql.join(rows)}) AS s (kind, k, a, b, next_a, next_b)
    WHERE s.kind = ${kind} AND (${x} <= s.next_a OR s.next_a IS NULL)
    ORDER BY s.k LIMIT 1)`
}

/** remappedProbability() in SQL, for a column `old` of class `kind`. */
function remappedSql(
  oldKnots: ClassKnots,
  newKnots: ClassKnots,
  kind: RawBuilder<unknown>,
  old: RawBuilder<unknown>,
): RawBuilder<number> {
  const levels = (knots: ClassKnots) =>
    sql`CASE ${kind} WHEN 'birth' THEN ${sql.lit(levelOf(knots.birth))}::float8 WHEN 'heat' THEN ${sql.lit(levelOf(knots.heat))}::float8 ELSE ${sql.lit(levelOf(knots.lameness))}::float8 END`
  const raw = interpolated(kind, old, oldKnots, 1)
  const score = sql`(CASE WHEN ${old} >= ${levels(oldKnots)} THEN greatest(${raw}, ${sql.lit(RAW_ALARM)}::float8)
    ELSE least(${raw}, ${sql.lit(RAW_ALARM - 1e-9)}::float8) END)`
  const p = sql`round((${interpolated(kind, score, newKnots, 0)})::numeric, 4)::float8`
  return sql<number>`(CASE WHEN ${score} >= ${sql.lit(RAW_ALARM)}::float8 THEN ${p}
    ELSE least(${p}, round((${levels(newKnots)} - 0.0001)::numeric, 4)::float8) END)`
}

/**
 * Remaps the scorer's stored global probabilities from oldKnots to newKnots (of one account with `uid`) and drops the
 * farms' maps, fitted on the old scale. Stored to 4 decimals, a class has at most 10,001 of them: each distinct one
 * is mapped once, then joined back.
 */
export async function remapStoredGlobalProbabilities(
  db: Kysely<unknown>,
  oldKnots: ClassKnots,
  newKnots: ClassKnots,
  uid?: string,
): Promise<void> {
  const only = (column: string) => (uid === undefined ? sql`` : sql`AND ${sql.ref(column)} = ${uid}`)
  await sql`
    WITH old AS (
      SELECT DISTINCT p.classification_type AS kind, coalesce(p.global_probability, p.peak_probability) AS probability
      FROM predictions p WHERE p.source = 'scorer' ${only('p.uid')}
    ), mapped AS MATERIALIZED (
      SELECT o.kind, o.probability, ${remappedSql(oldKnots, newKnots, sql`o.kind`, sql`o.probability`)} AS remapped FROM old o
    )
    UPDATE predictions p SET global_probability = m.remapped
    FROM mapped m
    WHERE p.source = 'scorer' ${only('p.uid')} AND m.kind = p.classification_type
      AND m.probability = coalesce(p.global_probability, p.peak_probability)`.execute(db)
  await sql`UPDATE scorer_farm_settings f SET calibration = NULL WHERE f.calibration IS NOT NULL ${only('f.uid')}`.execute(
    db,
  )
}

/**
 * A migration that takes the stored global probabilities from one release's knots to the next's: `remapped` for one
 * probability (what the SQL computes, for the tests), `recalibrateStored` for one account, `up` for every account.
 */
export function recalibrationMigration(oldKnots: ClassKnots, newKnots: ClassKnots) {
  return {
    remapped: (kind: Kind, old: number): number => remappedProbability(oldKnots, newKnots, kind, old),
    recalibrateStored: (db: Kysely<unknown>, uid?: string): Promise<void> =>
      remapStoredGlobalProbabilities(db, oldKnots, newKnots, uid),
    up: (db: Kysely<unknown>): Promise<void> => remapStoredGlobalProbabilities(db, oldKnots, newKnots),
    // Where the old knots are flat, the raw score (and so the old probability) cannot be told back exactly.
    down: async (): Promise<void> => {},
  }
}
