// Handlers throw these; the one error handler (plugins/errors.ts) writes them in the spec's envelope.

export interface FieldProblem { field: string; message: string }

export class ApiError extends Error {
  readonly statusCode: number
  readonly details: FieldProblem[] | undefined
  readonly headers: Record<string, string>

  constructor(statusCode: number, message: string, options: { details?: FieldProblem[]; headers?: Record<string, string> } = {}) {
    super(message)
    this.name = 'ApiError'
    this.statusCode = statusCode
    this.details = options.details
    this.headers = options.headers ?? {}
  }
}

export const VALIDATION_FAILED = 'Validation failed'

export const badRequest = (message: string, details?: FieldProblem[]) => new ApiError(400, message, { details })
export const validationFailed = (details: FieldProblem[]) => new ApiError(400, VALIDATION_FAILED, { details })
export const unauthorized = (message: string) => new ApiError(401, message)
export const forbidden = (message: string) => new ApiError(403, message)
export const notFound = (what: string) => new ApiError(404, `${what} not found`)
export const conflict = (message: string) => new ApiError(409, message)
export const serviceUnavailable = (message: string, retryAfterSeconds = 5) =>
  new ApiError(503, message, { headers: { 'retry-after': String(retryAfterSeconds) } })
