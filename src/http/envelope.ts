// The spec's response envelope: every body carries success and timestamp; data on success,
// error (and details on validation errors) on failure; pagination on paginated lists.
import Type, { type TSchema } from 'typebox'

export const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601 time of the response' })

export const ErrorDetail = Type.Object({
  field: Type.String({ description: 'Where the problem is: a body field path such as readings[3].c, or a query/path parameter name' }),
  message: Type.String(),
}, { $id: 'ErrorDetail' })

export const ErrorEnvelope = Type.Object({
  success: Type.Literal(false),
  error: Type.String(),
  details: Type.Optional(Type.Array(Type.Ref('ErrorDetail'))),
  timestamp: Timestamp,
}, { $id: 'ErrorEnvelope', description: 'Error body' })

export const Pagination = Type.Object({
  page: Type.Integer({ minimum: 1 }),
  limit: Type.Integer({ minimum: 1 }),
  total: Type.Integer({ minimum: 0 }),
  totalPages: Type.Integer({ minimum: 0 }),
}, { $id: 'Pagination' })

/** Success body with `data` of the given schema. */
export function Envelope<T extends TSchema>(data: T, description = 'Success') {
  return Type.Object({
    success: Type.Literal(true),
    data,
    message: Type.Optional(Type.String()),
    timestamp: Timestamp,
  }, { description })
}

/** Success body with no `data`, only a message. */
export function MessageEnvelope(description = 'Success') {
  return Type.Object({
    success: Type.Literal(true),
    message: Type.String(),
    timestamp: Timestamp,
  }, { description })
}

/** Paginated list body. */
export function PageEnvelope<T extends TSchema>(item: T, description = 'One page of results') {
  return Type.Object({
    success: Type.Literal(true),
    data: Type.Array(item),
    pagination: Type.Ref('Pagination'),
    message: Type.Optional(Type.String()),
    timestamp: Timestamp,
  }, { description })
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

export interface SuccessBody<T> { success: true; data: T; message?: string; timestamp: string }
export interface MessageBody { success: true; message: string; timestamp: string }
export interface PageBody<T> {
  success: true
  data: T[]
  pagination: { page: number; limit: number; total: number; totalPages: number }
  message?: string
  timestamp: string
}

export function ok<T>(data: T, message?: string): SuccessBody<T> {
  return message === undefined
    ? { success: true, data, timestamp: new Date().toISOString() }
    : { success: true, data, message, timestamp: new Date().toISOString() }
}

export function okMessage(message: string): MessageBody {
  return { success: true, message, timestamp: new Date().toISOString() }
}

export function page<T>(data: T[], pageNumber: number, limit: number, total: number): PageBody<T> {
  return {
    success: true,
    data,
    pagination: { page: pageNumber, limit, total, totalPages: Math.ceil(total / limit) },
    timestamp: new Date().toISOString(),
  }
}

/** Shared schemas registered once with app.addSchema, referenced by $id. */
export const sharedSchemas = [ErrorDetail, ErrorEnvelope, Pagination]
