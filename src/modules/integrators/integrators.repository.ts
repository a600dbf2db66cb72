// Integrators (UserIntegrator) and their links to user accounts.
import type { Insertable, Kysely, Selectable, Updateable } from 'kysely'
import type { DB, IntegratorsTable } from '../../db/schema.ts'
import type { AccountLink } from '../../auth/caller.ts'

export type IntegratorRow = Selectable<IntegratorsTable>

export async function findIntegrator(db: Kysely<DB>, uid: string): Promise<IntegratorRow | undefined> {
  return db.selectFrom('integrators').selectAll().where('uid', '=', uid).executeTakeFirst()
}

export async function insertIntegrator(
  db: Kysely<DB>,
  integrator: Insertable<IntegratorsTable>,
): Promise<IntegratorRow> {
  return db.insertInto('integrators').values(integrator).returningAll().executeTakeFirstOrThrow()
}

export async function updateIntegrator(
  db: Kysely<DB>,
  uid: string,
  changes: Updateable<IntegratorsTable>,
): Promise<IntegratorRow | undefined> {
  return db
    .updateTable('integrators')
    .set({ ...changes, updated_at: new Date() })
    .where('uid', '=', uid)
    .returningAll()
    .executeTakeFirst()
}

export async function listIntegrators(db: Kysely<DB>): Promise<IntegratorRow[]> {
  return db.selectFrom('integrators').selectAll().orderBy('created_at').orderBy('uid').execute()
}

/** Whether the account links the integrator, and whether the account is deactivated. */
export async function linkOf(db: Kysely<DB>, uid: string, integratorUid: string): Promise<AccountLink> {
  // The access check asks before the path is validated; PostgreSQL text cannot hold U+0000, so no account has it.
  if (uid.includes('\u0000')) return 'none'
  const row = await db
    .selectFrom('user_integrator_links as l')
    .innerJoin('users as u', 'u.uid', 'l.uid')
    .select('u.inactive')
    .where('l.uid', '=', uid)
    .where('l.integrator_uid', '=', integratorUid)
    .executeTakeFirst()
  return row === undefined ? 'none' : row.inactive ? 'linkedInactive' : 'linked'
}

/** Links an integrator to an account; linking twice is a no-op. */
export async function link(
  db: Kysely<DB>,
  uid: string,
  integratorUid: string,
  linkedBy: 'owner' | 'operator',
): Promise<void> {
  await db
    .insertInto('user_integrator_links')
    .values({ uid, integrator_uid: integratorUid, linked_by: linkedBy })
    .onConflict((oc) => oc.columns(['uid', 'integrator_uid']).doNothing())
    .execute()
}

/** Removes a link; false when there was none. */
export async function unlink(db: Kysely<DB>, uid: string, integratorUid: string): Promise<boolean> {
  const result = await db
    .deleteFrom('user_integrator_links')
    .where('uid', '=', uid)
    .where('integrator_uid', '=', integratorUid)
    .executeTakeFirst()
  return result.numDeletedRows > 0n
}

/** integratorUIDs linked to the account, oldest link first. */
export async function linkedIntegratorUids(db: Kysely<DB>, uid: string): Promise<string[]> {
  const rows = await db
    .selectFrom('user_integrator_links')
    .select('integrator_uid')
    .where('uid', '=', uid)
    .orderBy('created_at')
    .orderBy('integrator_uid')
    .execute()
  return rows.map((r) => r.integrator_uid)
}

/** An integrator linked to an account, as its owner sees it: who, what it may do, since when, when it last came. */
export interface LinkedIntegratorRow {
  uid: string
  name: string
  email: string
  is_active: boolean
  can_read: boolean
  can_write: boolean
  can_delete: boolean
  linked_at: Date
  linked_by: string
  last_request_at: Date | null
}

/** The integrators linked to the account, oldest link first, each with its last request on the account's data. */
export async function linkedIntegrators(db: Kysely<DB>, uid: string): Promise<LinkedIntegratorRow[]> {
  const rows = await db
    .selectFrom('user_integrator_links as l')
    .innerJoin('integrators as i', 'i.uid', 'l.integrator_uid')
    .select((eb) => [
      'i.uid',
      'i.name',
      'i.email',
      'i.is_active',
      'i.can_read',
      'i.can_write',
      'i.can_delete',
      'l.created_at as linked_at',
      'l.linked_by',
      eb
        .selectFrom('access_log as a')
        .select((inner) => inner.fn.max('a.at').as('at'))
        .whereRef('a.uid', '=', 'l.uid')
        .whereRef('a.integrator_uid', '=', 'l.integrator_uid')
        .as('last_request_at'),
    ])
    .where('l.uid', '=', uid)
    .orderBy('l.created_at')
    .orderBy('l.integrator_uid')
    .execute()
  return rows.map((row) => ({
    ...row,
    linked_at: new Date(row.linked_at),
    last_request_at: row.last_request_at === null ? null : new Date(row.last_request_at),
  }))
}
