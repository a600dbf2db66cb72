// Classifies store errors: a database that cannot be reached is the client's cue to retry (503),
// not a fault of the request; a unique or foreign-key violation names the constraint the caller's
// repository turns into a 409 or a 400.
import { redactUrl } from '../config.ts'

const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'EAI_AGAIN',
])
const UNREACHABLE_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error',
  'Embedded database is closed',
  'PGlite is closed',
  'driver has already been destroyed',
  'Query read timeout', // pg's query_timeout: the server did not answer in time
  'Connection is closed', // ioredis
  "Stream isn't writeable", // ioredis with the offline queue off
]

/** Every connection is in use and none came free in time: the store is up, and a retry shortly may pass. */
export class StoreBusyError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(`Store busy: ${message}`, options)
    this.name = 'StoreBusyError'
  }
}

/** A statement ran past its time limit (PostgreSQL's statement_timeout, the embedded store's wait for an answer). */
export class StoreTimeoutError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(`Store timeout: ${message}`, options)
    this.name = 'StoreTimeoutError'
  }
}

const STATEMENT_TIMEOUT = '57014' // query_canceled: statement_timeout

/**
 * Why the store failed a request, when it did: `busy` (saturated: no connection free in time, or a statement
 * stopped at its time limit) or `unavailable` (it cannot be reached or does not answer). Undefined for any other
 * error. Both are the client's cue to retry (503), busy sooner.
 */
export function storeFailureOf(err: unknown): 'busy' | 'unavailable' | undefined {
  if (err instanceof StoreBusyError || err instanceof StoreTimeoutError) return 'busy'
  if (err instanceof Error && (err as { code?: unknown }).code === STATEMENT_TIMEOUT) return 'busy'
  return isStoreUnavailable(err) ? 'unavailable' : undefined
}

/** The store failed the request for a reason of its own, busy or unreachable (see storeFailureOf). */
export function isStoreUnavailable(err: unknown): boolean {
  if (!(err instanceof Error)) return false
  if (err instanceof StoreBusyError || err instanceof StoreTimeoutError) return true
  const code = (err as { code?: unknown }).code
  if (typeof code === 'string') {
    if (UNREACHABLE_CODES.has(code)) return true
    // SQLSTATE class 08 (connection exception), 57P01-57P03 (shutdown, cannot connect now), 53300 (too many
    // connections), 57014 (statement_timeout: a server too slow to answer in time)
    if (/^08/.test(code) || /^57P0[123]$/.test(code) || code === '53300' || code === '57014') return true
  }
  if (UNREACHABLE_MESSAGES.some((m) => err.message.includes(m))) return true
  const cause = (err as { cause?: unknown }).cause
  if (cause && cause !== err) return isStoreUnavailable(cause)
  // AggregateError from a connect to several addresses (IPv4 and IPv6)
  if (err instanceof AggregateError) return err.errors.some(isStoreUnavailable)
  return false
}

/** pg's query_timeout fired: the query may still run on the server, its connection is unusable. */
export function isQueryTimeout(err: unknown): boolean {
  return err instanceof Error && err.message === 'Query read timeout'
}

function constraintOf(err: unknown, sqlState: string): string | undefined {
  if (typeof err !== 'object' || err === null) return undefined
  const { code, constraint, message } = err as { code?: unknown; constraint?: unknown; message?: unknown }
  if (code !== sqlState) return undefined
  if (typeof constraint === 'string') return constraint
  // PGlite reports the constraint in the message only: ... violates unique constraint "animals_uid_mac_key"
  const named = typeof message === 'string' ? /constraint "([^"]+)"/.exec(message)?.[1] : undefined
  return named ?? ''
}

/** The constraint a unique violation (23505) hit, or undefined for any other error. */
export function uniqueViolation(err: unknown): string | undefined {
  return constraintOf(err, '23505')
}

/** The constraint a foreign-key violation (23503) hit, or undefined for any other error. */
export function foreignKeyViolation(err: unknown): string | undefined {
  return constraintOf(err, '23503')
}

/** The SQLSTATE of a PostgreSQL error, or of the error it wraps. */
function sqlStateOf(err: unknown): string | undefined {
  for (let e = err; e instanceof Error; e = (e as { cause?: unknown }).cause === e ? undefined : e.cause) {
    const code = (e as { code?: unknown }).code
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code
  }
  return undefined
}

/**
 * What the operator should check when PostgreSQL failed a start or a CLI command before any work began, or undefined
 * when the error is not about reaching the server. `databaseUrl` is shown with its password redacted.
 */
export function databaseAccessHint(err: unknown, databaseUrl: string | undefined): string | undefined {
  if (databaseUrl === undefined) return undefined
  const state = sqlStateOf(err)
  if (state === '3D000') return '`livestock-api migrate` creates it'
  // invalid_authorization_specification (no such role, refused by pg_hba.conf), invalid_password
  if (state === '28000' || state === '28P01')
    return `PostgreSQL refused the user or password of DATABASE_URL=${redactUrl(databaseUrl)}`
  if (state === undefined && isStoreUnavailable(err))
    return `no PostgreSQL server answers at DATABASE_URL=${redactUrl(databaseUrl)}: is it running, and are the host and port right?`
  return undefined
}
