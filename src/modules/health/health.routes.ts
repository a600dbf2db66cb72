import type { App } from '../../types.ts'
import { defineModule } from '../../http/api-module.ts'
import { isoTimestamp } from '../../http/timestamp.ts'
import { HealthResponse, NotReadyResponse, ReadyResponse } from './health.schemas.ts'

const CHECK_TIMEOUT_MS = 3000

export const healthModule = defineModule({
  tag: 'health',
  description: 'Liveness and readiness',
  routes: healthRoutes,
})

async function healthRoutes(app: App) {
  const { database, redis } = app
  app.get(
    '/health',
    {
      schema: {
        operationId: 'getHealth',
        summary: 'Liveness check',
        description: 'Public. Answers while the process runs, without touching the stores.',
        response: { 200: HealthResponse },
      },
      config: { access: 'public', limit: 'exempt', etag: false },
      compress: false,
    },
    async () => ({
      success: true as const,
      message: 'Livestock API is running',
      version: 'v1' as const,
      timestamp: isoTimestamp(),
    }),
  )

  app.get(
    '/health/ready',
    {
      schema: {
        operationId: 'getReadiness',
        summary: 'Readiness check',
        description:
          'Public. 200 when the database (and Redis, when REDIS_URL is set) answer within 3 s; 503 with Retry-After otherwise.',
        response: { 200: ReadyResponse, 503: NotReadyResponse },
      },
      config: { access: 'public', limit: 'exempt', etag: false },
      compress: false,
    },
    async (_req, reply) => {
      const [db, cache] = await Promise.all([
        check(() => database.ping()),
        redis
          ? check(async () => {
              await redis.ping()
            })
          : Promise.resolve('not configured' as const),
      ])
      const data = { database: db, databaseKind: database.kind, redis: cache }
      const problems = [
        ...(db === 'unreachable' ? [{ field: 'database', message: 'does not answer' }] : []),
        ...(cache === 'unreachable' ? [{ field: 'redis', message: 'does not answer' }] : []),
      ]
      if (problems.length === 0) {
        return { success: true as const, message: 'Ready', data, timestamp: isoTimestamp() }
      }
      return reply
        .status(503)
        .header('retry-after', '5')
        .send({
          success: false as const,
          error: `Not ready: ${problems.map((p) => p.field).join(' and ')} unreachable`,
          details: problems,
          data,
          timestamp: isoTimestamp(),
        })
    },
  )
}

async function check(probe: () => Promise<void>): Promise<'ok' | 'unreachable'> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timed out')), CHECK_TIMEOUT_MS)
  })
  try {
    await Promise.race([probe(), timeout])
    return 'ok'
  } catch {
    return 'unreachable'
  } finally {
    clearTimeout(timer)
  }
}
