// Pages of every paginated GET. Their depth is bounded: a page may skip at most PAGE_OFFSET_MAX items (400 past
// it), since the store reads and throws away every item before the page. And RFC 8288 Link headers (first,
// prev, next, last) beside the spec's `pagination` object, so that generic HTTP clients can walk a list, within
// that bound. The targets are relative references: the request's own path and query with `page` replaced,
// which stay right behind any proxy. A list read by its sync cursor (`after=<ID>`, the event feeds) has no pages:
// its `next` continues after the page's last ID, and only while more remain.
import type { FastifyInstance, RouteOptions, preHandlerHookHandler, preSerializationHookHandler } from 'fastify'
import { validationFailed } from '../http/errors.ts'
import { nextLink } from '../http/next-link.ts'
import { addRouteHook, isRead } from '../http/route-hooks.ts'

interface Pagination {
  page: number
  limit: number
  totalPages: number
}

/** The deepest page of `limit` items whose offset is at most `offsetMax`. */
export function deepestPage(limit: number, offsetMax: number): number {
  return Math.floor(offsetMax / limit) + 1
}

/** The Link header of a page; `last` is the list's last page or the deepest page allowed, whichever comes first. */
export function paginationLinks(url: string, { page, limit, totalPages }: Pagination, offsetMax: number): string {
  const [path = '', query = ''] = url.split('?', 2)
  const link = (target: number, rel: string) => {
    const params = new URLSearchParams(query)
    params.set('page', String(target))
    return `<${path}?${params.toString()}>; rel="${rel}"`
  }
  const last = Math.max(1, Math.min(totalPages, deepestPage(limit, offsetMax)))
  return [
    link(1, 'first'),
    ...(page > 1 ? [link(Math.min(page - 1, last), 'prev')] : []),
    ...(page < last ? [link(page + 1, 'next')] : []),
    link(last, 'last'),
  ].join(', ')
}

/** The Link header of a page read by the cursor `after`: `next` after its last item's ID while more remain. */
export function cursorLinks(url: string, lastId: string | undefined, more: boolean): string | undefined {
  if (!more || lastId === undefined) return undefined
  return nextLink(url, 'after', lastId)
}

function lastIdOf(payload: unknown): string | undefined {
  const data = (payload as { data?: unknown }).data
  const last: unknown = Array.isArray(data) ? data.at(-1) : undefined
  return last !== null && typeof last === 'object' && 'ID' in last ? String(last.ID) : undefined
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

export function paginationLinksPlugin(app: FastifyInstance, { offsetMax }: { offsetMax: number }) {
  // Callback hooks (they await nothing): an async one costs a promise and a microtask turn per request.
  const boundDepth: preHandlerHookHandler = (req, _reply, done) => {
    const { page, limit } = req.query as { page?: number; limit?: number }
    if (page === undefined || limit === undefined || (page - 1) * limit <= offsetMax) return done()
    done(
      validationFailed([
        {
          field: 'query:page',
          message:
            `a page may skip at most ${offsetMax} items ((page - 1) × limit); ` +
            `with limit=${limit} the deepest page is ${deepestPage(limit, offsetMax)}: narrow the list with filters or another sort instead`,
        },
      ]),
    )
  }
  const addLinks: preSerializationHookHandler<unknown> = (req, reply, payload, done) => {
    const pagination = paginationOf(payload)
    if (pagination && (req.query as { after?: unknown }).after !== undefined) {
      // A cursor's answer is always its first page: more remain when there is a second.
      const next = cursorLinks(req.url, lastIdOf(payload), pagination.totalPages > 1)
      if (next) void reply.header('link', next)
    } else if (pagination) void reply.header('link', paginationLinks(req.url, pagination, offsetMax))
    done(null, payload)
  }
  const paginated = (route: RouteOptions) => isRead(route) && answersWithPages(route)
  addRouteHook(app, 'preHandler', boundDepth, paginated)
  addRouteHook(app, 'preSerialization', addLinks, paginated)
}
