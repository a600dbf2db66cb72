// Starts the HTTP service: open the stores, migrate, listen; on SIGTERM/SIGINT stop accepting,
// finish in-flight requests, close the pools. Nothing else lives here.
import { pino } from 'pino'
import { ConfigError, loadConfig, redactUrl, type Config } from './config.ts'
import { openDatabase, type Database } from './db/database.ts'
import { migrateToLatest } from './db/migrate.ts'
import { openRedis, waitForRedis, type Redis } from './redis.ts'
import { resolveJwtSecret } from './secrets.ts'
import { buildApp, loggerOptions } from './app.ts'
import type { App } from './types.ts'
import { startMaintenance } from './jobs/maintenance.ts'
import { startReferenceTemperatureSchedule } from './jobs/reference-temperature.ts'
import { startPredictionSchedule } from './jobs/predictions.ts'
import { defaultClientId, startMqttIngest } from './ingest/mqtt.ts'

export async function serve(config: Config): Promise<App> {
  const log = pino(loggerOptions(config) as pino.LoggerOptions)
  const { secret, source } = resolveJwtSecret(config)
  config = { ...config, jwtSecret: secret }
  if (source === 'generated') log.info({ dataDir: config.dataDir }, 'generated a new JWT signing key in DATA_DIR')

  const database: Database = await openDatabase(config, log)
  let redis: Redis | undefined
  let app: App | undefined
  try {
    // Migrations may rewrite large tables: they run without the request timeouts.
    const { applied } = await migrateToLatest(database.background)
    log.info({ store: database.kind, database: redactUrl(config.databaseUrl) ?? config.dataDir, applied }, 'database ready')
    if (config.redisUrl) {
      redis = openRedis(config.redisUrl, log, config.redisCommandTimeoutMs)
      if (!(await waitForRedis(redis, 5000))) log.warn('Redis is not reachable yet; readiness reports it until it is')
    }
    app = await buildApp({ config, database, redis })
    await app.listen({ port: config.port, host: config.host })
  } catch (err) {
    await app?.close().catch(() => {})
    redis?.disconnect()
    await database.close().catch(() => {})
    throw err
  }

  const started = app
  const stopMaintenance = startMaintenance(started)
  const stopReferenceTemperature = startReferenceTemperatureSchedule(started)
  const stopPredictions = startPredictionSchedule(started)
  const mqttIngest = config.mqttUrl ? startMqttIngest(started, {
    url: config.mqttUrl,
    group: config.mqttShareGroup,
    clientId: config.mqttClientId ?? defaultClientId(config.port),
    sessionExpirySeconds: config.mqttSessionExpirySeconds,
  }) : undefined
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
      await mqttIngest?.stop()
      await started.close()
      redis?.disconnect()
      await database.close()
      started.log.info('stopped')
      process.exitCode = 0
    } catch (err) {
      started.log.error({ err }, 'error during shutdown')
      process.exitCode = 1
    }
  }
  process.once('SIGTERM', () => void stop('SIGTERM'))
  process.once('SIGINT', () => void stop('SIGINT'))
  return started
}

export function installCrashHandlers(log: { fatal: (obj: object, msg: string) => void; error: (obj: object, msg: string) => void }) {
  process.on('unhandledRejection', (reason) => {
    log.error({ err: reason }, 'unhandled promise rejection')
  })
  process.on('uncaughtException', (err) => {
    log.fatal({ err }, 'uncaught exception; exiting')
    process.exit(1)
  })
}

/** `npm start` and `livestock-api serve` both land here. */
export async function main() {
  let config: Config
  try {
    config = loadConfig()
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`)
      process.exit(2)
    }
    throw err
  }
  installCrashHandlers(pino({ level: config.logLevel }))
  try {
    await serve(config)
  } catch (err) {
    process.stderr.write(`livestock-api could not start: ${err instanceof Error ? err.message : String(err)}\n`)
    process.exit(1)
  }
}

if (import.meta.main) await main()
