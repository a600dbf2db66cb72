// The token lifecycle of the spec: issue, refresh (rotation with reuse detection), revoke, logout.
// Refresh tokens are single-use; presenting a used one revokes its whole family, since a legitimate
// client never does (RFC 9700 §4.14.2). Revoking an access token also revokes the refresh token issued with it.
import { randomUUID } from 'node:crypto'
import type { Kysely, Transaction } from 'kysely'
import type { DB } from '../../db/schema.ts'
import type { Clock } from '../../types.ts'
import { ApiError, forbidden, unauthorized } from '../../http/errors.ts'
import { AUTH_ERRORS } from '../../auth/errors.ts'
import { TokenError, type Subject, type TokenSigner, type VerifiedToken } from '../../auth/jwt.ts'
import {
  consumeRefreshToken,
  findRefreshByAccessJti,
  findRefreshToken,
  hashToken,
  insertFamily,
  insertRefreshToken,
  lockFamily,
  revokeAccessToken,
  revokeFamily,
} from '../../auth/token-store.ts'

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

/** Issues an access token, and a refresh token in a new family when asked. */
export async function issueTokens(
  deps: LifecycleDeps,
  subject: Subject,
  accessTtlSeconds: number,
  withRefresh: boolean,
): Promise<IssuedTokens> {
  if (!withRefresh) {
    const access = await deps.signer.sign(subject, 'access', accessTtlSeconds)
    return { accessToken: access.token, expiresAt: access.exp * 1000, subject }
  }
  return deps.db.transaction().execute(async (trx) => {
    const familyId = randomUUID()
    await insertFamily(trx, {
      id: familyId,
      subject_kind: subject.kind,
      subject_id: subject.id,
      created_at: deps.clock(),
      revoked_at: null,
    })
    return issueInFamily(trx, deps, subject, accessTtlSeconds, familyId)
  })
}

/** Signs an access token and a refresh token of `familyId`, and stores the refresh token. */
async function issueInFamily(
  trx: Transaction<DB>,
  deps: LifecycleDeps,
  subject: Subject,
  accessTtlSeconds: number,
  familyId: string,
): Promise<IssuedTokens> {
  const access = await deps.signer.sign(subject, 'access', accessTtlSeconds)
  const refresh = await deps.signer.sign(subject, 'refresh', deps.refreshTtlSeconds)
  await insertRefreshToken(trx, {
    jti: refresh.jti,
    family_id: familyId,
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
  return { accessToken: access.token, expiresAt: access.exp * 1000, subject, refreshToken: refresh.token }
}

/**
 * Exchanges a refresh token for a new access token and a new refresh token of the same family, in one
 * transaction that holds the family row: a reuse of the token (or any revocation of the family) waits for
 * it and then revokes what it issued too. `subjectIsActive` re-checks the integrator or user, so a
 * deactivated one cannot refresh.
 */
export async function refreshTokens(
  deps: LifecycleDeps,
  refreshToken: string,
  subjectIsActive: (db: Kysely<DB>, s: Subject) => Promise<boolean>,
): Promise<IssuedTokens> {
  let verified: VerifiedToken
  try {
    verified = await deps.signer.verify(refreshToken, 'refresh')
  } catch (err) {
    if (err instanceof TokenError) throw unauthorized(err.message)
    throw err
  }
  const now = deps.clock()
  const tokenHash = hashToken(refreshToken)
  // A refusal is returned rather than thrown, so that the revocation it made commits.
  const outcome = await deps.db.transaction().execute(async (trx): Promise<IssuedTokens | ApiError> => {
    const presented = await findRefreshToken(trx, verified.jti)
    if (!presented || presented.token_hash !== tokenHash) return unauthorized(AUTH_ERRORS.invalidToken)
    const family = await lockFamily(trx, presented.family_id)
    if (!family || family.revoked_at !== null) return unauthorized(AUTH_ERRORS.revoked)
    const row = await consumeRefreshToken(trx, verified.jti, tokenHash, now)
    if (!row) {
      // Read again under the family's lock: a rotation that raced this one has committed by now.
      const known = await findRefreshToken(trx, verified.jti)
      if (known?.revoked_at !== null) return unauthorized(AUTH_ERRORS.revoked)
      if (known.used_at !== null) {
        await revokeFamily(trx, family.id, now, 'refresh token reuse')
        return unauthorized(REUSED_REFRESH_TOKEN)
      }
      return unauthorized(AUTH_ERRORS.expired)
    }
    if (!(await subjectIsActive(trx, verified.subject))) {
      await revokeFamily(trx, family.id, now, 'subject inactive')
      return verified.subject.kind === 'integrator'
        ? unauthorized(AUTH_ERRORS.invalidIntegrator)
        : forbidden(AUTH_ERRORS.inactiveUser)
    }
    return issueInFamily(trx, deps, verified.subject, row.access_ttl_seconds, family.id)
  })
  if (outcome instanceof ApiError) throw outcome
  return outcome
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
