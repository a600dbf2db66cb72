// Optional Redis connection (REDIS_URL): shared counters for several API processes.
import { Redis } from 'ioredis'
import type { FastifyBaseLogger } from 'fastify'

export type { Redis }

export function openRedis(url: string, log?: FastifyBaseLogger): Redis {
  const redis = new Redis(url, {
    // Fail commands at once while disconnected instead of queueing them: a request must never hang
    // on a dead Redis (the caller decides what an unreachable Redis means).
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2000,
    commandTimeout: 2000,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
    lazyConnect: false,
    // Commands issued in the same tick (many requests in flight) share one write: fewer syscalls per check.
    enableAutoPipelining: true,
  })
  let lastError = ''
  redis.on('error', (err: Error) => {
    // ioredis reports every failed reconnect; log each distinct error once rather than flooding.
    if (err.message !== lastError) log?.warn({ err }, 'Redis connection error')
    lastError = err.message
  })
  redis.on('ready', () => { lastError = '' })
  return redis
}

/** Waits for the first connection, or gives up after timeoutMs (the app still starts; readiness says so). */
export async function waitForRedis(redis: Redis, timeoutMs: number): Promise<boolean> {
  if (redis.status === 'ready') return true
  return new Promise((resolve) => {
    const timer = setTimeout(() => { redis.off('ready', onReady); resolve(false) }, timeoutMs)
    const onReady = () => { clearTimeout(timer); resolve(true) }
    redis.once('ready', onReady)
  })
}
