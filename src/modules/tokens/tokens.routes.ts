import { createHash } from 'node:crypto'
import type { App } from '../../types.ts'
import { callerOf, userCallerOf } from '../../auth/caller.ts'
import { AUTH_ERRORS } from '../../auth/errors.ts'
import { defineModule } from '../../http/api-module.ts'
import { Envelope, MessageEnvelope, authErrors, ok, okMessage } from '../../http/envelope.ts'
import { ApiError, forbidden, notFound, unauthorized } from '../../http/errors.ts'
import { burnPasswordCheck, verifyPassword } from '../users/passwords.ts'
import { findUserByEmail, findUserByUid } from '../users/users.repository.ts'
import { linkedIntegratorUids } from '../integrators/integrators.repository.ts'
import { toApiUser } from '../users/users.resource.ts'
import { findIntegrator } from '../integrators/integrators.repository.ts'
import { secretMatches } from '../integrators/client-secrets.ts'
import { tokenDirectoryRoutes } from './directory.ts'
import { IdTokenVerifier } from './id-token.ts'
import type { Subject } from '../../auth/jwt.ts'
import type { Kysely } from 'kysely'
import type { FastifyRequest } from 'fastify'
import type { DB } from '../../db/schema.ts'
import {
  issueTokens,
  logout,
  refreshTokens,
  revokeToken,
  type IssuedTokens,
  type LifecycleDeps,
} from './token-lifecycle.ts'
import {
  IdTokenRequest,
  InfoResponse,
  LoginRequest,
  RefreshRequest,
  TokenRequest,
  TokenResponse,
  UserTokenResponse,
  ValidateResponse,
} from './tokens.schemas.ts'
import Type, { type Static } from 'typebox'

const TokenOrUserToken = Type.Union([TokenResponse, UserTokenResponse])

const uidDigest = (uid: string) => createHash('sha256').update(uid).digest('hex').slice(0, 12)

function toTokenResponse(issued: IssuedTokens) {
  const base = {
    accessToken: issued.accessToken,
    ...(issued.refreshToken ? { refreshToken: issued.refreshToken } : {}),
    expiresAt: issued.expiresAt,
    tokenType: 'Bearer' as const,
  }
  return issued.subject.kind === 'integrator'
    ? { ...base, integratorUID: issued.subject.id }
    : { ...base, uid: issued.subject.id }
}

export const tokensModule = defineModule({
  tag: 'tokens',
  description: 'Integrator and user tokens',
  routes: tokenRoutes,
})

async function tokenRoutes(app: App) {
  await tokenDirectoryRoutes(app)
  const { limits } = app.config
  const deps: LifecycleDeps = {
    db: app.database.db,
    signer: app.tokens,
    clock: app.clock,
    refreshTtlSeconds: limits.refreshTokenTtlSeconds,
  }
  const idTokens = app.config.oidc ? new IdTokenVerifier(app.config.oidc, app.clock) : undefined

  app.post(
    '/tokens',
    {
      schema: {
        operationId: 'createToken',
        summary: 'Issue an integrator token',
        description:
          'Public. Body `{integratorUID, clientSecret}`: integrators get a client secret when the operator creates them, ' +
          "and it is required. Only an integrator the operator created with `--no-secret` (the spec's bare flow) may leave it out. " +
          'An unknown, inactive or wrongly-authenticated integratorUID gets `Access denied: Invalid integratorUID` (401), whichever ' +
          'it is. After AUTH_FAILURES_MAX (10) failures per 15 minutes from one address for one integratorUID, that pair gets 429.',
        body: TokenRequest(limits),
        response: { 200: Envelope(TokenResponse, 'The tokens', 'Token generated successfully'), 401: authErrors[401] },
      },
      config: { access: 'public', limit: 'tokens' },
    },
    async (req) => {
      const { integratorUID, clientSecret, expiresIn, refreshToken } = req.body
      const attempt = await app.authFailures.attempt(req, integratorUID)
      const integrator = await findIntegrator(app.database.db, integratorUID)
      const failure = !integrator
        ? 'unknown integratorUID'
        : !integrator.is_active
          ? 'inactive integrator'
          : integrator.client_secret_hash && !secretMatches(clientSecret, integrator.client_secret_hash)
            ? clientSecret === undefined
              ? 'client secret missing'
              : 'wrong client secret'
            : undefined
      if (!integrator || failure) {
        // The UID is a credential for integrators without a secret: log a digest, never the UID.
        req.log.warn(
          { reason: failure, integrator: uidDigest(integratorUID), ip: req.ip },
          'integrator authentication failed',
        )
        throw unauthorized(AUTH_ERRORS.invalidIntegrator)
      }
      await attempt.succeeded()
      const issued = await issueTokens(deps, { kind: 'integrator', id: integrator.uid }, expiresIn, refreshToken)
      return ok(toTokenResponse(issued) as Static<typeof TokenResponse>, 'Token generated successfully')
    },
  )

  app.post(
    '/tokens/refresh',
    {
      schema: {
        operationId: 'refreshToken',
        summary: 'Rotate a refresh token',
        description:
          'Public. Returns a new access token and a new refresh token. Each refresh token works once: presenting a used one ' +
          'revokes every token of its session (reuse detection), so clients must not refresh concurrently with one token.',
        body: RefreshRequest,
        response: { 200: Envelope(TokenOrUserToken, 'The new tokens', 'Token refreshed successfully'), ...authErrors },
      },
      config: { changesAccess: true, access: 'public', limit: 'refresh' },
    },
    async (req) => {
      const issued = await refreshTokens(deps, req.body.refreshToken, subjectIsActive)
      return ok(toTokenResponse(issued), 'Token refreshed successfully')
    },
  )

  app.get(
    '/tokens/validate',
    {
      schema: {
        operationId: 'validateToken',
        summary: 'Validate the presented token',
        description:
          'Any access token. Answers 200 with who the token is for and when it expires while it is valid; 401 otherwise.',
        response: { 200: Envelope(ValidateResponse) },
      },
      config: { access: 'bearer' },
    },
    async (req) => {
      const caller = callerOf(req)
      const expiresAt = new Date(caller.token.exp * 1000).toISOString()
      if (caller.kind === 'integrator') {
        const { uid, email, name, is_active } = caller.integrator
        return ok({
          valid: true as const,
          integratorUID: uid,
          integrator: { email, name, isActive: is_active },
          tokenType: 'access' as const,
          expiresAt,
        })
      }
      const { uid, email, name } = caller.user
      return ok({ valid: true as const, uid, user: { uid, email, name }, tokenType: 'access' as const, expiresAt })
    },
  )

  revokingRoute(app, '/tokens/revoke', 'bearer', (req) => revokeToken(deps, callerOf(req).token), {
    operationId: 'revokeToken',
    summary: 'Revoke the presented token',
    description: 'Revokes the presented access token at once for every process, and the refresh token issued with it.',
    title: 'Revoked',
    message: 'Token revoked successfully',
  })

  app.get(
    '/tokens/info',
    {
      schema: {
        operationId: 'getTokenInfo',
        summary: 'Details of the presented token',
        description:
          "Any access token. Who it is for (with an integrator's tier and permissions), when it was issued and expires, and the token lifetimes.",
        response: { 200: Envelope(InfoResponse) },
      },
      config: { access: 'bearer' },
    },
    async (req) => {
      const caller = callerOf(req)
      const token = {
        type: 'access' as const,
        issuedAt: new Date(caller.token.iat * 1000).toISOString(),
        expiresAt: new Date(caller.token.exp * 1000).toISOString(),
        jti: caller.token.jti,
      }
      const config = {
        accessTokenExpiry: limits.tokenExpiresInDefault,
        refreshTokenExpiry: limits.refreshTokenTtlSeconds,
      }
      if (caller.kind === 'integrator') {
        const i = caller.integrator
        return ok({
          integratorUID: i.uid,
          integrator: {
            email: i.email,
            name: i.name,
            isActive: i.is_active,
            createdAt: i.created_at.toISOString(),
            tier: i.tier,
            permissions: { canRead: i.can_read, canWrite: i.can_write, canDelete: i.can_delete },
          },
          token,
          config,
        })
      }
      const { uid, email, name } = caller.user
      return ok({ uid, user: { uid, email, name }, token, config })
    },
  )

  app.post(
    '/tokens/login',
    {
      schema: {
        operationId: 'login',
        summary: 'Issue a user token',
        description:
          'Public. Body `{email, password}`. Returns an access token (default lifetime) and a refresh token. ' +
          'A wrong e-mail and a wrong password get the same answer in the same time.',
        body: LoginRequest,
        response: { 200: Envelope(UserTokenResponse, 'The tokens', 'Logged in successfully'), ...authErrors },
      },
      config: { access: 'public', limit: 'login' },
    },
    async (req) => {
      const { email, password } = req.body
      const attempt = await app.loginFailures.attempt(email)
      const user = await findUserByEmail(app.database.db, email)
      const valid = user?.password_hash
        ? await verifyPassword(password, user.password_hash)
        : await burnPasswordCheck(password, app.config.passwordScryptLogN)
      if (!user || !valid) {
        if (attempt.engagesBrake && user) {
          // The owner's notice: the warning names the account (never the address), for the operator to pass on.
          req.log.warn({ account: user.uid }, 'login brake engaged: too many failed logins for this account')
        }
        throw unauthorized('Invalid email or password')
      }
      await attempt.succeeded()
      if (user.inactive) throw forbidden(AUTH_ERRORS.inactiveUser)
      const issued = await issueTokens(deps, { kind: 'user', id: user.uid }, limits.tokenExpiresInDefault, true)
      return ok(toTokenResponse(issued) as Static<typeof UserTokenResponse>, 'Logged in successfully')
    },
  )

  revokingRoute(app, '/tokens/logout', 'userToken', (req) => logout(deps, userCallerOf(req).token), {
    operationId: 'logout',
    summary: 'Log a user out',
    description: 'User token. Revokes the presented token and every token of its refresh family.',
    title: 'Logged out',
    message: 'Logged out successfully',
  })

  app.post(
    '/tokens/verify-id-token',
    {
      schema: {
        operationId: 'verifyIdToken',
        summary: 'Verify an identity-provider ID token',
        description:
          'Public. Verifies an OpenID Connect ID token against the configured issuer (OIDC_ISSUER, OIDC_JWKS_URL, ' +
          "OIDC_AUDIENCE): signature by the issuer's JWKS, issuer, audience, expiry. Returns the user whose e-mail matches the " +
          "token's verified `email` claim (`email_verified: true`; a token without the claim only where the operator set " +
          'OIDC_EMAIL_VERIFIED=optional). 501 when no issuer is configured.',
        body: IdTokenRequest,
        response: {
          200: Envelope(
            Type.Object({ user: Type.Ref('User') }),
            "The user with the token's verified e-mail",
            'ID token verified',
          ),
          ...authErrors,
          501: Type.Ref('ErrorEnvelope', { description: 'No identity provider is configured' }),
        },
      },
      config: { access: 'public' },
    },
    async (req) => {
      if (!idTokens) throw new ApiError(501, 'ID token verification is not configured on this service')
      const claims = await idTokens.verify(req.body.idToken)
      const user = await findUserByEmail(app.database.db, claims.email)
      if (!user) throw notFound('User')
      if (user.inactive) throw forbidden(AUTH_ERRORS.inactiveUser)
      return ok({ user: toApiUser(user, await linkedIntegratorUids(app.database.db, user.uid)) }, 'ID token verified')
    },
  )
}

/** POST /tokens/revoke and POST /tokens/logout: revoke what the presented token stands for, answer with a message. */
function revokingRoute(
  app: App,
  path: string,
  access: 'bearer' | 'userToken',
  revoke: (req: FastifyRequest) => Promise<void>,
  doc: { operationId: string; summary: string; description: string; title: string; message: string },
) {
  app.post(
    path,
    {
      schema: {
        operationId: doc.operationId,
        summary: doc.summary,
        description: doc.description,
        response: { 200: MessageEnvelope(doc.title, doc.message) },
      },
      config: { changesAccess: true, access },
    },
    async (req) => {
      await revoke(req)
      return okMessage(doc.message)
    },
  )
}

async function subjectIsActive(db: Kysely<DB>, subject: Subject): Promise<boolean> {
  if (subject.kind === 'integrator') return (await findIntegrator(db, subject.id))?.is_active === true
  const user = await findUserByUid(db, subject.id)
  return user !== undefined && !user.inactive
}
