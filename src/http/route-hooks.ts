// Hooks that only some routes need are added to those routes when they are registered, rather than as
// instance hooks that run on every request and return early on most: each hook a request passes through
// costs a call of Fastify's hook runner, and an async one a promise too.
import type { FastifyInstance, RouteOptions } from 'fastify'

type HookName =
  'onRequest' | 'preParsing' | 'preValidation' | 'preHandler' | 'preSerialization' | 'onSend' | 'onResponse'

/** A route's hooks of one kind as a list (a route may give none, one, or a list). */
export function hooksOf<T>(hooks: T | T[] | undefined): T[] {
  return hooks === undefined ? [] : Array.isArray(hooks) ? hooks : [hooks]
}

/**
 * Adds `hook` to every route registered from now on in `app`'s scope for which `applies(route)` holds:
 * after the route's own hooks of that kind, or before them with `first`. Route hooks run after instance
 * hooks. (A GET route's HEAD twin arrives with Fastify's own onSend hook, which drops the body: an onSend
 * hook that reads the body must come first.)
 */
export function addRouteHook<Name extends HookName>(
  app: FastifyInstance,
  name: Name,
  hook: NonNullable<RouteOptions[Name]> extends (infer H)[] | infer H ? H : never,
  applies: (route: RouteOptions) => boolean = () => true,
  { first = false } = {},
) {
  app.addHook('onRoute', (route: RouteOptions) => {
    if (!applies(route)) return
    const hooks: unknown[] = hooksOf<unknown>(route[name])
    ;(route as Record<HookName, unknown>)[name] = first ? [hook, ...hooks] : [...hooks, hook]
  })
}

/** A GET route (Fastify registers its HEAD twin separately, with the method HEAD). */
export const isRead = (route: RouteOptions) => route.method === 'GET' || route.method === 'HEAD'
