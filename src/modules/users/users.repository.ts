// Users as stored. Rows are mapped to the spec's User shape at the route edge.
import { sql, type Insertable, type Kysely, type RawBuilder, type Selectable, type UpdateObject } from 'kysely'
import { uniqueViolation } from '../../db/errors.ts'
import { paginate, type Page, type PageParams } from '../../db/paginate.ts'
import type { FilterValue } from '../../http/list-params.ts'
import type { DB, UserPushTokensTable, UsersTable } from '../../db/schema.ts'
import { findRefreshByAccessJti, revokeSubjectFamilies } from '../../auth/token-store.ts'
import { containsPattern } from './users.rules.ts'
import { userListColumns, users } from './users.resource.ts'

export type UserRow = Selectable<UsersTable>
export type NewUser = Insertable<UsersTable>

export async function findUserByUid(db: Kysely<DB>, uid: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('uid', '=', uid).executeTakeFirst()
}

export async function findUserByEmail(db: Kysely<DB>, email: string): Promise<UserRow | undefined> {
  return db
    .selectFrom('users')
    .selectAll()
    .where(sql<string>`lower(email)`, '=', email.toLowerCase())
    .executeTakeFirst()
}

export async function insertUser(db: Kysely<DB>, user: NewUser): Promise<UserRow> {
  return db.insertInto('users').values(user).returningAll().executeTakeFirstOrThrow()
}

export async function setPasswordHash(db: Kysely<DB>, uid: string, passwordHash: string, at: Date): Promise<boolean> {
  const result = await db
    .updateTable('users')
    .set({ password_hash: passwordHash, password_changed_at: at, updated_at: at })
    .where('uid', '=', uid)
    .executeTakeFirst()
  return result.numUpdatedRows > 0n
}

export type PushTokenRow = Selectable<UserPushTokensTable>

/** The unique constraint a duplicate hit, as the API field it guards. */
function duplicateField(err: unknown): 'Uid' | 'Email' | undefined {
  const constraint = uniqueViolation(err)
  return constraint === 'users_pkey' ? 'Uid' : constraint === 'users_email_lower_key' ? 'Email' : undefined
}

export type UniqueResult = { row: UserRow; duplicate?: undefined } | { row?: undefined; duplicate: 'Uid' | 'Email' }

/**
 * Inserts a user, reporting a taken Uid or e-mail instead of throwing. The constraint decides, not a
 * prior lookup, so two concurrent creates of one Uid or e-mail give one row and one duplicate.
 */
export async function insertUniqueUser(db: Kysely<DB>, user: NewUser): Promise<UniqueResult> {
  try {
    return { row: await insertUser(db, user) }
  } catch (err) {
    const duplicate = duplicateField(err)
    if (duplicate) return { duplicate }
    throw err
  }
}

/** Updates a user; undefined when there is no such user, `duplicate` when the new e-mail is taken. */
export async function updateUniqueUser(
  db: Kysely<DB>,
  uid: string,
  changes: UpdateObject<DB, 'users'>,
): Promise<UniqueResult | undefined> {
  try {
    const row = await db
      .updateTable('users')
      .set({ ...changes, updated_at: new Date() })
      .where('uid', '=', uid)
      .returningAll()
      .executeTakeFirst()
    return row ? { row } : undefined
  } catch (err) {
    const duplicate = duplicateField(err)
    if (duplicate) return { duplicate }
    throw err
  }
}

/** integration_flags with `set` merged in and `remove` taken out, in one statement (no lost update). */
export function mergedIntegrationFlags(set: Record<string, boolean>, remove: string[]): RawBuilder<string> {
  let expression = sql`integration_flags || ${JSON.stringify(set)}::jsonb`
  for (const key of remove) expression = sql`(${expression}) - ${key}::text`
  return expression as RawBuilder<string>
}

/** GET /users/search: every given criterion must match. */
export interface UserSearch {
  /** Exact, case-insensitive. */
  email?: string | undefined
  /** Substring of the name, case-insensitive, wildcards literal. */
  name?: string | undefined
  flagged?: boolean | undefined
  inactive?: boolean | undefined
  /** Case-insensitive. */
  language?: string | undefined
}

/** One page of every user, with filter[Field] equality filters (GET /users). */
export async function listUsers(
  db: Kysely<DB>,
  params: PageParams,
  filters: Record<string, FilterValue>,
): Promise<Page<UserRow>> {
  return paginate(db.selectFrom('users').selectAll(), {
    columns: userListColumns,
    params,
    filters: users.filterValues(filters),
    tiebreak: 'uid',
  })
}

/** One page of the users matching the search. */
export async function searchUsers(db: Kysely<DB>, search: UserSearch, params: PageParams): Promise<Page<UserRow>> {
  let query = db.selectFrom('users').selectAll()
  if (search.email !== undefined) query = query.where(sql`lower(email)`, '=', search.email.toLowerCase())
  if (search.name !== undefined) query = query.where('name', 'ilike', containsPattern(search.name))
  if (search.flagged !== undefined) query = query.where('flagged', '=', search.flagged)
  if (search.inactive !== undefined) query = query.where('inactive', '=', search.inactive)
  if (search.language !== undefined) query = query.where(sql`lower(language)`, '=', search.language.toLowerCase())
  return paginate(query, { columns: userListColumns, params, tiebreak: 'uid' })
}

/**
 * Deletes a user and, in the same transaction, everything that is theirs: push tokens, integrator
 * links and every farm table through ON DELETE CASCADE on its `uid` (deleted, not anonymised), and
 * their refresh tokens. Access tokens still in flight are revoked first; those revocations (a jti and
 * times, nothing personal) stay until the tokens expire, so a later account with the same Uid cannot
 * inherit them.
 */
export async function deleteUserAndData(db: Kysely<DB>, uid: string, now: number): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    await revokeSubjectFamilies(trx, 'user', uid, now, 'user deleted')
    // Their refresh tokens go with their families (ON DELETE CASCADE).
    await trx.deleteFrom('token_families').where('subject_kind', '=', 'user').where('subject_id', '=', uid).execute()
    const result = await trx.deleteFrom('users').where('uid', '=', uid).executeTakeFirst()
    return result.numDeletedRows > 0n
  })
}

export interface StatusChanges {
  flagged?: boolean
  inactive?: boolean
  request_deletion?: boolean
}

/** Sets status flags; deactivating also revokes every session of the user in the same transaction. */
export async function updateUserStatus(
  db: Kysely<DB>,
  uid: string,
  changes: StatusChanges,
  now: number,
): Promise<UserRow | undefined> {
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .updateTable('users')
      .set({ ...changes, updated_at: new Date(now) })
      .where('uid', '=', uid)
      .returningAll()
      .executeTakeFirst()
    if (row && changes.inactive === true) await revokeSubjectFamilies(trx, 'user', uid, now, 'user deactivated')
    return row
  })
}

/**
 * Stores a new password hash and revokes every other session of the user: all refresh families but
 * the one the presented access token belongs to (when it has one).
 */
export async function changePassword(
  db: Kysely<DB>,
  uid: string,
  passwordHash: string,
  now: number,
  currentAccessJti: string,
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    if (!(await setPasswordHash(trx, uid, passwordHash, new Date(now)))) return false
    const current = await findRefreshByAccessJti(trx, currentAccessJti)
    await revokeSubjectFamilies(trx, 'user', uid, now, 'password changed', current?.family_id)
    return true
  })
}

/** Push tokens of an account, oldest first. */
export async function listPushTokens(db: Kysely<DB>, uid: string): Promise<PushTokenRow[]> {
  return db.selectFrom('user_push_tokens').selectAll().where('uid', '=', uid).orderBy('t').orderBy('token').execute()
}

/** Most push tokens one account holds. */
export const MAX_PUSH_TOKENS = 100

/**
 * Holds the account's row until the transaction ends, so that writes checking a cap on the account's rows (its push
 * tokens, its browsers) run one at a time and cannot pass it together; false when there is no such account.
 */
export async function holdAccount(trx: Kysely<DB>, uid: string): Promise<boolean> {
  const held = await trx.selectFrom('users').select('uid').where('uid', '=', uid).forNoKeyUpdate().executeTakeFirst()
  return held !== undefined
}

export type AddPushTokenResult = { row: PushTokenRow; created: boolean } | { full: true } | { missingUser: true }

/**
 * Adds a push token, or refreshes the entry when the account already has that token (apps register
 * on every start). The user row is locked so that concurrent adds cannot pass the cap together.
 */
export async function addPushToken(db: Kysely<DB>, entry: PushTokenRow): Promise<AddPushTokenResult> {
  return db.transaction().execute(async (trx) => {
    if (!(await holdAccount(trx, entry.uid))) return { missingUser: true as const }
    const existing = await trx
      .selectFrom('user_push_tokens')
      .select('token')
      .where('uid', '=', entry.uid)
      .where('token', '=', entry.token)
      .executeTakeFirst()
    if (!existing) {
      const { count } = await trx
        .selectFrom('user_push_tokens')
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .where('uid', '=', entry.uid)
        .executeTakeFirstOrThrow()
      if (Number(count) >= MAX_PUSH_TOKENS) return { full: true as const }
    }
    const { uid: _uid, token: _token, ...changes } = entry
    const row = await trx
      .insertInto('user_push_tokens')
      .values(entry)
      .onConflict((oc) => oc.columns(['uid', 'token']).doUpdateSet(changes))
      .returningAll()
      .executeTakeFirstOrThrow()
    return { row, created: !existing }
  })
}
