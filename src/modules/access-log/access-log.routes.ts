// The access log (the spec's UsageRecord): a farm sees which integrator read or changed its data and
// when; an integrator sees its own use of the API against its daily quotas.
import type { App } from '../../types.ts'
import Type from 'typebox'
import { callerOf, userCallerOf } from '../../auth/caller.ts'
import { defineModule } from '../../http/api-module.ts'
import { Envelope, PageEnvelope, ok, pageOf } from '../../http/envelope.ts'
import { validationFailed } from '../../http/errors.ts'
import { listQueryOptions, listQueryProperties, parseFilters, type ListFields } from '../../http/list-params.ts'
import { BoundedString, Count, DateTime, EXAMPLE, Integer } from '../../http/schema-types.ts'
import { tierLabel, utcDayWindow } from '../../auth/limits.rules.ts'
import { IntegratorUid } from '../integrators/integrators.schemas.ts'
import { integratorUsage, listAccountAccessLog, type AccessLogRow } from './access-log.repository.ts'
import { describedPattern } from '../../http/input-patterns.ts'

const DAY_MS = 86_400_000

/** The methods an integrator's request can have (HEAD: Fastify answers it for every GET route). */
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const
const ENDPOINT_EXAMPLE = '/api/v1/users/:userId/animals'
const Endpoint = (description: string) =>
  Type.String({
    pattern: describedPattern('^/', 'must be a path, starting with /'),
    maxLength: 200,
    description,
    examples: [ENDPOINT_EXAMPLE],
  })
const Method = Type.Unsafe<string>({
  type: 'string',
  enum: [...METHODS],
  description: 'HTTP method',
  examples: ['GET'],
})
const ResponseCode = Integer({
  minimum: 100,
  maximum: 599,
  description: 'HTTP status of the response',
  examples: [200],
})

const UsageRecord = Type.Object(
  {
    timestamp: DateTime('When the request was answered (ISO 8601, UTC)'),
    endpoint: Endpoint('The route template, such as /api/v1/users/:userId/animals: ids and query strings are not kept'),
    method: Method,
    integratorUID: IntegratorUid('The integrator whose token made the request'),
    responseCode: ResponseCode,
    responseTime: Type.Number({ minimum: 0, description: 'Time to answer, in milliseconds', examples: [12.4] }),
    dataSize: Type.Optional(Count('Response body size in bytes', 1834)),
    userAgent: Type.Optional(
      Type.String({
        maxLength: 512,
        description: 'The User-Agent header the integrator sent (at most 512 characters)',
        examples: ['FarmSoft-Sync/4.2 (+https://farmsoft.example)'],
      }),
    ),
    ipAddress: Type.Optional(
      Type.String({
        pattern: '^[0-9A-Za-z:.%-]+$',
        maxLength: 64,
        description: 'The address the request came from',
        examples: ['203.0.113.24'],
      }),
    ),
  },
  { $id: 'UsageRecord', description: 'One request an integrator token made' },
)

const ACCESS_LOG_FIELDS: ListFields = {
  timestamp: 'string',
  integratorUID: 'string',
  method: 'string',
  endpoint: 'string',
  responseCode: 'integer',
}
const ACCESS_LOG_FILTERS = {
  timestamp: Type.String({
    format: 'date-time',
    maxLength: 40,
    description: 'The exact time of a record',
    examples: [EXAMPLE.dateTime],
  }),
  integratorUID: UsageRecord.properties.integratorUID,
  method: Method,
  endpoint: UsageRecord.properties.endpoint,
  responseCode: ResponseCode,
}

const EndpointUsage = Type.Object({
  method: Method,
  endpoint: Endpoint('Route template'),
  requests: Count('Requests logged on the day', 412),
  errors: Count('Of those, answered with a status of 400 or above', 3),
  averageResponseTime: Type.Number({ minimum: 0, description: 'Milliseconds', examples: [14.2] }),
  dataSize: Count('Response bytes in all', 755_208),
  quota: Type.Optional(
    Type.Object(
      {
        limit: Integer({
          minimum: 1,
          maximum: Number.MAX_SAFE_INTEGER,
          description: 'Requests per UTC day to this endpoint',
          examples: [10_000],
        }),
        used: Count('Requests counted today', 415),
        remaining: Count('Requests left today', 9585),
      },
      {
        description:
          "Today only, and absent when the tier's quota is unlimited: the live counter that the 429 of the daily quota enforces",
      },
    ),
  ),
})

/** Routes of the API, each with the methods it answers: more than any day's endpoints can be. */
const ENDPOINTS_MAX = 500

const Usage = Type.Object({
  integratorUID: IntegratorUid('The integrator'),
  // tierLabel's names (auth/limits.rules.ts), typed as the string it returns.
  tier: Type.Unsafe<string>({
    type: 'string',
    enum: ['Free', 'Starter', 'Pro', 'Enterprise'],
    description: 'Free, Starter, Pro or Enterprise',
    examples: ['Pro'],
  }),
  date: Type.String({ format: 'date', maxLength: 10, description: 'The UTC day reported', examples: [EXAMPLE.date] }),
  quotaResetsAt: Type.Optional(
    DateTime('Today only: when the daily quotas reset (00:00 UTC)', '2026-11-03T00:00:00.000Z'),
  ),
  totalRequests: Count('Requests logged on the day', 1260),
  endpoints: Type.Array(EndpointUsage, {
    maxItems: ENDPOINTS_MAX,
    description: 'Every endpoint called on the day, busiest first',
  }),
})

const IsoInstant = (description: string, example: string) =>
  Type.String({
    format: 'date-time',
    maxLength: 40,
    description: `${description} (ISO 8601 date-time)`,
    examples: [example],
  })

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
  description: "Who read or changed a farm's data and when; an integrator's own use against its quotas",
  schemas: [UsageRecord],
  routes: accessLogRoutes,
})

async function accessLogRoutes(app: App) {
  const db = app.database.db
  const { limits, accessLog } = app.config

  app.get(
    '/users/:userId/access-log',
    {
      schema: {
        operationId: 'listAccessLog',
        summary: 'Integrator requests to this account',
        description:
          "The account owner's user token only (integrators never see each other's requests). One record per request an " +
          "integrator token made on this account's paths, newest first by default, kept for ACCESS_LOG_RETENTION_DAYS " +
          `(${accessLog.retentionDays} days here). Records appear within about ${accessLog.flushIntervalMs} ms of the response. ` +
          '`from`/`to` bound the time (from inclusive, to exclusive); `filter[Field]` on integratorUID, method, endpoint, responseCode.',
        params: Type.Object({
          userId: BoundedString(200, "The account's Uid", EXAMPLE.uid),
        }),
        querystring: Type.Object(
          {
            ...listQueryProperties(limits, ACCESS_LOG_FIELDS, 'timestamp', ACCESS_LOG_FIELDS, ACCESS_LOG_FILTERS),
            from: Type.Optional(IsoInstant('Earliest time', '2026-11-01T00:00:00Z')),
            to: Type.Optional(IsoInstant('Time after the last record', '2026-11-02T00:00:00Z')),
          },
          listQueryOptions,
        ),
        response: { 200: PageEnvelope(Type.Ref('UsageRecord')) },
      },
      config: { access: 'self' },
    },
    async (req) => {
      const { from, to } = req.query
      const bounds = {
        from: from === undefined ? undefined : new Date(from),
        to: to === undefined ? undefined : new Date(to),
      }
      if (bounds.from && bounds.to && bounds.from > bounds.to)
        throw validationFailed([{ field: 'query:from', message: 'must not be after to' }])
      const filters = parseFilters(req.query, ACCESS_LOG_FIELDS)
      const found = await listAccountAccessLog(db, userCallerOf(req).user.uid, req.query, filters, bounds)
      return pageOf(found, req.query, toUsageRecord)
    },
  )

  app.get(
    '/tokens/usage',
    {
      schema: {
        operationId: 'getTokenUsage',
        summary: "Your integrator's use of the API on one day",
        description:
          'Integrator token only. Requests per endpoint on a UTC day (default today), from the access log. For today each ' +
          'endpoint also carries its daily quota: the live counter that the 429 enforces (quotas count per endpoint and reset at 00:00 UTC).',
        querystring: Type.Object({
          date: Type.Optional(
            Type.String({
              format: 'date',
              maxLength: 10,
              description: 'UTC day, YYYY-MM-DD; default today',
              examples: ['2026-11-01'],
            }),
          ),
        }),
        response: { 200: Envelope(Usage) },
      },
      config: { access: 'integratorToken' },
    },
    async (req) => {
      const caller = callerOf(req)
      if (caller.kind !== 'integrator') throw new Error('integratorToken rule let a user token through')
      // The quota's own UTC-day window: "today" here is the day the daily quotas count.
      const { day: today, resetAtSeconds } = utcDayWindow(app.clock())
      const date = req.query.date ?? today
      const isToday = date === today
      const start = new Date(`${date}T00:00:00Z`)
      const endpoints = await integratorUsage(db, caller.integrator.uid, start, new Date(start.getTime() + DAY_MS))
      const withQuota = isToday
        ? await Promise.all(
            endpoints.map(async (usage) => {
              const { limit, used } = await app.quotas.quotaUsage(caller, `${usage.method} ${usage.endpoint}`)
              return limit === 0 ? usage : { ...usage, quota: { limit, used, remaining: limit - used } }
            }),
          )
        : endpoints
      return ok({
        integratorUID: caller.integrator.uid,
        tier: tierLabel(caller.integrator.tier),
        date,
        ...(isToday ? { quotaResetsAt: new Date(resetAtSeconds * 1000).toISOString() } : {}),
        totalRequests: endpoints.reduce((sum, e) => sum + e.requests, 0),
        endpoints: withQuota,
      })
    },
  )
}
