// Prometheus metrics: request counts and latency histograms per route template (never the raw URL,
// which would explode label cardinality), plus the process's default metrics.
import type { FastifyInstance } from 'fastify'
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client'
import Type from 'typebox'
import { timingSafeEqual } from 'node:crypto'
import { authErrors } from '../http/envelope.ts'
import { invalidToken, unauthorized } from '../http/errors.ts'

declare module 'fastify' {
  interface FastifyInstance {
    metrics: Registry
  }
}

export function metricsPlugin(app: FastifyInstance, options: { token: string | undefined }) {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry })
  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by method, route template and status code',
    labelNames: ['method', 'route', 'status_code'] as const,
    registers: [registry],
  })
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency, by method, route template and status code',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  })
  app.decorate('metrics', registry)

  app.addHook('onResponse', async (req, reply) => {
    const route = req.routeOptions.url ?? 'unmatched'
    const labels = { method: req.method, route, status_code: String(reply.statusCode) }
    requests.inc(labels)
    duration.observe(labels, reply.elapsedTime / 1000)
  })

  app.get('/metrics', {
    schema: {
      tags: ['operations'],
      operationId: 'getMetrics',
      summary: 'Prometheus metrics',
      description: 'Prometheus text exposition format. Public unless METRICS_TOKEN is set, then it requires `Authorization: Bearer <METRICS_TOKEN>`. Not under /api/v1 and not rate limited.',
      produces: ['text/plain'],
      response: { 200: Type.String({ description: 'Prometheus text format' }), 401: authErrors[401] },
      security: [],
    },
    config: { limit: 'exempt' },
  }, async (req, reply) => {
    if (options.token !== undefined && !bearerMatches(req.headers.authorization, options.token)) {
      throw req.headers.authorization ? invalidToken('Invalid token') : unauthorized('Invalid token')
    }
    return reply.type(registry.contentType).send(await registry.metrics())
  })
}

function bearerMatches(header: string | undefined, token: string): boolean {
  const presented = Buffer.from(header?.startsWith('Bearer ') ? header.slice(7) : '')
  const expected = Buffer.from(token)
  return presented.length === expected.length && timingSafeEqual(presented, expected)
}
