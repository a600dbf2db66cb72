// Litter-monitoring devices ("litterguards"): the registry (list, search, summary, get, and the writes of
// docs/decisions.md), their readings in Unix SECONDS (ingestion through the one ingestion path, reads,
// latest), and analytics. The registry and analytics are `own`; every /sensordata path is `sensorData`.
import Type from 'typebox'
import { defineModule } from '../../http/api-module.ts'
import { created } from '../../http/created.ts'
import { Envelope, MessageEnvelope, PageEnvelope, ok, okMessage, pageOf } from '../../http/envelope.ts'
import { conflictOn, notFound, orNotFound, validationFailed } from '../../http/errors.ts'
import { parseFilters, type FilterValue } from '../../http/list-params.ts'
import type { PageParams } from '../../db/paginate.ts'
import type { App } from '../../types.ts'
import { ingestOverHttp } from '../readings/ingest.ts'
import { aggregateReadings } from '../readings/readings.aggregate.ts'
import { SERIES } from '../readings/readings.series.ts'
import { aggregateIsExpensive, aggregateSpan, type AggregateParams } from '../readings/readings.rules.ts'
import {
  AGGREGATE_DESCRIPTION,
  AggregateQuery,
  AggregateSeries,
  DeviceIngestBody,
  DeviceReading,
  IngestResult,
  Rows,
} from '../readings/readings.schemas.ts'
import {
  DuplicateLitterguardError,
  activityAggregates,
  deleteLitterguard,
  deviceTotals,
  findLitterguard,
  insertLitterguard,
  listLitterguards,
  readDeviceReadings,
  summaryBuckets,
  toApiLitterguard,
  updateLitterguard,
  type ActivityAggregates,
  type LitterguardCriteria,
} from './litterguards.repository.ts'
import {
  LitterguardCreate,
  LitterguardListQuery,
  LitterguardPatch,
  LitterguardPath,
  LitterguardSearchQuery,
  UserPath,
  litterguards,
} from './litterguards.resource.ts'
import {
  activeSince,
  activityLevel,
  baselineWindow,
  deviceWindow,
  readingsRange,
  summaryWindow,
  unusualActivity,
  type Window,
} from './litterguards.rules.ts'
import {
  DEVICE_AGGREGATE,
  DeviceAnalytics,
  DeviceAnalyticsQuery,
  DeviceLatestQuery,
  DeviceReadingsQuery,
  DeviceSummary,
  type DeviceAnalyticsBody,
  type DeviceSummaryBody,
} from './litterguards.schemas.ts'

const SENSOR_ACCESS = 'Integrator tokens on the Pro or Enterprise tier, linked to the account; user tokens never (403).'
const UNITS = "Readings' t are Unix SECONDS (the ear tags' are ms)."

/** The analytics of one device's aggregates over `window`. */
function analyticsOf(a: ActivityAggregates | undefined, window: Window): DeviceAnalyticsBody {
  return {
    averageTemperature: a?.averageTemperature ?? null,
    averageAccelerationMagnitude: a?.averageMagnitude ?? null,
    temperatureRange: { min: a?.minTemperature ?? null, max: a?.maxTemperature ?? null },
    activityLevel: activityLevel(a?.windowActivity ?? null, a?.baselineActivity ?? null),
    unusualActivityDetected: a ? unusualActivity(a) : false,
    dataPointsCount: a?.count ?? 0,
    timeRange: { start: window.start, end: window.end },
  }
}

const rethrowDuplicate = conflictOn(DuplicateLitterguardError)

export const litterguardsModule = defineModule({
  tag: 'litterguards',
  description: 'Litter-monitoring devices: the registry, their readings (t in Unix seconds), analytics and a summary',
  schemas: [litterguards.item],
  routes: litterguardRoutes,
})

async function litterguardRoutes(app: App) {
  const db = app.database.db
  const { limits } = app.config
  const windowMinutes = app.config.litterguardActiveWindowMinutes
  const since = () => activeSince(app.clock(), windowMinutes)
  const base = '/users/:userId/litterguards'
  const item = `${base}/:macAddress`
  const conflictResponse = {
    409: Type.Ref('ErrorEnvelope', { description: 'The account already has a device with this MAC' }),
  }

  const requireDevice = async (userId: string, mac: string) =>
    orNotFound(await findLitterguard(db, userId, mac, since()), 'Litterguard')

  /** A page of the user's devices: those matching `active` (judged now), `mac` and `name`, and the filters. */
  async function devicesPage(
    uid: string,
    query: PageParams & LitterguardCriteria,
    filters: Record<string, FilterValue>,
  ) {
    const { active, mac, name } = query
    const found = await listLitterguards(db, uid, since(), query, filters, { active, mac, name })
    return pageOf(found, query, toApiLitterguard)
  }

  app.get(
    base,
    {
      schema: {
        operationId: 'listLitterguards',
        summary: "List the user's litter-monitoring devices",
        description:
          'Common list parameters (`sortBy` any scalar field, default `t`, the registration time; `filter[Field]=value` exact ' +
          'matches), and `active` (judged now, in SQL), `mac` (exact, either case) and `name` (part of the name, any case).',
        params: UserPath,
        querystring: LitterguardListQuery(limits),
        response: { 200: PageEnvelope(litterguards.ref, 'One page of devices') },
      },
      config: { access: 'own' },
    },
    async (req) => {
      const filters = parseFilters(req.query, litterguards.filterFields)
      return devicesPage(req.params.userId, req.query, filters)
    },
  )

  app.get(
    `${base}/search`,
    {
      schema: {
        operationId: 'searchLitterguards',
        summary: "Search the user's litter-monitoring devices",
        description:
          'Every given criterion must match: `active` (judged now), `mac` (exact, either case), `name` (part of the name, any case). ' +
          'Paginated, newest registration first.',
        params: UserPath,
        querystring: LitterguardSearchQuery(limits),
        response: { 200: PageEnvelope(litterguards.ref, 'One page of matching devices') },
      },
      config: { access: 'own' },
    },
    async (req) => {
      return devicesPage(req.params.userId, { ...req.query, sortBy: 't', sortOrder: 'desc' }, {})
    },
  )

  app.get(
    `${base}/summary`,
    {
      schema: {
        operationId: 'litterguardSummary',
        summary: "Summary of the user's litter-monitoring devices",
        description:
          "Counts by connectivity now, the active devices' mean temperature, the devices with unusual activity in the last 24 hours " +
          'and when data last arrived (Unix seconds).',
        params: UserPath,
        response: { 200: Envelope(DeviceSummary, 'Device summary') },
      },
      config: { access: 'own', cost: 'expensive' },
    },
    async (req) => {
      const now = app.clock()
      const [totals, activity] = await Promise.all([
        deviceTotals(db, req.params.userId, activeSince(now, windowMinutes)),
        summaryBuckets(db, req.params.userId, summaryWindow(now)),
      ])
      const summary: DeviceSummaryBody = {
        totalDevices: totals.total,
        activeDevices: totals.active,
        inactiveDevices: totals.total - totals.active,
        averageTemperature: totals.averageTemperature,
        devicesWithUnusualActivity: activity.filter(unusualActivity).length,
        lastDataReceived: totals.lastSeen,
      }
      return ok(summary)
    },
  )

  app.get(
    item,
    {
      schema: {
        operationId: 'getLitterguard',
        summary: 'Get one litter-monitoring device',
        description: "By its MAC, either case. Anything that names none of the user's devices is a 404.",
        params: LitterguardPath,
        response: { 200: Envelope(litterguards.ref, 'The device') },
      },
      config: { access: 'own' },
    },
    async (req) => ok(toApiLitterguard(await requireDevice(req.params.userId, req.params.macAddress))),
  )

  app.post(
    base,
    {
      schema: {
        operationId: 'createLitterguard',
        summary: 'Register a litter-monitoring device',
        description:
          'MAC and Name are required; the MAC (either case, stored upper case) must be new to the account (409 otherwise). ' +
          'Answers 201 with the device and a Location header.',
        params: UserPath,
        body: LitterguardCreate,
        response: { 201: Envelope(litterguards.ref, 'The stored device', 'Litterguard created'), ...conflictResponse },
      },
      config: { access: 'own', idempotent: true },
    },
    async (req, reply) => {
      const row = await insertLitterguard(db, req.params.userId, req.body, app.clock()).catch(rethrowDuplicate)
      return created(
        reply,
        `/users/${req.params.userId}/litterguards/${row.mac}`,
        ok(toApiLitterguard(row), 'Litterguard created'),
      )
    },
  )

  app.patch(
    item,
    {
      schema: {
        operationId: 'updateLitterguard',
        summary: 'Rename a litter-monitoring device',
        description: 'By its MAC, either case. Integrators need the write permission. Only Name can change.',
        params: LitterguardPath,
        body: LitterguardPatch,
        response: { 200: Envelope(litterguards.ref, 'The device as stored now', 'Litterguard updated') },
      },
      config: { access: 'own' },
    },
    async (req) => {
      const { mac } = await requireDevice(req.params.userId, req.params.macAddress)
      const row = await updateLitterguard(db, req.params.userId, mac, req.body, new Date(app.clock()), since())
      return ok(toApiLitterguard(orNotFound(row, 'Litterguard')), 'Litterguard updated')
    },
  )

  app.delete(
    item,
    {
      schema: {
        operationId: 'deleteLitterguard',
        summary: 'Delete a litter-monitoring device and its readings',
        description: 'Integrators need the delete permission.',
        params: LitterguardPath,
        response: { 200: MessageEnvelope('Deleted', 'Litterguard deleted') },
      },
      config: { access: 'own' },
    },
    async (req) => {
      const { mac } = await requireDevice(req.params.userId, req.params.macAddress)
      if (!(await deleteLitterguard(db, req.params.userId, mac))) throw notFound('Litterguard')
      return okMessage('Litterguard deleted')
    },
  )

  app.post(
    `${item}/sensordata`,
    {
      schema: {
        operationId: 'ingestLitterguardData',
        summary: 'Store readings of a litter-monitoring device',
        description:
          `Body \`{ "readings": [{t, c, x, y, z}, ...] }\`, t in Unix SECONDS (a value in ms is refused), at most 15 minutes ahead. ` +
          'Every row is validated; one bad row rejects the request (its index is in `details`) and nothing is stored. Idempotent on ' +
          "(MAC, t): rows already stored are skipped and counted in `duplicates`. Updates the device's LastSeen and CurrentTemperature " +
          `from its newest reading. The same JSON can be published over MQTT (see the README). ${SENSOR_ACCESS} Writes need the integrator's write permission.`,
        params: LitterguardPath,
        body: DeviceIngestBody(limits),
        response: { 200: Envelope(IngestResult, 'Counts of received and new rows', '1438 of 1440 readings stored') },
      },
      config: { access: 'sensorData' },
    },
    async (req) => {
      const batch = { kind: 'devicedata' as const, rows: req.body.readings }
      const counts = await ingestOverHttp(app, req.params.userId, req.params.macAddress, batch, 'Litterguard')
      return ok(counts, `${counts.stored} of ${counts.received} readings stored`)
    },
  )

  app.get(
    `${item}/sensordata`,
    {
      schema: {
        operationId: 'listLitterguardData',
        summary: 'Readings of a litter-monitoring device',
        description:
          `Newest first: within \`timeRange\` (ending now), or between \`startTime\` and \`endTime\` (both inclusive, both optional), ` +
          `at most \`limit\`. ${UNITS} ${SENSOR_ACCESS}`,
        params: LitterguardPath,
        querystring: DeviceReadingsQuery(limits),
        response: { 200: Envelope(Rows(DeviceReading, limits.deviceReadingsLimitMax), 'Readings') },
      },
      config: { access: 'sensorData' },
    },
    async (req) => {
      const range = readingsRange(req.query, app.clock())
      if ('problem' in range) throw validationFailed([range.problem])
      const { mac } = await requireDevice(req.params.userId, req.params.macAddress)
      return ok(await readDeviceReadings(db, req.params.userId, mac, range, req.query.limit))
    },
  )

  app.get(
    `${item}/sensordata/latest`,
    {
      schema: {
        operationId: 'latestLitterguardData',
        summary: 'Latest readings of a litter-monitoring device',
        description: `The newest \`count\` readings, newest first. ${UNITS} ${SENSOR_ACCESS}`,
        params: LitterguardPath,
        querystring: DeviceLatestQuery(limits),
        response: { 200: Envelope(Rows(DeviceReading, limits.latestCountMax), 'Readings') },
      },
      config: { access: 'sensorData' },
    },
    async (req) => {
      const { mac } = await requireDevice(req.params.userId, req.params.macAddress)
      return ok(await readDeviceReadings(db, req.params.userId, mac, {}, req.query.count))
    },
  )

  app.get(
    `${item}/sensordata/aggregate`,
    {
      schema: {
        operationId: 'aggregateLitterguardData',
        summary: 'Readings of a litter-monitoring device per time bucket',
        description: `${AGGREGATE_DESCRIPTION} ${UNITS} ${SENSOR_ACCESS}`,
        params: LitterguardPath,
        querystring: AggregateQuery(DEVICE_AGGREGATE),
        response: { 200: Envelope(AggregateSeries(DEVICE_AGGREGATE), 'Buckets') },
      },
      config: {
        access: 'sensorData',
        cost: (q) => aggregateIsExpensive(q as unknown as AggregateParams, app.clock(), DEVICE_AGGREGATE.msPerT),
      },
    },
    async (req) => {
      const span = aggregateSpan(req.query, app.clock(), DEVICE_AGGREGATE.msPerT)
      if ('problem' in span) throw validationFailed([span.problem])
      const { mac } = await requireDevice(req.params.userId, req.params.macAddress)
      return ok(await aggregateReadings(db, SERIES.devicedata, req.params.userId, mac, span))
    },
  )

  app.get(
    `${item}/analytics`,
    {
      schema: {
        operationId: 'litterguardAnalytics',
        summary: 'Analytics of a litter-monitoring device',
        description:
          'Averages, ranges, count and the activity verdicts of the readings in [now − timeRange, now], computed by the database. ' +
          "Access as the registry (owner or linked integrator): the spec's tier rule names the /sensordata paths, and this path is not one.",
        params: LitterguardPath,
        querystring: DeviceAnalyticsQuery,
        response: { 200: Envelope(DeviceAnalytics, 'Analytics') },
      },
      config: { access: 'own', cost: 'expensive' },
    },
    async (req) => {
      const { mac } = await requireDevice(req.params.userId, req.params.macAddress)
      const window = deviceWindow(req.query.timeRange, app.clock())
      const [aggregates] = await activityAggregates(db, req.params.userId, window, baselineWindow(window).start, mac)
      return ok(analyticsOf(aggregates, window))
    },
  )
}
