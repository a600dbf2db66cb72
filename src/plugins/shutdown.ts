// Graceful shutdown as clients see it. From app.close() on, a new request gets 503 in the envelope with
// Retry-After (another process behind the load balancer takes it), and every response, including those
// of requests already in flight, carries `Connection: close`, so each keep-alive socket closes as its
// request ends instead of holding the shutdown until it times out.
import type { FastifyInstance } from 'fastify'
import { serviceUnavailable } from '../http/errors.ts'

export function shutdownPlugin(app: FastifyInstance) {
  let closing = false
  app.addHook('preClose', async () => {
    closing = true
  })
  app.addHook('onRequest', async () => {
    if (closing) throw serviceUnavailable('The service is shutting down: retry, another instance will answer', 1)
  })
  app.addHook('onSend', async (_req, reply, payload) => {
    if (closing) void reply.header('connection', 'close')
    return payload
  })
}
