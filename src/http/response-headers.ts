// The response headers the service sends, documented on every API operation's responses (OpenAPI
// `headers`), from what the route declares: rate-limited or not, GET or not, paginated or not. Each header
// is declared once, as a component (`#/components/headers/<name>`) that the responses reference.
import type { RouteOptions } from 'fastify'

interface HeaderObject {
  description: string
  schema: Record<string, unknown>
}

const header = (description: string, schema: Record<string, unknown>): HeaderObject => ({ description, schema })
/** A count or a Unix time: non-negative, within what a JSON number holds exactly. */
const whole = (example: number, maximum = Number.MAX_SAFE_INTEGER) => ({
  type: 'integer',
  format: maximum <= 2 ** 31 - 1 ? 'int32' : 'int64',
  minimum: 0,
  maximum,
  examples: [example],
})

/** `"name";key=value;key=value` items of an IETF RateLimit field, comma-separated. */
const rateLimitItems = (keys: string) => `^"[a-z-]{1,20}";${keys}(, "[a-z-]{1,20}";${keys})*$`
const RELATION = '<[^<>]+>; rel="(first|prev|next|last)"'

/**
 * Every header an API response may carry, by its name. A request line (path and query) is at most
 * 16 KiB (Node's header limit), so a Link field's four references stay under 64 KiB.
 */
export const RESPONSE_HEADERS = {
  'X-Request-Id': header(
    "The request id: the caller's own X-Request-Id when well-formed, else a new UUID; it is in every log line of the request",
    {
      type: 'string',
      pattern: '^[A-Za-z0-9._:-]{1,128}$',
      maxLength: 128,
      examples: ['3f1c9a52-7d4e-4b8a-9c61-0e2f5d8b7a14'],
    },
  ),
  'X-RateLimit-Limit': header(
    'Requests allowed in the window closest to its limit (the IP window or the daily quota)',
    whole(100),
  ),
  'X-RateLimit-Remaining': header('Requests left in that window', whole(87)),
  'X-RateLimit-Reset': header('Unix time in seconds when that window resets', whole(1793612700)),
  'RateLimit-Policy': header('Every limit that applied (IETF draft): "ip";q=100;w=900, "quota";q=10000;w=86400', {
    type: 'string',
    pattern: rateLimitItems('q=[0-9]{1,16};w=[0-9]{1,16}'),
    maxLength: 400,
    examples: ['"ip";q=100;w=900, "quota";q=10000;w=86400'],
  }),
  RateLimit: header('What is left of each (IETF draft): "ip";r=99;t=840, "quota";r=9999;t=52000', {
    type: 'string',
    pattern: rateLimitItems('r=[0-9]{1,16};t=[0-9]{1,16}'),
    maxLength: 400,
    examples: ['"ip";r=87;t=612, "quota";r=9954;t=41300'],
  }),
  'Retry-After': header(
    'Seconds to wait before retrying (at most until the daily quota resets at 00:00 UTC)',
    whole(42, 86_400),
  ),
  'WWW-Authenticate': header(
    'RFC 6750 challenge: Bearer realm="livestock-api", with error="invalid_token" when a presented token is bad, expired or revoked',
    {
      type: 'string',
      maxLength: 300,
      pattern:
        '^Bearer realm="livestock-api"(, error="(invalid_token|invalid_request)", error_description="[^"\\\\]*")?$',
      examples: ['Bearer realm="livestock-api", error="invalid_token", error_description="Token has expired"'],
    },
  ),
  Location: header('Path of the created resource', {
    type: 'string',
    format: 'uri-reference',
    maxLength: 1024,
    examples: ['/api/v1/users/hillside-farm/animals/1793577600000'],
  }),
  ETag: header(
    'Weak validator of the body (without its timestamp): send it as If-None-Match to get 304 while unchanged',
    {
      type: 'string',
      pattern: '^W/"[A-Za-z0-9_-]{27}"$',
      maxLength: 32,
      examples: ['W/"q2VbYl8rO1xWm3sT0dKfA9hLc7E"'],
    },
  ),
  Link: header(
    'RFC 8288 links (relative references): to the first, prev, next and last pages of a paginated list; to the next page only of a list read by a cursor (`after` of the event feeds, `cursor` of the delivery log), while more remain',
    {
      type: 'string',
      pattern: `^${RELATION}(, ${RELATION}){0,3}$`,
      maxLength: 65_536,
      examples: [
        '</api/v1/users/hillside-farm/animals?limit=10&page=1>; rel="first", </api/v1/users/hillside-farm/animals?limit=10&page=3>; rel="next", </api/v1/users/hillside-farm/animals?limit=10&page=5>; rel="last"',
      ],
    },
  ),
  'Access-Control-Allow-Origin': header(
    'Only with CORS_ORIGINS set (CORS is off by default), on requests whose Origin it admits: that origin, or * when any is allowed',
    {
      type: 'string',
      pattern: '^(\\*|https?://[^/\\s]+)$',
      maxLength: 2048,
      examples: ['https://app.farmsoft.example'],
    },
  ),
} satisfies Record<string, HeaderObject>

export type ResponseHeaderName = keyof typeof RESPONSE_HEADERS

const RATE_LIMIT: ResponseHeaderName[] = [
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'RateLimit-Policy',
  'RateLimit',
]

type ResponseSchema = Record<string, unknown> & {
  headers?: Record<string, unknown>
  properties?: Record<string, unknown>
}

/** What of a route decides the headers it answers with. */
interface RouteTraits {
  method: string
  rateLimited: boolean
  paginated: boolean
  tagged: boolean
}

/** The names of the headers one response of a route carries. */
export function responseHeaderNames(status: string, route: RouteTraits): ResponseHeaderName[] {
  const code = Number(status)
  return [
    'X-Request-Id',
    ...(route.rateLimited ? RATE_LIMIT : []),
    // 409: an Idempotency-Key whose first request is still in flight (plugins/idempotency.ts).
    ...(code === 409 || code === 429 || code === 503 ? ['Retry-After' as const] : []),
    ...(code === 401 ? ['WWW-Authenticate' as const] : []),
    ...(code === 201 ? ['Location' as const] : []),
    ...(code === 200 && route.tagged ? ['ETag' as const] : []),
    ...(code === 200 && route.paginated ? ['Link' as const] : []),
    'Access-Control-Allow-Origin',
  ]
}

/** The headers of one response of a route, as a route schema declares them (docs.ts turns them into references). */
export function responseHeaders(status: string, route: RouteTraits): Record<string, unknown> {
  return Object.fromEntries(
    responseHeaderNames(status, route).map((name) => {
      const { description, schema } = RESPONSE_HEADERS[name]
      return [name, { ...schema, description }]
    }),
  )
}

/** onRoute hook: adds `headers` to every response the route documents. */
export function documentResponseHeaders(route: RouteOptions) {
  const responses = (route.schema as { response?: Record<string, ResponseSchema> } | undefined)?.response
  if (!responses) return
  const method = Array.isArray(route.method) ? route.method[0]! : route.method
  const rateLimited = route.config?.limit !== 'exempt'
  const tagged = method === 'GET' && route.config?.etag !== false
  for (const [status, response] of Object.entries(responses)) {
    const paginated = response.properties?.pagination !== undefined
    responses[status] = {
      ...response,
      headers: { ...responseHeaders(status, { method, rateLimited, paginated, tagged }), ...response.headers },
    }
  }
}

/**
 * Document transform: each documented header that is one of RESPONSE_HEADERS becomes a reference to its
 * component, so that the document states each header once.
 */
export function referenceResponseHeaders(doc: {
  paths?: Record<string, Record<string, unknown>>
  components?: Record<string, unknown>
}) {
  for (const operations of Object.values(doc.paths ?? {})) {
    for (const operation of Object.values(operations)) {
      const responses =
        (operation as { responses?: Record<string, { headers?: Record<string, unknown> }> }).responses ?? {}
      for (const response of Object.values(responses)) {
        for (const name of Object.keys(response.headers ?? {})) {
          if (name in RESPONSE_HEADERS) response.headers![name] = { $ref: `#/components/headers/${name}` }
        }
      }
    }
  }
  doc.components = { ...doc.components, headers: RESPONSE_HEADERS }
}
