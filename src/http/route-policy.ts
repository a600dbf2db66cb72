// What a route declares about itself in its `config`: who may call it, which rate-limit bucket it
// counts against, whether it honours Idempotency-Key, what it costs. One onRoute hook per concern reads it
// (plugins/access.ts, plugins/limits.ts, plugins/idempotency.ts, plugins/expensive-requests.ts), so no plugin
// keys behaviour by URL.

/** Every route lives under this prefix (docs/decisions.md). */
export const API_PREFIX = '/api/v1'

/**
 * The longest path segment the router reads (longer is a 414). Ids and MACs in paths accept any string
 * up to it, so that one naming nothing of the account's is a 404 whatever its form (docs/decisions.md).
 */
export const MAX_PATH_SEGMENT = 200

/**
 * - public: anyone, with or without a token
 * - bearer: any valid access token
 * - userToken: a user token (acting on its own account)
 * - integratorToken: an integrator token (acting on its own behalf)
 * - self: the user token of :userId itself (other users and integrators never)
 * - own: the owner of :userId, or an integrator linked to it (write/delete permission for writes/deletes)
 * - sensorData: /sensordata*: an integrator token on Pro or Enterprise, linked to :userId; user tokens never
 * - admin: a user token with the Admin flag
 * - bdUser: a user token with the BDUser flag
 */
export type AccessRule =
  'public' | 'bearer' | 'userToken' | 'integratorToken' | 'self' | 'own' | 'sensorData' | 'admin' | 'bdUser'

export const ACCESS_RULES: readonly AccessRule[] = [
  'public',
  'bearer',
  'userToken',
  'integratorToken',
  'self',
  'own',
  'sensorData',
  'admin',
  'bdUser',
]

/**
 * The per-IP rate-limit bucket: the spec gives POST /tokens and POST /tokens/refresh buckets of their own;
 * POST /tokens/login gets one too (a brake on password guessing). `exempt`: liveness, readiness and metrics.
 */
export type LimitClass = 'ip' | 'tokens' | 'refresh' | 'login' | 'exempt'

/**
 * What a request costs the store. `expensive`: always (analytics, statistics, summaries); a function: decided per
 * request from its validated query (a long series). A route answering with pages needs none: its page depth and
 * sort decide (plugins/expensive-requests.ts); a function it declares is asked besides (a filter that reads more
 * than the page). Expensive requests count against their caller's bound on them.
 */
/** A page at least this deep (its offset, in items) is expensive: the store reads and skips every item before it. */
export const EXPENSIVE_PAGE_OFFSET = 1000

export type RouteCost = 'expensive' | ((query: Record<string, unknown>) => boolean)

export interface RoutePolicy {
  access?: AccessRule
  /** Default `ip`. */
  limit?: LimitClass
  /** The route creates something: a repeated Idempotency-Key replays the first response (plugins/idempotency.ts). */
  idempotent?: boolean
  /**
   * The route can change who may call (revocation, links, account status, password): its response waits
   * until this process's caller cache has seen the change, so the caller's next request meets it.
   */
  changesAccess?: boolean
  cost?: RouteCost
  /** false: the answer describes the instant it is made (liveness, readiness), so it carries no ETag (plugins/etag.ts). */
  etag?: false
  /** Load the animal of :userId/:animalMac onto req.pathAnimal before the handler (plugins/path-animal.ts). */
  animal?: 'path'
}

declare module 'fastify' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface FastifyContextConfig extends RoutePolicy {}
}
