// Authentication and access on every route, from what the route declares: `config: { access: 'own' }`.
// One onRoute hook turns the declaration into the check (authentication in onRequest, before the body is
// read, so a caller without a valid token learns nothing about a route's body: 401 comes first; the rule,
// which may need the validated :userId, in preValidation), the OpenAPI `security` and the standard error
// responses. A route in the API scope that declares no rule fails at start-up.
import type {
  FastifyInstance,
  FastifyRequest,
  RouteOptions,
  onRequestAsyncHookHandler,
  preValidationAsyncHookHandler,
} from 'fastify'
import { denial, needsLink } from '../auth/access.rules.ts'
import { loadCaller, type Caller, type CallerSource } from '../auth/caller.ts'
import { AUTH_ERRORS } from '../auth/errors.ts'
import { TokenError, type TokenSigner, type VerifiedToken } from '../auth/jwt.ts'
import { authErrors, commonErrors } from '../http/envelope.ts'
import { ApiError, forbidden, invalidToken, unauthorized } from '../http/errors.ts'
import { ACCESS_RULES, type AccessRule } from '../http/route-policy.ts'
import { hooksOf } from '../http/route-hooks.ts'

declare module 'fastify' {
  interface FastifyInstance {
    tokens: TokenSigner
    /**
     * A route's access rule checked again on the caller's current state (its account, link and token re-read), for
     * work that outlives its request: an event stream ends once this is false.
     */
    stillAllows: (rule: Exclude<AccessRule, 'public'>, caller: Caller, target: AccessTarget) => Promise<boolean>
  }
  interface FastifyRequest {
    /** The :userId account an integrator caller was found linked to by the access check (the access log's account). */
    linkedAccount: string | undefined
  }
}

// The auth scheme is case-insensitive (RFC 9110 §11.1); the token is base64url segments.
const BEARER = /^Bearer +([A-Za-z0-9_\-.]+)$/i

export interface AccessOptions {
  signer: TokenSigner
  callers: CallerSource
  /**
   * Counts the request against its limits (plugins/limits.ts): with its caller once known, with none when
   * authentication fails, so that a spent IP limit answers 429 before a 401.
   */
  admit?: (req: FastifyRequest, caller: Caller | undefined) => Promise<void>
}

/** What a request asks for, as the access rules read it. */
export interface AccessTarget {
  method: string
  /** The :userId of the path, if any. */
  userId: string | undefined
}

export interface AccessControl {
  /** Adds the onRoute hook to a scope: every route registered in it must declare `config.access`. */
  enforceRoutePolicy: (scope: FastifyInstance) => void
}

export function accessPlugin(app: FastifyInstance, { signer, callers, admit }: AccessOptions): AccessControl {
  app.decorate('tokens', signer)
  app.decorateRequest('caller', undefined)
  app.decorateRequest('linkedAccount', undefined)

  async function identify(req: FastifyRequest): Promise<Caller> {
    const header = req.headers.authorization?.trim()
    if (header === undefined || header === '') throw unauthorized(AUTH_ERRORS.missingHeader)
    const match = BEARER.exec(header)
    if (!match?.[1])
      throw /^bearer\b/i.test(header)
        ? unauthorized(AUTH_ERRORS.invalidToken, 'invalid_request')
        : unauthorized(AUTH_ERRORS.invalidToken)
    let token: VerifiedToken
    try {
      token = await signer.verify(match[1], 'access')
    } catch (err) {
      if (err instanceof TokenError) throw invalidToken(err.message)
      throw err
    }
    return loadCaller(token, callers)
  }

  // In onRequest, before the body is read: the caller, then its limits (one Redis round trip for both).
  const authenticate: onRequestAsyncHookHandler = async (req) => {
    let caller: Caller
    try {
      caller = await identify(req)
    } catch (err) {
      await admit?.(req, undefined)
      throw err
    }
    req.caller = caller
    await admit?.(req, caller)
  }

  /** The rule's refusal of the caller, if any, and whether the caller was found linked to the account. */
  async function judge(rule: Exclude<AccessRule, 'public'>, caller: Caller, { method, userId }: AccessTarget) {
    const link =
      needsLink(rule, caller) && userId !== undefined && caller.kind === 'integrator'
        ? await callers.linkOf(userId, caller.integrator.uid)
        : 'none'
    const linked = link !== 'none'
    return {
      refusal: denial(rule, caller, { method, userId, linked, accountInactive: link === 'linkedInactive' }),
      linked,
    }
  }

  function check(rule: Exclude<AccessRule, 'public'>): preValidationAsyncHookHandler {
    return async (req) => {
      const caller = req.caller
      if (!caller) throw new Error('the access check runs after authenticate')
      const userId = (req.params as { userId?: unknown } | undefined)?.userId
      const uid = typeof userId === 'string' ? userId : undefined
      const { refusal, linked } = await judge(rule, caller, { method: req.method, userId: uid })
      if (linked) req.linkedAccount = uid
      if (refusal) throw forbidden(refusal)
    }
  }

  app.decorate('stillAllows', async (rule: Exclude<AccessRule, 'public'>, caller: Caller, target: AccessTarget) => {
    let current: Caller
    try {
      current = await loadCaller(caller.token, callers)
    } catch (err) {
      // A revoked token, or an account or integrator deactivated or gone.
      if (err instanceof ApiError) return false
      throw err
    }
    return (await judge(rule, current, target)).refusal === undefined
  })

  return {
    enforceRoutePolicy(scope) {
      scope.addHook('onRoute', (route: RouteOptions) => {
        const rule = route.config?.access
        if (!rule || !ACCESS_RULES.includes(rule)) {
          throw new Error(
            `Route ${String(route.method)} ${route.url} declares no access rule (config.access: ${ACCESS_RULES.join(' | ')})`,
          )
        }
        if ((rule === 'own' || rule === 'sensorData' || rule === 'self') && !route.url.includes(':userId')) {
          throw new Error(
            `Route ${String(route.method)} ${route.url} uses the ${rule} rule but has no :userId parameter`,
          )
        }
        const schema = (route.schema ??= {}) as {
          body?: unknown
          security?: unknown
          response?: Record<string, unknown>
        }
        schema.security = rule === 'public' ? [] : [{ bearer: [] }]
        schema.response = {
          ...standardErrors(rule, schema.body !== undefined, route.config?.limit === 'exempt'),
          ...schema.response,
        }
        if (rule !== 'public') {
          route.onRequest = [authenticate, ...hooksOf(route.onRequest)]
          route.preValidation = [check(rule), ...hooksOf(route.preValidation)]
        }
      })
    },
  }
}

/** The error responses a route can give, by its rule and whether it takes a body or is rate limited. */
function standardErrors(rule: AccessRule, hasBody: boolean, exempt: boolean): Record<string, unknown> {
  const { 413: tooLarge, 415: unsupported, 429: tooMany, ...always } = commonErrors
  return {
    ...always,
    ...(hasBody ? { 413: tooLarge, 415: unsupported } : {}),
    ...(exempt ? {} : { 429: tooMany }),
    ...(rule === 'public' ? {} : authErrors),
  }
}
