// Authentication (who is calling) and the access rules every route picks from (may they do this).
// Routes say `preValidation: app.access.own` and nothing else: the rule runs before the body is
// validated, so a caller without a valid token learns nothing about a route's body (401 comes first).
import type { FastifyInstance, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify'
import { sql } from 'kysely'
import { ApiError, forbidden, unauthorized } from '../http/errors.ts'
import { TokenError, type TokenSigner, type VerifiedToken } from '../modules/tokens/jwt.ts'
import type { IntegratorRow } from '../modules/tokens/integrators.repository.ts'
import type { UserRow } from '../modules/users/users.repository.ts'
import { tierIncludesSensorData } from '../modules/tokens/tiers.ts'

export type Caller =
  | { kind: 'integrator'; integrator: IntegratorRow; token: VerifiedToken }
  | { kind: 'user'; user: UserRow; token: VerifiedToken }

/** The exact error texts of the spec's Authentication table, and ours for the untabled cases. */
export const AUTH_ERRORS = {
  missingHeader: 'Authorization header is required',
  invalidToken: 'Invalid token',
  expired: 'Token has expired',
  revoked: 'Token has been revoked',
  invalidIntegrator: 'Access denied: Invalid integratorUID',
  notLinked: "Integrator does not have access to this user's data",
  inactiveIntegrator: 'Integrator is inactive',
  inactiveUser: 'User account is inactive',
  notOwner: "You do not have access to this user's data",
  noWrite: 'Integrator does not have write permission',
  noDelete: 'Integrator does not have delete permission',
  noRead: 'Integrator does not have read permission',
  adminOnly: 'Admin permission required',
  bdUserOnly: 'BDUser permission required',
  userTokenOnly: 'This endpoint requires a user token',
  sensorUserToken: 'Sensor data is available to integrator tokens only',
  sensorTier: 'Sensor data requires the Pro or Enterprise tier',
} as const

export interface AccessRules {
  /** Any valid access token, integrator or user. */
  bearer: preHandlerAsyncHookHandler
  /** The owner of :userId, or an integrator linked to that account (with write/delete permission for writes/deletes). */
  own: preHandlerAsyncHookHandler
  /** /sensordata*: integrator tokens on Pro or Enterprise, linked to :userId; user tokens never. */
  sensorData: preHandlerAsyncHookHandler
  /** A user token with the Admin flag. */
  admin: preHandlerAsyncHookHandler
  /** A user token with the BDUser flag. */
  bdUser: preHandlerAsyncHookHandler
  /** Any user token (acting on its own account). */
  userToken: preHandlerAsyncHookHandler
}

declare module 'fastify' {
  interface FastifyInstance {
    access: AccessRules
    tokens: TokenSigner
  }
  interface FastifyRequest {
    caller: Caller | undefined
  }
}

// The auth scheme is case-insensitive (RFC 9110 §11.1); the token is base64url segments.
const BEARER = /^Bearer +([A-Za-z0-9_\-.]+)$/i

export interface AuthOptions {
  signer: TokenSigner
  /** Called once per request when the caller is known (the daily quota counts here). */
  onCaller?: (req: FastifyRequest, caller: Caller) => Promise<void>
}

export function authPlugin(app: FastifyInstance, { signer, onCaller }: AuthOptions) {
  app.decorate('tokens', signer)
  app.decorateRequest('caller', undefined)

  async function authenticate(req: FastifyRequest): Promise<Caller> {
    if (req.caller) return req.caller
    const header = req.headers.authorization
    if (header === undefined || header.trim() === '') throw unauthorized(AUTH_ERRORS.missingHeader)
    const match = BEARER.exec(header.trim())
    if (!match?.[1]) throw unauthorized(AUTH_ERRORS.invalidToken)
    let token: VerifiedToken
    try {
      token = await signer.verify(match[1], 'access')
    } catch (err) {
      if (err instanceof TokenError) throw unauthorized(err.message)
      throw err
    }
    const caller = await loadCaller(token)
    req.caller = caller
    await onCaller?.(req, caller)
    return caller
  }

  // One round trip: the principal's current state and whether this token was revoked. An integrator
  // deactivated after issuing a token, or a revoked token, loses access on its next request.
  async function loadCaller(token: VerifiedToken): Promise<Caller> {
    const db = app.database.db
    const revoked = sql<boolean>`exists (select 1 from revoked_tokens where jti = ${token.jti})`.as('revoked')
    if (token.subject.kind === 'integrator') {
      const row = await db.selectFrom('integrators').selectAll().select(revoked).where('uid', '=', token.subject.id).executeTakeFirst()
      if (!row) throw unauthorized(AUTH_ERRORS.invalidToken)
      const { revoked: isRevoked, ...integrator } = row
      if (isRevoked) throw unauthorized(AUTH_ERRORS.revoked)
      if (!integrator.is_active) throw forbidden(AUTH_ERRORS.inactiveIntegrator)
      return { kind: 'integrator', integrator, token }
    }
    const row = await db.selectFrom('users').selectAll().select(revoked).where('uid', '=', token.subject.id).executeTakeFirst()
    if (!row) throw unauthorized(AUTH_ERRORS.invalidToken)
    const { revoked: isRevoked, ...user } = row
    if (isRevoked) throw unauthorized(AUTH_ERRORS.revoked)
    if (user.inactive) throw forbidden(AUTH_ERRORS.inactiveUser)
    return { kind: 'user', user, token }
  }

  async function linked(userId: string, integratorUid: string): Promise<boolean> {
    const row = await app.database.db.selectFrom('user_integrator_links').select('uid')
      .where('uid', '=', userId).where('integrator_uid', '=', integratorUid).executeTakeFirst()
    return row !== undefined
  }

  function permissionFor(method: string, integrator: IntegratorRow): string | undefined {
    if (method === 'DELETE') return integrator.can_delete ? undefined : AUTH_ERRORS.noDelete
    if (method === 'GET' || method === 'HEAD') return integrator.can_read ? undefined : AUTH_ERRORS.noRead
    return integrator.can_write ? undefined : AUTH_ERRORS.noWrite
  }

  async function requireOwnOrLinked(req: FastifyRequest, caller: Caller) {
    const userId = userIdParam(req)
    if (caller.kind === 'user') {
      if (caller.user.uid !== userId) throw forbidden(AUTH_ERRORS.notOwner)
      return
    }
    if (!(await linked(userId, caller.integrator.uid))) throw forbidden(AUTH_ERRORS.notLinked)
    const missing = permissionFor(req.method, caller.integrator)
    if (missing) throw forbidden(missing)
  }

  const rules: AccessRules = {
    bearer: async (req) => { await authenticate(req) },
    own: async (req) => {
      await requireOwnOrLinked(req, await authenticate(req))
    },
    sensorData: async (req) => {
      const caller = await authenticate(req)
      if (caller.kind === 'user') throw forbidden(AUTH_ERRORS.sensorUserToken)
      if (!tierIncludesSensorData(caller.integrator.tier)) throw forbidden(AUTH_ERRORS.sensorTier)
      await requireOwnOrLinked(req, caller)
    },
    admin: async (req) => {
      const caller = await authenticate(req)
      if (caller.kind !== 'user' || !caller.user.admin) throw forbidden(AUTH_ERRORS.adminOnly)
    },
    bdUser: async (req) => {
      const caller = await authenticate(req)
      if (caller.kind !== 'user' || !caller.user.bd_user) throw forbidden(AUTH_ERRORS.bdUserOnly)
    },
    userToken: async (req) => {
      const caller = await authenticate(req)
      if (caller.kind !== 'user') throw forbidden(AUTH_ERRORS.userTokenOnly)
    },
  }
  app.decorate('access', rules)
}

function userIdParam(req: FastifyRequest): string {
  const userId = (req.params as { userId?: unknown } | undefined)?.userId
  if (typeof userId !== 'string') throw new ApiError(500, 'Route has no :userId parameter for the own rule')
  return userId
}

/** The authenticated caller of a route guarded by an access rule. */
export function callerOf(req: FastifyRequest): Caller {
  if (!req.caller) throw new ApiError(500, 'Route reached without an access rule')
  return req.caller
}

/** The caller of a route guarded by a user-token rule. */
export function userCallerOf(req: FastifyRequest): Extract<Caller, { kind: 'user' }> {
  const caller = callerOf(req)
  if (caller.kind !== 'user') throw forbidden(AUTH_ERRORS.userTokenOnly)
  return caller
}
