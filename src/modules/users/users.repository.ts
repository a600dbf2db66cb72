// Users as stored. Rows are mapped to the spec's User shape at the route edge.
import { sql, type Insertable, type Kysely, type Selectable } from 'kysely'
import type { DB, UsersTable } from '../../db/schema.ts'

export type UserRow = Selectable<UsersTable>
export type NewUser = Insertable<UsersTable>

export async function findUserByUid(db: Kysely<DB>, uid: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('uid', '=', uid).executeTakeFirst()
}

export async function findUserByEmail(db: Kysely<DB>, email: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where(sql<string>`lower(email)`, '=', email.toLowerCase()).executeTakeFirst()
}

export async function insertUser(db: Kysely<DB>, user: NewUser): Promise<UserRow> {
  return db.insertInto('users').values(user).returningAll().executeTakeFirstOrThrow()
}

export async function setPasswordHash(db: Kysely<DB>, uid: string, passwordHash: string, at: Date): Promise<boolean> {
  const result = await db.updateTable('users')
    .set({ password_hash: passwordHash, password_changed_at: at, updated_at: at })
    .where('uid', '=', uid)
    .executeTakeFirst()
  return result.numUpdatedRows > 0n
}

/** integratorUIDs linked to the account, oldest link first. */
export async function linkedIntegratorUids(db: Kysely<DB>, uid: string): Promise<string[]> {
  const rows = await db.selectFrom('user_integrator_links').select('integrator_uid')
    .where('uid', '=', uid).orderBy('created_at').orderBy('integrator_uid').execute()
  return rows.map((r) => r.integrator_uid)
}
