// The access rules of the spec's Authentication section as pure decisions: given the rule a route
// declares, the caller and the request, either undefined (allowed) or the 403 error text.
import type { AccessRule } from '../http/route-policy.ts'
import type { Caller } from './caller.ts'
import { AUTH_ERRORS } from './errors.ts'
import { tierIncludesSensorData } from './tiers.ts'

export interface AccessRequest {
  method: string
  /** The :userId the route acts on, when it has one. */
  userId: string | undefined
  /** Whether the integrator caller is linked to userId (asked only when `needsLink` says so). */
  linked: boolean
  /** Whether that linked account is deactivated: its owner's, and every integrator's, access ends with it. */
  accountInactive?: boolean
}

/** Whether deciding `rule` for this caller needs the account link looked up first. */
export function needsLink(rule: AccessRule, caller: Caller): boolean {
  return caller.kind === 'integrator' && (rule === 'own' || rule === 'sensorData')
}

/** Reads need canRead, deletes canDelete, every other method canWrite. */
export function missingPermission(
  method: string,
  integrator: { can_read: boolean; can_write: boolean; can_delete: boolean },
): string | undefined {
  if (method === 'DELETE') return integrator.can_delete ? undefined : AUTH_ERRORS.noDelete
  if (method === 'GET' || method === 'HEAD') return integrator.can_read ? undefined : AUTH_ERRORS.noRead
  return integrator.can_write ? undefined : AUTH_ERRORS.noWrite
}

/** undefined when the caller may do this; otherwise the error text of the 403. */
export function denial(
  rule: Exclude<AccessRule, 'public'>,
  caller: Caller,
  request: AccessRequest,
): string | undefined {
  const ownOrLinked = () => {
    if (caller.kind === 'user') return caller.user.uid === request.userId ? undefined : AUTH_ERRORS.notOwner
    if (!request.linked) return AUTH_ERRORS.notLinked
    if (request.accountInactive) return AUTH_ERRORS.inactiveUser
    return missingPermission(request.method, caller.integrator)
  }
  switch (rule) {
    case 'bearer':
      return undefined
    case 'userToken':
      return caller.kind === 'user' ? undefined : AUTH_ERRORS.userTokenOnly
    case 'integratorToken':
      return caller.kind === 'integrator' ? undefined : AUTH_ERRORS.integratorTokenOnly
    case 'self':
      if (caller.kind !== 'user') return AUTH_ERRORS.userTokenOnly
      return caller.user.uid === request.userId ? undefined : AUTH_ERRORS.notOwner
    case 'own':
      return ownOrLinked()
    case 'sensorData':
      if (caller.kind === 'user') return AUTH_ERRORS.sensorUserToken
      if (!tierIncludesSensorData(caller.integrator.tier)) return AUTH_ERRORS.sensorTier
      return ownOrLinked()
    case 'admin':
      return caller.kind === 'user' && caller.user.admin ? undefined : AUTH_ERRORS.adminOnly
    case 'bdUser':
      return caller.kind === 'user' && caller.user.bd_user ? undefined : AUTH_ERRORS.bdUserOnly
  }
}
