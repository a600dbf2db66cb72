// Handlers throw these; the one error handler (plugins/errors.ts) writes them in the spec's envelope.

export interface FieldProblem {
  field: string
  message: string
}

export class ApiError extends Error {
  readonly statusCode: number
  readonly details: FieldProblem[] | undefined
  readonly headers: Record<string, string>
  /** For a 429: the limit that refused (ip, tokens, refresh, login, quota, auth-failures), counted in /metrics. */
  readonly limit: string | undefined

  constructor(
    statusCode: number,
    message: string,
    options: { details?: FieldProblem[]; headers?: Record<string, string>; limit?: string } = {},
  ) {
    super(message)
    this.name = 'ApiError'
    this.statusCode = statusCode
    this.details = options.details
    this.headers = options.headers ?? {}
    this.limit = options.limit
  }
}

export const VALIDATION_FAILED = 'Validation failed'

export const badRequest = (message: string, details?: FieldProblem[]) => new ApiError(400, message, { details })
export const validationFailed = (details: FieldProblem[]) => new ApiError(400, VALIDATION_FAILED, { details })
/** Every 401 carries the RFC 6750 challenge; `error` says what was wrong with a presented bearer token. */
export const AUTH_REALM = 'livestock-api'
export function unauthorized(message: string, error?: 'invalid_token' | 'invalid_request'): ApiError {
  const challenge =
    error === undefined
      ? `Bearer realm="${AUTH_REALM}"`
      : `Bearer realm="${AUTH_REALM}", error="${error}", error_description="${message.replace(/["\\]/g, '')}"`
  return new ApiError(401, message, { headers: { 'www-authenticate': challenge } })
}
/** A presented bearer token that is malformed, expired, revoked or names no one (RFC 6750 §3.1 invalid_token). */
export const invalidToken = (message: string) => unauthorized(message, 'invalid_token')
export const forbidden = (message: string) => new ApiError(403, message)
export const notFound = (what: string) => new ApiError(404, `${what} not found`)
/** What a lookup found, or the 404 "<what> not found" when it found nothing. */
export function orNotFound<T>(found: T | undefined, what: string): T {
  if (!found) throw notFound(what)
  return found
}
export const conflict = (message: string) => new ApiError(409, message)
/**
 * A `.catch` for a write that a unique key may refuse: the repository's `refusal` error becomes a 409 with its
 * message; any other error passes on.
 */
export function conflictOn(refusal: new (...args: never[]) => Error) {
  return (err: unknown): never => {
    if (err instanceof refusal) throw conflict(err.message)
    throw err
  }
}
export const serviceUnavailable = (message: string, retryAfterSeconds = 5) =>
  new ApiError(503, message, { headers: { 'retry-after': String(retryAfterSeconds) } })
