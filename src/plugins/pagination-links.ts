// RFC 8288 Link headers (first, prev, next, last) on every paginated GET, beside the spec's `pagination`
// object, so that generic HTTP clients can walk a list. The targets are relative references: the
// request's own path and query with `page` replaced, which stay right behind any proxy.
import type { FastifyInstance, RouteOptions, preSerializationHookHandler } from 'fastify'
import { addRouteHook, isRead } from '../http/route-hooks.ts'

interface Pagination {
  page: number
  limit: number
  totalPages: number
}

export function paginationLinks(url: string, { page, totalPages }: Pagination): string {
  const [path = '', query = ''] = url.split('?', 2)
  const link = (target: number, rel: string) => {
    const params = new URLSearchParams(query)
    params.set('page', String(target))
    return `<${path}?${params.toString()}>; rel="${rel}"`
  }
  const last = Math.max(1, totalPages)
  return [
    link(1, 'first'),
    ...(page > 1 ? [link(Math.min(page - 1, last), 'prev')] : []),
    ...(page < last ? [link(page + 1, 'next')] : []),
    link(last, 'last'),
  ].join(', ')
}

function paginationOf(payload: unknown): Pagination | undefined {
  if (payload === null || typeof payload !== 'object' || !('pagination' in payload)) return undefined
  const pagination = payload.pagination
  return pagination !== null && typeof pagination === 'object' && 'totalPages' in pagination
    ? (pagination as Pagination)
    : undefined
}

/** A route whose 200 answer is a page (http/envelope.ts PageEnvelope). */
function answersWithPages(route: RouteOptions): boolean {
  const ok = (route.schema?.response as Record<string, { properties?: Record<string, unknown> }> | undefined)?.[200]
  return ok?.properties?.pagination !== undefined
}

export function paginationLinksPlugin(app: FastifyInstance) {
  // A callback hook (it awaits nothing): an async one costs a promise and a microtask turn per request.
  const addLinks: preSerializationHookHandler<unknown> = (req, reply, payload, done) => {
    const pagination = paginationOf(payload)
    if (pagination) void reply.header('link', paginationLinks(req.url, pagination))
    done(null, payload)
  }
  addRouteHook(app, 'preSerialization', addLinks, (route) => isRead(route) && answersWithPages(route))
}
