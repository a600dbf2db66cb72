// The fetch under openapi-fetch: puts the bearer token on each request, renews it once on a 401, and
// honours Retry-After on a 429 or 503 within bounds, for requests that are safe to send again.
import { retryAfterSeconds } from './errors.ts'

export interface RetryOptions {
  /** Retries of one request after a 429 or 503 (default 3; 0 turns retrying off). */
  maxRetries?: number
  /**
   * Longest single wait, in seconds (default 30). A `Retry-After` beyond it (a daily quota resets at
   * 00:00 UTC) is not waited for: the request fails at once and the error carries `retryAfterSeconds`.
   */
  maxWaitSeconds?: number
  /** Longest total wait of one request, in seconds (default 60). */
  maxTotalWaitSeconds?: number
  /** Called before each wait (for logs and metrics). */
  onRetry?: (event: RetryEvent) => void
}

export interface RetryEvent {
  method: string
  url: string
  status: number
  /** 1 for the first retry. */
  attempt: number
  waitSeconds: number
  /** True when the wait is the service's `Retry-After`, false when the header was missing (then 1, 2, 4... s). */
  fromHeader: boolean
  requestId: string | undefined
}

export const RETRY_DEFAULTS = { maxRetries: 3, maxWaitSeconds: 30, maxTotalWaitSeconds: 60 } as const

/** What the transport needs of the token manager. */
export interface BearerSource {
  accessToken(): Promise<string>
  /** The service refused this token (401): forget it, so the next accessToken() renews. */
  invalidate(accessToken: string): void
  /** Whether a refused token can be replaced (false for a fixed token). */
  readonly renewable: boolean
}

type Fetch = (request: Request) => Promise<Response>

/** RFC 9110 §9.2.2: methods whose repetition has the effect of one request. */
const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE'])

export function createTransport(options: {
  fetch: Fetch
  retry: RetryOptions
  /** Adds the bearer token to requests the caller did not authorise itself, except public ones. */
  bearer?: { source: BearerSource; isPublic: (request: Request) => boolean }
  /** Retry every method (the token endpoints: issuing twice is harmless, and a refresh sent twice ends in a new session). */
  retryAnyMethod?: boolean
}): Fetch {
  const maxRetries = options.retry.maxRetries ?? RETRY_DEFAULTS.maxRetries
  const maxWait = options.retry.maxWaitSeconds ?? RETRY_DEFAULTS.maxWaitSeconds
  const maxTotalWait = options.retry.maxTotalWaitSeconds ?? RETRY_DEFAULTS.maxTotalWaitSeconds

  return async (request) => {
    const resendable =
      options.retryAnyMethod === true ||
      IDEMPOTENT_METHODS.has(request.method) ||
      request.headers.has('idempotency-key')
    const bearer =
      options.bearer && !request.headers.has('authorization') && !options.bearer.isPublic(request)
        ? options.bearer.source
        : undefined
    let retries = 0
    let waited = 0
    let renewed = false
    for (;;) {
      // Each attempt sends a copy: the original keeps its body for the next one.
      const attempt = request.clone()
      const token = bearer ? await bearer.accessToken() : undefined
      if (token !== undefined) attempt.headers.set('authorization', `Bearer ${token}`)
      const response = await options.fetch(attempt)

      // A token the service no longer takes (expired early, revoked, its session ended by reuse
      // detection): renew once and send again. The request was refused before it did anything.
      if (response.status === 401 && bearer?.renewable && token !== undefined && !renewed) {
        renewed = true
        bearer.invalidate(token)
        await discard(response)
        continue
      }

      if ((response.status === 429 || response.status === 503) && resendable && retries < maxRetries) {
        const header = retryAfterSeconds(response.headers.get('retry-after'))
        const wait = header ?? Math.min(2 ** retries, maxWait)
        if (wait <= maxWait && waited + wait <= maxTotalWait) {
          retries += 1
          waited += wait
          options.retry.onRetry?.({
            method: request.method,
            url: request.url,
            status: response.status,
            attempt: retries,
            waitSeconds: wait,
            fromHeader: header !== undefined,
            requestId: response.headers.get('x-request-id') ?? undefined,
          })
          await discard(response)
          await sleep(wait * 1000, request.signal)
          continue
        }
      }
      return response
    }
  }
}

async function discard(response: Response): Promise<void> {
  try {
    await response.body?.cancel()
  } catch {
    // already consumed or closed: nothing to free
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason as Error)
      return
    }
    const onAbort = () => {
      clearTimeout(timer)
      reject(signal.reason as Error)
    }
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    signal.addEventListener('abort', onAbort, { once: true })
  })
}
