// Durable token state shared by every process: refresh-token families (rotation, reuse detection)
// and revoked access tokens. Refresh tokens are stored as SHA-256 hashes (they are 256-bit-strong
// random JWTs, so a fast hash suffices; the raw token never touches the database).
import { createHash } from 'node:crypto'
import { sql, type Kysely, type Selectable, type Transaction } from 'kysely'
import type { DB, RefreshTokensTable } from '../../db/schema.ts'

export type RefreshRow = Selectable<RefreshTokensTable>

/** A select column `revoked`: whether the access token `jti` is revoked (the caller's state and this, in one round trip). */
export function revokedColumn(jti: string) {
  return sql<boolean>`exists (select 1 from revoked_tokens where jti = ${jti})`.as('revoked')
}
type Db = Kysely<DB> | Transaction<DB>

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('base64url')
}

export async function insertRefreshToken(db: Db, row: RefreshRow): Promise<void> {
  await db.insertInto('refresh_tokens').values(row).execute()
}

/**
 * Marks a refresh token used, atomically: of two concurrent calls with one token, exactly one gets
 * the row back.
 */
export async function consumeRefreshToken(
  db: Db,
  jti: string,
  tokenHash: string,
  now: number,
): Promise<RefreshRow | undefined> {
  return db
    .updateTable('refresh_tokens')
    .set({ used_at: now })
    .where('jti', '=', jti)
    .where('token_hash', '=', tokenHash)
    .where('used_at', 'is', null)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .returningAll()
    .executeTakeFirst()
}

export async function findRefreshToken(db: Db, jti: string): Promise<RefreshRow | undefined> {
  return db.selectFrom('refresh_tokens').selectAll().where('jti', '=', jti).executeTakeFirst()
}

export async function findRefreshByAccessJti(db: Db, accessJti: string): Promise<RefreshRow | undefined> {
  return db.selectFrom('refresh_tokens').selectAll().where('access_jti', '=', accessJti).executeTakeFirst()
}

export async function revokeAccessToken(
  db: Db,
  jti: string,
  expiresAtMs: number,
  now: number,
  reason: string,
): Promise<void> {
  await db
    .insertInto('revoked_tokens')
    .values({ jti, expires_at: expiresAtMs, revoked_at: now, reason })
    .onConflict((oc) => oc.column('jti').doNothing())
    .execute()
}

/** Revokes every refresh token of a family and every access token issued with them. */
export async function revokeFamily(db: Db, familyId: string, now: number, reason: string): Promise<void> {
  const rows = await db
    .updateTable('refresh_tokens')
    .set({ revoked_at: now })
    .where('family_id', '=', familyId)
    .where('revoked_at', 'is', null)
    .returning(['access_jti', 'access_expires_at'])
    .execute()
  if (rows.length === 0) return
  await db
    .insertInto('revoked_tokens')
    .values(rows.map((r) => ({ jti: r.access_jti, expires_at: r.access_expires_at, revoked_at: now, reason })))
    .onConflict((oc) => oc.column('jti').doNothing())
    .execute()
}

/** Revokes the still-valid refresh tokens of a subject (password change, deactivation), except one family. */
export async function revokeSubjectFamilies(
  db: Db,
  kind: 'integrator' | 'user',
  id: string,
  now: number,
  reason: string,
  exceptFamily?: string,
): Promise<void> {
  let query = db
    .selectFrom('refresh_tokens')
    .select('family_id')
    .distinct()
    .where('subject_kind', '=', kind)
    .where('subject_id', '=', id)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
  if (exceptFamily) query = query.where('family_id', '!=', exceptFamily)
  for (const { family_id } of await query.execute()) await revokeFamily(db, family_id, now, reason)
}

/** Deletes revocations and refresh tokens past their expiry: they can no longer be presented. */
export async function pruneExpiredTokens(
  db: Kysely<DB>,
  now: number,
): Promise<{ revocations: number; refreshTokens: number }> {
  const revoked = await db.deleteFrom('revoked_tokens').where('expires_at', '<', now).executeTakeFirst()
  const refresh = await db.deleteFrom('refresh_tokens').where('expires_at', '<', now).executeTakeFirst()
  return { revocations: Number(revoked.numDeletedRows), refreshTokens: Number(refresh.numDeletedRows) }
}
