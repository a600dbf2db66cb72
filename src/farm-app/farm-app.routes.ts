// The farm app at /app/: a web page that uses the public API with the user's own token (web/, docs/farm-app.md).
// Its files are built in memory on the first request (farm-app.build.ts) and served from memory, so they are
// exempt from the IP limit like /health: a barn full of phones behind one address spends that on the API.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { buildFarmApp, type BuiltFile } from './farm-app.build.ts'
import { chosenEncoding } from './content-encoding.rules.ts'

export const FARM_APP_PREFIX = '/app'

// Same origin only: no inline script or style, no framing, nothing fetched from anywhere else.
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self'",
  "manifest-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ')

export async function registerFarmApp(app: FastifyInstance) {
  let building: Promise<Map<string, BuiltFile>> | undefined
  const files = () =>
    (building ??= buildFarmApp().catch((err: unknown) => {
      building = undefined // a later request tries again
      throw err
    }))

  const send = async (req: FastifyRequest, reply: FastifyReply, name: string) => {
    const file = (await files()).get(name)
    if (!file) return reply.callNotFound()
    void reply
      .header('content-type', file.contentType)
      .header('etag', file.etag)
      .header('cache-control', file.immutable ? 'public, max-age=31536000, immutable' : 'no-cache')
      .header('vary', 'accept-encoding')
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'no-referrer')
      .header('content-security-policy', CONTENT_SECURITY_POLICY)
    if (req.headers['if-none-match'] === file.etag) return reply.code(304).send()
    const encoding = chosenEncoding(req.headers['accept-encoding'])
    if (encoding === 'br') return reply.header('content-encoding', 'br').send(file.br)
    if (encoding === 'gzip') return reply.header('content-encoding', 'gzip').send(file.gzip)
    return reply.send(file.body)
  }

  const options = { schema: { hide: true }, config: { limit: 'exempt', etag: false }, compress: false } as const
  app.get(FARM_APP_PREFIX, options, (_req, reply) => reply.redirect(`${FARM_APP_PREFIX}/`, 301))
  app.get(`${FARM_APP_PREFIX}/`, options, (req, reply) => send(req, reply, ''))
  app.get<{ Params: { file: string } }>(`${FARM_APP_PREFIX}/:file`, options, (req, reply) =>
    send(req, reply, req.params.file),
  )
}
