// Durable token state shared by every process: refresh-token families (rotation, reuse detection)
// and revoked access tokens. A family row is the lock of its session: a rotation and a revocation of one
// family take it first, so a revocation covers what a rotation in flight issues (migration 0010). Refresh tokens are stored as SHA-256 hashes (they are 256-bit-strong
// random JWTs, so a fast hash suffices; the raw token never touches the database).
import { createHash } from 'node:crypto'
import { sql, type Kysely, type Selectable, type Transaction } from 'kysely'
import type { DB, RefreshTokensTable, TokenFamiliesTable } from '../db/schema.ts'
import type { PrincipalState } from './caller.ts'

export type RefreshRow = Selectable<RefreshTokensTable>
export type FamilyRow = Selectable<TokenFamiliesTable>

/** The account (user or integrator) a token names and whether that token is revoked, in one round trip (auth/caller.ts). */
export async function findAccountAsCaller<Table extends 'users' | 'integrators'>(
  db: Kysely<DB>,
  table: Table,
  uid: string,
  jti: string,
): Promise<PrincipalState<Selectable<DB[Table]>> | undefined> {
  const row = await db
    .selectFrom<'users' | 'integrators'>(table)
    .selectAll()
    .select(sql<boolean>`exists (select 1 from revoked_tokens where jti = ${jti})`.as('revoked'))
    .where('uid', '=', uid)
    .executeTakeFirst()
  if (!row) return undefined
  const { revoked, ...principal } = row
  // Its columns are those of `table`, which TypeScript does not narrow a union of tables to.
  return { principal: principal as Selectable<DB[Table]>, revoked }
}
type Db = Kysely<DB> | Transaction<DB>

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('base64url')
}

export async function insertRefreshToken(db: Db, row: RefreshRow): Promise<void> {
  await db.insertInto('refresh_tokens').values(row).execute()
}

export async function insertFamily(db: Db, row: FamilyRow): Promise<void> {
  await db.insertInto('token_families').values(row).execute()
}

/** The family row, locked until the transaction ends: rotations and revocations of one session take turns. */
export async function lockFamily(trx: Transaction<DB>, familyId: string): Promise<FamilyRow | undefined> {
  return trx.selectFrom('token_families').selectAll().where('id', '=', familyId).forUpdate().executeTakeFirst()
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

/**
 * Revokes a family, every refresh token of it and every access token issued with them. The family row is
 * updated first: that waits for a rotation holding it, and the statements after it see what it inserted.
 */
export async function revokeFamily(db: Db, familyId: string, now: number, reason: string): Promise<void> {
  await db
    .updateTable('token_families')
    .set({ revoked_at: now })
    .where('id', '=', familyId)
    .where('revoked_at', 'is', null)
    .execute()
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
  // In the order of their ids, so that two of these never wait for each other's families.
  let query = db
    .selectFrom('token_families')
    .select('id')
    .where('subject_kind', '=', kind)
    .where('subject_id', '=', id)
    .where('revoked_at', 'is', null)
    .orderBy('id')
  if (exceptFamily) query = query.where('id', '!=', exceptFamily)
  for (const family of await query.execute()) await revokeFamily(db, family.id, now, reason)
}

/** Deletes revocations and refresh tokens past their expiry: they can no longer be presented. */
export async function pruneExpiredTokens(
  db: Kysely<DB>,
  now: number,
): Promise<{ revocations: number; refreshTokens: number }> {
  const revoked = await db.deleteFrom('revoked_tokens').where('expires_at', '<', now).executeTakeFirst()
  const refresh = await db.deleteFrom('refresh_tokens').where('expires_at', '<', now).executeTakeFirst()
  // A family is created with its first token, so one without tokens has nothing left to present.
  await db
    .deleteFrom('token_families')
    .where('id', 'not in', db.selectFrom('refresh_tokens').select('family_id'))
    .execute()
  return { revocations: Number(revoked.numDeletedRows), refreshTokens: Number(refresh.numDeletedRows) }
}
