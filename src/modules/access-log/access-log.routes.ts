// The access log (the spec's UsageRecord): a farm sees which integrator read or changed its data and
// when; an integrator sees its own use of the API against its daily quotas.
import Type from 'typebox'
import { callerOf, userCallerOf } from '../../auth/caller.ts'
import { defineModule } from '../../http/api-module.ts'
import { Envelope, PageEnvelope, ok, page } from '../../http/envelope.ts'
import { validationFailed } from '../../http/errors.ts'
import { listQueryOptions, listQueryProperties, parseFilters, type ListFields } from '../../http/list-params.ts'
import { tierLabel, utcDayWindow } from '../../plugins/limits.rules.ts'
import { integratorUsage, listAccountAccessLog, type AccessLogRow } from './access-log.repository.ts'

const DAY_MS = 86_400_000

const UsageRecord = Type.Object({
  timestamp: Type.String({ format: 'date-time', description: 'When the request was answered (ISO 8601, UTC)' }),
  endpoint: Type.String({ description: 'The route template, such as /api/v1/users/{userId}/animals: ids and query strings are not kept' }),
  method: Type.String({ description: 'HTTP method' }),
  integratorUID: Type.String({ description: 'The integrator whose token made the request' }),
  responseCode: Type.Integer({ description: 'HTTP status of the response' }),
  responseTime: Type.Number({ description: 'Time to answer, in milliseconds' }),
  dataSize: Type.Optional(Type.Integer({ description: 'Response body size in bytes' })),
  userAgent: Type.Optional(Type.String({ description: 'The User-Agent header the integrator sent (at most 512 characters)' })),
  ipAddress: Type.Optional(Type.String({ description: 'The address the request came from' })),
}, { $id: 'UsageRecord', description: 'One request an integrator token made' })

const ACCESS_LOG_FIELDS: ListFields = { timestamp: 'string', integratorUID: 'string', method: 'string', endpoint: 'string', responseCode: 'integer' }

const EndpointUsage = Type.Object({
  method: Type.String(),
  endpoint: Type.String({ description: 'Route template' }),
  requests: Type.Integer({ minimum: 0, description: 'Requests logged on the day' }),
  errors: Type.Integer({ minimum: 0, description: 'Of those, answered with a status of 400 or above' }),
  averageResponseTime: Type.Number({ description: 'Milliseconds' }),
  dataSize: Type.Integer({ minimum: 0, description: 'Response bytes in all' }),
  quota: Type.Optional(Type.Object({
    limit: Type.Integer({ minimum: 1, description: 'Requests per UTC day to this endpoint' }),
    used: Type.Integer({ minimum: 0 }),
    remaining: Type.Integer({ minimum: 0 }),
  }, { description: 'Today only, and absent when the tier\'s quota is unlimited: the live counter that the 429 of the daily quota enforces' })),
})

const Usage = Type.Object({
  integratorUID: Type.String(),
  tier: Type.String({ description: 'Free, Starter, Pro or Enterprise' }),
  date: Type.String({ format: 'date', description: 'The UTC day reported' }),
  quotaResetsAt: Type.Optional(Type.String({ format: 'date-time', description: 'Today only: when the daily quotas reset (00:00 UTC)' })),
  totalRequests: Type.Integer({ minimum: 0 }),
  endpoints: Type.Array(EndpointUsage, { description: 'Every endpoint called on the day, busiest first' }),
})

const IsoInstant = (description: string) => Type.String({ format: 'date-time', maxLength: 40, description: `${description} (ISO 8601 date-time)` })

function toUsageRecord(row: AccessLogRow) {
  return {
    timestamp: row.at.toISOString(),
    endpoint: row.endpoint,
    method: row.method,
    integratorUID: row.integrator_uid,
    responseCode: row.response_code,
    responseTime: row.response_time_ms,
    ...(row.data_size === null ? {} : { dataSize: row.data_size }),
    ...(row.user_agent === null ? {} : { userAgent: row.user_agent }),
    ...(row.ip_address === null ? {} : { ipAddress: row.ip_address }),
  }
}

export const accessLogModule = defineModule({
  tag: 'access log',
  description: 'Who read or changed a farm\'s data and when; an integrator\'s own use against its quotas',
  schemas: [UsageRecord],
  routes: async (app) => {
    const db = app.database.db
    const { limits, accessLog } = app.config

    app.get('/users/:userId/access-log', {
      schema: {
        operationId: 'listAccessLog', summary: 'Integrator requests to this account',
        description: 'The account owner\'s user token only (integrators never see each other\'s requests). One record per request an ' +
          'integrator token made on this account\'s paths, newest first by default, kept for ACCESS_LOG_RETENTION_DAYS ' +
          `(${accessLog.retentionDays} days here). Records appear within about ${accessLog.flushIntervalMs} ms of the response. ` +
          '`from`/`to` bound the time (from inclusive, to exclusive); `filter[Field]` on integratorUID, method, endpoint, responseCode.',
        params: Type.Object({ userId: Type.String({ minLength: 1, maxLength: 200 }) }),
        querystring: Type.Object({
          ...listQueryProperties(limits, ACCESS_LOG_FIELDS, 'timestamp', ACCESS_LOG_FIELDS),
          from: Type.Optional(IsoInstant('Earliest time')),
          to: Type.Optional(IsoInstant('Time after the last record')),
        }, listQueryOptions),
        response: { 200: PageEnvelope(Type.Ref('UsageRecord')) },
      },
      config: { access: 'self' },
    }, async (req) => {
      const { page: pageNumber, limit, sortBy, sortOrder, from, to } = req.query
      const bounds = { from: from === undefined ? undefined : new Date(from), to: to === undefined ? undefined : new Date(to) }
      if (bounds.from && bounds.to && bounds.from > bounds.to) throw validationFailed([{ field: 'query:from', message: 'must not be after to' }])
      const filters = parseFilters(req.query, ACCESS_LOG_FIELDS)
      const { rows, total } = await listAccountAccessLog(db, userCallerOf(req).user.uid, { page: pageNumber, limit, sortBy, sortOrder }, filters, bounds)
      return page(rows.map(toUsageRecord), pageNumber, limit, total)
    })

    app.get('/tokens/usage', {
      schema: {
        operationId: 'getTokenUsage', summary: 'Your integrator\'s use of the API on one day',
        description: 'Integrator token only. Requests per endpoint on a UTC day (default today), from the access log. For today each ' +
          'endpoint also carries its daily quota: the live counter that the 429 enforces (quotas count per endpoint and reset at 00:00 UTC).',
        querystring: Type.Object({
          date: Type.Optional(Type.String({ format: 'date', maxLength: 10, description: 'UTC day, YYYY-MM-DD; default today' })),
        }),
        response: { 200: Envelope(Usage) },
      },
      config: { access: 'integratorToken' },
    }, async (req) => {
      const caller = callerOf(req)
      if (caller.kind !== 'integrator') throw new Error('integratorToken rule let a user token through')
      // The quota's own UTC-day window: "today" here is the day the daily quotas count.
      const { day: today, resetAtSeconds } = utcDayWindow(app.clock())
      const date = req.query.date ?? today
      const isToday = date === today
      const start = new Date(`${date}T00:00:00Z`)
      const endpoints = await integratorUsage(db, caller.integrator.uid, start, new Date(start.getTime() + DAY_MS))
      const withQuota = isToday
        ? await Promise.all(endpoints.map(async (usage) => {
          const { limit, used } = await app.quotas.quotaUsage(caller, `${usage.method} ${usage.endpoint}`)
          return limit === 0 ? usage : { ...usage, quota: { limit, used, remaining: limit - used } }
        }))
        : endpoints
      return ok({
        integratorUID: caller.integrator.uid,
        tier: tierLabel(caller.integrator.tier),
        date,
        ...(isToday ? { quotaResetsAt: new Date(resetAtSeconds * 1000).toISOString() } : {}),
        totalRequests: endpoints.reduce((sum, e) => sum + e.requests, 0),
        endpoints: withQuota,
      })
    })
  },
})
