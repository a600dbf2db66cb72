// Idempotency-Key on the routes that create (`config: { idempotent: true }`), with Stripe's semantics:
// - the same key with the same request within 24 hours answers the first response again (same status,
//   body, Location), marked `Idempotent-Replayed: true`;
// - the same key with a different request is a 422; a request with the key still in flight is a 409.
// Keys are scoped to the caller (and the account the request acts on) and kept in PostgreSQL, so every
// process sees them. Only a successful (2xx) response is kept: after a 4xx or 5xx the key is released,
// so a corrected or later retry runs afresh (Stripe also keeps errors raised while executing; we prefer
// that a retry after a transient failure can succeed).
// @see https://docs.stripe.com/api/idempotent_requests
import { createHash, randomUUID } from 'node:crypto'
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions, preHandlerAsyncHookHandler } from 'fastify'
import Type from 'typebox'
import { callerKey } from '../auth/caller.ts'
import { claimKey, completeKey, findKey, releaseKey, type KeyScope } from '../db/idempotency-keys.ts'
import { ApiError } from '../http/errors.ts'
import { describedPattern } from '../http/input-patterns.ts'

declare module 'fastify' {
  interface FastifyRequest {
    /** The owner token of the Idempotency-Key this request holds. */
    idempotencyOwner: string | undefined
  }
}

export const IDEMPOTENCY_TTL_MS = 24 * 3_600_000
const HEADER = 'idempotency-key'

export const IdempotencyKeyHeader = Type.String({
  minLength: 1,
  maxLength: 255,
  pattern: describedPattern('^[\\x21-\\x7E]+$', 'must be printable ASCII without spaces'),
  description:
    "A key of the client's choosing (a UUID, say; printable ASCII, at most 255 characters). Retrying a create " +
    'with the same key and the same body within 24 hours answers the first response again instead of creating twice.',
  examples: ['9b2f6c1e-4a7d-4e3b-8f5a-1c0d2e3f4a5b'],
})

/** JSON with object keys sorted at every level, so that key order does not change a request's fingerprint. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`)
      .join(',')}}`
  }
  return JSON.stringify(value) ?? 'null'
}

export function idempotencyPlugin(app: FastifyInstance, options: { lockMs: number }) {
  const db = () => app.database.db
  app.decorateRequest('idempotencyOwner', undefined)

  const claim: preHandlerAsyncHookHandler = async (req, reply) => {
    const key = req.headers[HEADER]
    // A request that failed validation is refused anyway; it neither takes nor replays a key.
    if (typeof key !== 'string' || !req.caller || req.validationError) return
    const userId = (req.params as { userId?: string }).userId
    const scope: KeyScope = { uid: userId ?? null, caller: callerKey(req.caller), key }
    const fingerprint = createHash('sha256')
      .update(`${req.method} ${req.url}\n${canonicalJson(req.body ?? null)}`)
      .digest('base64url')
    const owner = randomUUID()
    const now = app.clock()
    if (
      await claimKey(db(), scope, {
        fingerprint,
        owner,
        now,
        lockedUntil: now + options.lockMs,
        expiredBefore: now - IDEMPOTENCY_TTL_MS,
      })
    ) {
      req.idempotencyOwner = owner
      return
    }
    const held = await findKey(db(), scope)
    if (held && held.fingerprint !== fingerprint) {
      throw new ApiError(
        422,
        'This Idempotency-Key was already used with a different request: use a new key for a new request',
      )
    }
    if (!held || held.status_code === null) {
      throw new ApiError(409, 'A request with this Idempotency-Key is still in progress: retry once it has finished', {
        headers: { 'retry-after': '1' },
      })
    }
    void reply.code(held.status_code).header('idempotent-replayed', 'true').type('application/json; charset=utf-8')
    if (held.location) void reply.header('location', held.location)
    return reply.send(held.body)
  }

  async function settle(req: FastifyRequest, reply: FastifyReply, payload: unknown) {
    const owner = req.idempotencyOwner
    if (!owner) return payload
    req.idempotencyOwner = undefined
    try {
      if (reply.statusCode >= 200 && reply.statusCode < 300 && typeof payload === 'string') {
        const location = reply.getHeader('location')
        await completeKey(db(), owner, {
          statusCode: reply.statusCode,
          body: payload,
          location: typeof location === 'string' ? location : null,
        })
      } else {
        await releaseKey(db(), owner)
      }
    } catch (err) {
      // The response stands; the key's lock runs out and a retry runs afresh.
      req.log.warn({ err }, 'could not record the outcome of an Idempotency-Key')
    }
    return payload
  }

  app.addHook('onRoute', (route: RouteOptions) => {
    if (!route.config?.idempotent) return
    if (route.config.access === 'public')
      throw new Error(`Route ${String(route.method)} ${route.url}: Idempotency-Key needs an authenticated caller`)
    const schema = (route.schema ??= {}) as {
      headers?: { properties?: Record<string, unknown> }
      response?: Record<string, unknown>
    }
    schema.headers = Type.Object({ ...schema.headers?.properties, [HEADER]: Type.Optional(IdempotencyKeyHeader) })
    schema.response = {
      409: Type.Ref('ErrorEnvelope', {
        description: 'A request with this Idempotency-Key is still in progress (or another conflict of the route)',
      }),
      422: Type.Ref('ErrorEnvelope', { description: 'The Idempotency-Key was used with a different request' }),
      ...schema.response,
    }
    const existing =
      route.preHandler === undefined ? [] : Array.isArray(route.preHandler) ? route.preHandler : [route.preHandler]
    route.preHandler = [...existing, claim]
    // First, before compression's onSend: the stored answer is the JSON, and a replay is sent (and compressed as
    // its own request asks) through the same path as any answer.
    const onSend = route.onSend === undefined ? [] : Array.isArray(route.onSend) ? route.onSend : [route.onSend]
    route.onSend = [settle, ...onSend]
  })
}
