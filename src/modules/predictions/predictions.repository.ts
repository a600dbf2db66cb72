// Predictions as stored: each row joined to its animal, whose current registry fields make the
// AIPrediction's `animal` object where its poster gave none (built in SQL, so every read shows the same shape).
import { sql, type Kysely, type SelectQueryBuilder } from 'kysely'
import type { DB, PredictionResult } from '../../db/schema.ts'
import { paginate, whereGiven, type Page } from '../../db/paginate.ts'
import type { Row } from '../../resource/resource.ts'
import { pruneBefore } from '../../db/prune.ts'
import { ALARM_EVENT_TYPES } from '../events/prediction-events.ts'
import { alarmLevel } from './calibration.rules.ts'
import type { ClassificationType } from './predictions.rules.ts'

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type PredictionQuery = SelectQueryBuilder<any, any, Row>

/** One animal's predictions, narrowed by the read's criteria. Times are ms, both ends inclusive. */
export interface PredictionCriteria {
  uid: string
  animalId: number
  classificationType?: ClassificationType | undefined
  from?: number | undefined
  to?: number | undefined
  minProbability?: number | undefined
  maxProbability?: number | undefined
}

function selectPredictions(db: Kysely<DB>, c: PredictionCriteria): PredictionQuery {
  const query = db
    .selectFrom('predictions as p')
    .innerJoin('animals as a', (join) => join.onRef('a.uid', '=', 'p.uid').onRef('a.id', '=', 'p.animal_id'))
    .select(['p.id', 'p.uid', 'p.predicted_at', 'p.classification_type', 'p.results'])
    .select(
      sql<
        Record<string, unknown>
      >`jsonb_build_object('id', a.id::text, 'mac', a.mac, 'name', coalesce(p.animal_name, a.id::text),
      'group', coalesce(p.animal_group, a.group_name), 'weight', coalesce(p.animal_weight, a.watchdog_weight, 0),
      'userId', a.uid)`.as('animal'),
    )
    .where('p.uid', '=', c.uid)
    .where('p.animal_id', '=', c.animalId) as unknown as PredictionQuery
  return whereGiven(query, [
    ['p.classification_type', '=', c.classificationType],
    ['p.predicted_at', '>=', c.from],
    ['p.predicted_at', '<=', c.to],
    ['p.peak_probability', '>=', c.minProbability],
    ['p.peak_probability', '<=', c.maxProbability],
  ])
}

/** A page of predictions, newest first. */
export async function listPredictions(
  db: Kysely<DB>,
  criteria: PredictionCriteria,
  page: { page: number; limit: number },
): Promise<Page<Row>> {
  return paginate(selectPredictions(db, criteria), {
    columns: { timestamp: { column: 'p.predicted_at' } },
    params: { ...page, sortBy: 'timestamp', sortOrder: 'desc' },
    tiebreak: 'p.id',
  })
}

/** The newest `limit` predictions, newest first. */
export async function recentPredictions(db: Kysely<DB>, criteria: PredictionCriteria, limit: number): Promise<Row[]> {
  return selectPredictions(db, criteria)
    .orderBy('p.predicted_at', 'desc')
    .orderBy('p.id', 'desc')
    .limit(limit)
    .execute()
}

/** Up to `max` predictions in the criteria's window, oldest first, and how many the window holds. */
export async function predictionsInRange(
  db: Kysely<DB>,
  criteria: PredictionCriteria,
  max: number,
): Promise<{ rows: Row[]; total: number }> {
  const query = selectPredictions(db, criteria)
  const [rows, count] = await Promise.all([
    query.orderBy('p.predicted_at', 'asc').orderBy('p.id', 'asc').limit(max).execute(),
    query
      .clearSelect()
      .select(sql<number>`count(*)`.as('total'))
      .executeTakeFirstOrThrow(),
  ])
  return { rows, total: Number(count.total) }
}

export interface NewPrediction {
  animalId: number
  classificationType: ClassificationType
  predictedAt: number
  results: PredictionResult[]
  peakProbability: number
  /** The scorer's: the global calibration's probability, before the farm's map. */
  globalProbability?: number
  /** The animal's name, group and weight as the poster gave them. */
  animal?: { name?: string | undefined; group?: string | null | undefined; weight?: number | undefined }
}

/** The columns of a prediction that every source stores alike. */
const predictionColumns = (uid: string, p: NewPrediction) => ({
  uid,
  animal_id: p.animalId,
  classification_type: p.classificationType,
  predicted_at: p.predictedAt,
  results: JSON.stringify(p.results),
  peak_probability: p.peakProbability,
})

/** Stores a prediction an owner or integrator posted, and returns it as the reads show it. */
export async function insertExternalPrediction(
  db: Kysely<DB>,
  uid: string,
  p: NewPrediction,
  createdBy: string,
): Promise<Row> {
  const { id } = await db
    .insertInto('predictions')
    .values({
      ...predictionColumns(uid, p),
      source: 'external',
      created_by: createdBy,
      animal_name: p.animal?.name ?? null,
      animal_group: p.animal?.group ?? null,
      animal_weight: p.animal?.weight ?? null,
    })
    .returning('id')
    .executeTakeFirstOrThrow()
  return (await selectPredictions(db, { uid, animalId: p.animalId }).where('p.id', '=', id).executeTakeFirst())!
}

/**
 * Stores the scorer's predictions of one user; one per animal, class and hour, so a second run for the
 * same hour stores nothing. Returns how many were new.
 */
export async function insertScoredPredictions(
  db: Kysely<DB>,
  uid: string,
  rows: readonly NewPrediction[],
): Promise<number> {
  if (rows.length === 0) return 0
  const result = await db
    .insertInto('predictions')
    .values(
      rows.map((p) => ({
        ...predictionColumns(uid, p),
        source: 'scorer' as const,
        created_by: null,
        global_probability: p.globalProbability ?? p.peakProbability,
      })),
    )
    .onConflict((oc) =>
      oc
        .columns(['uid', 'animal_id', 'classification_type', 'predicted_at'])
        .where('source', '=', 'scorer')
        .doNothing(),
    )
    .executeTakeFirst()
  return Number(result.numInsertedOrUpdatedRows ?? 0n)
}

/** The latest hour the scorer stored a prediction for in the user's account (ms), if any. */
export async function lastScoredAt(db: Kysely<DB>, uid: string): Promise<number | undefined> {
  const last = await db
    .selectFrom('predictions')
    .select((eb) => eb.fn.max('predicted_at').as('last'))
    .where('uid', '=', uid)
    .where('source', '=', 'scorer')
    .executeTakeFirst()
  return last?.last ?? undefined
}

/**
 * Deletes the scorer's predictions made before `before` (ms), at most `batchRows` a statement, but for alarms:
 * a global probability at its class's alarm level (as the accuracy route reads them), or the prediction an alarm event names. Predictions
 * posted through the API are their poster's and stay.
 */
export function prunePredictions(db: Kysely<DB>, before: number, batchRows: number): Promise<number> {
  return pruneBefore(
    db,
    {
      table: 'predictions',
      group: ['uid', 'animal_id'],
      time: 'predicted_at',
      row: 'id',
      keep: sql<boolean>`r.source <> 'scorer' OR coalesce(r.global_probability, r.peak_probability) >= CASE r.classification_type
          WHEN 'birth' THEN ${sql.lit(alarmLevel('birth'))} WHEN 'heat' THEN ${sql.lit(alarmLevel('heat'))}
          ELSE ${sql.lit(alarmLevel('lameness'))} END
        OR EXISTS (SELECT 1 FROM events e WHERE e.uid = r.uid AND e.animal_id = r.animal_id
                   AND e.event_type IN (${sql.join(ALARM_EVENT_TYPES)}) AND e.evidence->>'predictionId' = r.id::text)`,
    },
    before,
    batchRows,
  )
}
