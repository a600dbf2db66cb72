// ETag on GET responses and 304 for a matching If-None-Match (RFC 9110 §8.8.3, §13.1.2), so that an
// integrator polling a list or a reading page skips the body when nothing changed. The tag is weak: it
// names the JSON representation whatever its content coding (compression runs after this hook), and it
// leaves out the envelope's `timestamp`, the time of the response, which differs on every answer.
import { Readable } from 'node:stream'
import type { FastifyInstance, onSendHookHandler } from 'fastify'
import { noneMatch, weakEtagOf } from '../http/etag.ts'
import { addRouteHook, isRead } from '../http/route-hooks.ts'

/** On GET (and HEAD) routes, unless the route's config says `etag: false`. */
export function etagPlugin(app: FastifyInstance) {
  // A callback hook (it awaits nothing): an async one costs a promise and a microtask turn per request.
  const tagOrNotModified: onSendHookHandler = (req, reply, payload, done) => {
    if (reply.statusCode !== 200) return done(null, payload)
    // A streamed body (a page the database wrote, envelope.ts sendJsonItems) comes with its tag.
    const etag = typeof payload === 'string' || Buffer.isBuffer(payload) ? weakEtagOf(payload) : reply.getHeader('etag')
    if (typeof etag !== 'string') return done(null, payload)
    void reply.header('etag', etag)
    if (!noneMatch(req.headers['if-none-match'], etag)) return done(null, payload)
    if (payload instanceof Readable) payload.destroy()
    void reply.code(304).removeHeader('content-type').removeHeader('content-length')
    done(null, '')
  }
  addRouteHook(app, 'onSend', tagOrNotModified, (route) => isRead(route) && route.config?.etag !== false, {
    first: true,
  })
}
