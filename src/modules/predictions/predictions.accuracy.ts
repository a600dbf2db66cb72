// GET /users/:userId/predictions/accuracy: the alarms of a period against the farm's own records, per class
// (rules in accuracy.rules.ts; definitions in docs/herd-performance.md#prediction-accuracy).
import { sql, type Kysely } from 'kysely'
import Type from 'typebox'
import type { DB } from '../../db/schema.ts'
import { Envelope, ok } from '../../http/envelope.ts'
import { validationFailed, type FieldProblem } from '../../http/errors.ts'
import { Count, DateTime } from '../../http/schema-types.ts'
import type { App } from '../../types.ts'
import { UserPath } from '../animals/animals.resource.ts'
import { T_MAX, T_MIN } from '../readings/readings.rules.ts'
import { alarmLevel } from './calibration.rules.ts'
import {
  ALARM_MERGE_MS,
  ALARM_PROBABILITY,
  MATCH_WINDOWS,
  matchAlarms,
  mergeMoments,
  scoredBy,
  summarizeMatches,
  type ScoredSpan,
  type AlarmMatch,
  type Moment,
} from './accuracy.rules.ts'
import {
  CLASSIFICATION_TYPES,
  ISO_8601_PATTERN,
  instantOf,
  recordInstant,
  type ClassificationType,
} from './predictions.rules.ts'

const HOUR_MS = 3_600_000
const DAY_MS = 24 * HOUR_MS
/** The longest period: a year and a day. */
export const ACCURACY_PERIOD_MAX_DAYS = 366
/** Alarms and records this far outside the period are read too, so that those at its edges find their match. */
const PAD_MS = 21 * DAY_MS

type ByClass<T> = Record<ClassificationType, T>

/** The alarms (runs of alarm predictions), the records and the animal-hours scored, per class, around [from, to]. */
export async function alarmsAndEvents(db: Kysely<DB>, uid: string, from: number, to: number) {
  const lo = from - PAD_MS
  const hi = to + PAD_MS
  const empty = () => ({ birth: [] as Moment[], heat: [] as Moment[], lameness: [] as Moment[] })
  const alarms: ByClass<Moment[]> = empty()
  const events: ByClass<Moment[]> = empty()
  const monitoredHours: ByClass<number> = { birth: 0, heat: 0, lameness: 0 }
  const spans: ByClass<ScoredSpan[]> = { birth: [], heat: [], lameness: [] }
  const alarmRows = await db
    .selectFrom('predictions')
    .select(['animal_id', 'classification_type', 'predicted_at'])
    .where('uid', '=', uid)
    .where((eb) =>
      eb.or([
        eb.and([eb('source', '<>', 'scorer'), eb('peak_probability', '>=', ALARM_PROBABILITY)]),
        ...CLASSIFICATION_TYPES.map((kind) =>
          eb.and([
            eb('source', '=', 'scorer'),
            eb('classification_type', '=', kind),
            // The global calibration's probability: the farm's map moves the number, not the alarm.
            eb(eb.fn.coalesce('global_probability', 'peak_probability'), '>=', alarmLevel(kind)),
          ]),
        ),
      ]),
    )
    .where('predicted_at', '>=', lo)
    .where('predicted_at', '<=', hi)
    .execute()
  for (const r of alarmRows)
    alarms[r.classification_type].push({ animalId: Number(r.animal_id), at: Number(r.predicted_at) })
  const { rows: hours } = await sql<{ kind: ClassificationType; hours: number | string }>`
    SELECT kind, count(*) AS hours FROM (
      SELECT DISTINCT classification_type AS kind, animal_id, predicted_at / ${HOUR_MS} AS hour
      FROM predictions WHERE uid = ${uid} AND predicted_at >= ${from} AND predicted_at <= ${to}) AS scored
    GROUP BY kind`.execute(db)
  for (const r of hours) monitoredHours[r.kind] = Number(r.hours)
  const spanRows = await db
    .selectFrom('predictions')
    .select(['animal_id', 'classification_type'])
    .select((eb) => [eb.fn.min('predicted_at').as('first'), eb.fn.max('predicted_at').as('last')])
    .where('uid', '=', uid)
    .where('predicted_at', '>=', lo)
    .where('predicted_at', '<=', hi)
    .groupBy(['animal_id', 'classification_type'])
    .execute()
  for (const r of spanRows)
    spans[r.classification_type].push({ animalId: Number(r.animal_id), first: Number(r.first), last: Number(r.last) })
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10)
  const { rows: records } = await sql<{
    kind: ClassificationType
    animal_id: number | string
    day: string | null
    time: string | null
    t: number | string | null
  }>`
    SELECT 'birth' AS kind, animal_id, start_date AS day, start_time AS time, NULL::bigint AS t FROM births
      WHERE uid = ${uid} AND start_date >= ${day(lo)} AND start_date <= ${day(hi)}
    UNION ALL SELECT 'heat', animal_id, start_date, start_time, NULL FROM inseminations
      WHERE uid = ${uid} AND start_date >= ${day(lo)} AND start_date <= ${day(hi)}
    UNION ALL SELECT 'heat', animal_id, return_date, NULL, NULL FROM return_to_estrus
      WHERE uid = ${uid} AND return_date >= ${day(lo)} AND return_date <= ${day(hi)}
    UNION ALL SELECT 'lameness', animal_id, start_date, NULL, NULL FROM treatments
      WHERE uid = ${uid} AND diagnose ILIKE '%lame%' AND start_date >= ${day(lo)} AND start_date <= ${day(hi)}
    UNION ALL SELECT 'lameness', animal_id, NULL, NULL, t FROM general_events
      WHERE uid = ${uid} AND diagnose = 'Lameness' AND t >= ${lo} AND t <= ${hi}`.execute(db)
  for (const r of records) {
    const at = r.day !== null ? recordInstant(r.day, r.time) : Number(r.t)
    if (at !== undefined) events[r.kind].push({ animalId: Number(r.animal_id), at })
  }
  return { alarms, events, monitoredHours, spans }
}

/** Every alarm and record of the user around [from, to] matched, per class: the pairs per-farm learning reads. */
export async function accuracyMatches(db: Kysely<DB>, uid: string, from: number, to: number) {
  const { alarms, events, monitoredHours, spans } = await alarmsAndEvents(db, uid, from, to)
  const matches = {} as ByClass<AlarmMatch[]>
  for (const kind of CLASSIFICATION_TYPES)
    matches[kind] = matchAlarms(
      kind,
      mergeMoments(alarms[kind], ALARM_MERGE_MS),
      mergeMoments(events[kind], MATCH_WINDOWS[kind].eventMergeMs),
      MATCH_WINDOWS[kind],
      scoredBy(spans[kind], MATCH_WINDOWS[kind]),
    )
  return { matches, monitoredHours }
}

const Rate = (description: string, example: number) =>
  Type.Union([Type.Number({ minimum: 0, examples: [example] }), Type.Null()], { description })
const N = (description: string, example: number) => Count(description, example)

const ClassAccuracySchema = (kind: ClassificationType, event: string) => {
  const w = MATCH_WINDOWS[kind]
  const hours = (ms: number) => (ms % DAY_MS === 0 ? `${ms / DAY_MS} days` : `${ms / HOUR_MS} h`)
  return Type.Object(
    {
      alarmLevel: Type.Number({
        minimum: 0,
        maximum: 1,
        description: `The scorer's ${kind} predictions alarm from this probability: the calibrated probability of its rule's threshold (posted predictions alarm from \`alarmProbability\`)`,
        examples: [alarmLevel(kind)],
      }),
      alarms: N('Alarms that started in the period', 14),
      confirmed: N(`Of them, followed by ${event} 0 to ${hours(w.leadMs)} later`, 11),
      late: N(`Of them, up to ${hours(w.lateMs)} after ${event} (neither detection nor false alarm)`, 1),
      falseAlarms: N('Of them, neither confirmed nor late', 2),
      events: N(`Events in the period: ${event} (records less than ${hours(w.eventMergeMs)} apart are one)`, 12),
      detected: N('Of them, announced by an alarm (confirmed one)', 11),
      missed: N('Of them, with no alarm before (while the animal was predicted for)', 1),
      unscored: N(
        `Events apart from \`events\`: no prediction of the class for the animal from before the event until ${hours(w.leadMs)} before it (no alarm could announce them)`,
        0,
      ),
      sensitivity: Rate('detected / events; null without events', 0.917),
      precision: Rate('confirmed / alarms; null without alarms', 0.786),
      leadHours: Type.Union(
        [
          Type.Object(
            {
              median: Type.Number({ examples: [9.5] }),
              min: Type.Number({ examples: [1] }),
              max: Type.Number({ examples: [30] }),
            },
            { additionalProperties: false },
          ),
          Type.Null(),
        ],
        {
          description:
            "Each detected event's time minus its earliest confirmed alarm's, hours; null without detections",
        },
      ),
      animalMonths: Type.Number({
        minimum: 0,
        description: 'Animal-hours the class was predicted for in the period / 730.5',
        examples: [38.2],
      }),
      falseAlarmsPerAnimalMonth: Rate('falseAlarms / animalMonths; null when nothing was predicted', 0.05),
    },
    { additionalProperties: false, description: `${kind}: alarms against ${event}` },
  )
}

export const PredictionAccuracy = Type.Object(
  {
    from: DateTime('First instant of the period'),
    to: DateTime('Last instant of the period'),
    alarmProbability: Type.Number({
      description:
        "An alarm: a posted prediction whose highest probability reaches this (the scorer's calibrated ones alarm from their class's `alarmLevel`)",
      examples: [0.5],
    }),
    birth: ClassAccuracySchema('birth', 'a birth record (StartDate and StartTime; noon UTC without a time)'),
    heat: ClassAccuracySchema(
      'heat',
      'an insemination (StartDate and StartTime; noon UTC without a time) or a return to estrus (a heat seen; returnDate, noon UTC)',
    ),
    lameness: ClassAccuracySchema(
      'lameness',
      'a treatment whose Diagnose mentions lameness ("lame", any case; StartDate at noon UTC) or a general event with Diagnose Lameness (its t)',
    ),
  },
  { additionalProperties: false, title: 'PredictionAccuracy' },
)

const IsoQuery = (description: string, example: string) =>
  Type.Optional(Type.String({ pattern: ISO_8601_PATTERN, maxLength: 40, description, examples: [example] }))

export async function predictionAccuracyRoute(app: App) {
  app.get(
    '/users/:userId/predictions/accuracy',
    {
      schema: {
        operationId: 'getPredictionAccuracy',
        summary: "How the farm's own records bear out the alarms",
        description:
          `Per class, over \`from\` to \`to\` (ISO 8601; a bare date is its whole UTC day; default the 30 days to now, not before 2000-01-01; at most ` +
          `${ACCURACY_PERIOD_MAX_DAYS} days): alarms (posted predictions of probability ${ALARM_PROBABILITY} or more; the scorer's ` +
          "calibrated ones from its class's alarm level, the probability of its rule's threshold (see the predictions tag); " +
          `alarm predictions of one animal less than ${ALARM_MERGE_MS / HOUR_MS} h apart are one alarm, from its first) ` +
          'matched with the records: confirmed, late, false; events detected and missed; lead times; false alarms per ' +
          'animal-month. Archived records count. An expensive request.',
        params: UserPath,
        querystring: Type.Object({
          from: IsoQuery('First day or instant (default: 30 days before `to`, not before 2000-01-01)', '2026-10-01'),
          to: IsoQuery('Last day or instant (default now)', '2026-10-31'),
        }),
        response: { 200: Envelope(PredictionAccuracy) },
      },
      // Up to a year of the farm's predictions and records.
      config: { access: 'own', cost: 'expensive' },
    },
    async (req) => {
      const problems: FieldProblem[] = []
      const parse = (name: 'from' | 'to', bound: 'start' | 'end') => {
        const value = req.query[name]
        if (value === undefined) return undefined
        const ms = instantOf(value, bound)
        if (ms === undefined) problems.push({ field: `query:${name}`, message: 'is not a real date or time' })
        else if (ms < T_MIN || ms >= T_MAX)
          problems.push({ field: `query:${name}`, message: 'must lie in the years 2000-2099' })
        else return ms
        return undefined
      }
      const sentFrom = parse('from', 'start')
      const sentTo = parse('to', 'end')
      if (problems.length > 0) throw validationFailed(problems)
      const to = sentTo ?? app.clock()
      // The default 30 days start no earlier than the first instant a date parameter may name.
      const from = sentFrom ?? Math.max(to - 30 * DAY_MS, T_MIN)
      if (from > to) throw validationFailed([{ field: 'query:from', message: 'must not be after to' }])
      if (to - from > ACCURACY_PERIOD_MAX_DAYS * DAY_MS)
        throw validationFailed([
          { field: 'query:from', message: `the period must be at most ${ACCURACY_PERIOD_MAX_DAYS} days` },
        ])
      const { matches, monitoredHours } = await accuracyMatches(app.database.db, req.params.userId, from, to)
      const summary = (kind: ClassificationType) => ({
        alarmLevel: alarmLevel(kind),
        ...summarizeMatches(matches[kind], from, to, monitoredHours[kind]),
      })
      return ok({
        from: new Date(from).toISOString(),
        to: new Date(to).toISOString(),
        alarmProbability: ALARM_PROBABILITY,
        birth: summary('birth'),
        heat: summary('heat'),
        lameness: summary('lameness'),
      })
    },
  )
}
