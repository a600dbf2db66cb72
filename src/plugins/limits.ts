// IP rate limits and daily per-endpoint account quotas (the spec's Limits section), on
// rate-limiter-flexible. With REDIS_URL the counters live in Redis (one atomic Lua script per check),
// shared by every process and kept across restarts. Without it, they live in this process.
//
// Redis unreachable or hung mid-run: each Redis limiter has an in-memory twin (rate-limiter-flexible's
// insurance strategy) behind a circuit breaker (RedisBreaker). A Redis call that fails or times out opens
// the breaker and is answered by the twin; from then on the twins answer at once, with no wait on Redis,
// until a background probe finds Redis answering again. So the API keeps answering, limits still hold per
// process (N processes allow up to N times the limit meanwhile), and a hung Redis costs one command
// timeout to the requests already waiting on it, not to every request. Readiness reports Redis as down.
// @see https://github.com/animir/node-rate-limiter-flexible/wiki/Insurance-Strategy
import { createHash } from 'node:crypto'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible'
import type { Config } from '../config.ts'
import { RedisBreaker, type Redis } from '../redis.ts'
import type { Clock } from '../types.ts'
import { ApiError } from '../http/errors.ts'
import { callerKey, type Caller } from '../auth/caller.ts'
import {
  closestToLimit, dailyQuotaOf, describeWindow, ipBucketOf, ipLimitOf, tierLabel, utcDayWindow, type IpBucket, type LimitState,
} from './limits.rules.ts'

declare module 'fastify' {
  interface FastifyRequest {
    limitStates: LimitState[] | undefined
  }
  interface FastifyInstance {
    authFailures: AuthFailureGate
    quotas: QuotaGate
  }
}

/** Brakes credential guessing on POST /tokens: failed checks per client IP and presented integratorUID. */
export interface AuthFailureGate {
  /** Throws 429 once this IP has failed too often for this integratorUID in the window. */
  assertAllowed: (req: FastifyRequest, integratorUid: string) => Promise<void>
  /** Counts one failed check. */
  recordFailure: (req: FastifyRequest, integratorUid: string) => Promise<void>
}

export interface LimitsDeps {
  config: Config
  redis: Redis | undefined
  clock: Clock
}

export interface QuotaGate {
  /** Counts one request of an authenticated caller against its daily quota for this endpoint; throws 429 when spent. */
  consumeQuota: (req: FastifyRequest, caller: Caller) => Promise<void>
  /** How much of today's quota a caller has used on an endpoint (`GET /api/v1/animals/...`); limit 0 = unlimited. */
  quotaUsage: (caller: Caller, endpoint: string) => Promise<QuotaUsage>
}

export interface QuotaUsage {
  limit: number
  used: number
  /** Unix seconds: the next 00:00 UTC. */
  resetAt: number
}

export function limitsPlugin(app: FastifyInstance, { config, redis, clock }: LimitsDeps): QuotaGate {
  const { limits } = config
  const breaker = redis ? new RedisBreaker(redis, { log: app.log }) : undefined
  const makeLimiter = (keyPrefix: string, points: number, duration: number): Limiter => {
    const prefixed = `${config.redisKeyPrefix}${keyPrefix}`
    const memory = new RateLimiterMemory({ keyPrefix: prefixed, points, duration })
    if (!redis || !breaker) return memory
    const inRedis = new RateLimiterRedis({ storeClient: redis, keyPrefix: prefixed, points, duration, rejectIfRedisNotReady: true })
    return withFallback(inRedis, memory, breaker)
  }

  const window = limits.rateLimitWindowSeconds
  const ipLimiters = new Map<IpBucket, Limiter>()
  for (const bucket of ['tokens', 'refresh', 'login', 'ip'] as const) {
    const max = ipLimitOf(bucket, limits)
    if (max > 0) ipLimiters.set(bucket, makeLimiter(`rl:${bucket}`, max, window))
  }
  // One quota limiter per distinct daily limit; the key carries caller, endpoint and UTC day.
  const quotaLimiters = new Map<number, Limiter>()
  const quotaLimiter = (points: number) => {
    let limiter = quotaLimiters.get(points)
    if (!limiter) {
      limiter = makeLimiter('quota', points, 86_400)
      quotaLimiters.set(points, limiter)
    }
    return limiter
  }

  // Keyed by IP and a digest of the UID: a user who sees an integrator's UID cannot lock it out for others,
  // and the UID itself never reaches Redis or a log.
  const authFailureKey = (req: FastifyRequest, uid: string) => `${req.ip}:${createHash('sha256').update(uid).digest('base64url').slice(0, 22)}`
  const authFailures = limits.authFailuresMax > 0 ? makeLimiter('rl:auth-failures', limits.authFailuresMax, window) : undefined
  app.decorate('authFailures', {
    async assertAllowed(req, uid) {
      const res = await authFailures?.get(authFailureKey(req, uid)).catch(() => null)
      if (res && res.consumedPoints >= limits.authFailuresMax) {
        throw tooManyRequests('auth-failures', `Too many failed authentication attempts for this integratorUID from this address: ` +
          `${limits.authFailuresMax} per ${describeWindow(window)}`, res.msBeforeNext)
      }
    },
    async recordFailure(req, uid) {
      await authFailures?.penalty(authFailureKey(req, uid), 1).catch((err: unknown) => req.log.warn({ err }, 'counting a failed authentication failed'))
    },
  } satisfies AuthFailureGate)

  app.decorateRequest('limitStates', undefined)
  const record = (req: FastifyRequest, state: LimitState) => {
    req.limitStates = [...(req.limitStates ?? []), state]
  }

  app.addHook('onRequest', async (req) => {
    const bucket = ipBucketOf(req.routeOptions.config.limit)
    const limiter = bucket && ipLimiters.get(bucket)
    if (!bucket || !limiter) return
    const max = ipLimitOf(bucket, limits)
    const { allowed, res } = await consume(limiter, req.ip)
    const state: LimitState = {
      name: bucket, limit: max, remaining: res.remainingPoints,
      resetAt: Math.ceil((Date.now() + res.msBeforeNext) / 1000), windowSeconds: window,
    }
    record(req, state)
    if (!allowed) {
      const where = bucket === 'ip' ? '' : ` on ${req.method} ${req.routeOptions.url}`
      throw tooManyRequests(bucket, `Rate limit exceeded: ${max} requests per ${describeWindow(window)} per IP address${where}`, res.msBeforeNext)
    }
  })

  app.addHook('onSend', async (req: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    if (req.limitStates) setRateLimitHeaders(reply, req.limitStates)
    return payload
  })

  const quotaOf = (caller: Caller) =>
    dailyQuotaOf(caller.kind === 'integrator' ? { kind: 'integrator', tier: caller.integrator.tier } : { kind: 'user' }, limits)
  const gate: QuotaGate = {
    async consumeQuota(req, caller) {
      const limit = quotaOf(caller)
      if (limit === 0) return
      const now = clock()
      const { day, resetAtSeconds, secondsLeft } = utcDayWindow(now)
      const endpoint = `${req.method} ${req.routeOptions.url ?? req.url}`
      const { allowed, res } = await consume(quotaLimiter(limit), `${callerKey(caller)}:${endpoint}:${day}`, secondsLeft)
      record(req, { name: 'quota', limit, remaining: res.remainingPoints, resetAt: resetAtSeconds, windowSeconds: 86_400 })
      if (!allowed) {
        const whose = caller.kind === 'integrator' ? `the ${tierLabel(caller.integrator.tier)} tier` : 'user tokens'
        throw tooManyRequests('quota', `Daily quota exceeded: ${limit} requests per day to ${endpoint} for ${whose}; it resets at 00:00 UTC`,
          resetAtSeconds * 1000 - now)
      }
    },
    async quotaUsage(caller, endpoint) {
      const limit = quotaOf(caller)
      const { day, resetAtSeconds } = utcDayWindow(clock())
      if (limit === 0) return { limit, used: 0, resetAt: resetAtSeconds }
      const res = await quotaLimiter(limit).get(`${callerKey(caller)}:${endpoint}:${day}`)
      return { limit, used: Math.min(limit, res?.consumedPoints ?? 0), resetAt: resetAtSeconds }
    },
  }
  app.decorate('quotas', gate)
  return gate
}

/** What the limits need of a limiter: a memory limiter, or a Redis one with its fallback. */
interface Limiter {
  consume: (key: string, points?: number, options?: { customDuration?: number }) => Promise<RateLimiterRes>
  get: (key: string) => Promise<RateLimiterRes | null>
  penalty: (key: string, points?: number) => Promise<RateLimiterRes>
}

/**
 * A limiter that counts in Redis while the breaker is closed, and in its in-memory twin while it is open.
 * A call still waiting on Redis when the breaker opens (another call timed out first; commands queue behind
 * each other on a hung connection) is answered by the twin at once.
 */
function withFallback(inRedis: RateLimiterRedis, memory: RateLimiterMemory, breaker: RedisBreaker): Limiter {
  const run = async <T>(operation: (limiter: RateLimiterAbstract) => Promise<T>): Promise<T> => {
    if (breaker.isOpen) return operation(memory)
    const attempt = operation(inRedis)
    let stopWaiting = () => {}
    const breakerOpened = new Promise<undefined>((resolve) => { stopWaiting = breaker.onOpen(() => resolve(undefined)) })
    let answered: { value: T } | undefined
    try {
      answered = await Promise.race([attempt.then((value) => ({ value })), breakerOpened])
    } catch (err) {
      // A spent limit is an answer (rate-limiter-flexible rejects with its RateLimiterRes), not a failure.
      if (err instanceof RateLimiterRes) throw err
      breaker.trip(err)
      return operation(memory)
    } finally {
      stopWaiting()
    }
    if (answered) return answered.value
    attempt.catch(() => {}) // it times out later, unheeded
    return operation(memory)
  }
  return {
    consume: (key, points, options) => run((limiter) => limiter.consume(key, points, options)),
    get: (key) => run((limiter) => limiter.get(key)),
    penalty: (key, points) => run((limiter) => limiter.penalty(key, points)),
  }
}

async function consume(limiter: Limiter, key: string, customDuration?: number): Promise<{ allowed: boolean; res: RateLimiterRes }> {
  try {
    return { allowed: true, res: await limiter.consume(key, 1, customDuration ? { customDuration } : undefined) }
  } catch (err) {
    if (err instanceof RateLimiterRes) return { allowed: false, res: err }
    throw err
  }
}

function tooManyRequests(limit: string, message: string, msBeforeNext: number): ApiError {
  return new ApiError(429, message, { limit, headers: { 'retry-after': String(Math.max(1, Math.ceil(msBeforeNext / 1000))) } })
}

/**
 * X-RateLimit-* report the window closest to its limit (decisions.md); the IETF RateLimit-Policy and
 * RateLimit fields list every limit that applied.
 * @see https://datatracker.ietf.org/doc/draft-ietf-httpapi-ratelimit-headers/
 */
function setRateLimitHeaders(reply: FastifyReply, states: LimitState[]) {
  const closest = closestToLimit(states)
  if (!closest) return
  const nowSeconds = Math.floor(Date.now() / 1000)
  void reply.header('x-ratelimit-limit', String(closest.limit))
  void reply.header('x-ratelimit-remaining', String(closest.remaining))
  void reply.header('x-ratelimit-reset', String(closest.resetAt))
  void reply.header('ratelimit-policy', states.map((s) => `"${s.name}";q=${s.limit};w=${s.windowSeconds}`).join(', '))
  void reply.header('ratelimit', states.map((s) => `"${s.name}";r=${s.remaining};t=${Math.max(0, s.resetAt - nowSeconds)}`).join(', '))
}
