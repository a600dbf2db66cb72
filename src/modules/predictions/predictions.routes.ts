// AI predictions of one animal (the spec's "AI predictions" table): the list, one class, the newest,
// a time range, and POST for an external model. Our own scorer (src/jobs/predictions.ts, rules in
// scorer.rules.ts) stores through the repository, not through these routes.
import Type from 'typebox'
import { callerKey, callerOf } from '../../auth/caller.ts'
import { defineModule } from '../../http/api-module.ts'
import { Envelope, PageEnvelope, ok, page } from '../../http/envelope.ts'
import { validationFailed, type FieldProblem } from '../../http/errors.ts'
import { API_PREFIX } from '../../http/route-policy.ts'
import type { Row } from '../../resource/resource.ts'
import type { App } from '../../types.ts'
import { AnimalMacPath } from '../animals/animals.resource.ts'
import {
  ClassificationListQuery,
  ClassificationPath,
  PredictionCreate,
  PredictionListQuery,
  RANGE_MAX,
  RangeQuery,
  RecentQuery,
  predictions,
} from './predictions.resource.ts'
import {
  insertExternalPrediction,
  listPredictions,
  predictionsInRange,
  recentPredictions,
  type PredictionCriteria,
} from './predictions.repository.ts'
import {
  instantOf,
  mismatchesOfPath,
  normalizePosted,
  peakProbability,
  type PostedPrediction,
} from './predictions.rules.ts'
import { SCORER_SUMMARY } from './scorer.rules.ts'
import { predictionAccuracyRoute } from './predictions.accuracy.ts'
import { predictionSettingsRoute } from './predictions.settings.ts'

interface WindowQuery {
  startDate?: string | undefined
  endDate?: string | undefined
  minProbability?: number | undefined
  maxProbability?: number | undefined
}

/** The window and probability bounds of a read, or a 400 naming each bad parameter. */
function windowOf(q: WindowQuery): Pick<PredictionCriteria, 'from' | 'to' | 'minProbability' | 'maxProbability'> {
  const problems: FieldProblem[] = []
  const from = q.startDate === undefined ? undefined : instantOf(q.startDate, 'start')
  const to = q.endDate === undefined ? undefined : instantOf(q.endDate, 'end')
  if (q.startDate !== undefined && from === undefined)
    problems.push({ field: 'query:startDate', message: 'is not a real date or time' })
  if (q.endDate !== undefined && to === undefined)
    problems.push({ field: 'query:endDate', message: 'is not a real date or time' })
  if (from !== undefined && to !== undefined && from > to)
    problems.push({ field: 'query:startDate', message: 'must not be after endDate' })
  if (q.minProbability !== undefined && q.maxProbability !== undefined && q.minProbability > q.maxProbability) {
    problems.push({ field: 'query:minProbability', message: 'must not be above maxProbability' })
  }
  if (problems.length > 0) throw validationFailed(problems)
  return { from, to, minProbability: q.minProbability, maxProbability: q.maxProbability }
}

const toApi = (row: Row) => predictions.toApi(row)

export const predictionsModule = defineModule({
  tag: 'predictions',
  description: `AI predictions (heat, birth, lameness) per animal. ${SCORER_SUMMARY}`,
  schemas: [predictions.item],
  routes: predictionRoutes,
})

async function predictionRoutes(app: App) {
  const db = app.database.db
  const { limits } = app.config
  const base = '/users/:userId/animals/:animalMac/predictions'
  const List = PageEnvelope(predictions.ref)

  /** A page of the animal's predictions (of one class, or of every class) in the query's window. */
  async function predictionsPage(
    animal: { uid: string; id: number },
    classificationType: PredictionCriteria['classificationType'],
    query: WindowQuery & { page: number; limit: number },
  ) {
    const criteria = { uid: animal.uid, animalId: animal.id, classificationType, ...windowOf(query) }
    const { rows, total } = await listPredictions(db, criteria, query)
    return page(rows.map(toApi), query.page, query.limit, total)
  }
  await predictionAccuracyRoute(app)
  await predictionSettingsRoute(app)

  app.get(
    base,
    {
      schema: {
        operationId: 'listPredictions',
        summary: "The animal's predictions",
        description:
          "Newest first. `minProbability`/`maxProbability` compare with each prediction's highest result probability; " +
          '`startDate`/`endDate` with when it was predicted (both inclusive; a bare date is its whole UTC day).',
        params: AnimalMacPath,
        querystring: PredictionListQuery(limits),
        response: { 200: List },
      },
      config: { access: 'own', animal: 'path' },
    },
    async (req) => predictionsPage(req.pathAnimal, req.query.classificationType, req.query),
  )

  app.get(
    `${base}/recent`,
    {
      schema: {
        operationId: 'recentPredictions',
        summary: "The animal's newest predictions",
        description: 'The newest `limit` predictions, newest first, optionally of one classificationType.',
        params: AnimalMacPath,
        querystring: RecentQuery(limits),
        response: { 200: Envelope(Type.Array(predictions.ref, { maxItems: limits.recentLimitMax })) },
      },
      config: { access: 'own', animal: 'path' },
    },
    async (req) => {
      const animal = req.pathAnimal
      const rows = await recentPredictions(
        db,
        { uid: animal.uid, animalId: animal.id, classificationType: req.query.classificationType },
        req.query.limit,
      )
      return ok(rows.map(toApi))
    },
  )

  app.get(
    `${base}/range`,
    {
      schema: {
        operationId: 'predictionsInRange',
        summary: "The animal's predictions between two dates",
        description:
          `Predictions made between startDate and endDate (both required, both inclusive; a bare date is its whole UTC day), ` +
          `oldest first, optionally of one classificationType. At most ${RANGE_MAX}: a range holding more answers the first ` +
          `${RANGE_MAX} and says so in \`message\`.`,
        params: AnimalMacPath,
        querystring: RangeQuery,
        response: {
          200: Envelope(
            Type.Array(predictions.ref, { maxItems: RANGE_MAX }),
            'Predictions in the range',
            `The first ${RANGE_MAX} of 1204 predictions in the range; narrow it for the rest`,
          ),
        },
      },
      config: { access: 'own', animal: 'path' },
    },
    async (req) => {
      const window = windowOf(req.query)
      const animal = req.pathAnimal
      const { rows, total } = await predictionsInRange(
        db,
        { uid: animal.uid, animalId: animal.id, classificationType: req.query.classificationType, ...window },
        RANGE_MAX,
      )
      return ok(
        rows.map(toApi),
        total > rows.length
          ? `The first ${rows.length} of ${total} predictions in the range; narrow it for the rest`
          : undefined,
      )
    },
  )

  app.get(
    `${base}/:classificationType`,
    {
      schema: {
        operationId: 'listPredictionsOfType',
        summary: "The animal's predictions of one class",
        description:
          'As the list, for heat, birth or lameness (anything else is a 400). `recent` and `range` are the routes above, never a class.',
        params: ClassificationPath,
        querystring: ClassificationListQuery(limits),
        response: { 200: List },
      },
      config: { access: 'own', animal: 'path' },
    },
    async (req) => predictionsPage(req.pathAnimal, req.params.classificationType, req.query),
  )

  app.post(
    base,
    {
      schema: {
        operationId: 'createPrediction',
        summary: 'Store a prediction of an external model',
        description:
          'For a model running outside this service: the owner, or a linked integrator with the write permission. ' +
          'Probabilities 0.0-1.0, 1 or more results, timestamps ISO 8601 in the years 2000-2099 (stored in UTC); `timestamp` ' +
          '(when predicted) defaults to now and may not lie in the future. Answers 201 with the stored AIPrediction and a ' +
          'Location that lists it (its class, at its timestamp). Takes an Idempotency-Key.',
        params: AnimalMacPath,
        body: PredictionCreate,
        response: { 201: Envelope(predictions.ref, 'The stored prediction', 'Prediction stored') },
      },
      attachValidation: true,
      config: { access: 'own', idempotent: true, animal: 'path' },
    },
    async (req, reply) => {
      const animal = req.pathAnimal
      if (req.validationError) throw req.validationError
      const body = req.body as unknown as PostedPrediction
      const mismatches = mismatchesOfPath(body, { uid: animal.uid, animalId: String(animal.id), mac: animal.mac })
      if (mismatches.length > 0) throw validationFailed(mismatches)
      const { problems, value } = normalizePosted(body, app.clock())
      if (!value) throw validationFailed(problems)
      const row = await insertExternalPrediction(
        db,
        animal.uid,
        {
          animalId: animal.id,
          classificationType: body.classificationType,
          predictedAt: value.predictedAt,
          results: value.results,
          peakProbability: peakProbability(value.results),
          animal: body.animal,
        },
        callerKey(callerOf(req)),
      )
      const at = new Date(value.predictedAt).toISOString()
      const location =
        `${API_PREFIX}/users/${encodeURIComponent(animal.uid)}/animals/${encodeURIComponent(animal.mac)}/predictions/${body.classificationType}` +
        `?startDate=${encodeURIComponent(at)}&endDate=${encodeURIComponent(at)}`
      return reply
        .code(201)
        .header('location', location)
        .send(ok(toApi(row), 'Prediction stored'))
    },
  )
}
