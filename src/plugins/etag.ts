// ETag on GET responses and 304 for a matching If-None-Match (RFC 9110 §8.8.3, §13.1.2), so that an
// integrator polling a list or a reading page skips the body when nothing changed. The tag is weak: it
// names the JSON representation whatever its content coding (compression runs after this hook), and it
// leaves out the envelope's `timestamp`, the time of the response, which differs on every answer.
import { createHash } from 'node:crypto'
import type { FastifyInstance } from 'fastify'

const TIMESTAMP_FIELD = ',"timestamp":"'

/** The body without the envelope's trailing `"timestamp":"..."` (fast-json-stringify writes it last). */
export function withoutResponseTime(body: string): string {
  const at = body.lastIndexOf(TIMESTAMP_FIELD)
  if (at < 0) return body
  const end = body.indexOf('"', at + TIMESTAMP_FIELD.length)
  return end === body.length - 2 && body.endsWith('}') ? body.slice(0, at) + '}' : body
}

export function weakEtagOf(body: string): string {
  return `W/"${createHash('sha1').update(withoutResponseTime(body)).digest('base64url')}"`
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
  app.addHook('onSend', async (req, reply, payload) => {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || reply.statusCode !== 200 || typeof payload !== 'string') return payload
    const etag = weakEtagOf(payload)
    void reply.header('etag', etag)
    if (!noneMatch(req.headers['if-none-match'], etag)) return payload
    void reply.code(304).removeHeader('content-type').removeHeader('content-length')
    return ''
  })
}
