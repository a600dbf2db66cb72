// One error handler writes every failure in the spec's envelope:
// {success:false, error, details?, timestamp}. 5xx are logged with the request id; bodies never carry
// stacks or SQL.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { ApiError, VALIDATION_FAILED, type FieldProblem } from '../http/errors.ts'
import { isStoreUnavailable } from '../db/errors.ts'

const MAX_DETAILS = 50

interface ErrorResponse {
  statusCode: number
  error: string
  details?: FieldProblem[]
  headers?: Record<string, string>
}

interface AjvIssue {
  instancePath: string
  keyword: string
  message?: string
  params: Record<string, unknown>
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
    const part = err.validationContext ?? 'body'
    const details = uniqueByField((err.validation as AjvIssue[]).map((issue) => describeIssue(issue, part))).slice(0, MAX_DETAILS)
    return { statusCode: 400, error: VALIDATION_FAILED, details }
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

function describeIssue(issue: AjvIssue, part: string): FieldProblem {
  let path = jsonPointerToPath(issue.instancePath)
  let message = issue.message ?? 'is invalid'
  if (issue.keyword === 'required' && typeof issue.params.missingProperty === 'string') {
    path = joinPath(path, issue.params.missingProperty)
    message = 'is required'
  } else if (issue.keyword === 'additionalProperties' && typeof issue.params.additionalProperty === 'string') {
    path = joinPath(path, issue.params.additionalProperty)
    message = 'is not an allowed field'
  } else if (issue.keyword === 'const' || issue.keyword === 'enum') {
    const allowed = issue.params.allowedValues ?? issue.params.allowedValue
    message = `must be ${Array.isArray(allowed) ? `one of ${allowed.map((v) => JSON.stringify(v)).join(', ')}` : JSON.stringify(allowed)}`
  }
  const where = part === 'body' ? '' : `${part === 'querystring' ? 'query' : part}:`
  return { field: `${where}${path || '(root)'}`, message }
}

/** A failed union reports each branch at the same field; one line per field is what a caller can act on. */
function uniqueByField(problems: FieldProblem[]): FieldProblem[] {
  const seen = new Set<string>()
  return problems.filter((p) => !seen.has(p.field) && seen.add(p.field))
}

function jsonPointerToPath(pointer: string): string {
  if (!pointer) return ''
  return pointer.slice(1).split('/').map((seg) => seg.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((acc, seg) => /^\d+$/.test(seg) ? `${acc}[${seg}]` : joinPath(acc, seg), '')
}

function joinPath(base: string, key: string): string {
  return base ? `${base}.${key}` : key
}
