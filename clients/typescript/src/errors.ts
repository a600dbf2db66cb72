// Every answer that is not a 2xx becomes one typed error, built from the spec's error envelope
// `{success: false, error, details?, timestamp}` and the response's headers.
import type { components } from './schema.d.ts'

export type ErrorDetail = components['schemas']['ErrorDetail']

export class LivestockApiError extends Error {
  override readonly name = 'LivestockApiError'
  /** The HTTP status. */
  readonly status: number
  /** The envelope's `error` text, exactly as the service wrote it (e.g. `Token has expired`). */
  readonly error: string
  /** The envelope's `details` of a 400 `Validation failed`: one `{field, message}` per problem. */
  readonly details: readonly ErrorDetail[] | undefined
  /** `X-Request-Id` of the response: the service logs every line of the request under it. */
  readonly requestId: string | undefined
  /** `Retry-After` of a 429 or 503 in seconds, when the client did not (or no longer would) wait for it. */
  readonly retryAfterSeconds: number | undefined
  /** The operation that failed, as `METHOD /path/{template}` (no ids, no query string, no host). */
  readonly request: string
  /** The parsed body (the error envelope, or the text of a body that is not one). */
  readonly body: unknown

  constructor(init: {
    status: number
    error: string
    details?: readonly ErrorDetail[]
    requestId?: string
    retryAfterSeconds?: number
    request: string
    body?: unknown
  }) {
    super(`${init.request}: ${init.status} ${init.error}${init.requestId ? ` (request ${init.requestId})` : ''}`)
    this.status = init.status
    this.error = init.error
    this.details = init.details
    this.requestId = init.requestId
    this.retryAfterSeconds = init.retryAfterSeconds
    this.request = init.request
    this.body = init.body
  }

  /** From a response and the body openapi-fetch parsed from it (JSON when it was JSON, else its text). */
  static fromResponse(response: Response, body: unknown, request: string): LivestockApiError {
    const envelope = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : undefined
    const text =
      typeof envelope?.error === 'string'
        ? envelope.error
        : typeof envelope?.message === 'string'
          ? envelope.message
          : typeof body === 'string' && body.trim() !== ''
            ? body.trim().slice(0, 200)
            : response.statusText || `HTTP ${response.status}`
    const details = Array.isArray(envelope?.details) ? (envelope.details as ErrorDetail[]) : undefined
    return new LivestockApiError({
      status: response.status,
      error: text,
      details,
      requestId: response.headers.get('x-request-id') ?? undefined,
      retryAfterSeconds: retryAfterSeconds(response.headers.get('retry-after')),
      request,
      body,
    })
  }
}

/**
 * `Retry-After` as seconds: delta-seconds, or an HTTP-date turned into the seconds left until it
 * (RFC 9110 §10.2.3). Undefined when absent or unreadable.
 */
export function retryAfterSeconds(value: string | null, now = Date.now()): number | undefined {
  if (value === null) return undefined
  const trimmed = value.trim()
  if (/^\d+$/.test(trimmed)) return Number(trimmed)
  const date = Date.parse(trimmed)
  if (Number.isNaN(date)) return undefined
  return Math.max(0, Math.ceil((date - now) / 1000))
}
