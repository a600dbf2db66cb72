// Who is calling: the principal a verified access token names, in its current state. Loading goes
// through a CallerSource (the repositories of integrators and users, wired in app.ts), so this module
// holds no SQL and knows no feature module.
import type { Selectable } from 'kysely'
import type { IntegratorsTable, UsersTable } from '../db/schema.ts'
import type { FastifyRequest } from 'fastify'
import { ApiError, forbidden, invalidToken } from '../http/errors.ts'
import { AUTH_ERRORS } from './errors.ts'
import type { VerifiedToken } from './jwt.ts'

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the access check of the route (plugins/access.ts). */
    caller: Caller | undefined
  }
}

export type IntegratorPrincipal = Selectable<IntegratorsTable>
export type UserPrincipal = Selectable<UsersTable>

export type Caller =
  | { kind: 'integrator'; integrator: IntegratorPrincipal; token: VerifiedToken }
  | { kind: 'user'; user: UserPrincipal; token: VerifiedToken }

/** A principal as stored, and whether the presented token's jti is revoked: one round trip. */
export interface PrincipalState<T> {
  principal: T
  revoked: boolean
}

export interface CallerSource {
  integrator(uid: string, jti: string): Promise<PrincipalState<IntegratorPrincipal> | undefined>
  user(uid: string, jti: string): Promise<PrincipalState<UserPrincipal> | undefined>
  /** Whether the account `userUid` has linked the integrator, and whether that account is deactivated. */
  linkOf(userUid: string, integratorUid: string): Promise<AccountLink>
}

/** An integrator's link to an account: none, or linked to an active or a deactivated account. */
export type AccountLink = 'none' | 'linked' | 'linkedInactive'

/**
 * The caller a verified token names. An unknown principal or a revoked token is 401; a deactivated
 * integrator or user is 403 on its very next request, whatever its token says.
 */
export async function loadCaller(token: VerifiedToken, source: CallerSource): Promise<Caller> {
  if (token.subject.kind === 'integrator') {
    const state = await source.integrator(token.subject.id, token.jti)
    if (!state) throw invalidToken(AUTH_ERRORS.invalidToken)
    if (state.revoked) throw invalidToken(AUTH_ERRORS.revoked)
    // While deactivated, the spec's 403 says why; once reactivated, what it held before stays ended.
    if (!state.principal.is_active) throw forbidden(AUTH_ERRORS.inactiveIntegrator)
    if (issuedBefore(token, state.principal.tokens_valid_from)) throw invalidToken(AUTH_ERRORS.revoked)
    return { kind: 'integrator', integrator: state.principal, token }
  }
  const state = await source.user(token.subject.id, token.jti)
  if (!state) throw invalidToken(AUTH_ERRORS.invalidToken)
  if (state.revoked) throw invalidToken(AUTH_ERRORS.revoked)
  if (state.principal.inactive) throw forbidden(AUTH_ERRORS.inactiveUser)
  return { kind: 'user', user: state.principal, token }
}

/**
 * Whether a token was issued before `validFrom` (an integrator's client secret changed then): what the old secret, or
 * a bare UID, obtained ends with it. `iat` has whole seconds, so `validFrom` is set on a whole second (see the CLI).
 */
export function issuedBefore(token: Pick<VerifiedToken, 'iat'>, validFrom: Date | null): boolean {
  return validFrom !== null && token.iat * 1000 < validFrom.getTime()
}

/** A stable key of the caller, for quotas and idempotency keys. */
export function callerKey(caller: Caller): string {
  return caller.kind === 'integrator' ? `integrator:${caller.integrator.uid}` : `user:${caller.user.uid}`
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
