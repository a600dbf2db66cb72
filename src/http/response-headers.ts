// The response headers the service sends, documented on every API operation's responses (OpenAPI
// `headers`), from what the route declares: rate-limited or not, GET or not, paginated or not.
import type { RouteOptions } from 'fastify'

const text = (description: string) => ({ type: 'string', description })
const integer = (description: string) => ({ type: 'integer', minimum: 0, description })

const REQUEST_ID = { 'X-Request-Id': text('The request id: the caller\'s own X-Request-Id when well-formed, else a new UUID; it is in every log line of the request') }
const RATE_LIMIT = {
  'X-RateLimit-Limit': integer('Requests allowed in the window closest to its limit (the IP window or the daily quota)'),
  'X-RateLimit-Remaining': integer('Requests left in that window'),
  'X-RateLimit-Reset': integer('Unix time in seconds when that window resets'),
  'RateLimit-Policy': text('Every limit that applied (IETF draft): "ip";q=100;w=900, "quota";q=10000;w=86400'),
  RateLimit: text('What is left of each (IETF draft): "ip";r=99;t=840, "quota";r=9999;t=52000'),
}
const RETRY_AFTER = { 'Retry-After': integer('Seconds to wait before retrying') }
const CHALLENGE = { 'WWW-Authenticate': text('RFC 6750 challenge: Bearer realm="livestock-api", with error="invalid_token" when a presented token is bad, expired or revoked') }
const LOCATION = { Location: text('Path of the created resource') }
const ETAG = { ETag: text('Weak validator of the body (without its timestamp): send it as If-None-Match to get 304 while unchanged') }
const LINK = { Link: text('RFC 8288 links to the first, prev, next and last pages (relative references)') }

type ResponseSchema = Record<string, unknown> & { headers?: Record<string, unknown>; properties?: Record<string, unknown> }

/** The headers of one response of a route. */
export function responseHeaders(status: string, route: { method: string; rateLimited: boolean; paginated: boolean }): Record<string, unknown> {
  const code = Number(status)
  return {
    ...REQUEST_ID,
    ...(route.rateLimited ? RATE_LIMIT : {}),
    ...(code === 429 || code === 503 ? RETRY_AFTER : {}),
    ...(code === 401 ? CHALLENGE : {}),
    ...(code === 201 ? LOCATION : {}),
    ...(code === 200 && route.method === 'GET' ? ETAG : {}),
    ...(code === 200 && route.paginated ? LINK : {}),
  }
}

/** onRoute hook: adds `headers` to every response the route documents. */
export function documentResponseHeaders(route: RouteOptions) {
  const responses = (route.schema as { response?: Record<string, ResponseSchema> } | undefined)?.response
  if (!responses) return
  const method = Array.isArray(route.method) ? route.method[0]! : route.method
  const rateLimited = route.config?.limit !== 'exempt'
  for (const [status, response] of Object.entries(responses)) {
    const paginated = response.properties?.pagination !== undefined
    responses[status] = { ...response, headers: { ...responseHeaders(status, { method, rateLimited, paginated }), ...response.headers } }
  }
}
