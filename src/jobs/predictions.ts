// Our own scorer in the service (rules in modules/predictions/scorer.rules.ts). Every hour, a few minutes
// past the hour, it scores each active animal of each user for the hours completed since its last run (at
// most CATCH_UP_HOURS back) and stores one AIPrediction per animal, class and hour. The readings are summed
// up per hour in SQL; the rules run in Node on those summaries and the farm's records. One process runs it
// at a time (withSingleRunner); a second run for the same hour stores nothing new (a unique index).
import { sql, type Kysely } from 'kysely'
import type { DB } from '../db/schema.ts'
import type { App } from '../types.ts'
import { insertScoredPredictions, type NewPrediction } from '../modules/predictions/predictions.repository.ts'
import { CLASSIFICATION_TYPES, recordInstant } from '../modules/predictions/predictions.rules.ts'
import {
  HOUR_MS,
  LOOKBACK_HOURS,
  MIN_SAMPLES_PER_HOUR,
  MOVING_THRESHOLD_G,
  VALID_TEMPERATURE,
  alignHours,
  scoreHerd,
  type AnimalHours,
  type AnimalRecords,
  type HourSummary,
} from '../modules/predictions/scorer.rules.ts'
import { withSingleRunner } from './job-lock.ts'

/** pg_try_advisory_lock key of this job (distinct from the reference-temperature job's). */
export const PREDICTIONS_LOCK = 6_105_002
/** A run scores at most this many hours back; a first run scores this many. */
export const CATCH_UP_HOURS = 24
/** Minutes past the hour of the scheduled run: gateways send the hour's last readings a little late. */
export const RUN_MINUTES_PAST = 5
/** Rows per insert statement. */
const INSERT_BATCH = 1000

export interface PredictionRunOptions {
  /** The run's time: it scores the hours that ended by then. */
  now: number
  /** Only this user's animals. */
  uid?: string | undefined
}

export interface PredictionRunOutcome {
  users: number
  animals: number
  hours: number
  stored: number
}

/** The end of each hour to score for a user, oldest first: those completed after its last scored hour, at most CATCH_UP_HOURS. */
export function hoursToScore(now: number, lastScored: number | undefined): number[] {
  const lastEnd = Math.floor(now / HOUR_MS) * HOUR_MS
  const earliest = lastEnd - (CATCH_UP_HOURS - 1) * HOUR_MS
  const first = lastScored === undefined ? earliest : Math.max(earliest, lastScored + HOUR_MS)
  const ends: number[] = []
  for (let end = first; end <= lastEnd; end += HOUR_MS) ends.push(end)
  return ends
}

/** Scores every active animal (of one user, or of all) and stores the predictions. */
export async function scorePredictions(db: Kysely<DB>, options: PredictionRunOptions): Promise<PredictionRunOutcome> {
  let users = db.selectFrom('animals').select('uid').distinct().where('active', '=', true)
  if (options.uid !== undefined) users = users.where('uid', '=', options.uid)
  const outcome: PredictionRunOutcome = { users: 0, animals: 0, hours: 0, stored: 0 }
  for (const { uid } of await users.orderBy('uid').execute()) {
    const result = await scoreUser(db, uid, options.now)
    outcome.users++
    outcome.animals += result.animals
    outcome.hours = Math.max(outcome.hours, result.hours)
    outcome.stored += result.stored
  }
  return outcome
}

async function scoreUser(
  db: Kysely<DB>,
  uid: string,
  now: number,
): Promise<{ animals: number; hours: number; stored: number }> {
  const last = await db
    .selectFrom('predictions')
    .select((eb) => eb.fn.max('predicted_at').as('last'))
    .where('uid', '=', uid)
    .where('source', '=', 'scorer')
    .executeTakeFirst()
  const ends = hoursToScore(now, last?.last ?? undefined)
  if (ends.length === 0) return { animals: 0, hours: 0, stored: 0 }
  const firstHour = ends[0]! - HOUR_MS - LOOKBACK_HOURS * HOUR_MS
  const lastHour = ends.at(-1)! - HOUR_MS
  const animals = await db
    .selectFrom('animals')
    .select(['id', 'mac', 'group_name'])
    .where('uid', '=', uid)
    .where('active', '=', true)
    .orderBy('id')
    .execute()
  const records = await recordsOf(db, uid)
  const herd: AnimalHours<number>[] = []
  for (const animal of animals) {
    const hours = await hourlySummaries(db, uid, animal.mac, firstHour, lastHour + HOUR_MS)
    herd.push({
      key: animal.id,
      group: animal.group_name,
      hours: alignHours(hours, firstHour, lastHour),
      records: records.get(animal.id) ?? { services: [], weanings: [], births: [] },
    })
  }
  const from = (ends[0]! - HOUR_MS - firstHour) / HOUR_MS
  const to = (lastHour - firstHour) / HOUR_MS
  const scores = scoreHerd(herd, from, to)
  const rows: NewPrediction[] = []
  herd.forEach((animal, k) => {
    scores[k]!.forEach((score, n) => {
      const i = from + n
      if (!heardFrom(animal.hours, i)) return
      const predictedAt = animal.hours[i]!.hour + HOUR_MS
      const timestamp = new Date(predictedAt).toISOString()
      for (const type of CLASSIFICATION_TYPES) {
        rows.push({
          animalId: animal.key,
          classificationType: type,
          predictedAt,
          results: [{ timestamp, probability: score[type] }],
          peakProbability: score[type],
        })
      }
    })
  })
  let stored = 0
  for (let i = 0; i < rows.length; i += INSERT_BATCH)
    stored += await insertScoredPredictions(db, uid, rows.slice(i, i + INSERT_BATCH))
  return {
    animals: herd.filter((a) => a.hours.some((_, i) => i >= from && heardFrom(a.hours, i))).length,
    hours: ends.length,
    stored,
  }
}

/** Whether the tag sent readings in the 24 h up to hour i: a silent tag gets no prediction. */
function heardFrom(hours: readonly HourSummary[], i: number): boolean {
  for (let j = Math.max(0, i - 23); j <= i; j++) if (hours[j]!.samples >= MIN_SAMPLES_PER_HOUR) return true
  return false
}

/**
 * One tag's readings summed up per hour in [from, to): the same figures as summarizeHours in scorer.rules.ts
 * (samples, share moving, mean valid temperature, detections and node changes), computed by the database.
 */
export async function hourlySummaries(
  db: Kysely<DB>,
  uid: string,
  mac: string,
  from: number,
  to: number,
): Promise<HourSummary[]> {
  const sensor = await sql<{ hour: number; samples: number; activity: number; temperature: number | null }>`
    SELECT (t / ${HOUR_MS}) * ${HOUR_MS} AS hour, count(*) AS samples,
           avg(CASE WHEN abs(sqrt(x * x + y * y + z * z) - 1) > ${MOVING_THRESHOLD_G} THEN 1 ELSE 0 END) AS activity,
           avg(c) FILTER (WHERE c >= ${VALID_TEMPERATURE.min} AND c <= ${VALID_TEMPERATURE.max}) AS temperature
    FROM animal_sensor_readings
    WHERE uid = ${uid} AND mac = ${mac} AND t >= ${from} AND t < ${to}
    GROUP BY 1`.execute(db)
  const locations = await sql<{ hour: number; detections: number; node_changes: number }>`
    SELECT (t / ${HOUR_MS}) * ${HOUR_MS} AS hour, count(*) AS detections,
           count(*) FILTER (WHERE previous IS NOT NULL AND previous <> nodeuid) AS node_changes
    FROM (SELECT t, nodeuid, lag(nodeuid) OVER (ORDER BY t) AS previous
          FROM animal_location_readings WHERE uid = ${uid} AND mac = ${mac} AND t >= ${from} AND t < ${to}) d
    GROUP BY 1`.execute(db)
  const byHour = new Map<number, HourSummary>()
  for (const r of sensor.rows) {
    const hour = Number(r.hour)
    byHour.set(hour, {
      hour,
      samples: Number(r.samples),
      activity: Number(r.activity),
      temperature: r.temperature === null ? null : Number(r.temperature),
      detections: 0,
      nodeChanges: 0,
    })
  }
  for (const r of locations.rows) {
    const hour = Number(r.hour)
    const summary = byHour.get(hour) ?? {
      hour,
      samples: 0,
      activity: 0,
      temperature: null,
      detections: 0,
      nodeChanges: 0,
    }
    summary.detections = Number(r.detections)
    summary.nodeChanges = Number(r.node_changes)
    byHour.set(hour, summary)
  }
  return [...byHour.values()].sort((a, b) => a.hour - b.hour)
}

/** The user's inseminations, weanings and farrowings per animal id, as instants (archived records too: they happened). */
async function recordsOf(db: Kysely<DB>, uid: string): Promise<Map<number, AnimalRecords>> {
  const out = new Map<number, AnimalRecords>()
  const add = (animalId: number, kind: keyof AnimalRecords, at: number | undefined) => {
    if (at === undefined) return
    let records = out.get(animalId)
    if (!records) out.set(animalId, (records = { services: [], weanings: [], births: [] }))
    records[kind].push(at)
  }
  const { rows } = await sql<{ kind: keyof AnimalRecords; animal_id: number; day: string; time: string | null }>`
    SELECT 'services' AS kind, animal_id, start_date AS day, start_time AS time FROM inseminations WHERE uid = ${uid}
    UNION ALL SELECT 'weanings', animal_id, weaning_date, NULL FROM weanings WHERE uid = ${uid}
    UNION ALL SELECT 'births', animal_id, start_date, start_time FROM births WHERE uid = ${uid}`.execute(db)
  for (const r of rows) add(Number(r.animal_id), r.kind, recordInstant(r.day, r.time))
  return out
}

/** The scheduled run: every process may call it; one scores, the others skip. */
export async function runScheduledPredictions(app: App, now: number): Promise<PredictionRunOutcome | undefined> {
  return withSingleRunner(app.database, PREDICTIONS_LOCK, (conn) => scorePredictions(conn, { now }))
}

/** When the next scheduled run is due: RUN_MINUTES_PAST past the next hour (or this one, if still ahead). */
export function nextRunAt(now: number): number {
  const thisHour = Math.floor(now / HOUR_MS) * HOUR_MS + RUN_MINUTES_PAST * 60_000
  return thisHour > now ? thisHour : thisHour + HOUR_MS
}

/** Starts the hourly schedule, with a run at start for the hours missed. Returns the stop function. */
export function startPredictionSchedule(app: App): () => void {
  let timer: NodeJS.Timeout | undefined
  let stopped = false
  const run = async () => {
    try {
      const outcome = await runScheduledPredictions(app, app.clock())
      if (outcome) app.log.info({ job: 'predictions', ...outcome }, 'predictions scored')
      else app.log.info({ job: 'predictions' }, 'another run holds the predictions lock; skipped')
    } catch (err) {
      app.log.error({ err, job: 'predictions' }, 'predictions job failed; the next run catches up')
    }
  }
  const schedule = () => {
    if (stopped) return
    timer = setTimeout(
      () => {
        void run().then(schedule)
      },
      nextRunAt(app.clock()) - app.clock(),
    )
    timer.unref()
  }
  void run().then(schedule)
  return () => {
    stopped = true
    if (timer) clearTimeout(timer)
  }
}
