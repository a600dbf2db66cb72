// The scorer's calibration was refitted this round (docs/predictions.md#calibration): a raw score at a rule's threshold
// now reads birth 0.4049, heat 0.239, lameness 0.7673, where it read 0.1078, 0.2368, 0.7442. The accuracy route,
// retention, per-farm learning and the farm's calibration fit read `global_probability` against today's knots, so one
// stored on the old scale would read as another score (an old birth alarm at 0.2 as a quiet hour). This maps it once
// through the old knots back to the raw score and through the new ones forward, alarms staying alarms; scorer rows
// from before migration 0085 (no global_probability) get one from their peak, which was global. What the API shows
// (`results`, `peak_probability`: what the scorer said at its hour) is left as it was. Each farm's own map was fitted
// on the old scale: it is dropped, and the farm reads the global calibration until the job fits its map again.
import { sql, type Kysely, type RawBuilder } from 'kysely'
import { interpolate, type Knots } from '../../math/piecewise-linear.ts'

type Kind = 'birth' | 'heat' | 'lameness'

/** The knots of the last release (main at 47ef2f6), then this one's: copied here, since a migration never changes. */
// prettier-ignore
export const OLD_KNOTS: Record<Kind, Knots> = {
  birth: [[0.009, 0.0063], [0.099, 0.0068], [0.149, 0.0163], [0.198, 0.0182], [0.248, 0.0277], [0.299, 0.0528], [0.348, 0.0622], [0.399, 0.0849], [0.449, 0.1041], [0.499, 0.1071], [0.548, 0.1401], [0.598, 0.1958], [0.647, 0.3106], [0.7, 0.6469], [0.752, 0.8978], [0.799, 0.9552], [0.856, 1]],
  heat: [[0.004, 0.0064], [0.1, 0.0075], [0.15, 0.009], [0.199, 0.0104], [0.249, 0.0146], [0.299, 0.0209], [0.348, 0.0363], [0.398, 0.0586], [0.448, 0.1225], [0.498, 0.2331], [0.548, 0.3256], [0.599, 0.4732], [0.649, 0.5371], [0.699, 0.5838], [0.75, 0.5946], [0.807, 0.6288]],
  lameness: [[0, 0.0598], [0.05, 0.0776], [0.099, 0.1036], [0.149, 0.1156], [0.2, 0.1286], [0.249, 0.1579], [0.3, 0.2118], [0.349, 0.2545], [0.399, 0.3987], [0.449, 0.528], [0.5, 0.7442], [0.55, 0.9448], [0.6, 0.9848], [0.669, 1]],
}
// prettier-ignore
export const NEW_KNOTS: Record<Kind, Knots> = {
  birth: [[0, 0.0059], [0.048, 0.0128], [0.098, 0.0192], [0.149, 0.0458], [0.198, 0.0556], [0.248, 0.0952], [0.299, 0.1601], [0.349, 0.2046], [0.4, 0.276], [0.448, 0.3336], [0.498, 0.4002], [0.548, 0.5188], [0.598, 0.6563], [0.649, 0.7775], [0.7, 0.8996], [0.752, 0.9923], [0.828, 1]],
  heat: [[0.001, 0.0068], [0.05, 0.0078], [0.1, 0.0086], [0.15, 0.01], [0.199, 0.0124], [0.249, 0.0153], [0.299, 0.0222], [0.348, 0.0381], [0.398, 0.0634], [0.448, 0.1281], [0.498, 0.234], [0.548, 0.3592], [0.598, 0.5149], [0.649, 0.6281], [0.72, 0.6591], [0.813, 0.6691]],
  lameness: [[0, 0.061], [0.05, 0.0875], [0.099, 0.1014], [0.15, 0.1152], [0.2, 0.1293], [0.249, 0.1671], [0.3, 0.2049], [0.349, 0.2628], [0.399, 0.3987], [0.449, 0.5514], [0.5, 0.7673], [0.55, 0.9258], [0.6, 0.9848], [0.649, 0.9971], [0.703, 1]],
}

const RAW_ALARM = 0.5
const round4 = (p: number) => Math.round(p * 10_000) / 10_000

/** A class's alarm level under some knots: its threshold's raw score, calibrated and stored to 4 decimals. */
const levelOf = (knots: Knots) => round4(interpolate(knots, RAW_ALARM, 0, 1))

/**
 * The new global probability of an old one, as the scorer would store it now: back to the raw score, an old alarm
 * kept at least at the threshold and a quiet hour under it, then forward, a quiet hour kept under the new level.
 */
export function remapped(kind: Kind, old: number): number {
  const oldAlarm = old >= levelOf(OLD_KNOTS[kind])
  const raw = interpolate(OLD_KNOTS[kind], old, 1, 0)
  const score = oldAlarm ? Math.max(raw, RAW_ALARM) : Math.min(raw, RAW_ALARM - 1e-9)
  const p = round4(interpolate(NEW_KNOTS[kind], score, 0, 1))
  return score >= RAW_ALARM ? p : Math.min(p, round4(levelOf(NEW_KNOTS[kind]) - 0.0001))
}

/** `x` through `knots` in SQL (`from`/`to` as in interpolate): one row per segment, the first that holds x. */
function interpolated(kind: RawBuilder<unknown>, x: RawBuilder<unknown>, knots: Record<Kind, Knots>, from: 0 | 1) {
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

/** remapped() in SQL, for a column `old` of class `kind`. */
function remappedSql(kind: RawBuilder<unknown>, old: RawBuilder<unknown>): RawBuilder<number> {
  const levels = (knots: Record<Kind, Knots>) =>
    sql`CASE ${kind} WHEN 'birth' THEN ${sql.lit(levelOf(knots.birth))}::float8 WHEN 'heat' THEN ${sql.lit(levelOf(knots.heat))}::float8 ELSE ${sql.lit(levelOf(knots.lameness))}::float8 END`
  const raw = interpolated(kind, old, OLD_KNOTS, 1)
  const score = sql`(CASE WHEN ${old} >= ${levels(OLD_KNOTS)} THEN greatest(${raw}, ${sql.lit(RAW_ALARM)}::float8)
    ELSE least(${raw}, ${sql.lit(RAW_ALARM - 1e-9)}::float8) END)`
  const p = sql`round((${interpolated(kind, score, NEW_KNOTS, 0)})::numeric, 4)::float8`
  return sql<number>`(CASE WHEN ${score} >= ${sql.lit(RAW_ALARM)}::float8 THEN ${p}
    ELSE least(${p}, round((${levels(NEW_KNOTS)} - 0.0001)::numeric, 4)::float8) END)`
}

/**
 * Remaps the scorer's stored global probabilities (of one account with `uid`) and drops the farms' maps. Stored to 4
 * decimals, a class has at most 10,001 of them: each distinct one is mapped once, then joined back.
 */
export async function recalibrateStored(db: Kysely<unknown>, uid?: string): Promise<void> {
  const only = (column: string) => (uid === undefined ? sql`` : sql`AND ${sql.ref(column)} = ${uid}`)
  await sql`
    WITH old AS (
      SELECT DISTINCT p.classification_type AS kind, coalesce(p.global_probability, p.peak_probability) AS probability
      FROM predictions p WHERE p.source = 'scorer' ${only('p.uid')}
    ), mapped AS MATERIALIZED (
      SELECT o.kind, o.probability, ${remappedSql(sql`o.kind`, sql`o.probability`)} AS remapped FROM old o
    )
    UPDATE predictions p SET global_probability = m.remapped
    FROM mapped m
    WHERE p.source = 'scorer' ${only('p.uid')} AND m.kind = p.classification_type
      AND m.probability = coalesce(p.global_probability, p.peak_probability)`.execute(db)
  await sql`UPDATE scorer_farm_settings f SET calibration = NULL WHERE f.calibration IS NOT NULL ${only('f.uid')}`.execute(
    db,
  )
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await recalibrateStored(db)
}

export async function down(): Promise<void> {
  // Where the old knots are flat, the raw score (and so the old probability) cannot be told back exactly.
}
