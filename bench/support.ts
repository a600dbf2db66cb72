// Shared pieces of the benchmarks: an app on the configured store, a keep-alive HTTP load loop.
import { Agent, request } from 'node:http'
import { loadConfig, type Config } from '../src/config.ts'
import { IN_MEMORY, openDatabase, type Database } from '../src/db/database.ts'
import { migrateToLatest } from '../src/db/migrate.ts'
import { openRedis, waitForRedis, type Redis } from '../src/redis.ts'
import { buildApp } from '../src/app.ts'
import type { App } from '../src/types.ts'

/** The middle value of a set of measurements (the upper middle for an even count). */
export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

export const BENCH_JWT_SECRET = 'bench-secret-0123456789abcdef0123456789abcdef'

export interface BenchApp { app: App; config: Config; database: Database; redis: Redis | undefined; port: number; close: () => Promise<void> }

/** An app listening on a free loopback port; DATABASE_URL/REDIS_URL from the environment when set. */
export async function startBenchApp(env: Record<string, string>, shared?: { database: Database }): Promise<BenchApp> {
  const config = loadConfig({
    LOG_LEVEL: 'silent', JWT_SECRET: BENCH_JWT_SECRET, DATA_DIR: IN_MEMORY, PASSWORD_SCRYPT_LOG_N: '14',
    ...(process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {}),
    ...env,
  })
  const database = shared?.database ?? await openDatabase(config)
  if (!shared) await migrateToLatest(database.db)
  let redis: Redis | undefined
  if (config.redisUrl) {
    redis = openRedis(config.redisUrl)
    if (!(await waitForRedis(redis, 3000))) throw new Error(`Redis at ${config.redisUrl} is not reachable`)
  }
  const app = await buildApp({ config, database, redis, logger: false })
  await app.listen({ port: 0, host: '127.0.0.1' })
  const address = app.server.address()
  const port = typeof address === 'object' && address ? address.port : 0
  return {
    app, config, database, redis, port,
    close: async () => {
      await app.close()
      redis?.disconnect()
      if (!shared) await database.close()
    },
  }
}

/** Sends `total` GET requests with `concurrency` in flight over keep-alive; returns requests per second. */
export async function loadGet(port: number, path: string, headers: Record<string, string>, total: number, concurrency: number): Promise<{ rps: number; statuses: Record<number, number> }> {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency })
  const statuses: Record<number, number> = {}
  let sent = 0
  const one = () => new Promise<void>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: 'GET', headers, agent }, (res) => {
      statuses[res.statusCode ?? 0] = (statuses[res.statusCode ?? 0] ?? 0) + 1
      res.resume()
      res.on('end', resolve)
    })
    req.on('error', reject)
    req.end()
  })
  const worker = async () => {
    while (sent < total) {
      sent++
      await one()
    }
  }
  const started = performance.now()
  await Promise.all(Array.from({ length: concurrency }, worker))
  const seconds = (performance.now() - started) / 1000
  agent.destroy()
  return { rps: total / seconds, statuses }
}
