// Records integrator requests off the request path: each response adds a row to a buffer in this
// process, and the buffer goes to PostgreSQL in one multi-row insert every flush interval (or sooner,
// once a batch is full). A request never waits for the log; a process killed with -9 loses at most
// one interval of log rows, never a farm's data.
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify'
import type { NewAccessLogRow } from './access-log.repository.ts'

/** A full batch is written at once rather than at the next tick of the timer. */
const BATCH_ROWS = 1000
/** While the database is away rows wait here; beyond this many the newest are dropped (and counted). */
const MAX_PENDING_ROWS = 100_000
const MAX_USER_AGENT = 512

export interface AccessLogWriter {
  record: (row: NewAccessLogRow) => void
  /** Writes what is buffered now. */
  flush: () => Promise<void>
  /** Stops the timer and writes what is left (at shutdown). */
  close: () => Promise<void>
}

/**
 * The log row of a finished request, or undefined when it is not an integrator's: user tokens, public
 * routes and requests refused before the caller was known are not logged.
 */
export function accessLogRowOf(
  req: FastifyRequest,
  reply: FastifyReply,
  clock: () => number,
): NewAccessLogRow | undefined {
  const caller = req.caller
  if (caller?.kind !== 'integrator') return undefined
  const endpoint = req.routeOptions.url
  if (endpoint === undefined) return undefined
  const length = Number(reply.getHeader('content-length'))
  const userAgent = req.headers['user-agent']
  return {
    uid: req.linkedAccount ?? null,
    integrator_uid: caller.integrator.uid,
    at: new Date(clock()),
    method: req.method,
    endpoint,
    response_code: reply.statusCode,
    response_time_ms: Math.round(reply.elapsedTime * 1000) / 1000,
    data_size: Number.isSafeInteger(length) ? length : null,
    // PostgreSQL text cannot hold U+0000; a header is the client's to fill, so it is cleaned, not refused.
    user_agent: userAgent ? userAgent.replaceAll('\u0000', '').slice(0, MAX_USER_AGENT) : null,
    ip_address: req.ip,
  }
}

/** `insert` writes one batch (access-log.repository.ts insertAccessLogRows in the service). */
export function accessLogWriter(
  insert: (rows: NewAccessLogRow[]) => Promise<void>,
  options: { flushIntervalMs: number; log: FastifyBaseLogger },
): AccessLogWriter {
  let buffer: NewAccessLogRow[] = []
  let dropped = 0
  let failing = false
  let writing: Promise<void> = Promise.resolve()

  const writeBuffered = async () => {
    const batch = buffer
    buffer = []
    if (batch.length === 0) return
    try {
      await insert(batch)
      if (failing) options.log.info({ rows: batch.length, dropped }, 'access log written again')
      failing = false
      dropped = 0
    } catch (err) {
      const room = MAX_PENDING_ROWS - buffer.length
      dropped += Math.max(0, batch.length - room)
      buffer = [...batch.slice(0, Math.max(0, room)), ...buffer]
      if (!failing)
        options.log.warn(
          { err, pending: buffer.length },
          'writing the access log failed; rows kept in memory and retried',
        )
      failing = true
    }
  }
  // One write at a time, in order: a flush queued behind another writes what arrived meanwhile.
  const flush = () => (writing = writing.then(writeBuffered))

  const timer = setInterval(() => void flush(), options.flushIntervalMs)
  timer.unref()

  return {
    record(row) {
      if (buffer.length >= MAX_PENDING_ROWS) {
        dropped++
        return
      }
      buffer.push(row)
      if (buffer.length === BATCH_ROWS) void flush()
    },
    flush,
    async close() {
      clearInterval(timer)
      await flush()
      if (buffer.length > 0 || dropped > 0)
        options.log.warn({ lost: buffer.length + dropped }, 'access log rows not written at shutdown')
    },
  }
}
