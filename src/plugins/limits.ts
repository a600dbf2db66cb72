// IP rate limits and daily per-endpoint account quotas (the spec's Limits section), on
// rate-limiter-flexible. With REDIS_URL the counters live in Redis, shared by every process and kept across
// restarts: one atomic Lua script counts a request against its IP limit and its caller's quota together
// (ADMIT_SCRIPT, one round trip). Without it, they live in this process.
//
// Redis unreachable or hung mid-run: each Redis limiter has an in-memory twin (rate-limiter-flexible's
// insurance strategy) behind a circuit breaker (RedisBreaker). A Redis call that fails or times out opens
// the breaker and is answered by the twin; from then on the twins answer at once, with no wait on Redis,
// until a background probe finds Redis answering again. So the API keeps answering, limits still hold per
// process (N processes allow up to N times the limit meanwhile), and a hung Redis costs one command
// timeout to the requests already waiting on it, not to every request. Readiness reports Redis as down.
// @see https://github.com/animir/node-rate-limiter-flexible/wiki/Insurance-Strategy
import { createHash } from 'node:crypto'
import type { FastifyBaseLogger, FastifyContextConfig, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible'
import type { Config } from '../config.ts'
import { RedisBreaker, type Redis } from '../redis.ts'
import { LEASE_SHARE, LeasePool, type Counted } from './limit-leases.ts'
import type { Clock } from '../types.ts'
import { ApiError } from '../http/errors.ts'
import { callerKey, type Caller } from '../auth/caller.ts'
import {
  clientAddressKey,
  closestToLimit,
  dailyQuotaOf,
  describeWindow,
  ipBucketOf,
  ipLimitOf,
  tierLabel,
  utcDayWindow,
  type IpBucket,
  type LimitState,
} from '../auth/limits.rules.ts'

declare module 'fastify' {
  interface FastifyRequest {
    limitStates: LimitState[] | undefined
  }
  interface FastifyInstance {
    authFailures: AuthFailureGate
    loginFailures: LoginFailureGate
    emailChanges: EmailChangeGate
    quotas: LimitsGate
  }
}

/** Brakes credential guessing on POST /tokens: failed checks per client IP and presented integratorUID. */
export interface AuthFailureGate {
  /**
   * Counts a check of the integrator's credentials before it is made, as a failure until it `succeeded` (as
   * LoginFailureGate.attempt does, for the same reason). Throws 429 once this IP's failures (and checks in hand) for
   * this integratorUID in the window reach the bound.
   */
  attempt: (req: FastifyRequest, integratorUid: string) => Promise<CredentialAttempt>
}

export interface CredentialAttempt {
  /** The credentials were right: the attempt's place in the count is given back. */
  succeeded: () => Promise<void>
}

/** Bounds the confirmation mails an account has sent to addresses it named (docs/users.md#changing-the-e-mail-address). */
export interface EmailChangeGate {
  /** Counts one e-mail change request of the account; throws 429 once it has made its share of the day. */
  take: (uid: string) => Promise<void>
}

/** Brakes password guessing on POST /tokens/login per account, whatever the addresses it comes from. */
export interface LoginFailureGate {
  /**
   * Counts an attempt at the account's password before it is checked, as a failure until it `succeeded`: counted
   * only once it had failed, guesses sent at once all passed the count. Throws 429 once the account's failures (and
   * attempts in hand) in the window reach the bound.
   */
  attempt: (accountKey: string) => Promise<LoginAttempt>
}

export interface LoginAttempt extends CredentialAttempt {
  /** True when this attempt, should it fail, engages the brake. */
  engagesBrake: boolean
}

export interface LimitsDeps {
  config: Config
  redis: Redis | undefined
  clock: Clock
}

export interface LimitsGate {
  /**
   * Counts a request of a route that names its caller against the route's IP limit and, when the caller is
   * known, its daily quota for the endpoint; throws 429 when either is spent. Called by the access check.
   */
  admit: (req: FastifyRequest, caller: Caller | undefined) => Promise<void>
  /** How much of today's quota a caller has used on an endpoint (`GET /api/v1/animals/...`); limit 0 = unlimited. */
  quotaUsage: (caller: Caller, endpoint: string) => Promise<QuotaUsage>
}

export interface QuotaUsage {
  limit: number
  used: number
  /** Unix seconds: the next 00:00 UTC. */
  resetAt: number
}

export function limitsPlugin(app: FastifyInstance, { config, redis, clock }: LimitsDeps): LimitsGate {
  const { limits } = config
  const breaker = redis ? new RedisBreaker(redis, { log: app.log }) : undefined
  const admitCommand = redis ? defineAdmitCommand(redis) : undefined
  const leases = new LeasePool()
  // A Redis that comes back may have lost its counters: count there again from the next request.
  redis?.on('ready', () => leases.clear())
  const makeLimiter = (keyPrefix: string, points: number, duration: number): Limiter => {
    const prefixed = `${config.redisKeyPrefix}${keyPrefix}`
    const memory = new RateLimiterMemory({ keyPrefix: prefixed, points, duration })
    const common = { points, duration, memory, redisKey: (key: string) => `${prefixed}:${key}` }
    if (!redis || !breaker)
      return {
        ...common,
        get: (key) => memory.get(key),
        penalty: (...a) => memory.penalty(...a),
        reward: (...a) => memory.reward(...a),
      }
    const inRedis = new RateLimiterRedis({
      storeClient: redis,
      keyPrefix: prefixed,
      points,
      duration,
      rejectIfRedisNotReady: true,
    })
    return {
      ...common,
      get: (key) =>
        viaBreaker(
          breaker,
          () => inRedis.get(key),
          () => memory.get(key),
        ),
      penalty: (key, n) =>
        viaBreaker(
          breaker,
          () => inRedis.penalty(key, n),
          () => memory.penalty(key, n),
        ),
      reward: (key, n) =>
        viaBreaker(
          breaker,
          () => inRedis.reward(key, n),
          () => memory.reward(key, n),
        ),
    }
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
  const authFailureKey = (req: FastifyRequest, uid: string) =>
    `${clientAddressKey(req.ip)}:${createHash('sha256').update(uid).digest('base64url').slice(0, 22)}`
  const authFailures =
    limits.authFailuresMax > 0 ? makeLimiter('rl:auth-failures', limits.authFailuresMax, window) : undefined
  app.decorate('authFailures', {
    async attempt(req, uid) {
      const { giveBack } = await countAttempt(
        authFailures,
        authFailureKey(req, uid),
        'an authentication attempt',
        req.log,
        {
          limit: 'auth-failures',
          message:
            `Too many failed authentication attempts for this integratorUID from this address: ` +
            `${limits.authFailuresMax} per ${describeWindow(window)}`,
        },
      )
      return { succeeded: giveBack }
    },
  } satisfies AuthFailureGate)

  // Keyed by a digest of the e-mail asked for: known and unknown addresses alike, and no address in Redis.
  const loginKey = (email: string) => createHash('sha256').update(email.toLowerCase()).digest('base64url').slice(0, 22)
  const loginFailures =
    limits.loginFailuresMax > 0 ? makeLimiter('rl:login-failures', limits.loginFailuresMax, window) : undefined
  app.decorate('loginFailures', {
    async attempt(email) {
      const { count, giveBack } = await countAttempt(loginFailures, loginKey(email), 'a login attempt', app.log, {
        limit: 'login-failures',
        message: `Too many failed logins for this account: ${limits.loginFailuresMax} per ${describeWindow(window)}`,
      })
      return { engagesBrake: count === limits.loginFailuresMax, succeeded: giveBack }
    },
  } satisfies LoginFailureGate)

  const DAY_SECONDS = 86_400
  const emailChanges =
    limits.emailChangesMax > 0 ? makeLimiter('rl:email-changes', limits.emailChangesMax, DAY_SECONDS) : undefined
  app.decorate('emailChanges', {
    async take(uid) {
      await countAttempt(emailChanges, uid, 'an e-mail change request', app.log, {
        limit: 'email-changes',
        message: `Too many e-mail change requests for this account: ${limits.emailChangesMax} per ${describeWindow(DAY_SECONDS)}`,
      })
    },
  } satisfies EmailChangeGate)

  app.decorateRequest('limitStates', undefined)

  /** The IP bucket of the request's route and its limiter; undefined when exempt or unlimited. */
  const ipCheckOf = (req: FastifyRequest, config = req.routeOptions.config): Check | undefined => {
    const bucket = ipBucketOf(config.limit)
    const limiter = bucket && ipLimiters.get(bucket)
    if (!bucket || !limiter) return undefined
    const max = ipLimitOf(bucket, limits)
    return {
      limiter,
      key: clientAddressKey(req.ip),
      state: (res) => ({
        name: bucket,
        limit: max,
        remaining: Math.max(0, max - res.consumedPoints),
        resetAt: Math.ceil((Date.now() + res.msBeforeNext) / 1000),
        windowSeconds: window,
      }),
      refusalMessage: () =>
        `Rate limit exceeded: ${max} requests per ${describeWindow(window)} per IP address` +
        (bucket === 'ip' ? '' : ` on ${req.method} ${req.routeOptions.url}`),
      limitName: bucket,
    }
  }

  const quotaOf = (caller: Caller) =>
    dailyQuotaOf(
      caller.kind === 'integrator' ? { kind: 'integrator', tier: caller.integrator.tier } : { kind: 'user' },
      limits,
    )
  const quotaCheckOf = (req: FastifyRequest, caller: Caller): Check | undefined => {
    const limit = quotaOf(caller)
    if (limit === 0) return undefined
    const now = clock()
    const { day, resetAtSeconds, secondsLeft } = utcDayWindow(now)
    // A HEAD is the GET without its body: the same read, so the same daily budget.
    const endpoint = `${req.method === 'HEAD' ? 'GET' : req.method} ${req.routeOptions.url ?? req.url}`
    const whose = caller.kind === 'integrator' ? `the ${tierLabel(caller.integrator.tier)} tier` : 'user tokens'
    return {
      limiter: quotaLimiter(limit),
      key: `${callerKey(caller)}:${endpoint}:${day}`,
      customDuration: secondsLeft,
      state: (res) => ({
        name: 'quota',
        limit,
        remaining: Math.max(0, limit - res.consumedPoints),
        resetAt: resetAtSeconds,
        windowSeconds: 86_400,
      }),
      refusalMessage: () =>
        `Daily quota exceeded: ${limit} requests per day to ${endpoint} for ${whose}; it resets at 00:00 UTC`,
      refusalWaitMs: () => resetAtSeconds * 1000 - now,
      limitName: 'quota',
    }
  }

  /**
   * Counts the request against its IP bucket and, once the caller is known, its daily quota: both in one
   * Redis round trip. The IP limit is checked first; a request it refuses does not count against the quota.
   */
  const admit = (req: FastifyRequest, caller: Caller | undefined): Promise<void> => {
    const checks = [ipCheckOf(req), caller && quotaCheckOf(req, caller)].filter((check) => check !== undefined)
    return checks.length === 0 ? Promise.resolve() : admitChecks(req, checks)
  }
  const admitChecks = async (req: FastifyRequest, checks: Check[]): Promise<void> => {
    const results = await consumeInOrder(checks, admitCommand, breaker, leases, limits.limitLeaseMax)
    for (const [i, res] of results.entries()) {
      const check = checks[i]!
      req.limitStates = [...(req.limitStates ?? []), check.state(res)]
      if (res.consumedPoints > check.limiter.points) {
        throw tooManyRequests(check.limitName, check.refusalMessage(), check.refusalWaitMs?.() ?? res.msBeforeNext)
      }
    }
  }

  // A route that names its caller is counted by the access check (admit, once the caller is known), so that
  // the IP limit and the quota take one round trip; every other request is counted here, before anything else.
  // Instance hooks, so that a request for an unknown route counts too. Callbacks rather than async
  // functions: most requests pass them without waiting for anything, and an async hook costs a promise
  // and a microtask turn each time.
  app.addHook('onRequest', (req, _reply, done) => {
    const config = req.routeOptions.config
    const ipCheck = namesItsCaller(config) ? undefined : ipCheckOf(req, config)
    if (!ipCheck) return done()
    admitChecks(req, [ipCheck]).then(() => done(), done)
  })

  app.addHook('onSend', (req, reply, payload, done) => {
    if (req.limitStates) setRateLimitHeaders(reply, req.limitStates)
    done(null, payload)
  })

  const gate: LimitsGate = {
    admit,
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

/** Routes with an access rule other than public authenticate their caller in onRequest (plugins/access.ts). */
function namesItsCaller(config: FastifyContextConfig): boolean {
  const rule = config.access
  return rule !== undefined && rule !== 'public'
}

/** What the limits need of a limiter: a memory limiter, or a Redis one with its fallback. */
interface Limiter {
  points: number
  duration: number
  /** The Redis key of a key (rate-limiter-flexible's layout, so `get` reads what admit counted). */
  redisKey: (key: string) => string
  memory: RateLimiterMemory
  get: (key: string) => Promise<RateLimiterRes | null>
  penalty: (key: string, points?: number) => Promise<RateLimiterRes>
  reward: (key: string, points?: number) => Promise<RateLimiterRes>
}

/** One limit a request is counted against. */
interface Check {
  limiter: Limiter
  key: string
  /** Seconds the window lasts when this request opens it (the quota's window ends at 00:00 UTC). */
  customDuration?: number
  limitName: IpBucket | 'quota'
  state: (res: Counted) => LimitState
  refusalMessage: () => string
  refusalWaitMs?: () => number
}

// Counts each key in turn (the same steps as rate-limiter-flexible's script, so the keys stay readable by
// its `get`) and stops after the first key over its limit: a refused request counts against no later limit.
// A key with points left grants a lease (limit-leases.ts): up to its share of what is left, at most the
// lease maximum, at least one point. Keys: the counters in order; ARGV: limit, window seconds and lease
// maximum of each. Returns the counter after the call, ms left and points granted (0: refused), per key.
const ADMIT_SCRIPT = `
local out = {}
for i, key in ipairs(KEYS) do
  local limit = tonumber(ARGV[3 * i - 2])
  local seconds = tonumber(ARGV[3 * i - 1])
  local leaseMax = tonumber(ARGV[3 * i])
  redis.call('set', key, 0, 'EX', seconds, 'NX')
  local left = limit - tonumber(redis.call('get', key))
  local granted = 0
  if left > 0 then granted = math.min(leaseMax, math.max(1, math.floor(left / ${LEASE_SHARE}))) end
  local consumed = redis.call('incrby', key, math.max(granted, 1))
  local ttl = redis.call('pttl', key)
  if ttl == -1 then
    redis.call('expire', key, seconds)
    ttl = 1000 * seconds
  end
  out[#out + 1] = consumed
  out[#out + 1] = ttl
  out[#out + 1] = granted
  if granted == 0 then break end
end
return out`

interface AdmitCommand {
  livestockAdmit: (numberOfKeys: number, ...keysThenArgs: (string | number)[]) => Promise<number[]>
}

function defineAdmitCommand(redis: Redis): AdmitCommand {
  redis.defineCommand('livestockAdmit', { lua: ADMIT_SCRIPT })
  return redis as unknown as AdmitCommand
}

/**
 * Counts the checks in order: from this process's leases when they answer every check up to the first
 * refusal, otherwise in one Redis script (or the in-memory twins while Redis is away).
 */
async function consumeInOrder(
  checks: Check[],
  redis: AdmitCommand | undefined,
  breaker: RedisBreaker | undefined,
  leases: LeasePool,
  leaseMax: number,
): Promise<Counted[]> {
  const inMemory = async () => {
    const results: Counted[] = []
    for (const check of checks) {
      const res = await consume(check.limiter.memory, check.key, check.customDuration)
      results.push(res)
      if (res.consumedPoints > check.limiter.points) break
    }
    return results
  }
  if (!redis || !breaker) return inMemory()
  const now = Date.now()
  const keys = checks.map((check) => check.limiter.redisKey(check.key))
  const local = answeredLocally(keys, leases, now)
  if (local) return local.map((key) => leases.spend(key, now))
  return viaBreaker(
    breaker,
    async () => {
      const args = checks.flatMap((check) => [
        check.limiter.points,
        check.customDuration ?? check.limiter.duration,
        leaseMax,
      ])
      const flat = await redis.livestockAdmit(keys.length, ...keys, ...args)
      const answeredAt = Date.now()
      const results: Counted[] = []
      for (let i = 0; i < flat.length; i += 3) {
        const check = checks[i / 3]!
        results.push(
          leases.record(
            keys[i / 3]!,
            check.limiter.points,
            { consumed: flat[i]!, ttlMs: Math.max(0, flat[i + 1]!), granted: flat[i + 2]! },
            answeredAt,
          ),
        )
      }
      return results
    },
    inMemory,
  )
}

/** The keys up to the first refusal, when leases answer every one of them; undefined when Redis must be asked. */
function answeredLocally(keys: string[], leases: LeasePool, now: number): string[] | undefined {
  for (const [i, key] of keys.entries()) {
    const answer = leases.peek(key, now)
    if (answer === 'ask') return undefined
    if (answer === 'refuse') return keys.slice(0, i + 1)
  }
  return keys
}

/**
 * Runs `inRedis` while the breaker is closed and `inMemory` while it is open. A call still waiting on Redis
 * when the breaker opens (another call timed out first; commands queue behind each other on a hung
 * connection) is answered in memory at once.
 */
async function viaBreaker<T>(breaker: RedisBreaker, inRedis: () => Promise<T>, inMemory: () => Promise<T>): Promise<T> {
  if (breaker.isOpen) return inMemory()
  const attempt = inRedis()
  let stopWaiting = () => {}
  const breakerOpened = new Promise<undefined>((resolve) => {
    stopWaiting = breaker.onOpen(() => resolve(undefined))
  })
  let answered: { value: T } | undefined
  try {
    answered = await Promise.race([attempt.then((value) => ({ value })), breakerOpened])
  } catch (err) {
    // A spent limit is an answer (rate-limiter-flexible rejects with its RateLimiterRes), not a failure.
    if (err instanceof RateLimiterRes) throw err
    breaker.trip(err)
    return inMemory()
  } finally {
    stopWaiting()
  }
  if (answered) return answered.value
  attempt.catch(() => {}) // it times out later, unheeded
  return inMemory()
}

/** Counts one request; a spent limit resolves too (consumedPoints above the limit), it does not throw. */
async function consume(limiter: RateLimiterAbstract, key: string, customDuration?: number): Promise<RateLimiterRes> {
  try {
    return await limiter.consume(key, 1, customDuration ? { customDuration } : undefined)
  } catch (err) {
    if (err instanceof RateLimiterRes) return err
    throw err
  }
}

/**
 * Counts one attempt before what it guards is decided, so that attempts sent at once are all counted first, and
 * refuses with 429 once the count passes the limiter's points. `count` is the attempt's place in the window;
 * `giveBack` returns its point (a right password or secret costs nothing). Without a limiter (the limit is off), or
 * when counting fails (logged), nothing is counted and nothing refused.
 */
async function countAttempt(
  limiter: Limiter | undefined,
  key: string,
  what: string,
  log: FastifyBaseLogger,
  refusal: { limit: string; message: string },
): Promise<{ count: number | undefined; giveBack: () => Promise<void> }> {
  const res = await limiter?.penalty(key, 1).catch((err: unknown) => {
    log.warn({ err }, `counting ${what} failed`)
    return null
  })
  if (res && res.consumedPoints > limiter!.points)
    throw tooManyRequests(refusal.limit, refusal.message, res.msBeforeNext)
  return {
    count: res?.consumedPoints,
    giveBack: async () => {
      if (!res) return
      await limiter?.reward(key, 1).catch((err: unknown) => log.warn({ err }, `giving back ${what} failed`))
    },
  }
}

function tooManyRequests(limit: string, message: string, msBeforeNext: number): ApiError {
  return new ApiError(429, message, {
    limit,
    headers: { 'retry-after': String(Math.max(1, Math.ceil(msBeforeNext / 1000))) },
  })
}

/**
 * X-RateLimit-* report the window closest to its limit (docs/decisions.md); the IETF RateLimit-Policy and
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
  void reply.header(
    'ratelimit',
    states.map((s) => `"${s.name}";r=${s.remaining};t=${Math.max(0, s.resetAt - nowSeconds)}`).join(', '),
  )
}
