// Optional Redis connection (REDIS_URL): shared counters for several API processes.
import { Redis } from 'ioredis'
import type { FastifyBaseLogger } from 'fastify'

export type { Redis }

export function openRedis(url: string, log?: FastifyBaseLogger, commandTimeoutMs = 500): Redis {
  const redis = new Redis(url, {
    // Fail commands at once while disconnected instead of queueing them: a request must never hang
    // on a dead Redis (the caller decides what an unreachable Redis means).
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2000,
    // A connected but hung Redis answers nothing: a command fails after this (see RedisBreaker).
    commandTimeout: commandTimeoutMs,
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
  redis.on('ready', () => {
    lastError = ''
  })
  return redis
}

/** Waits for the first connection, or gives up after timeoutMs (the app still starts; readiness says so). */
export async function waitForRedis(redis: Redis, timeoutMs: number): Promise<boolean> {
  if (redis.status === 'ready') return true
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      redis.off('ready', onReady)
      resolve(false)
    }, timeoutMs)
    const onReady = () => {
      clearTimeout(timer)
      resolve(true)
    }
    redis.once('ready', onReady)
  })
}

/**
 * A circuit breaker in front of Redis. A command that fails or times out opens it; while it is open,
 * callers use their in-process fallback at once instead of each waiting out the command timeout of a hung
 * Redis, and callers still waiting on Redis when it opens are told (onOpen) so that they stop waiting too.
 * Meanwhile a PING every probeIntervalMs, in the background, tests Redis: its first answer closes the
 * breaker, as does a new connection becoming ready.
 */
export class RedisBreaker {
  readonly #redis: Redis
  readonly #probeIntervalMs: number
  readonly #log: FastifyBaseLogger | undefined
  #open = false
  #probe: NodeJS.Timeout | undefined
  readonly #waiting = new Set<() => void>()

  constructor(redis: Redis, options: { probeIntervalMs?: number; log?: FastifyBaseLogger } = {}) {
    this.#redis = redis
    this.#probeIntervalMs = options.probeIntervalMs ?? 1000
    this.#log = options.log
    redis.on('ready', () => this.#close())
  }

  /** True while Redis is taken for unavailable: use the fallback. */
  get isOpen(): boolean {
    return this.#open
  }

  /** Calls `listener` when the breaker next opens; returns the function that cancels that. */
  onOpen(listener: () => void): () => void {
    this.#waiting.add(listener)
    return () => this.#waiting.delete(listener)
  }

  /** A command failed or timed out: use the fallback until Redis answers again. */
  trip(err: unknown): void {
    if (this.#open) return
    this.#open = true
    this.#log?.warn({ err }, 'Redis failed: using in-process limits until it answers again')
    for (const listener of this.#waiting) listener()
    this.#waiting.clear()
    this.#scheduleProbe()
  }

  #scheduleProbe() {
    this.#probe = setTimeout(() => void this.#runProbe(), this.#probeIntervalMs)
    this.#probe.unref()
  }

  async #runProbe() {
    // 'end': the client was disconnected for good (the service is stopping).
    if (!this.#open || this.#redis.status === 'end') return
    try {
      await this.#redis.ping()
      this.#close()
    } catch {
      this.#scheduleProbe()
    }
  }

  #close() {
    clearTimeout(this.#probe)
    if (!this.#open) return
    this.#open = false
    this.#log?.info('Redis answers again: limits count in Redis again')
  }
}
