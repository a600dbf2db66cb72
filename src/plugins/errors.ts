// One error handler writes every failure in the spec's envelope:
// {success:false, error, details?, timestamp}. 5xx are logged with the request id; bodies never carry
// stacks or SQL.
import { STATUS_CODES } from 'node:http'
import type { Socket } from 'node:net'
import FindMyWay, { type HTTPMethod } from 'find-my-way'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { DETAILS_MAX, ERROR_TEXT_MAX } from '../http/envelope.ts'
import { ApiError, VALIDATION_FAILED, type FieldProblem } from '../http/errors.ts'
import { storeFailureOf } from '../db/errors.ts'
import { MAX_PATH_SEGMENT } from '../http/route-policy.ts'
import { validationDetails } from '../http/validation-details.ts'
import { isoTimestamp } from '../http/timestamp.ts'

interface ErrorResponse {
  statusCode: number
  error: string
  details?: FieldProblem[]
  headers?: Record<string, string>
}

/** A route as registered: its method and its URL pattern (`/api/v1/users/:userId/animals`). */
interface RegisteredRoute {
  method: string
  url: string
}

/**
 * The methods each path takes, for the 405 of a path that exists with another method: the registered routes in a
 * router of their own, as Fastify's matches them (no trailing-slash folding, the same parameter bound).
 */
export function allowedMethodsOf(routes: readonly RegisteredRoute[]): (path: string) => string[] {
  const router = FindMyWay({ ignoreTrailingSlash: false, maxParamLength: MAX_PATH_SEGMENT })
  const methods = new Set<string>()
  const noop = () => undefined
  for (const { method, url } of routes) {
    if (router.hasRoute(method as HTTPMethod, url)) continue
    router.on(method as HTTPMethod, url, noop)
    methods.add(method)
  }
  const known = [...methods].sort()
  return (path) => {
    const allowed = known.filter((method) => router.find(method as HTTPMethod, path) !== null)
    // Fastify answers HEAD wherever it answers GET.
    return allowed.includes('GET') && !allowed.includes('HEAD') ? [...allowed, 'HEAD'].sort() : allowed
  }
}

export function errorsPlugin(app: FastifyInstance, { routes }: { routes: () => readonly RegisteredRoute[] }) {
  app.setErrorHandler((err: FastifyError, req: FastifyRequest, reply: FastifyReply) => {
    // A client that hangs up mid-upload breaks the body stream (ECONNRESET): its fault, not a store's.
    const clientGone = req.raw.aborted || req.raw.socket?.destroyed === true
    const response = clientGone
      ? { statusCode: 400, error: 'The client closed the connection before the request was complete' }
      : toErrorResponse(err)
    // Error level is kept for what an operator must act on: an unexpected fault, or a store that cannot be
    // reached. Deliberate answers (a 501 for an unconfigured feature, any 4xx) are refusals, logged at info.
    if (clientGone) {
      req.log.info({ code: err.code }, 'client closed the connection mid-request')
    } else if (response.statusCode === 503 && !(err instanceof ApiError)) {
      // A saturated store is load to shed, not an outage to page anyone for.
      if (storeFailureOf(err) === 'busy') req.log.warn({ err }, 'store busy')
      else req.log.error({ err }, 'store unavailable')
    } else if (response.statusCode >= 500 && !(err instanceof ApiError)) {
      req.log.error({ err }, 'unexpected fault')
    } else {
      req.log.info({ statusCode: response.statusCode, error: response.error }, 'request refused')
    }
    if ('headers' in response && response.headers) void reply.headers(response.headers)
    return reply.status(response.statusCode).send({
      success: false,
      error: clip(response.error),
      ...('details' in response && response.details
        ? {
            details: response.details
              .slice(0, DETAILS_MAX)
              .map((d) => ({ field: clip(d.field), message: clip(d.message) })),
          }
        : {}),
      timestamp: isoTimestamp(),
    })
  })

  // A request the router cannot read (bad %-encoding, an over-long path segment) still gets the envelope.
  // Fastify hands these to its `frameworkErrors` option: see frameworkErrorHandler below.

  // Built at the first unmatched request, once every route is registered.
  let allowedMethods: ((path: string) => string[]) | undefined
  app.setNotFoundHandler((req, reply) => {
    const path = req.url.split('?')[0] ?? req.url
    allowedMethods ??= allowedMethodsOf(routes())
    const allowed = allowedMethods(path)
    // A route of this very method that found nothing (a file the app does not have) is a 404.
    if (allowed.length > 0 && !allowed.includes(req.method)) {
      return reply
        .status(405)
        .header('allow', allowed.join(', '))
        .send({
          success: false,
          error: clip(`Method ${req.method} is not allowed on ${path}: it takes ${allowed.join(', ')}`),
          timestamp: isoTimestamp(),
        })
    }
    return reply.status(404).send({
      success: false,
      error: clip(`Route ${req.method} ${path} not found`),
      timestamp: isoTimestamp(),
    })
  })
}

/**
 * Error texts and details name parts of the request (a path, an unknown parameter or field), which can be
 * as long as the request; the body keeps them to the lengths the document states (http/envelope.ts).
 */
function clip(text: string): string {
  return text.length <= ERROR_TEXT_MAX ? text : `${text.slice(0, ERROR_TEXT_MAX - 1)}…`
}

export function toErrorResponse(err: FastifyError): ErrorResponse {
  if (err instanceof ApiError) {
    return { statusCode: err.statusCode, error: err.message, details: err.details, headers: err.headers }
  }
  if (err.validation) {
    return {
      statusCode: 400,
      error: VALIDATION_FAILED,
      details: validationDetails(err.validation, err.validationContext ?? 'body'),
    }
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
  switch (storeFailureOf(err)) {
    case 'busy':
      return {
        statusCode: 503,
        error: 'Service temporarily busy: the store is saturated or the request reached its time limit',
        headers: { 'retry-after': '1' },
      }
    case 'unavailable':
      return {
        statusCode: 503,
        error: 'Service temporarily unavailable: a backing store cannot be reached',
        headers: { 'retry-after': '5' },
      }
  }
  if (typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500) {
    return { statusCode: err.statusCode, error: err.message }
  }
  return { statusCode: 500, error: 'Internal server error' }
}

/** Fastify's `frameworkErrors` option: router-level failures answered in the envelope. */
export function frameworkErrorHandler(err: FastifyError, req: FastifyRequest, reply: FastifyReply): void {
  const response =
    err.code === 'FST_ERR_BAD_URL'
      ? { statusCode: 400, error: 'The URL is not valid: a %-escape in it does not decode' }
      : err.code === 'FST_ERR_MAX_PARAM_LENGTH'
        ? { statusCode: 414, error: 'A segment of the URL path is too long' }
        : toErrorResponse(err)
  req.log.info({ statusCode: response.statusCode, code: err.code }, 'request refused')
  void reply.header('x-request-id', req.id).status(response.statusCode).send(envelopeOf(response.error))
}

function envelopeOf(error: string) {
  return { success: false, error: clip(error), timestamp: isoTimestamp() }
}

const CLIENT_ERRORS: Record<string, { status: number; error: string }> = {
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, error: 'The request took longer than the server waits for one' },
  HPE_HEADER_OVERFLOW: { status: 431, error: 'The request headers are larger than the server accepts' },
}

/**
 * The server's `clientError` event (Fastify's clientErrorHandler): a request Node's HTTP parser refuses
 * before Fastify sees it (malformed, headers too large, too slow) still gets the envelope, then the socket closes.
 * @see https://nodejs.org/api/http.html#event-clienterror
 */
export function clientErrorHandler(err: Error & { code?: string }, socket: Socket) {
  if (err.code === 'ECONNRESET' || socket.destroyed) return
  const { status, error } = CLIENT_ERRORS[err.code ?? ''] ?? { status: 400, error: 'The request is not valid HTTP' }
  const body = JSON.stringify(envelopeOf(error))
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    )
  }
  socket.destroy()
}
