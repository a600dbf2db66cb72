// @livestock-api/client: the service's OpenAPI types (schema.d.ts, generated) behind a thin openapi-fetch
// wrapper. Calls return the success envelope `{success, data, message?, pagination?, timestamp}` typed for
// the operation, and throw a LivestockApiError for anything else; tokens and Retry-After are handled below.
import createClient, {
  type Client,
  type ClientPathsWithMethod,
  type MaybeOptionalInit,
  type MethodResponse,
} from 'openapi-fetch'
import { LivestockApiError } from './errors.ts'
import type { paths } from './schema.d.ts'
import { TokenManager, type Auth } from './tokens.ts'
import { createTransport, type RetryOptions } from './transport.ts'

export { LivestockApiError, retryAfterSeconds, type ErrorDetail } from './errors.ts'
export { TokenManager, type Auth, type TokenSet } from './tokens.ts'
export { RETRY_DEFAULTS, type RetryEvent, type RetryOptions } from './transport.ts'
export type { components, operations, paths } from './schema.d.ts'

export interface LivestockClientOptions {
  /** The service's origin, e.g. `http://localhost:3000` (the paths carry `/api/v1`). */
  baseUrl: string
  /** How to authenticate; without it only the public endpoints answer. */
  auth?: Auth
  /** Renew the access token this long before it expires, in seconds (default 60; at most half its lifetime). */
  refreshMarginSeconds?: number
  /** Retries on 429 and 503 (defaults: 3 retries, 30 s per wait, 60 s in all). */
  retry?: RetryOptions
  /** Headers sent with every request (a User-Agent naming your integration, say). */
  headers?: Record<string, string>
  /** The fetch to use (default: the global one). */
  fetch?: (request: Request) => Promise<Response>
  /** The clock that token expiry is measured on (default Date.now; tests move it). */
  clock?: () => number
}

type HttpMethod = 'get' | 'put' | 'post' | 'delete' | 'patch'
type RawClient = Client<paths>
type RequiredKeys<T> = { [K in keyof T]-?: object extends Pick<T, K> ? never : K }[keyof T]
/** The init argument is optional exactly when nothing in it is required (as in openapi-fetch). */
type InitArgs<Init> = RequiredKeys<Init> extends never ? [init?: Init] : [init: Init]

/** Like openapi-fetch's method, but resolves to the success body and rejects with a LivestockApiError. */
export type EnvelopeMethod<M extends HttpMethod> = <
  Path extends ClientPathsWithMethod<RawClient, M>,
  Init extends MaybeOptionalInit<paths[Path], M>,
>(
  url: Path,
  ...init: InitArgs<Init>
) => Promise<MethodResponse<RawClient, M, Path, Init>>

export interface LivestockClient {
  GET: EnvelopeMethod<'get'>
  POST: EnvelopeMethod<'post'>
  PUT: EnvelopeMethod<'put'>
  PATCH: EnvelopeMethod<'patch'>
  DELETE: EnvelopeMethod<'delete'>
  /** The openapi-fetch client underneath (same tokens and retries), answering `{data | error, response}` without throwing. */
  raw: RawClient
  /** The token manager (undefined without `auth`): `current`, `refresh()`. */
  tokens: TokenManager | undefined
}

/** Operations that take no bearer token (`security: []` in the OpenAPI document; a test keeps this list in step). */
export const PUBLIC_OPERATIONS: ReadonlySet<string> = new Set([
  'GET /metrics',
  'GET /api/v1',
  'GET /api/v1/openapi.json',
  'GET /api/v1/health',
  'GET /api/v1/health/ready',
  'GET /api/v1/tokens',
  'POST /api/v1/tokens',
  'POST /api/v1/tokens/refresh',
  'POST /api/v1/tokens/login',
  'POST /api/v1/tokens/verify-id-token',
  'GET /api/v1/web-push/key',
] satisfies `${Uppercase<HttpMethod>} ${keyof paths}`[])

export function createLivestockClient(options: LivestockClientOptions): LivestockClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '')
  const basePath = new URL(baseUrl).pathname.replace(/\/+$/, '')
  const send = options.fetch ?? ((request: Request) => globalThis.fetch(request))
  const retry = options.retry ?? {}
  const headers = options.headers ?? {}

  const tokenApi = createClient<paths>({
    baseUrl,
    headers,
    fetch: createTransport({ fetch: send, retry, retryAnyMethod: true }),
  })
  const tokens = options.auth
    ? new TokenManager(tokenApi, options.auth, {
        refreshMarginSeconds: options.refreshMarginSeconds ?? 60,
        clock: options.clock ?? Date.now,
      })
    : undefined
  const isPublic = (request: Request) => {
    const path = new URL(request.url).pathname.slice(basePath.length).replace(/\/+$/, '')
    return PUBLIC_OPERATIONS.has(`${request.method} ${path}`)
  }
  const raw = createClient<paths>({
    baseUrl,
    headers,
    fetch: createTransport({ fetch: send, retry, ...(tokens ? { bearer: { source: tokens, isPublic } } : {}) }),
  })

  const method = <M extends HttpMethod>(name: M): EnvelopeMethod<M> => {
    const call = async (url: string, init?: Record<string, unknown>) => {
      const result = await raw.request(name, url as never, init as never)
      if (result.error !== undefined || !result.response.ok) {
        throw LivestockApiError.fromResponse(result.response, result.error, `${name.toUpperCase()} ${url}`)
      }
      return result.data as unknown
    }
    return call as EnvelopeMethod<M>
  }

  return {
    GET: method('get'),
    POST: method('post'),
    PUT: method('put'),
    PATCH: method('patch'),
    DELETE: method('delete'),
    raw,
    tokens,
  }
}
