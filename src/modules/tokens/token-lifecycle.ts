// The token lifecycle of the spec: issue, refresh (rotation with reuse detection), revoke, logout.
// Refresh tokens are single-use; presenting a used one revokes its whole family, since a legitimate
// client never does (RFC 9700 §4.14.2). Revoking an access token also revokes the refresh token issued with it.
import { randomUUID } from 'node:crypto'
import type { Kysely } from 'kysely'
import type { DB } from '../../db/schema.ts'
import type { Clock } from '../../types.ts'
import { forbidden, unauthorized } from '../../http/errors.ts'
import { AUTH_ERRORS } from '../../auth/errors.ts'
import { TokenError, type Subject, type TokenSigner, type VerifiedToken } from '../../auth/jwt.ts'
import {
  consumeRefreshToken,
  findRefreshByAccessJti,
  findRefreshToken,
  hashToken,
  insertRefreshToken,
  revokeAccessToken,
  revokeFamily,
} from './token-store.ts'

export interface LifecycleDeps {
  db: Kysely<DB>
  signer: TokenSigner
  clock: Clock
  refreshTtlSeconds: number
}

export interface IssuedTokens {
  accessToken: string
  refreshToken?: string
  /** ms since epoch */
  expiresAt: number
  subject: Subject
}

export const REUSED_REFRESH_TOKEN = 'Refresh token has already been used; every token of its session is now revoked'

/** Issues an access token, and a refresh token in a new (or the given) family when asked. */
export async function issueTokens(
  deps: LifecycleDeps,
  subject: Subject,
  accessTtlSeconds: number,
  withRefresh: boolean,
  familyId?: string,
): Promise<IssuedTokens> {
  const access = await deps.signer.sign(subject, 'access', accessTtlSeconds)
  const issued: IssuedTokens = { accessToken: access.token, expiresAt: access.exp * 1000, subject }
  if (!withRefresh) return issued
  const refresh = await deps.signer.sign(subject, 'refresh', deps.refreshTtlSeconds)
  await insertRefreshToken(deps.db, {
    jti: refresh.jti,
    family_id: familyId ?? randomUUID(),
    subject_kind: subject.kind,
    subject_id: subject.id,
    token_hash: hashToken(refresh.token),
    access_jti: access.jti,
    access_expires_at: access.exp * 1000,
    access_ttl_seconds: accessTtlSeconds,
    expires_at: refresh.exp * 1000,
    used_at: null,
    revoked_at: null,
    created_at: deps.clock(),
  })
  return { ...issued, refreshToken: refresh.token }
}

/**
 * Exchanges a refresh token for a new access token and a new refresh token of the same family.
 * `subjectIsActive` re-checks the integrator or user, so a deactivated one cannot refresh.
 */
export async function refreshTokens(
  deps: LifecycleDeps,
  refreshToken: string,
  subjectIsActive: (s: Subject) => Promise<boolean>,
): Promise<IssuedTokens> {
  let verified: VerifiedToken
  try {
    verified = await deps.signer.verify(refreshToken, 'refresh')
  } catch (err) {
    if (err instanceof TokenError) throw unauthorized(err.message)
    throw err
  }
  const now = deps.clock()
  const row = await consumeRefreshToken(deps.db, verified.jti, hashToken(refreshToken), now)
  if (!row) {
    const known = await findRefreshToken(deps.db, verified.jti)
    if (known && known.token_hash === hashToken(refreshToken)) {
      if (known.revoked_at !== null) throw unauthorized(AUTH_ERRORS.revoked)
      if (known.used_at !== null) {
        await revokeFamily(deps.db, known.family_id, now, 'refresh token reuse')
        throw unauthorized(REUSED_REFRESH_TOKEN)
      }
      if (known.expires_at <= now) throw unauthorized(AUTH_ERRORS.expired)
    }
    throw unauthorized(AUTH_ERRORS.invalidToken)
  }
  if (!(await subjectIsActive(verified.subject))) {
    await revokeFamily(deps.db, row.family_id, now, 'subject inactive')
    throw verified.subject.kind === 'integrator'
      ? unauthorized(AUTH_ERRORS.invalidIntegrator)
      : forbidden(AUTH_ERRORS.inactiveUser)
  }
  return issueTokens(deps, verified.subject, row.access_ttl_seconds, true, row.family_id)
}

/** Revokes the presented access token and the refresh token issued with it (docs/decisions.md). */
export async function revokeToken(deps: LifecycleDeps, token: VerifiedToken): Promise<void> {
  const now = deps.clock()
  await deps.db.transaction().execute(async (trx) => {
    await revokeAccessToken(trx, token.jti, token.exp * 1000, now, 'revoked by bearer')
    await trx
      .updateTable('refresh_tokens')
      .set({ revoked_at: now })
      .where('access_jti', '=', token.jti)
      .where('revoked_at', 'is', null)
      .execute()
  })
}

/** Logout: revokes the presented token and its whole refresh family. */
export async function logout(deps: LifecycleDeps, token: VerifiedToken): Promise<void> {
  const now = deps.clock()
  await deps.db.transaction().execute(async (trx) => {
    await revokeAccessToken(trx, token.jti, token.exp * 1000, now, 'logout')
    const refresh = await findRefreshByAccessJti(trx, token.jti)
    if (refresh) await revokeFamily(trx, refresh.family_id, now, 'logout')
  })
}
