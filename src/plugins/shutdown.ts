// Graceful shutdown as clients see it. From drain() (the service's first step on SIGTERM) every response,
// including those of requests already in flight, carries `Connection: close`, so each keep-alive socket
// closes as its request ends instead of holding the shutdown until it times out. From app.close() on, a
// new request gets 503 in the envelope with Retry-After (another process behind the load balancer takes it).
import type { FastifyInstance } from 'fastify'
import { serviceUnavailable } from '../http/errors.ts'

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * Starts a graceful stop: every response from now on asks its client to close the connection.
     * Resolves once requests have stopped coming in (or after maxMs), so that app.close() can follow.
     */
    drain: (options?: { quietMs?: number; maxMs?: number }) => Promise<void>
  }
}

export function shutdownPlugin(app: FastifyInstance) {
  let draining = false
  let closing = false
  let requestsStarted = 0
  app.decorate('drain', async ({ quietMs = 100, maxMs = 2000 } = {}) => {
    draining = true
    // Closing the server resets every connection with no request under way, including one whose request
    // sits unread in its socket: a client sent it just before the signal while the event loop was busy (the
    // embedded store runs in it, and a busy service reads its sockets one pass of the loop at a time). So
    // the server closes only once a pause and two passes of the loop (one accepts, the next reads) have
    // brought in no new request.
    const deadline = Date.now() + maxMs
    for (;;) {
      const seen = requestsStarted
      await new Promise((resolve) => setTimeout(resolve, quietMs))
      for (let pass = 0; pass < 2; pass++) await new Promise((resolve) => setImmediate(resolve))
      if (requestsStarted === seen || Date.now() >= deadline) return
    }
  })
  app.addHook('preClose', async () => {
    draining = true
    closing = true
  })
  // Callback hooks (they await nothing): an async one costs a promise and a microtask turn per request.
  app.addHook('onRequest', (_req, _reply, done) => {
    requestsStarted++
    done(
      closing ? serviceUnavailable('The service is shutting down: retry, another instance will answer', 1) : undefined,
    )
  })
  app.addHook('onSend', (_req, reply, payload, done) => {
    if (draining) void reply.header('connection', 'close')
    done(null, payload)
  })
}
