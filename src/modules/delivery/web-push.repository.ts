// The browsers an account registered for Web Push (migration 0125): registered and removed through
// web-push.routes.ts, read and pruned by the delivery worker.
import { randomBytes } from 'node:crypto'
import type { Kysely } from 'kysely'
import type { DB, WebPushSubscriptionsTable } from '../../db/schema.ts'
import { holdAccount } from '../users/users.repository.ts'

export type WebPushSubscriptionRow = WebPushSubscriptionsTable

/** Most browsers one account registers (each event is pushed to every one of them whose role it notifies). */
export const MAX_WEB_PUSH_SUBSCRIPTIONS = 20

export function listWebPushSubscriptions(db: Kysely<DB>, uid: string): Promise<WebPushSubscriptionRow[]> {
  return db
    .selectFrom('web_push_subscriptions')
    .selectAll()
    .where('uid', '=', uid)
    .orderBy('created_at')
    .orderBy('id')
    .execute()
}

export function findWebPushSubscription(
  db: Kysely<DB>,
  uid: string,
  id: string,
): Promise<WebPushSubscriptionRow | undefined> {
  return db
    .selectFrom('web_push_subscriptions')
    .selectAll()
    .where('uid', '=', uid)
    .where('id', '=', id)
    .executeTakeFirst()
}

export type RegisterResult = { row: WebPushSubscriptionRow; created: boolean } | { missingUser: true } | { full: true }

/**
 * Registers a browser, or updates the account's registration of the same endpoint (a browser subscribing again
 * gets new keys), the account held so that two registrations at once cannot pass the cap together.
 */
export function registerWebPushSubscription(
  db: Kysely<DB>,
  entry: Pick<WebPushSubscriptionRow, 'uid' | 'endpoint' | 'p256dh' | 'auth' | 'rank' | 'name' | 'created_at'>,
): Promise<RegisterResult> {
  return db.transaction().execute(async (trx): Promise<RegisterResult> => {
    if (!(await holdAccount(trx, entry.uid))) return { missingUser: true }
    const existing = await trx
      .selectFrom('web_push_subscriptions')
      .select('id')
      .where('uid', '=', entry.uid)
      .where('endpoint', '=', entry.endpoint)
      .executeTakeFirst()
    if (existing) {
      const row = await trx
        .updateTable('web_push_subscriptions')
        .set({ p256dh: entry.p256dh, auth: entry.auth, rank: entry.rank, name: entry.name })
        .where('uid', '=', entry.uid)
        .where('id', '=', existing.id)
        .returningAll()
        .executeTakeFirstOrThrow()
      return { row, created: false }
    }
    const { count } = await trx
      .selectFrom('web_push_subscriptions')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('uid', '=', entry.uid)
      .executeTakeFirstOrThrow()
    if (Number(count) >= MAX_WEB_PUSH_SUBSCRIPTIONS) return { full: true }
    const row = await trx
      .insertInto('web_push_subscriptions')
      .values({ ...entry, id: `wps_${randomBytes(12).toString('base64url')}`, last_delivered_at: null })
      .returningAll()
      .executeTakeFirstOrThrow()
    return { row, created: true }
  })
}

export async function deleteWebPushSubscription(db: Kysely<DB>, uid: string, id: string): Promise<boolean> {
  const result = await db
    .deleteFrom('web_push_subscriptions')
    .where('uid', '=', uid)
    .where('id', '=', id)
    .executeTakeFirst()
  return result.numDeletedRows > 0n
}

export async function markWebPushDelivered(db: Kysely<DB>, uid: string, ids: string[], at: number): Promise<void> {
  if (ids.length === 0) return
  await db
    .updateTable('web_push_subscriptions')
    .set({ last_delivered_at: at })
    .where('uid', '=', uid)
    .where('id', 'in', ids)
    .execute()
}
