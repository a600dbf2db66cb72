// The spec's response envelope: every body carries success and timestamp; data on success,
// error (and details on validation errors) on failure; pagination on paginated lists.
import { Readable } from 'node:stream'
import type { FastifyReply } from 'fastify'
import Type, { type TSchema } from 'typebox'
import { DateTime, EXAMPLE, Integer, Message } from './schema-types.ts'
import { weakEtagOfParts } from './etag.ts'
import { isoTimestamp } from './timestamp.ts'

export const Timestamp = DateTime('ISO 8601 time of the response')

/** Error texts and details are cut to these lengths (plugins/errors.ts), whatever the request held. */
export const ERROR_TEXT_MAX = 500
export const DETAILS_MAX = 50

export const ErrorDetail = Type.Object(
  {
    field: Type.String({
      minLength: 1,
      maxLength: ERROR_TEXT_MAX,
      examples: ['readings[3].c'],
      description:
        'Where the problem is: a body field path such as readings[3].c, or a query/path parameter name such as query:limit',
    }),
    message: Type.String({ minLength: 1, maxLength: ERROR_TEXT_MAX, examples: ['must be <= 60'] }),
  },
  { $id: 'ErrorDetail', description: 'One problem of a request' },
)

export const ErrorEnvelope = Type.Object(
  {
    success: Type.Literal(false),
    error: Type.String({ minLength: 1, maxLength: ERROR_TEXT_MAX, examples: ['Validation failed'] }),
    details: Type.Optional(
      Type.Array(Type.Ref('ErrorDetail'), {
        maxItems: DETAILS_MAX,
        description: 'On validation errors: one entry per field',
      }),
    ),
    timestamp: Timestamp,
  },
  { $id: 'ErrorEnvelope', description: 'Error body' },
)

/** Bounds of the pagination numbers: PAGE_MAX pages (http/list-params.ts) of at most 10,000 rows. */
const PAGINATION_PAGE_MAX = 1_000_000
const PAGINATION_LIMIT_MAX = 10_000

export const Pagination = Type.Object(
  {
    page: Integer({ minimum: 1, maximum: PAGINATION_PAGE_MAX, description: 'This page, from 1', examples: [2] }),
    limit: Integer({ minimum: 1, maximum: PAGINATION_LIMIT_MAX, description: 'Page size', examples: [10] }),
    total: Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'Items in all pages', examples: [48] }),
    totalPages: Integer({
      minimum: 0,
      maximum: Number.MAX_SAFE_INTEGER,
      description: 'ceil(total / limit)',
      examples: [5],
    }),
  },
  { $id: 'Pagination' },
)

/**
 * Success body with `data` of the given schema. `message`: an example of the message the route sends with it;
 * a route that sends none leaves it out, and its body has no `message` (the schema also serializes the body).
 */
export function Envelope<T extends TSchema>(data: T, description = 'Success', message?: string) {
  const properties = {
    success: Type.Literal(true),
    data,
    message: Type.Optional(Message('What was done', message ?? '')),
    timestamp: Timestamp,
  }
  const { message: _, ...withoutMessage } = properties
  // Typed as the full envelope either way: `message` is optional in it.
  return Type.Object(message === undefined ? (withoutMessage as typeof properties) : properties, { description })
}

/** Success body with no `data`, only a message. */
export function MessageEnvelope(description: string, example: string) {
  return Type.Object(
    {
      success: Type.Literal(true),
      message: Message('What was done', example),
      timestamp: Timestamp,
    },
    { description },
  )
}

/** Paginated list body. */
export function PageEnvelope<T extends TSchema>(item: T, description = 'One page of results') {
  return Type.Object(
    {
      success: Type.Literal(true),
      data: Type.Array(item, { maxItems: PAGINATION_LIMIT_MAX }),
      pagination: Type.Ref('Pagination'),
      timestamp: Timestamp,
    },
    { description },
  )
}

const errorRef = (description: string) => Type.Ref('ErrorEnvelope', { description })

/** Error responses every route can give. */
export const commonErrors = {
  400: errorRef('Validation failed, malformed JSON or a refused key'),
  404: errorRef('Not found'),
  413: errorRef('Body larger than the configured limit'),
  415: errorRef('Body sent with a content type other than application/json'),
  429: errorRef('IP rate limit or daily per-endpoint quota exceeded'),
  500: errorRef('Unexpected fault; the body carries no internals'),
  503: errorRef('Database or Redis unreachable; retry after the Retry-After seconds'),
}

/** Extra error responses of routes that require a bearer token. */
export const authErrors = {
  401: errorRef('Missing, malformed, expired or revoked token'),
  403: errorRef('Permission, account link or tier missing'),
}

const errorExample = (error: string, details?: { field: string; message: string }[]) => ({
  success: false,
  error,
  ...(details ? { details } : {}),
  timestamp: EXAMPLE.dateTime,
})

/** What an error response of each status typically says: the document's example of that response (plugins/docs.ts). */
export const ERROR_EXAMPLES: Record<string, ReturnType<typeof errorExample>> = {
  400: errorExample('Validation failed', [{ field: 'query:limit', message: 'must be <= 100' }]),
  401: errorExample('Token has expired'),
  403: errorExample("Integrator does not have access to this user's data"),
  404: errorExample('Animal not found'),
  409: errorExample('An animal with MAC A4:C1:38:5F:2B:91 already exists'),
  413: errorExample('Request body is larger than the limit of this service'),
  415: errorExample('Unsupported content type: send the body as application/json'),
  422: errorExample('This Idempotency-Key was already used with a different request: use a new key for a new request'),
  429: errorExample(
    'Daily quota exceeded: 10000 requests per day to GET /api/v1/users/:userId/animals for the Pro tier; it resets at 00:00 UTC',
  ),
  500: errorExample('Internal server error'),
  501: errorExample('ID token verification is not configured on this service'),
  503: errorExample('Service temporarily unavailable: a backing store cannot be reached'),
}

export interface SuccessBody<T> {
  success: true
  data: T
  message?: string
  timestamp: string
}
export interface MessageBody {
  success: true
  message: string
  timestamp: string
}
export interface PageBody<T> {
  success: true
  data: T[]
  pagination: { page: number; limit: number; total: number; totalPages: number }
  message?: string
  timestamp: string
}

export function ok<T>(data: T, message?: string): SuccessBody<T> {
  return message === undefined
    ? { success: true, data, timestamp: isoTimestamp() }
    : { success: true, data, message, timestamp: isoTimestamp() }
}

/**
 * Sends `{"success":true,"data":[<items>],"timestamp":...}` where `items` are pieces of JSON array items
 * written by the database (readings.pages.ts jsonItems), to be joined with commas: the envelope ok()
 * gives, without decoding and re-encoding the rows. Sent piece by piece, never joined: a joined copy of a
 * large page per response drove the service's peak memory and its full collections (docs/performance.md).
 * The tag is hashed over the pieces; the socket encodes each as it writes it.
 */
export function sendJsonItems(reply: FastifyReply, items: string[]): FastifyReply {
  const head = '{"success":true,"data":['
  const tail = `],"timestamp":"${isoTimestamp()}"}`
  const pieces = items.flatMap((piece, i) => (i === 0 ? [piece] : [',', piece]))
  const length = pieces.reduce((bytes, piece) => bytes + Buffer.byteLength(piece), head.length + tail.length)
  return reply
    .type('application/json; charset=utf-8')
    .header('content-length', length)
    .header('etag', weakEtagOfParts([head, ...pieces, ']}']))
    .send(Readable.from([head, ...pieces, tail], { objectMode: false }))
}

export function okMessage(message: string): MessageBody {
  return { success: true, message, timestamp: isoTimestamp() }
}

/** The answer to a list request: the page of rows a repository found (`query` asked for), as the API shows them. */
export function pageOf<Row, T>(
  found: { rows: Row[]; total: number },
  query: { page: number; limit: number },
  toApi: (row: Row) => T,
): PageBody<T> {
  return page(
    found.rows.map((row) => toApi(row)),
    query.page,
    query.limit,
    found.total,
  )
}

export function page<T>(data: T[], pageNumber: number, limit: number, total: number): PageBody<T> {
  return {
    success: true,
    data,
    pagination: { page: pageNumber, limit, total, totalPages: Math.ceil(total / limit) },
    timestamp: isoTimestamp(),
  }
}

/** Shared schemas registered once with app.addSchema, referenced by $id. */
export const sharedSchemas = [ErrorDetail, ErrorEnvelope, Pagination]
