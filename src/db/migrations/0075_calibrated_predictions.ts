// The scorer's probabilities are calibrated since this round (docs/predictions.md#calibration): a stored one is the
// rule's raw score mapped through its class's knots. Predictions the scorer stored before hold the raw score, which
// the accuracy route, retention and per-farm learning would now read as calibrated; this maps them once, with the
// knots as they were when it was written (a migration never changes once run). Posted (external) predictions keep
// their probabilities.
import { sql, type Kysely, type RawBuilder } from 'kysely'

/** [raw score, probability] knots per class: linear between knots, the end knots' values beyond them. */
// prettier-ignore
export const KNOTS: Record<'birth' | 'heat' | 'lameness', readonly (readonly [number, number])[]> = {
  birth: [[0.016, 0.0084], [0.167, 0.0148], [0.248, 0.0231], [0.298, 0.0405], [0.348, 0.0466], [0.399, 0.0568], [0.471, 0.0696], [0.548, 0.0971], [0.598, 0.1573], [0.647, 0.3186], [0.7, 0.6718], [0.778, 0.9215], [0.855, 1]],
  heat: [[0.004, 0.0063], [0.1, 0.0074], [0.15, 0.009], [0.199, 0.0104], [0.249, 0.0137], [0.299, 0.0207], [0.348, 0.0366], [0.398, 0.0573], [0.448, 0.1184], [0.498, 0.2126], [0.549, 0.2865], [0.599, 0.4262], [0.649, 0.4982], [0.699, 0.5363], [0.75, 0.5659], [0.807, 0.6301]],
  lameness: [[0, 0.0598], [0.05, 0.0776], [0.099, 0.1036], [0.149, 0.1156], [0.2, 0.1286], [0.249, 0.1579], [0.3, 0.2118], [0.349, 0.2545], [0.399, 0.3987], [0.449, 0.528], [0.5, 0.7442], [0.55, 0.9448], [0.6, 0.9848], [0.669, 1]],
}

/** The knots as rows (kind, raw, probability, raw and probability of the next knot; null at the last). */
function segments(): RawBuilder<unknown> {
  const rows = Object.entries(KNOTS).flatMap(([kind, knots]) =>
    knots.map(([raw, p], k) => {
      const next = knots[k + 1]
      return sql`(${sql.lit(kind)}, ${sql.lit(raw)}::float8, ${sql.lit(p)}::float8, ${next ? sql`${sql.lit(next[0])}::float8` : sql`NULL::float8`}, ${next ? sql`${sql.lit(next[1])}::float8` : sql`NULL::float8`})`
    }),
  )
  return sql`(VALUES ${sql.join(rows)}) AS s (kind, raw, p, next_raw, next_p)`
}

/** `x` (a raw score of class `kind`) calibrated and rounded to 4 decimals, as the scorer stores it. */
function calibrated(kind: RawBuilder<unknown>, x: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`(SELECT round((CASE
      WHEN s.next_raw IS NULL OR ${x} <= s.raw THEN s.p
      ELSE s.p + (s.next_p - s.p) * (${x} - s.raw) / (s.next_raw - s.raw)
    END)::numeric, 4)::float8
    FROM ${segments()}
    WHERE s.kind = ${kind} AND (${x} <= s.next_raw OR s.next_raw IS NULL)
    ORDER BY s.raw LIMIT 1)`
}

/** Calibrates the scorer's stored predictions (of one account with `uid`); returns nothing. */
export async function calibrateStored(db: Kysely<unknown>, uid?: string): Promise<void> {
  const only = uid === undefined ? sql`` : sql`AND p.uid = ${uid}`
  await sql`
    UPDATE predictions p SET
      results = (SELECT coalesce(jsonb_agg(jsonb_set(r.value, '{probability}',
                   to_jsonb(${calibrated(sql`p.classification_type`, sql`(r.value->>'probability')::float8`)}))
                   ORDER BY r.ordinality), '[]'::jsonb)
                 FROM jsonb_array_elements(p.results) WITH ORDINALITY AS r (value, ordinality)),
      peak_probability = ${calibrated(sql`p.classification_type`, sql`p.peak_probability`)}
    WHERE p.source = 'scorer' ${only}`.execute(db)
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await calibrateStored(db)
}

export async function down(): Promise<void> {
  // The raw scores are not kept: a calibration cannot be undone exactly where the knots are flat.
}
