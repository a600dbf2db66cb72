// Ear-tag time series of one animal (by tag MAC): ingestion, reads, latest samples, analytics.
import type { TSchema } from 'typebox'
import type { Kysely } from 'kysely'
import type { DB } from '../../db/schema.ts'
import type { App } from '../../types.ts'
import { defineModule } from '../../http/api-module.ts'
import { Envelope, ok, sendJsonItems } from '../../http/envelope.ts'
import { validationFailed } from '../../http/errors.ts'
import { AnimalMacPath } from '../animals/animals.resource.ts'
import { ingestOverHttp, type IngestBatch } from './ingest.ts'
import { aggregateReadings } from './readings.aggregate.ts'
import { aggregateIsExpensive, aggregateSpan, analyticsWindow, type AggregateParams } from './readings.rules.ts'
import { latestSensorData, sensorAnalytics, type TimeQuery } from './readings.repository.ts'
import { SERIES } from './readings.series.ts'
import { readLocations, readSensorData } from './readings.pages.ts'
import {
  AGGREGATE_DESCRIPTION,
  AggregateQuery,
  AggregateSeries,
  AnalyticsQuery,
  EAR_TAG_AGGREGATE,
  IngestResult,
  LatestQuery,
  LocationIngestBody,
  LocationReading,
  ReadingsQuery,
  Rows,
  SensorAnalytics,
  SensorIngestBody,
  SensorReading,
} from './readings.schemas.ts'

const SENSOR_ACCESS = 'Integrator tokens on the Pro or Enterprise tier, linked to the account; user tokens never (403).'
/** A read of more rows than this is expensive: it counts against the caller's bound (plugins/expensive-requests.ts). */
const LONG_SERIES_ROWS = 1000
const isLongSeries = (query: Record<string, unknown>) => Number(query.limit) > LONG_SERIES_ROWS
/**
 * On the embedded store (one connection) a longer page is read in statements of this many rows, so that another
 * request's statement waits for one of them rather than for the whole page (docs/runtime.md).
 */
const EMBEDDED_PAGE_CHUNK_ROWS = 2000
const INGEST_ACCESS = `${SENSOR_ACCESS} Writes need the integrator's write permission.`
const INGEST_RULES =
  'Body `{ "readings": [...] }`. Every row is validated; one bad row rejects the request (its index is in `details`) ' +
  'and nothing is stored. Idempotent on (MAC, t): rows already stored are skipped and counted in `duplicates`. ' +
  'The same JSON can be published over MQTT (see the README).'

/** startTime after endTime is a 400, not an empty answer. */
function checkTimeQuery(q: TimeQuery) {
  if (q.startTime !== undefined && q.endTime !== undefined && q.startTime > q.endTime) {
    throw validationFailed([{ field: 'query:startTime', message: 'must not be after endTime' }])
  }
}

export const readingsModule = defineModule({
  tag: 'readings',
  description: 'Ear-tag time series: sensor readings and location detections, ingestion, analytics',
  routes: readingRoutes,
})

async function readingRoutes(app: App) {
  const db = app.database.db
  const { limits } = app.config

  ingestRoute(app, 'sensordata', {
    operationId: 'ingestSensorData',
    summary: 'Store sensor readings of a tag',
    updates: 'CurrentTemperature and t from its newest reading',
    rows: 'readings',
  })
  ingestRoute(app, 'locations', {
    operationId: 'ingestLocations',
    summary: 'Store location detections of a tag',
    updates: 'Node and SignalStrength from its newest detection',
    rows: 'detections',
  })
  seriesRoute(app, 'locations', {
    operationId: 'listLocations',
    summary: 'Location detections of a tag',
    access: 'own',
    accessNote:
      'Access as the animal registry (owner or linked integrator): the tier rule of the spec names the /sensordata paths only.',
    row: LocationReading,
    rows: 'Detections',
    read: readLocations,
  })
  seriesRoute(app, 'sensordata', {
    operationId: 'listSensorData',
    summary: 'Sensor readings of a tag',
    access: 'sensorData',
    accessNote: SENSOR_ACCESS,
    row: SensorReading,
    rows: 'Readings',
    read: readSensorData,
  })

  app.get(
    '/users/:userId/animals/:animalMac/sensordata/latest',
    {
      schema: {
        operationId: 'latestSensorData',
        summary: 'Latest sensor readings of a tag',
        description: `The newest \`count\` readings, newest first. ${SENSOR_ACCESS}`,
        params: AnimalMacPath,
        querystring: LatestQuery(limits),
        response: { 200: Envelope(Rows(SensorReading, limits.latestCountMax), 'Readings') },
      },
      config: { access: 'sensorData', animal: 'path' },
    },
    async (req) => {
      // The animal's stored MAC (upper case) is what the readings are keyed by.
      const mac = req.pathAnimal.mac
      return ok(await latestSensorData(db, req.params.userId, mac, req.query.count))
    },
  )

  app.get(
    '/users/:userId/animals/:animalMac/sensordata/analytics',
    {
      schema: {
        operationId: 'sensorDataAnalytics',
        summary: 'Sensor analytics of a tag',
        description:
          'Averages, ranges and count of the readings in the window [now - timeRange, now], computed by the database over ' +
          `every stored reading (glitches included). With no readings the averages and ranges are null. ${SENSOR_ACCESS}`,
        params: AnimalMacPath,
        querystring: AnalyticsQuery,
        response: { 200: Envelope(SensorAnalytics, 'Analytics') },
      },
      config: { access: 'sensorData', animal: 'path', cost: 'expensive' },
    },
    async (req) => {
      // The animal's stored MAC (upper case) is what the readings are keyed by.
      const mac = req.pathAnimal.mac
      const { start, end } = analyticsWindow(req.query.timeRange, app.clock())
      return ok(await sensorAnalytics(db, req.params.userId, mac, start, end))
    },
  )

  app.get(
    '/users/:userId/animals/:animalMac/sensordata/aggregate',
    {
      schema: {
        operationId: 'aggregateSensorData',
        summary: 'Sensor readings of a tag per time bucket',
        description: `${AGGREGATE_DESCRIPTION} Times in ms. ${SENSOR_ACCESS}`,
        params: AnimalMacPath,
        querystring: AggregateQuery(EAR_TAG_AGGREGATE),
        response: { 200: Envelope(AggregateSeries(EAR_TAG_AGGREGATE), 'Buckets') },
      },
      config: {
        access: 'sensorData',
        animal: 'path',
        cost: (q) => aggregateIsExpensive(q as unknown as AggregateParams, app.clock()),
      },
    },
    async (req) => {
      const span = aggregateSpan(req.query, app.clock())
      if ('problem' in span) throw validationFailed([span.problem])
      // The animal's stored MAC (upper case) is what the readings are keyed by.
      return ok(await aggregateReadings(db, SERIES.sensordata, req.params.userId, req.pathAnimal.mac, span))
    },
  )
}

/** POST /users/:userId/animals/:animalMac/sensordata and POST /users/:userId/animals/:animalMac/locations */
function ingestRoute(
  app: App,
  kind: 'sensordata' | 'locations',
  doc: { operationId: string; summary: string; updates: string; rows: string },
) {
  const { limits } = app.config
  app.post(
    `/users/:userId/animals/:animalMac/${kind}`,
    {
      schema: {
        operationId: doc.operationId,
        summary: doc.summary,
        description: `${INGEST_RULES} Updates the animal's ${doc.updates}. ${INGEST_ACCESS}`,
        params: AnimalMacPath,
        body: kind === 'sensordata' ? SensorIngestBody(limits) : LocationIngestBody(limits),
        response: {
          200: Envelope(IngestResult, 'Counts of received and new rows', `118 of 120 ${doc.rows} stored`),
        },
      },
      config: { access: 'sensorData' },
    },
    async (req) => {
      // The body schema of `kind` has checked every row, so they are that kind's rows.
      const batch = { kind, rows: req.body.readings } as IngestBatch
      const counts = await ingestOverHttp(app, req.params.userId, req.params.animalMac, batch, 'Animal')
      return ok(counts, `${counts.stored} of ${counts.received} ${doc.rows} stored`)
    },
  )
}

/** GET /users/:userId/animals/:animalMac/locations and GET /users/:userId/animals/:animalMac/sensordata */
function seriesRoute(
  app: App,
  kind: 'sensordata' | 'locations',
  doc: {
    operationId: string
    summary: string
    access: 'own' | 'sensorData'
    accessNote: string
    row: TSchema
    rows: string
    read: (db: Kysely<DB>, uid: string, mac: string, q: TimeQuery, chunkRows?: number) => Promise<string[]>
  },
) {
  const { limits } = app.config
  app.get(
    `/users/:userId/animals/:animalMac/${kind}`,
    {
      schema: {
        operationId: doc.operationId,
        summary: doc.summary,
        description: `Between startTime and endTime (ms, both inclusive, both optional), newest first unless sortOrder=asc. ${doc.accessNote}`,
        params: AnimalMacPath,
        querystring: ReadingsQuery(limits),
        response: { 200: Envelope(Rows(doc.row, limits.readingsLimitMax), doc.rows) },
      },
      config: { access: doc.access, animal: 'path', cost: isLongSeries },
    },
    async (req, reply) => {
      checkTimeQuery(req.query)
      // The animal's stored MAC (upper case) is what the readings are keyed by.
      const { userId } = req.params
      const chunkRows = app.database.kind === 'embedded' ? EMBEDDED_PAGE_CHUNK_ROWS : undefined
      return sendJsonItems(reply, await doc.read(app.database.db, userId, req.pathAnimal.mac, req.query, chunkRows))
    },
  )
}
