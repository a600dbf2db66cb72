// The single-user view, which the account's routes (users, credentials) answer with.
import type { Kysely } from 'kysely'
import type { Caller } from '../../auth/caller.ts'
import type { DB } from '../../db/schema.ts'
import { linkedIntegratorUids } from '../integrators/integrators.repository.ts'
import { listPushTokens, type UserRow } from './users.repository.ts'
import { toApiPushToken, toApiUser } from './users.resource.ts'

/** The single-user view: integrators as this caller may see them, and the push tokens. */
export async function userViewFor(db: Kysely<DB>, caller: Caller, row: UserRow) {
  const integrators = caller.kind === 'integrator' ? [caller.integrator.uid] : await linkedIntegratorUids(db, row.uid)
  const tokens = await listPushTokens(db, row.uid)
  return { ...toApiUser(row, integrators), FCMTokens: tokens.map(toApiPushToken) }
}
