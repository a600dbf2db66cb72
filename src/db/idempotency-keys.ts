// Storage of the idempotency plugin: claim a key, read it, complete or release it, prune old ones.
import { sql, type Kysely, type Selectable } from 'kysely'
import type { DB, IdempotencyKeysTable } from './schema.ts'

export type IdempotencyKeyRow = Selectable<IdempotencyKeysTable>

export interface KeyScope {
  uid: string | null
  caller: string
  key: string
}

/**
 * Takes the key for this request: a new key, one older than `expiredBefore`, or an in-flight claim
 * whose lock ran out before `now` (its process died). True when this request now holds it.
 */
export async function claimKey(
  db: Kysely<DB>,
  scope: KeyScope,
  claim: { fingerprint: string; owner: string; now: number; lockedUntil: number; expiredBefore: number },
): Promise<boolean> {
  const { rows } = await sql<{ owner: string }>`
    INSERT INTO idempotency_keys (uid, caller, key, fingerprint, owner, created_at, locked_until)
    VALUES (${scope.uid}, ${scope.caller}, ${scope.key}, ${claim.fingerprint}, ${claim.owner}, ${claim.now}, ${claim.lockedUntil})
    ON CONFLICT ((coalesce(uid, '')), caller, key) DO UPDATE SET
      fingerprint = excluded.fingerprint, owner = excluded.owner, status_code = NULL, body = NULL, location = NULL,
      created_at = excluded.created_at, locked_until = excluded.locked_until
    WHERE idempotency_keys.created_at < ${claim.expiredBefore}
       OR (idempotency_keys.status_code IS NULL AND idempotency_keys.locked_until < ${claim.now})
    RETURNING owner`.execute(db)
  return rows[0]?.owner === claim.owner
}

export async function findKey(db: Kysely<DB>, scope: KeyScope): Promise<IdempotencyKeyRow | undefined> {
  return db
    .selectFrom('idempotency_keys')
    .selectAll()
    .where(sql<string>`coalesce(uid, '')`, '=', scope.uid ?? '')
    .where('caller', '=', scope.caller)
    .where('key', '=', scope.key)
    .executeTakeFirst()
}

/** Stores the response of the request that holds the key. */
export async function completeKey(
  db: Kysely<DB>,
  owner: string,
  response: { statusCode: number; body: string; location: string | null },
): Promise<void> {
  await db
    .updateTable('idempotency_keys')
    .set({ status_code: response.statusCode, body: response.body, location: response.location })
    .where('owner', '=', owner)
    .execute()
}

/** Gives the key up (the request did not succeed): a retry with it runs afresh. */
export async function releaseKey(db: Kysely<DB>, owner: string): Promise<void> {
  await db.deleteFrom('idempotency_keys').where('owner', '=', owner).execute()
}

export async function pruneKeys(db: Kysely<DB>, createdBefore: number): Promise<number> {
  const result = await db.deleteFrom('idempotency_keys').where('created_at', '<', createdBefore).executeTakeFirst()
  return Number(result.numDeletedRows)
}
