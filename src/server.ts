// Starts the HTTP service: open the stores, migrate, listen; on SIGTERM/SIGINT stop accepting,
// finish in-flight requests, close the pools. With WORKERS (serve --workers N) a supervisor process starts
// N such processes (node:cluster) sharing the port, and restarts one that dies. Nothing else lives here.
import cluster from 'node:cluster'
import { flushCompileCache } from 'node:module'
import { availableParallelism } from 'node:os'
import { pino } from 'pino'
import { ConfigError, loadConfig, processEnvironment, redactUrl, type Config } from './config.ts'
import { openDatabase, type Database } from './db/database.ts'
import { migrateToLatest } from './db/migrate.ts'
import { databaseAccessHint } from './db/errors.ts'
import { openRedis, waitForRedis, type Redis } from './redis.ts'
import { resolveJwtSecret, resolveWebPushKey } from './secrets.ts'
import {
  missingServiceEnvironment,
  missingServiceFlags,
  withServiceEnvironment,
  withServiceFlags,
} from './runtime-flags.ts'
import { buildApp, loggerOptions } from './app.ts'
import type { App } from './types.ts'
import { startMaintenance } from './jobs/maintenance.ts'
import { startReferenceTemperatureSchedule } from './jobs/reference-temperature.ts'
import { startPredictionSchedule } from './jobs/predictions.ts'
import { startEventSchedule } from './jobs/events.ts'
import { startPackingSchedule } from './jobs/packing.ts'

export async function serve(config: Config): Promise<App> {
  const log = pino(loggerOptions(config) as pino.LoggerOptions)
  const { secret, source } = resolveJwtSecret(config)
  const webPush = resolveWebPushKey(config)
  config = { ...config, jwtSecret: secret, delivery: { ...config.delivery, webPushPrivateKey: webPush?.secret } }
  if (source === 'generated') log.info({ dataDir: config.dataDir }, 'generated a new JWT signing key in DATA_DIR')
  if (webPush?.source === 'generated') log.info({ dataDir: config.dataDir }, 'generated a new Web Push key in DATA_DIR')

  // One process per host runs the schedules and the MQTT subscriber: worker 1, or the only process.
  const runsBackgroundWork = config.workerIndex === undefined || config.workerIndex === 1
  // The MQTT client library is loaded only when a broker is configured (before listening, so that nothing
  // awaits between listening and installing the signal handlers).
  const mqtt = config.mqttUrl && runsBackgroundWork ? await import('./ingest/mqtt.ts') : undefined
  // Every process publishes the events it creates.
  const mqttEvents = config.mqttUrl && config.eventDerivation ? await import('./ingest/mqtt-events.ts') : undefined
  const missingFlags = missingServiceFlags()
  const missingEnvironment = missingServiceEnvironment()
  if (missingFlags.length + missingEnvironment.length > 0) {
    log.info(
      { missingFlags, missingEnvironment },
      'started without the heap settings of `npm start` (src/runtime-flags.ts): expect a higher peak memory',
    )
  }
  let signalled: string | undefined
  let onSignal = (signal: string) => {
    signalled ??= signal
  }
  const database: Database = await openDatabase(config, log)
  let redis: Redis | undefined
  let app: App | undefined
  try {
    // Migrations may rewrite large tables: they run without the request timeouts.
    const { applied } = await migrateToLatest(database.withoutTimeouts)
    log.info(
      { store: database.kind, database: redactUrl(config.databaseUrl) ?? config.dataDir, applied },
      'database ready',
    )
    if (config.redisUrl) {
      redis = openRedis(config.redisUrl, log, config.redisCommandTimeoutMs)
      if (!(await waitForRedis(redis, 5000))) log.warn('Redis is not reachable yet; readiness reports it until it is')
    }
    app = await buildApp({ config, database, redis })
    // From the listen on, requests may be in flight: a signal before the shutdown below is set is kept for it, where
    // the default action would end the process without the drain. (Before, nothing is served: it ends the start.)
    process.once('SIGTERM', () => onSignal('SIGTERM'))
    process.once('SIGINT', () => onSignal('SIGINT'))
    await app.listen({ port: config.port, host: config.host })
    // Node writes its compile cache (bin/compile-cache.js) at exit; written now, a process that is killed keeps it.
    flushCompileCache()
  } catch (err) {
    await app?.close().catch(() => {})
    redis?.disconnect()
    await database.close().catch(() => {})
    throw err
  }

  const started = app
  const noop = () => {}
  const stopMaintenance = runsBackgroundWork ? startMaintenance(started) : noop
  const stopReferenceTemperature = runsBackgroundWork ? startReferenceTemperatureSchedule(started) : noop
  const stopPredictions = runsBackgroundWork ? startPredictionSchedule(started) : noop
  const stopEvents = runsBackgroundWork && config.eventDerivation ? startEventSchedule(started) : noop
  const eventPublisher =
    mqttEvents && config.mqttUrl
      ? mqttEvents.startEventPublisher(started, {
          url: config.mqttUrl,
          username: config.mqttUsername,
          password: config.mqttPassword,
        })
      : undefined
  const stopPacking =
    runsBackgroundWork && config.readings.packingIntervalSeconds > 0 ? startPackingSchedule(started) : noop
  const mqttIngest =
    mqtt && config.mqttUrl
      ? mqtt.startMqttIngest(started, {
          url: config.mqttUrl,
          group: config.mqttShareGroup,
          clientId: config.mqttClientId ?? mqtt.defaultClientId(config.port),
          sessionExpirySeconds: config.mqttSessionExpirySeconds,
          username: config.mqttUsername,
          password: config.mqttPassword,
          receiveMaximum: config.mqttReceiveMaximum,
          maximumPacketSize: config.mqttMaxPacketBytes,
        })
      : undefined
  let stopping = false
  const stop = async (signal: string) => {
    if (stopping) return
    stopping = true
    started.log.info({ signal }, 'shutting down: no new connections, finishing requests in flight')
    const force = setTimeout(() => {
      started.log.error('shutdown took longer than SHUTDOWN_TIMEOUT_MS; exiting')
      process.exit(1)
    }, config.shutdownTimeoutMs)
    force.unref()
    try {
      await started.drain()
      stopMaintenance()
      stopReferenceTemperature()
      stopPredictions()
      stopEvents()
      stopPacking()
      await mqttIngest?.stop()
      await eventPublisher?.stop()
      await started.close()
      redis?.disconnect()
      await database.close()
      started.log.info('stopped')
      process.exitCode = 0
      // A worker's channel to its supervisor would keep it alive; with everything else closed, it exits now.
      if (cluster.isWorker) process.disconnect()
    } catch (err) {
      started.log.error({ err }, 'error during shutdown')
      process.exitCode = 1
    }
  }
  onSignal = (signal) => void stop(signal)
  if (signalled !== undefined) onSignal(signalled)
  if (config.stopsWithNpm) whenParentExits(() => void stop('parent exited'))
  return started
}

/** The parent this process was started by, read as the module loads: a parent that dies during the start is seen. */
const PARENT_AT_START = process.ppid

/**
 * Calls `orphaned` once this process's parent has exited (it is then re-parented, so its parent id changes): under
 * `npx`, npm runs the service under a shell that dies on a SIGTERM without passing it on, and the service would
 * hold the port and DATA_DIR with nobody left to stop it. Checked every second; the timer keeps nothing alive. The
 * parent is the one at start: read when the start ended, a shell killed in between (once the service said it
 * listens) would have been missed, and the service left running.
 */
export function whenParentExits(orphaned: () => void, intervalMs = 1000, parent = PARENT_AT_START): () => void {
  const timer = setInterval(() => {
    if (process.ppid === parent) return
    clearInterval(timer)
    orphaned()
  }, intervalMs)
  timer.unref()
  return () => clearInterval(timer)
}

export function installCrashHandlers(log: {
  fatal: (obj: object, msg: string) => void
  error: (obj: object, msg: string) => void
}) {
  process.on('unhandledRejection', (reason) => {
    log.error({ err: reason }, 'unhandled promise rejection')
  })
  process.on('uncaughtException', (err) => {
    log.fatal({ err }, 'uncaught exception; exiting')
    process.exit(1)
  })
}

/**
 * The supervisor of `serve --workers N`: applies the migrations once, starts N workers that share the port
 * (the primary hands connections out round-robin), restarts a worker that dies, and passes SIGTERM/SIGINT
 * on, exiting once every worker has stopped.
 */
export async function supervise(config: Config): Promise<void> {
  const log = pino(loggerOptions(config) as pino.LoggerOptions)
  const count = config.workers === 0 ? availableParallelism() : config.workers
  const database = await openDatabase(config, log)
  try {
    const { applied } = await migrateToLatest(database.withoutTimeouts)
    log.info({ store: database.kind, database: redactUrl(config.databaseUrl), applied }, 'database ready')
  } finally {
    await database.close()
  }

  let stopping = false
  const workerIndex = new Map<number, number>() // cluster worker id -> index 1..N
  const recentDeaths: number[] = []
  // Every worker runs with the service's V8 heap flags, whatever the supervisor itself was started with.
  cluster.setupPrimary({ execArgv: withServiceFlags(process.execArgv) })
  const fork = (index: number) => {
    const worker = cluster.fork({
      ...withServiceEnvironment(processEnvironment()),
      LIVESTOCK_WORKER_INDEX: String(index),
    })
    workerIndex.set(worker.id, index)
  }
  cluster.on('exit', (worker, code, signal) => {
    const index = workerIndex.get(worker.id)
    workerIndex.delete(worker.id)
    if (stopping || index === undefined) {
      if (workerIndex.size === 0) {
        log.info('stopped')
        process.exit(process.exitCode ?? 0)
      }
      return
    }
    // A worker that keeps dying at once (a bad configuration, a database gone) stops the service instead of looping.
    const now = Date.now()
    recentDeaths.push(now)
    while (recentDeaths[0]! < now - 60_000) recentDeaths.shift()
    if (recentDeaths.length > 5 * count) {
      log.fatal({ deaths: recentDeaths.length }, 'workers keep dying; stopping')
      process.exitCode = 1
      stopping = true
      for (const other of Object.values(cluster.workers ?? {})) other?.process.kill('SIGTERM')
      if (workerIndex.size === 0) process.exit(1)
      return
    }
    log.error({ worker: index, code, signal }, 'worker died; starting another')
    setTimeout(() => fork(index), Math.min(5000, 200 * recentDeaths.length)).unref()
  })
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return
    stopping = true
    log.info({ signal, workers: workerIndex.size }, 'shutting down: stopping the workers')
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill(signal)
    setTimeout(() => {
      log.error('workers took longer than SHUTDOWN_TIMEOUT_MS to stop; exiting')
      process.exit(1)
    }, config.shutdownTimeoutMs + 1000).unref()
  }
  process.once('SIGTERM', () => stop('SIGTERM'))
  process.once('SIGINT', () => stop('SIGINT'))
  if (config.stopsWithNpm) whenParentExits(() => stop('SIGTERM'))
  log.info({ workers: count }, 'starting workers')
  for (let index = 1; index <= count; index++) fork(index)
}

/** `npm start` and `livestock-api serve` both land here; `overrides` are the CLI's options as variables. */
export async function main(overrides: Record<string, string> = {}) {
  let config: Config
  try {
    config = loadConfig({ ...processEnvironment(), ...overrides })
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`)
      process.exit(2)
    }
    throw err
  }
  installCrashHandlers(pino({ level: config.logLevel }))
  try {
    if (cluster.isPrimary && config.workers !== 1) await supervise(config)
    else await serve(config)
  } catch (err) {
    const hint = databaseAccessHint(err, config.databaseUrl)
    process.stderr.write(
      `livestock-api could not start: ${err instanceof Error ? err.message : String(err)}${hint ? ` (${hint})` : ''}\n`,
    )
    process.exit(1)
  }
}

if (import.meta.main) await main()
