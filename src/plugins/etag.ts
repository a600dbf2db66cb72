// ETag on GET responses and 304 for a matching If-None-Match (RFC 9110 §8.8.3, §13.1.2), so that an
// integrator polling a list or a reading page skips the body when nothing changed. The tag is weak: it
// names the JSON representation whatever its content coding (compression runs after this hook), and it
// leaves out the envelope's `timestamp`, the time of the response, which differs on every answer.
import { createHash } from 'node:crypto'
import type { FastifyInstance } from 'fastify'

const TIMESTAMP_FIELD = ',"timestamp":"'

/** Where the envelope's trailing `,"timestamp":"..."` starts (fast-json-stringify writes it last); -1 without one. */
function responseTimeAt(body: string): number {
  const at = body.lastIndexOf(TIMESTAMP_FIELD)
  if (at < 0) return -1
  const end = body.indexOf('"', at + TIMESTAMP_FIELD.length)
  return end === body.length - 2 && body.endsWith('}') ? at : -1
}

/** The body without the envelope's trailing `"timestamp":"..."`. */
export function withoutResponseTime(body: string): string {
  const at = responseTimeAt(body)
  return at < 0 ? body : body.slice(0, at) + '}'
}

/** The digest of withoutResponseTime(body), hashed in two pieces: joining them would copy the whole body first. */
export function weakEtagOf(body: string): string {
  const at = responseTimeAt(body)
  const hash = createHash('sha1')
  if (at < 0) hash.update(body)
  else hash.update(body.slice(0, at)).update('}')
  return `W/"${hash.digest('base64url')}"`
}

/** If-None-Match uses the weak comparison: W/"x" and "x" match; `*` matches any current representation. */
export function noneMatch(header: string | undefined, etag: string): boolean {
  if (!header) return false
  const opaque = etag.replace(/^W\//, '')
  return header.split(',').some((candidate) => {
    const tag = candidate.trim()
    return tag === '*' || tag.replace(/^W\//, '') === opaque
  })
}

export function etagPlugin(app: FastifyInstance) {
  // A callback hook (it awaits nothing): an async one costs a promise and a microtask turn per request.
  app.addHook('onSend', (req, reply, payload, done) => {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || reply.statusCode !== 200 || typeof payload !== 'string') return done(null, payload)
    const etag = weakEtagOf(payload)
    void reply.header('etag', etag)
    if (!noneMatch(req.headers['if-none-match'], etag)) return done(null, payload)
    void reply.code(304).removeHeader('content-type').removeHeader('content-length')
    done(null, '')
  })
}
