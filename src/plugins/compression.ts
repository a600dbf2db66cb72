// Response compression (br or gzip, as the client's Accept-Encoding prefers) for bodies of at least
// COMPRESSION_MIN_BYTES. Brotli runs at quality 4 and gzip at level 5: the defaults (11 and 6) are
// tuned for static files compressed once, and at quality 11 a 10,000-row page costs more to compress
// than to query. The threshold and levels come from `npm run bench -- compression` (docs/api-conventions.md).
import { constants } from 'node:zlib'
import compress from '@fastify/compress'
import type { FastifyInstance } from 'fastify'

export async function compressionPlugin(app: FastifyInstance, minBytes: number) {
  if (minBytes === 0) return
  // A route without a body has nothing to decompress: without this, every GET would pass the plugin's preParsing hook.
  app.addHook('onRoute', (route) => {
    if (route.schema?.body === undefined) route.decompress ??= false
  })
  await app.register(compress, {
    global: true,
    threshold: minBytes,
    encodings: ['br', 'gzip'],
    brotliOptions: { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } },
    zlibOptions: { level: 5 },
  })
}
