// buildApp: cross-cutting plugins first, then the resource modules, each registered explicitly.
import { randomUUID } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import Fastify, { type FastifyServerOptions } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { Config } from './config.ts'
import type { Database } from './db/database.ts'
import type { Redis } from './redis.ts'
import type { App, Clock } from './types.ts'
import { sharedSchemas } from './http/envelope.ts'
import { errorsPlugin } from './plugins/errors.ts'
import { jsonBodyPlugin } from './plugins/json-body.ts'
import { makeValidatorCompiler } from './plugins/validation.ts'
import { metricsPlugin } from './plugins/metrics.ts'
import { API_PREFIX, registerDocsRoutes, registerOpenApi } from './plugins/docs.ts'
import healthRoutes from './modules/health/health.routes.ts'
import tokenDirectoryRoutes from './modules/tokens/directory.ts'
import tokenRoutes from './modules/tokens/tokens.routes.ts'
import partnerRoutes from './modules/tokens/partners.routes.ts'
import userRoutes from './modules/users/users.routes.ts'
import animalRoutes from './modules/animals/animals.routes.ts'
import readingRoutes from './modules/readings/readings.routes.ts'
import { animalSchemas } from './modules/animals/animals.schemas.ts'
import { authPlugin } from './plugins/auth.ts'
import { limitsPlugin } from './plugins/limits.ts'
import { TokenSigner } from './modules/tokens/jwt.ts'
import { UserPhone, User } from './modules/users/users.schemas.ts'

export interface AppDependencies {
  config: Config
  database: Database
  redis?: Redis | undefined
  clock?: Clock
  /** Overrides the logger (tests pass false or a silent level). */
  logger?: FastifyServerOptions['logger']
  /** Extra routes registered under /api/v1 before the app is sealed (tests use it for probe routes). */
  extend?: (api: App) => Promise<void> | void
}

export interface RouteEntry { method: string; url: string; hidden: boolean }

declare module 'fastify' {
  interface FastifyInstance {
    config: Config
    database: Database
    clock: Clock
    /** Every route registered, for the OpenAPI and access-matrix tests. */
    routeCatalog: RouteEntry[]
  }
}

/** A request id a client may set: printable, short, no spaces (it goes into logs and a header). */
const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/

export function loggerOptions(config: Config): FastifyServerOptions['logger'] {
  return {
    level: config.logLevel,
    // Default serializers log no headers or bodies; these paths are a second line for anything logged by hand.
    redact: {
      paths: ['req.headers.authorization', 'req.headers.cookie', '*.password', '*.Password', '*.currentPassword',
        '*.newPassword', '*.refreshToken', '*.accessToken', '*.clientSecret', '*.integratorUID', '*.idToken', '*.jwtSecret'],
      censor: '[redacted]',
    },
  }
}

export async function buildApp(deps: AppDependencies): Promise<App> {
  const { config, database } = deps
  const fastify = Fastify({
    logger: deps.logger ?? loggerOptions(config),
    genReqId: (req: IncomingMessage) => {
      const given = req.headers['x-request-id']
      return typeof given === 'string' && CLIENT_REQUEST_ID.test(given) ? given : randomUUID()
    },
    bodyLimit: config.bodyLimitBytes,
    requestTimeout: config.requestTimeoutMs,
    connectionTimeout: config.requestTimeoutMs,
    // Fastify takes a hop count as a number at run time; its type only lists the other forms.
    trustProxy: config.trustProxy as boolean | string[],
    onProtoPoisoning: 'error',
    onConstructorPoisoning: 'error',
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    routerOptions: { ignoreTrailingSlash: false, maxParamLength: 200 },
  })
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()

  app.decorate('config', config)
  app.decorate('database', database)
  app.decorate('clock', deps.clock ?? Date.now)
  const routeCatalog: RouteEntry[] = []
  app.decorate('routeCatalog', routeCatalog)
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method]
    for (const method of methods) {
      if (method === 'HEAD') continue
      routeCatalog.push({ method, url: route.url, hidden: Boolean(route.schema?.hide) })
    }
  })
  app.setValidatorCompiler(makeValidatorCompiler())
  for (const schema of [...sharedSchemas, UserPhone, User, ...animalSchemas]) app.addSchema(schema)
  if (!config.jwtSecret) throw new Error('buildApp needs a resolved JWT secret (see resolveJwtSecret)')
  app.addHook('onRequest', async (req, reply) => {
    void reply.header('x-request-id', req.id)
  })
  errorsPlugin(app)
  jsonBodyPlugin(app)
  // Limits before auth: the IP limit refuses early; the daily quota counts once the caller is known.
  const quota = limitsPlugin(app, { config, redis: deps.redis, clock: app.clock })
  authPlugin(app, {
    signer: new TokenSigner({ secret: config.jwtSecret, issuer: config.jwtIssuer, audience: config.jwtAudience, clock: app.clock }),
    onCaller: quota.consumeQuota,
  })
  await registerOpenApi(app)
  metricsPlugin(app, { token: config.metricsToken })

  await app.register(async (api: App) => {
    await api.register(healthRoutes, { database, redis: deps.redis })
    await api.register(tokenDirectoryRoutes, { limits: config.limits })
    await api.register(tokenRoutes)
    await api.register(partnerRoutes)
    await api.register(userRoutes)
    await api.register(animalRoutes)
    await api.register(readingRoutes)
    if (deps.extend) await api.register(async (scope: App) => { await deps.extend?.(scope) })
  }, { prefix: API_PREFIX })

  await registerDocsRoutes(app)
  await app.ready()
  return app
}
