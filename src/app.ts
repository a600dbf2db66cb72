// buildApp: cross-cutting plugins first, then the feature modules, each registered explicitly.
import { randomUUID } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import Fastify, { LogController, type FastifyServerOptions, type RouteOptions } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { Config } from './config.ts'
import type { Database } from './db/database.ts'
import type { Redis } from './redis.ts'
import type { App, Clock } from './types.ts'
import type { CallerSource } from './auth/caller.ts'
import { cachingCallerSource } from './auth/caller-cache.ts'
import { createAccessChangeFeed, type AccessChangeFeed } from './db/access-changes.ts'
import { TokenSigner } from './auth/jwt.ts'
import { findAccountAsCaller } from './auth/token-store.ts'
import type { ApiModule } from './http/api-module.ts'
import { sharedSchemas } from './http/envelope.ts'
import { deferChildLoggers } from './http/request-logger.ts'
import { closeStalledConnections } from './http/stalled-connections.ts'
import { lazyCompilations, lazySerializerFactory, type LazyCompilations } from './http/lazy-compilation.ts'
import { documentResponseHeaders } from './http/response-headers.ts'
import { API_PREFIX, MAX_PATH_SEGMENT, type AccessRule, type RouteCost } from './http/route-policy.ts'
import { accessPlugin } from './plugins/access.ts'
import { registerDocsRoutes, registerOpenApi } from './plugins/docs.ts'
import { registerFarmApp } from './farm-app/farm-app.routes.ts'
import { clientErrorHandler, errorsPlugin, frameworkErrorHandler } from './plugins/errors.ts'
import { compressionPlugin } from './plugins/compression.ts'
import { corsPlugin } from './plugins/cors.ts'
import { etagPlugin } from './plugins/etag.ts'
import { paginationLinksPlugin } from './plugins/pagination-links.ts'
import { idempotencyPlugin } from './plugins/idempotency.ts'
import { pathAnimalPlugin } from './plugins/path-animal.ts'
import { jsonBodyPlugin } from './plugins/json-body.ts'
import { limitsPlugin } from './plugins/limits.ts'
import { expensiveRequestsPlugin } from './plugins/expensive-requests.ts'
import { metricsPlugin } from './plugins/metrics.ts'
import { cachingSerializerFactory } from './plugins/serialization.ts'
import { shutdownPlugin } from './plugins/shutdown.ts'
import { makeValidatorCompiler, refuseUnknownQueryParameters } from './plugins/validation.ts'
import { healthModule } from './modules/health/health.routes.ts'
import { tokensModule } from './modules/tokens/tokens.routes.ts'
import { integratorsModule } from './modules/integrators/integrators.routes.ts'
import { linkOf } from './modules/integrators/integrators.repository.ts'
import { usersModule } from './modules/users/users.routes.ts'
import { credentialsModule } from './modules/users/credentials.routes.ts'
import { animalsModule } from './modules/animals/animals.routes.ts'
import { findAnimalByMac } from './modules/animals/animals.repository.ts'
import { readingsModule } from './modules/readings/readings.routes.ts'
import { litterguardsModule } from './modules/litterguards/litterguards.routes.ts'
import { recordCollections } from './modules/records/index.ts'
import { recordModule } from './modules/records/record-routes.ts'
import { accessLogModule } from './modules/access-log/access-log.routes.ts'
import { predictionsModule } from './modules/predictions/predictions.routes.ts'
import { herdModule } from './modules/herd/herd.routes.ts'
import { createEventHub, type EventHub } from './modules/events/event-hub.ts'
import { eventsModule } from './modules/events/events.routes.ts'
import { deliveryWorkerOf, type DeliveryWorker } from './modules/delivery/delivery-worker.ts'
import { webhooksModule } from './modules/delivery/webhooks.routes.ts'
import { webPushModule } from './modules/delivery/web-push.routes.ts'
import { accessLogRowOf, accessLogWriter } from './modules/access-log/access-log.writer.ts'
import { insertAccessLogRows } from './modules/access-log/access-log.repository.ts'

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

export interface RouteEntry {
  method: string
  url: string
  hidden: boolean
  access: AccessRule | undefined
  /** What the route costs against the caller's bound on expensive requests (plugins/expensive-requests.ts). */
  cost: RouteCost | undefined
}

declare module 'fastify' {
  interface FastifyInstance {
    config: Config
    database: Database
    /** Redis when REDIS_URL is set (shared limits, readiness). */
    redis: Redis | undefined
    clock: Clock
    /** Where new events are announced (modules/events/event-hub.ts). */
    events: EventHub
    /** This process's delivery worker (modules/delivery), unless DELIVERY_WORKER=off. */
    deliveries: DeliveryWorker | undefined
    /** Every route registered, for the OpenAPI and access-matrix tests. */
    routeCatalog: RouteEntry[]
    /** The validators and serializers not compiled yet (compileAll: tests that every schema compiles). */
    schemaCompilations: LazyCompilations
    /**
     * Resolves once this process has seen every access change committed before the call (a no-op without the auth
     * cache): what a change made by another process, the operator CLI, needs before the next request relies on it.
     */
    syncAccessChanges: () => Promise<void>
  }
}

/** A request id a client may set: printable, short, no spaces (it goes into logs and a header). */
const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/

const INFO_OR_FINER = new Set<Config['logLevel']>(['info', 'debug', 'trace'])

export function loggerOptions(config: Config): FastifyServerOptions['logger'] {
  return {
    level: config.logLevel,
    // Default serializers log no headers or bodies; these paths are a second line for anything logged by hand.
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers.cookie',
        '*.password',
        '*.Password',
        '*.currentPassword',
        '*.newPassword',
        '*.refreshToken',
        '*.accessToken',
        '*.clientSecret',
        '*.integratorUID',
        '*.idToken',
        '*.jwtSecret',
      ],
      censor: '[redacted]',
    },
  }
}

/** The feature modules, in the order the OpenAPI document lists their tags. */
function featureModules(): ApiModule[] {
  return [
    healthModule,
    tokensModule,
    integratorsModule,
    usersModule,
    credentialsModule,
    animalsModule,
    readingsModule,
    ...recordCollections.map(recordModule),
    predictionsModule,
    herdModule,
    litterguardsModule,
    eventsModule,
    webhooksModule,
    webPushModule,
    accessLogModule,
  ]
}

export async function buildApp(deps: AppDependencies): Promise<App> {
  const { config, database } = deps
  // Validators and serializers are compiled on each route's first request (http/lazy-compilation.ts).
  const compilations = lazyCompilations()
  const fastify = Fastify({
    logger: deps.logger ?? loggerOptions(config),
    // Fastify's "incoming request" and "request completed" lines are at info: below that level they are
    // skipped before their objects are built, rather than built and dropped by the logger on every request.
    logController: new LogController({
      disableRequestLogging: deps.logger === undefined && !INFO_OR_FINER.has(config.logLevel),
    }),
    genReqId: (req: IncomingMessage) => {
      const given = req.headers['x-request-id']
      return typeof given === 'string' && CLIENT_REQUEST_ID.test(given) ? given : randomUUID()
    },
    bodyLimit: config.bodyLimitBytes,
    // REQUEST_TIMEOUT_MS bounds the headers and the whole request. Node checks those timeouts every
    // connectionsCheckingInterval (30 s by default), which let a slow client last up to twice as long.
    // A client that stops reading its response is closed by closeStalledConnections, below.
    requestTimeout: config.requestTimeoutMs,
    http: {
      headersTimeout: config.requestTimeoutMs,
      requestTimeout: config.requestTimeoutMs,
      connectionsCheckingInterval: Math.min(1000, config.requestTimeoutMs),
    },
    // Fastify takes a hop count as a number at run time; its type only lists the other forms.
    trustProxy: config.trustProxy as boolean | string[],
    onProtoPoisoning: 'error',
    onConstructorPoisoning: 'error',
    // The 503 of a closing server comes from plugins/shutdown.ts, in the envelope and with Retry-After.
    return503OnClosing: false,
    frameworkErrors: frameworkErrorHandler,
    clientErrorHandler,
    forceCloseConnections: 'idle',
    routerOptions: { ignoreTrailingSlash: false, maxParamLength: MAX_PATH_SEGMENT },
    schemaController: {
      compilersFactory: { buildSerializer: lazySerializerFactory(cachingSerializerFactory, compilations) },
    },
  })
  deferChildLoggers(fastify.log)
  closeStalledConnections(fastify.server, {
    stallMs: config.requestTimeoutMs,
    everyMs: Math.min(1000, config.requestTimeoutMs),
  })
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  const modules = featureModules()

  app.decorate('config', config)
  app.decorate('database', database)
  app.decorate(
    'animalRecordTables',
    recordCollections.map(({ table, segment }) => ({ table, name: segment })),
  )
  app.decorate('redis', deps.redis)
  app.decorate('clock', deps.clock ?? Date.now)
  app.decorate('events', createEventHub({ derive: config.eventDerivation, log: app.log }))
  app.decorate('deliveries', deliveryWorkerOf(app))
  app.decorate('schemaCompilations', compilations)
  const routeCatalog: RouteEntry[] = []
  app.decorate('routeCatalog', routeCatalog)
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method]
    for (const method of methods) {
      if (method === 'HEAD') continue
      routeCatalog.push({
        method,
        url: route.url,
        hidden: Boolean(route.schema?.hide),
        access: route.config?.access,
        cost: route.config?.cost,
      })
    }
  })
  const schemas = [...sharedSchemas, ...modules.flatMap((m) => m.schemas ?? [])]
  for (const schema of schemas) app.addSchema(schema)
  app.setValidatorCompiler(makeValidatorCompiler(schemas, compilations))
  if (!config.jwtSecret) throw new Error('buildApp needs a resolved JWT secret (see resolveJwtSecret)')
  // The hooks that run on every request take a callback rather than being async functions: an async hook
  // costs a promise and a turn of the microtask queue per request, and these have nothing to wait for.
  app.addHook('onRequest', (req, reply, done) => {
    // nosniff: a browser takes every answer as the type it says (JSON never run as a script or page).
    void reply.header('x-request-id', req.id).header('x-content-type-options', 'nosniff')
    done()
  })
  errorsPlugin(app, { routes: () => routeCatalog })
  shutdownPlugin(app)
  await corsPlugin(app, config.corsOrigins)
  paginationLinksPlugin(app, { offsetMax: config.limits.pageOffsetMax })
  // The ETag names the uncompressed body, so its onSend hook must run before compression's.
  etagPlugin(app)
  await compressionPlugin(app, config.compressionMinBytes)
  jsonBodyPlugin(app)
  // Limits before everything else; on routes that name their caller, the access check counts the IP limit
  // and the daily quota together once the caller is known.
  const limits = limitsPlugin(app, { config, redis: deps.redis, clock: app.clock })
  const db = database.db
  let callers: CallerSource = {
    integrator: (uid, jti) => findAccountAsCaller(db, 'integrators', uid, jti),
    user: (uid, jti) => findAccountAsCaller(db, 'users', uid, jti),
    linkOf: (userUid, integratorUid) => linkOf(db, userUid, integratorUid),
  }
  // The feed starts listening once the app is built: a build that fails leaves no connection open.
  let changes: AccessChangeFeed | undefined
  if (config.authCacheTtlMs > 0) {
    const feed = (changes = createAccessChangeFeed(database, config.databaseUrl, app.log))
    callers = cachingCallerSource(callers, feed, { ttlMs: config.authCacheTtlMs, maxEntries: 50_000, now: Date.now })
    // On the routes that change access only, rather than a hook run (and skipped) on every request.
    const syncChanges = async (_req: unknown, reply: { statusCode: number }, payload: unknown) => {
      if (reply.statusCode < 400) await feed.sync()
      return payload
    }
    app.addHook('onRoute', (route: RouteOptions) => {
      if (!route.config?.changesAccess) return
      const onSend = route.onSend === undefined ? [] : Array.isArray(route.onSend) ? route.onSend : [route.onSend]
      route.onSend = [...onSend, syncChanges]
    })
    app.addHook('onClose', () => feed.close())
  }
  app.decorate('syncAccessChanges', async () => {
    await changes?.sync()
  })
  const access = accessPlugin(app, {
    signer: new TokenSigner({
      secret: config.jwtSecret,
      issuer: config.jwtIssuer,
      audience: config.jwtAudience,
      clock: app.clock,
    }),
    callers,
    admit: limits.admit,
  })
  idempotencyPlugin(app, { lockMs: config.requestTimeoutMs + 5000 })
  pathAnimalPlugin(app, (uid, mac) => findAnimalByMac(database.db, uid, mac))
  expensiveRequestsPlugin(app, { perCaller: config.limits.expensiveRequestsPerCaller })
  if (config.accessLog.enabled) {
    const accessLog = accessLogWriter((rows) => insertAccessLogRows(database.db, rows), {
      flushIntervalMs: config.accessLog.flushIntervalMs,
      log: app.log,
    })
    app.addHook('onResponse', (req, reply, done) => {
      const row = accessLogRowOf(req, reply, app.clock)
      if (row) accessLog.record(row)
      done()
    })
    app.addHook('onClose', () => accessLog.close())
  }
  await registerOpenApi(
    app,
    // One tag per name: several modules may share a tag (the users module and the account's credentials).
    [...new Map(modules.map(({ tag, description }) => [tag, { name: tag, description }])).values()],
    Object.assign({}, ...modules.map((m) => m.webhooks ?? {})) as Record<string, object>,
  )
  metricsPlugin(app, {
    token: config.metricsToken,
    public: config.metricsPublic,
    database,
    workerIndex: config.workerIndex,
  })

  await app.register(
    async (api: App) => {
      access.enforceRoutePolicy(api)
      api.addHook('onRoute', refuseUnknownQueryParameters)
      api.addHook('onRoute', documentResponseHeaders)
      for (const module of modules) {
        await api.register(async (scope: App) => {
          scope.addHook('onRoute', (route: RouteOptions) => {
            const schema = (route.schema ??= {}) as { tags?: string[] }
            schema.tags ??= [module.tag]
          })
          await module.routes(scope)
        })
      }
      if (deps.extend)
        await api.register(async (scope: App) => {
          await deps.extend?.(scope)
        })
    },
    { prefix: API_PREFIX },
  )

  await registerDocsRoutes(app)
  await registerFarmApp(app)
  await app.ready()
  await changes?.start()
  return app
}
