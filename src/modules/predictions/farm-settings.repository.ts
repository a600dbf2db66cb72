// Per-farm learning's storage (table scorer_farm_settings, 0050) and the day peaks it learns from.
import { sql, type Kysely } from 'kysely'
import type { DB } from '../../db/schema.ts'
import type { ClassificationType } from './predictions.rules.ts'
import {
  DEFAULT_FACTORS,
  type ClassLearning,
  type DayPeak,
  type FarmFactors,
  type GestationLearning,
} from './farm-learning.rules.ts'
import type { DueBarLearning } from './due-bar.rules.ts'
import {
  IDENTITY_MAP,
  type FarmCalibrationFit,
  type FarmCalibrationMap,
  type FitWindow,
  type HourCell,
} from './farm-calibration.rules.ts'

const DAY_MS = 86_400_000
// A prediction is stamped at the end of its hour: the hour it scored starts HOUR_MS before.
const HOUR = 3_600_000

export interface FarmSettings {
  factors: FarmFactors
  learnedAt: number
  /**
   * The period read, each class's learning (counts and reason), and the farm's gestation and due bar learned from the
   * same records (absent on learnings from before they were learned: the defaults).
   */
  basis: {
    from: number
    to: number
    classes: Record<ClassificationType, ClassLearning>
    gestation?: GestationLearning
    /** Birth's bar in the days the farm's sows farrow (absent on learnings from before it: the default bar). */
    dueBar?: DueBarLearning
  }
  /** Each class's calibration map and the fit it came from (farm-calibration.rules.ts); null: the global one. */
  calibration: Record<ClassificationType, FarmCalibrationFit> | null
}

export type FarmMaps = Record<ClassificationType, FarmCalibrationMap>
export const GLOBAL_MAPS: FarmMaps = { birth: IDENTITY_MAP, heat: IDENTITY_MAP, lameness: IDENTITY_MAP }

const parsed = <T>(value: unknown): T => (typeof value === 'string' ? JSON.parse(value) : value) as T

export async function findFarmSettings(db: Kysely<DB>, uid: string): Promise<FarmSettings | undefined> {
  const row = await db.selectFrom('scorer_farm_settings').selectAll().where('uid', '=', uid).executeTakeFirst()
  if (!row) return undefined
  return {
    factors: { birth: row.birth_factor, heat: row.heat_factor, lameness: row.lameness_factor },
    learnedAt: Number(row.learned_at),
    basis: parsed<FarmSettings['basis']>(row.basis),
    calibration: row.calibration === null ? null : parsed<FarmSettings['calibration']>(row.calibration),
  }
}

/** The farm's factors, or the defaults when nothing was learned yet. */
export async function farmFactors(db: Kysely<DB>, uid: string): Promise<FarmFactors> {
  return (await findFarmSettings(db, uid))?.factors ?? DEFAULT_FACTORS
}

/** The farm's calibration map per class, or the identity (the global calibration alone) when none was fitted. */
export async function farmCalibrationMaps(db: Kysely<DB>, uid: string): Promise<FarmMaps> {
  const calibration = (await findFarmSettings(db, uid))?.calibration
  if (!calibration) return GLOBAL_MAPS
  return { birth: calibration.birth.map, heat: calibration.heat.map, lameness: calibration.lameness.map }
}

export async function saveFarmSettings(db: Kysely<DB>, uid: string, settings: FarmSettings): Promise<void> {
  const values = {
    birth_factor: settings.factors.birth,
    heat_factor: settings.factors.heat,
    lameness_factor: settings.factors.lameness,
    learned_at: settings.learnedAt,
    basis: JSON.stringify(settings.basis),
    calibration: settings.calibration === null ? null : JSON.stringify(settings.calibration),
  }
  await db
    .insertInto('scorer_farm_settings')
    .values({ uid, ...values })
    .onConflict((oc) => oc.column('uid').doUpdateSet(values))
    .execute()
}

/** The scorer's highest global probability (before the farm's map) per animal, class and UTC day in [from, to). */
export async function scorerDayPeaks(
  db: Kysely<DB>,
  uid: string,
  from: number,
  to: number,
): Promise<Record<ClassificationType, DayPeak[]>> {
  const { rows } = await sql<{
    kind: ClassificationType
    animal_id: number | string
    day: number | string
    peak: number
  }>`
    SELECT classification_type AS kind, animal_id, (predicted_at - ${HOUR}) / ${DAY_MS} AS day, max(coalesce(global_probability, peak_probability)) AS peak
    FROM predictions
    WHERE uid = ${uid} AND source = 'scorer' AND predicted_at > ${from} AND predicted_at <= ${to}
    GROUP BY 1, 2, 3`.execute(db)
  const out: Record<ClassificationType, DayPeak[]> = { birth: [], heat: [], lameness: [] }
  for (const r of rows)
    out[r.kind].push({ animalId: Number(r.animal_id), day: Number(r.day) * DAY_MS, peak: Number(r.peak) })
  return out
}

/**
 * The scorer's hours of one class in (from, to], pooled by global probability (before the farm's map), each pool with
 * how many of its hours lay in an event (from beforeMs before a record to afterMs after it); hours from then to
 * leftOutMs after a record left out unless another record puts them in an event (labelHours, FIT_WINDOWS). Labelled
 * and counted in SQL: a farm's 60 days are millions of hours, the pools a few thousand at most (probabilities are
 * stored to 4 decimals).
 */
export async function scorerHourCells(
  db: Kysely<DB>,
  uid: string,
  kind: ClassificationType,
  period: { from: number; to: number },
  records: readonly { animalId: number; at: number }[],
  window: FitWindow,
): Promise<HourCell[]> {
  const relevant = records.filter((e) => e.at + window.leftOutMs > period.from && e.at - window.beforeMs <= period.to)
  const recordRows =
    relevant.length === 0
      ? sql`SELECT NULL::bigint AS animal_id, NULL::bigint AS at WHERE false`
      : sql`SELECT * FROM (VALUES ${sql.join(relevant.map((e) => sql`(${e.animalId}::bigint, ${e.at}::bigint)`))}) AS v (animal_id, at)`
  // Each hour joined with its animal's records whose window (in the event, or left out after it) holds it (a hash
  // join on the animal, few rows each), then pooled; as labelHours labels them.
  const { rows } = await sql<{ probability: number | string; hours: number | string; in_window: number | string }>`
    WITH ev AS (${recordRows}),
    labelled AS (
      SELECT coalesce(p.global_probability, p.peak_probability) AS probability,
        bool_or(ev.at IS NOT NULL AND p.predicted_at <= ev.at + ${window.afterMs}) AS in_window,
        bool_or(ev.at IS NOT NULL AND p.predicted_at > ev.at + ${window.afterMs}) AS after
      FROM predictions p
      LEFT JOIN ev ON ev.animal_id = p.animal_id
        AND p.predicted_at >= ev.at - ${window.beforeMs} AND p.predicted_at <= ev.at + ${window.leftOutMs}
      WHERE p.uid = ${uid} AND p.source = 'scorer' AND p.classification_type = ${kind}
        AND p.predicted_at > ${period.from} AND p.predicted_at <= ${period.to}
      GROUP BY p.id, p.global_probability, p.peak_probability)
    SELECT probability, count(*) AS hours, count(*) FILTER (WHERE in_window) AS in_window
    FROM labelled WHERE in_window OR NOT after GROUP BY probability`.execute(db)
  return rows.map((r) => ({
    probability: Number(r.probability),
    hours: Number(r.hours),
    inWindow: Number(r.in_window),
  }))
}

/**
 * The scorer's birth hours (global probability, before the farm's map; stamped at the hour's end) of each animal's
 * spans [from, to] (ms): what the due bar is learned from (due-bar.rules.ts), per animal id, oldest first.
 */
export async function scorerBirthHours(
  db: Kysely<DB>,
  uid: string,
  spans: readonly { animalId: number; from: number; to: number }[],
): Promise<Map<number, { at: number; probability: number }[]>> {
  const out = new Map<number, { at: number; probability: number }[]>()
  if (spans.length === 0) return out
  const { rows } = await sql<{ animal_id: number | string; at: number | string; probability: number | string }>`
    WITH spans AS (
      SELECT * FROM (VALUES ${sql.join(spans.map((s) => sql`(${s.animalId}::bigint, ${s.from}::bigint, ${s.to}::bigint)`))})
        AS v (animal_id, from_at, to_at))
    SELECT DISTINCT p.animal_id, p.predicted_at AS at, coalesce(p.global_probability, p.peak_probability) AS probability
    FROM predictions p
    JOIN spans s ON s.animal_id = p.animal_id AND p.predicted_at >= s.from_at AND p.predicted_at <= s.to_at
    WHERE p.uid = ${uid} AND p.source = 'scorer' AND p.classification_type = 'birth'
    ORDER BY 1, 2`.execute(db)
  for (const r of rows) {
    const id = Number(r.animal_id)
    let hours = out.get(id)
    if (!hours) out.set(id, (hours = []))
    hours.push({ at: Number(r.at), probability: Number(r.probability) })
  }
  return out
}
