// CORS for integrators' browser apps (CORS_ORIGINS; off by default). Tokens travel in the Authorization
// header, never in cookies, so credentials stay off and `*` is safe to allow when the operator wants it.
import cors from '@fastify/cors'
import type { FastifyInstance } from 'fastify'

/** Response headers a browser app may read: limits, ids, caching, pagination. */
export const EXPOSED_HEADERS = [
  'X-Request-Id',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'RateLimit',
  'RateLimit-Policy',
  'Retry-After',
  'Location',
  'ETag',
  'Link',
  'Idempotent-Replayed',
  'WWW-Authenticate',
]

const ALLOWED_HEADERS = ['Authorization', 'Content-Type', 'Idempotency-Key', 'X-Request-Id', 'If-None-Match']

/** `origins`: exact origins (https://app.example), or ['*'] for any; empty leaves CORS off. */
export async function corsPlugin(app: FastifyInstance, origins: readonly string[]) {
  if (origins.length === 0) return
  await app.register(cors, {
    origin: origins.includes('*') ? '*' : [...origins],
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowedHeaders: ALLOWED_HEADERS,
    exposedHeaders: EXPOSED_HEADERS,
    credentials: false,
    maxAge: 600,
    strictPreflight: true,
  })
}
