// A bound on each caller's concurrent expensive requests (analytics, statistics, summaries, long series, deep or
// re-sorted pages), so that one caller's permitted reads cannot take every store connection from everyone else:
// past EXPENSIVE_REQUESTS_PER_CALLER at once, the next answers 429 with Retry-After at once, before it reaches
// the store. A cheap request is never counted nor refused here. On the embedded store an admitted expensive
// request's statements also wait behind every cheap request's (db/store-priority.ts).
//
// The count is per process, in memory (http/in-flight.ts): N processes admit up to N times the bound per caller
// (docs/authentication-and-limits.md).
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify'
import { callerKey } from '../auth/caller.ts'
import { runBehindOtherStoreWork } from '../db/store-priority.ts'
import { ApiError } from '../http/errors.ts'
import { inFlightCounter } from '../http/in-flight.ts'
import { EXPENSIVE_PAGE_OFFSET, type RouteCost } from '../http/route-policy.ts'

/** Whether a request of this route is expensive, or undefined for a route that never is. */
export function costRuleOf(route: RouteOptions): ((query: Record<string, unknown>) => boolean) | undefined {
  const cost: RouteCost | undefined = route.config?.cost
  if (cost === 'expensive') return () => true
  const query = route.schema?.querystring as { properties?: Record<string, { default?: unknown }> } | undefined
  const properties = query?.properties
  const own = typeof cost === 'function' ? cost : undefined
  if (!properties?.page || !properties.limit) return own
  // A page: deep, or sorted other than by the route's default (the default sort reads an index in order), or as
  // the route's own rule says (a filter that reads more than the page).
  const defaultSort = properties.sortBy?.default
  return (q) =>
    (Number(q.page) - 1) * Number(q.limit) >= EXPENSIVE_PAGE_OFFSET ||
    (q.sortBy !== undefined && q.sortBy !== defaultSort) ||
    own?.(q) === true
}

export function expensiveRequestsPlugin(app: FastifyInstance, { perCaller }: { perCaller: number }) {
  if (perCaller === 0) return
  const inFlight = inFlightCounter(perCaller)
  app.addHook('onRoute', (route: RouteOptions) => {
    const isExpensive = costRuleOf(route)
    if (!isExpensive) return
    const handler = route.handler
    // Around the handler: the slot is held exactly while the request's store work runs, whatever the client does.
    route.handler = async function (this: FastifyInstance, req: FastifyRequest, reply: FastifyReply) {
      if (!isExpensive(req.query as Record<string, unknown>)) return handler.call(this, req, reply)
      const key = req.caller ? callerKey(req.caller) : `ip:${req.ip}`
      if (!inFlight.tryAcquire(key)) {
        throw new ApiError(
          429,
          `Too many expensive requests at once: at most ${perCaller} per caller (analytics, statistics, long series, deep or sorted pages); retry when one has finished`,
          { limit: 'expensive', headers: { 'retry-after': '1' } },
        )
      }
      try {
        return await runBehindOtherStoreWork(() => handler.call(this, req, reply))
      } finally {
        inFlight.release(key)
      }
    }
  })
}
