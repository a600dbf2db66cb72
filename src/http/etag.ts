// The ETag rules (RFC 9110 §8.8.3, §13.1.2): a weak tag of a JSON body without the envelope's trailing
// `timestamp` (the time of the response, which differs on every answer), and If-None-Match's weak comparison.
// plugins/etag.ts tags GET answers with them; envelope.ts sendJsonItems tags the pages the database writes.
import { createHash, hash } from 'node:crypto'

const TIMESTAMP_FIELD = ',"timestamp":"'
const CLOSING_BRACE = 0x7d

/** A JSON body as a string, or as its UTF-8 bytes (the database-written pages, envelope.ts sendJsonItems). */
type Body = string | Buffer

const endsWithBrace = (body: Body) =>
  typeof body === 'string' ? body.endsWith('}') : body[body.length - 1] === CLOSING_BRACE

/** Where the envelope's trailing `,"timestamp":"..."` starts (the envelope writes it last); -1 without one. */
function responseTimeAt(body: Body): number {
  const at = body.lastIndexOf(TIMESTAMP_FIELD)
  if (at < 0) return -1
  const end = body.indexOf('"', at + TIMESTAMP_FIELD.length)
  return end === body.length - 2 && endsWithBrace(body) ? at : -1
}

/** The body without the envelope's trailing `"timestamp":"..."`. */
export function withoutResponseTime(body: string): string {
  const at = responseTimeAt(body)
  return at < 0 ? body : body.slice(0, at) + '}'
}

/** Above this length a body is hashed in two pieces rather than joined first, which would copy it. */
const ONE_SHOT_MAX_LENGTH = 16_384

/**
 * The digest of withoutResponseTime(body), the same for a body as a string and as its bytes. Small string
 * bodies (most answers) take node:crypto's one-shot hash(), which allocates no Hash object: createHash's
 * object and its garbage were a visible share of a small response's CPU (docs/performance.md).
 */
export function weakEtagOf(body: Body): string {
  const at = responseTimeAt(body)
  if (typeof body === 'string' && body.length <= ONE_SHOT_MAX_LENGTH)
    return `W/"${hash('sha1', at < 0 ? body : body.slice(0, at) + '}', 'base64url')}"`
  const digest = createHash('sha1')
  if (at < 0) digest.update(body)
  else digest.update(typeof body === 'string' ? body.slice(0, at) : body.subarray(0, at)).update('}')
  return `W/"${digest.digest('base64url')}"`
}

/**
 * The tag of a body given in pieces that are already without the timestamp (envelope.ts sendJsonItems):
 * the same as weakEtagOf of their concatenation with a timestamp, without joining them.
 */
export function weakEtagOfParts(parts: string[]): string {
  const digest = createHash('sha1')
  for (const part of parts) digest.update(part)
  return `W/"${digest.digest('base64url')}"`
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
