// Prometheus metrics: request counts and latency histograms per route template (never the raw URL,
// which would explode label cardinality), plus the process's default metrics.
import type { FastifyInstance } from 'fastify'
import { Counter, Gauge, Registry, collectDefaultMetrics, type Metric } from 'prom-client'
import Type from 'typebox'
import { timingSafeEqual } from 'node:crypto'
import { authErrors, commonErrors } from '../http/envelope.ts'
import { ApiError, invalidToken, unauthorized } from '../http/errors.ts'
import type { Database } from '../db/database.ts'
import { RequestMetrics } from './request-metrics.ts'

declare module 'fastify' {
  interface FastifyInstance {
    metrics: Registry
    /** Counts readings stored by ingestion, by the path they came in on and their kind. */
    countIngested: (via: 'http' | 'mqtt', kind: string, rows: number) => void
  }
}

export function metricsPlugin(
  app: FastifyInstance,
  options: { token: string | undefined; public: boolean; database: Database; workerIndex: number | undefined },
) {
  const registry = new Registry()
  // The workers of `serve --workers N` share one port, so a scrape reaches any one of them: each labels its series,
  // so that one worker's counters never read as a reset of another's.
  if (options.workerIndex !== undefined) registry.setDefaultLabels({ worker: String(options.workerIndex) })
  collectDefaultMetrics({ register: registry })
  // Request count and latency: plain numbers per request, Prometheus series when scraped (request-metrics.ts).
  const requestMetrics = new RequestMetrics()
  registry.registerMetric(
    requestMetrics.counter(
      'http_requests_total',
      'HTTP requests answered, by method, route template and status code',
    ) as unknown as Metric,
  )
  registry.registerMetric(
    requestMetrics.histogram(
      'http_request_duration_seconds',
      'HTTP request latency, by method, route template and status code',
    ) as unknown as Metric,
  )
  app.decorate('metrics', registry)

  const refusals = new Counter({
    name: 'rate_limit_refusals_total',
    help: 'Requests refused with 429, by the limit that refused: ip, tokens, refresh, login, quota, auth-failures',
    labelNames: ['limit'] as const,
    registers: [registry],
  })
  app.addHook('onError', async (_req, _reply, err) => {
    if (err instanceof ApiError && err.statusCode === 429 && err.limit) refusals.inc({ limit: err.limit })
  })

  const ingested = new Counter({
    name: 'ingested_readings_total',
    help: 'Readings stored by ingestion (duplicates not counted), by path (http, mqtt) and kind (sensordata, locations, devicedata)',
    labelNames: ['via', 'kind'] as const,
    registers: [registry],
  })
  app.decorate('countIngested', (via: 'http' | 'mqtt', kind: string, rows: number) => {
    if (rows > 0) ingested.inc({ via, kind }, rows)
  })

  const { poolStats } = options.database
  if (poolStats) {
    new Gauge({
      name: 'db_pool_connections',
      help: 'PostgreSQL pool connections by state: total (open), idle, waiting (requests queued for a connection)',
      labelNames: ['state'] as const,
      registers: [registry],
      collect() {
        const stats = poolStats()
        this.set({ state: 'total' }, stats.total)
        this.set({ state: 'idle' }, stats.idle)
        this.set({ state: 'waiting' }, stats.waiting)
      },
    })
  }

  // A callback hook (it awaits nothing): an async one costs a promise and a microtask turn per request.
  app.addHook('onResponse', (req, reply, done) => {
    requestMetrics.observe(req.method, req.routeOptions.url ?? 'unmatched', reply.statusCode, reply.elapsedTime / 1000)
    done()
  })

  app.get(
    '/metrics',
    {
      schema: {
        tags: ['operations'],
        operationId: 'getMetrics',
        summary: 'Prometheus metrics',
        description:
          'Prometheus text exposition format. Requires `Authorization: Bearer <METRICS_TOKEN>`. Without METRICS_TOKEN it answers 404 `Metrics are not enabled`, unless the operator opens it to anyone with METRICS_PUBLIC=on (a scrape on a private network). Not under /api/v1 and not rate limited.',
        produces: ['text/plain'],
        response: {
          200: Type.String({
            description: 'Prometheus text format',
            examples: [
              '# HELP http_requests_total HTTP requests answered, by method, route template and status code\n# TYPE http_requests_total counter\n' +
                'http_requests_total{method="GET",route="/api/v1/users/:userId/animals",status_code="200"} 1832\n',
            ],
          }),
          401: authErrors[401],
          404: commonErrors[404],
          500: commonErrors[500],
        },
        security: [],
      },
      config: { limit: 'exempt' },
    },
    async (req, reply) => {
      if (options.token !== undefined) {
        if (!bearerMatches(req.headers.authorization, options.token)) {
          throw req.headers.authorization ? invalidToken('Invalid token') : unauthorized('Invalid token')
        }
      } else if (!options.public) throw new ApiError(404, METRICS_NOT_ENABLED)
      return reply.type(registry.contentType).send(await registry.metrics())
    },
  )
}

export const METRICS_NOT_ENABLED = 'Metrics are not enabled'

function bearerMatches(header: string | undefined, token: string): boolean {
  const presented = Buffer.from(header?.startsWith('Bearer ') ? header.slice(7) : '')
  const expected = Buffer.from(token)
  return presented.length === expected.length && timingSafeEqual(presented, expected)
}
