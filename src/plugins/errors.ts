// One error handler writes every failure in the spec's envelope:
// {success:false, error, details?, timestamp}. 5xx are logged with the request id; bodies never carry
// stacks or SQL.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { ApiError, VALIDATION_FAILED, type FieldProblem } from '../http/errors.ts'
import { isStoreUnavailable } from '../db/errors.ts'
import { validationDetails } from '../http/validation-details.ts'

interface ErrorResponse {
  statusCode: number
  error: string
  details?: FieldProblem[]
  headers?: Record<string, string>
}

export function errorsPlugin(app: FastifyInstance) {
  app.setErrorHandler((err: FastifyError, req: FastifyRequest, reply: FastifyReply) => {
    const response = toErrorResponse(err)
    if (response.statusCode >= 500) {
      req.log.error({ err }, response.statusCode === 503 ? 'store unavailable' : 'unexpected fault')
    } else {
      req.log.info({ statusCode: response.statusCode, error: response.error }, 'request refused')
    }
    if (response.headers) void reply.headers(response.headers)
    return reply.status(response.statusCode).send({
      success: false,
      error: response.error,
      ...(response.details ? { details: response.details } : {}),
      timestamp: new Date().toISOString(),
    })
  })

  app.setNotFoundHandler((req, reply) => {
    const path = req.url.split('?')[0] ?? req.url
    return reply.status(404).send({
      success: false,
      error: `Route ${req.method} ${path} not found`,
      timestamp: new Date().toISOString(),
    })
  })
}

export function toErrorResponse(err: FastifyError): ErrorResponse {
  if (err instanceof ApiError) {
    return { statusCode: err.statusCode, error: err.message, details: err.details, headers: err.headers }
  }
  if (err.validation) {
    return { statusCode: 400, error: VALIDATION_FAILED, details: validationDetails(err.validation, err.validationContext ?? 'body') }
  }
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { statusCode: 413, error: 'Request body is larger than the limit of this service' }
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return { statusCode: 415, error: 'Unsupported content type: send the body as application/json' }
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return { statusCode: 400, error: 'Body is empty but the content type is application/json' }
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return { statusCode: 400, error: 'Body is not valid JSON' }
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return { statusCode: 400, error: 'Content-Length does not match the body' }
  }
  if (isStoreUnavailable(err)) {
    return { statusCode: 503, error: 'Service temporarily unavailable: a backing store cannot be reached', headers: { 'retry-after': '5' } }
  }
  if (typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500) {
    return { statusCode: err.statusCode, error: err.message }
  }
  return { statusCode: 500, error: 'Internal server error' }
}
