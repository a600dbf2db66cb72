// A reference point for /health in `npm run bench`: Fastify with one route and nothing else (no hooks,
// plugins, schemas or logger), answering the bare server's JSON hello. What separates the service's /health
// from it is the service's own per-request work; what separates it from bench/bare-server.ts, Fastify's.
// Prints {"port":N} once listening; SIGTERM closes it.
import Fastify from 'fastify'

const app = Fastify({ logger: false })
app.get('/hello', async () => ({ success: true, message: 'hello', version: 'v1', timestamp: new Date().toISOString() }))
await app.listen({ port: 0, host: '127.0.0.1' })
const address = app.server.address()
process.stdout.write(`${JSON.stringify({ port: typeof address === 'object' && address ? address.port : 0 })}\n`)
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)))
