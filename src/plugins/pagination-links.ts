// RFC 8288 Link headers (first, prev, next, last) on every paginated GET, beside the spec's `pagination`
// object, so that generic HTTP clients can walk a list. The targets are relative references: the
// request's own path and query with `page` replaced, which stay right behind any proxy.
import type { FastifyInstance } from 'fastify'

interface Pagination { page: number; limit: number; totalPages: number }

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
  return pagination !== null && typeof pagination === 'object' && 'totalPages' in pagination ? pagination as Pagination : undefined
}

export function paginationLinksPlugin(app: FastifyInstance) {
  // A callback hook (it awaits nothing): an async one costs a promise and a microtask turn per request.
  app.addHook('preSerialization', (req, reply, payload, done) => {
    const pagination = req.method === 'GET' ? paginationOf(payload) : undefined
    if (pagination) void reply.header('link', paginationLinks(req.url, pagination))
    done(null, payload)
  })
}
