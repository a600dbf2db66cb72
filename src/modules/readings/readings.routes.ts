// Ear-tag time series of one animal (by tag MAC): ingestion, reads, latest samples, analytics.
import Type from 'typebox'
import type { App } from '../../types.ts'
import { Envelope, authErrors, commonErrors, ok } from '../../http/envelope.ts'
import { notFound, validationFailed } from '../../http/errors.ts'
import { animalExists } from '../animals/animals.repository.ts'
import { normalizeMac } from '../animals/animals.rules.ts'
import { AnimalMacPath } from '../animals/animals.schemas.ts'
import { ingest } from './ingest.ts'
import { analyticsWindow } from './readings.rules.ts'
import { latestSensorData, readLocations, readSensorData, sensorAnalytics, type TimeQuery } from './readings.repository.ts'
import {
  AnalyticsQuery, IngestResult, LatestQuery, LocationIngestBody, LocationReading, ReadingsQuery, SensorAnalytics, SensorIngestBody, SensorReading,
} from './readings.schemas.ts'

const security = [{ bearer: [] }]
const tags = ['readings']
const SENSOR_ACCESS = 'Integrator tokens on the Pro or Enterprise tier, linked to the account; user tokens never (403).'
const INGEST_ACCESS = `${SENSOR_ACCESS} Writes need the integrator's write permission.`
const INGEST_RULES = 'Body `{ "readings": [...] }`. Every row is validated; one bad row rejects the request (its index is in `details`) ' +
  'and nothing is stored. Idempotent on (MAC, t): rows already stored are skipped and counted in `duplicates`. ' +
  'The same JSON can be published over MQTT (see the README).'

/** startTime after endTime is a 400, not an empty answer. */
function checkTimeQuery(q: TimeQuery) {
  if (q.startTime !== undefined && q.endTime !== undefined && q.startTime > q.endTime) {
    throw validationFailed([{ field: 'query:startTime', message: 'must not be after endTime' }])
  }
}

export default async function readingRoutes(app: App) {
  const db = app.database.db
  const { limits } = app.config

  async function requireAnimal(userId: string, mac: string) {
    if (!(await animalExists(db, userId, mac))) throw notFound('Animal')
  }

  app.post('/users/:userId/animals/:animalMac/sensordata', {
    schema: {
      tags, operationId: 'ingestSensorData', summary: 'Store sensor readings of a tag', security,
      description: `${INGEST_RULES} Updates the animal's CurrentTemperature and t from its newest reading. ${INGEST_ACCESS}`,
      params: AnimalMacPath,
      body: SensorIngestBody(limits),
      response: { 200: Envelope(IngestResult, 'Counts of received and new rows'), ...authErrors, ...commonErrors },
    },
    preValidation: app.access.sensorData,
  }, async (req) => {
    const counts = await ingest(db, req.params.userId, req.params.animalMac, { kind: 'sensordata', rows: req.body.readings }, app.clock())
    return ok(counts, `${counts.stored} of ${counts.received} readings stored`)
  })

  app.post('/users/:userId/animals/:animalMac/locations', {
    schema: {
      tags, operationId: 'ingestLocations', summary: 'Store location detections of a tag', security,
      description: `${INGEST_RULES} Updates the animal's Node and SignalStrength from its newest detection. ${INGEST_ACCESS}`,
      params: AnimalMacPath,
      body: LocationIngestBody(limits),
      response: { 200: Envelope(IngestResult, 'Counts of received and new rows'), ...authErrors, ...commonErrors },
    },
    preValidation: app.access.sensorData,
  }, async (req) => {
    const counts = await ingest(db, req.params.userId, req.params.animalMac, { kind: 'locations', rows: req.body.readings }, app.clock())
    return ok(counts, `${counts.stored} of ${counts.received} detections stored`)
  })

  app.get('/users/:userId/animals/:animalMac/locations', {
    schema: {
      tags, operationId: 'listLocations', summary: 'Location detections of a tag', security,
      description: 'Between startTime and endTime (ms, both inclusive, both optional), newest first unless sortOrder=asc. ' +
        'Access as the animal registry (owner or linked integrator): the tier rule of the spec names the /sensordata paths only.',
      params: AnimalMacPath,
      querystring: ReadingsQuery(limits),
      response: { 200: Envelope(Type.Array(LocationReading), 'Detections'), ...authErrors, ...commonErrors },
    },
    preValidation: app.access.own,
  }, async (req) => {
    checkTimeQuery(req.query)
    const mac = normalizeMac(req.params.animalMac)
    await requireAnimal(req.params.userId, mac)
    return ok(await readLocations(db, req.params.userId, mac, req.query))
  })

  app.get('/users/:userId/animals/:animalMac/sensordata', {
    schema: {
      tags, operationId: 'listSensorData', summary: 'Sensor readings of a tag', security,
      description: `Between startTime and endTime (ms, both inclusive, both optional), newest first unless sortOrder=asc. ${SENSOR_ACCESS}`,
      params: AnimalMacPath,
      querystring: ReadingsQuery(limits),
      response: { 200: Envelope(Type.Array(SensorReading), 'Readings'), ...authErrors, ...commonErrors },
    },
    preValidation: app.access.sensorData,
  }, async (req) => {
    checkTimeQuery(req.query)
    const mac = normalizeMac(req.params.animalMac)
    await requireAnimal(req.params.userId, mac)
    return ok(await readSensorData(db, req.params.userId, mac, req.query))
  })

  app.get('/users/:userId/animals/:animalMac/sensordata/latest', {
    schema: {
      tags, operationId: 'latestSensorData', summary: 'Latest sensor readings of a tag', security,
      description: `The newest \`count\` readings, newest first. ${SENSOR_ACCESS}`,
      params: AnimalMacPath,
      querystring: LatestQuery(limits),
      response: { 200: Envelope(Type.Array(SensorReading), 'Readings'), ...authErrors, ...commonErrors },
    },
    preValidation: app.access.sensorData,
  }, async (req) => {
    const mac = normalizeMac(req.params.animalMac)
    await requireAnimal(req.params.userId, mac)
    return ok(await latestSensorData(db, req.params.userId, mac, req.query.count))
  })

  app.get('/users/:userId/animals/:animalMac/sensordata/analytics', {
    schema: {
      tags, operationId: 'sensorDataAnalytics', summary: 'Sensor analytics of a tag', security,
      description: 'Averages, ranges and count of the readings in the window [now - timeRange, now], computed by the database over ' +
        `every stored reading (glitches included). With no readings the averages and ranges are null. ${SENSOR_ACCESS}`,
      params: AnimalMacPath,
      querystring: AnalyticsQuery,
      response: { 200: Envelope(SensorAnalytics, 'Analytics'), ...authErrors, ...commonErrors },
    },
    preValidation: app.access.sensorData,
  }, async (req) => {
    const mac = normalizeMac(req.params.animalMac)
    await requireAnimal(req.params.userId, mac)
    const { start, end } = analyticsWindow(req.query.timeRange, app.clock())
    return ok(await sensorAnalytics(db, req.params.userId, mac, start, end))
  })
}
