// Webhook subscriptions, the delivery outbox as the worker reads and settles it, and each subscription's log.
// The outbox rows are written by events.repository.ts (enqueueDeliveries) in the transaction of the event.
import { sql, type Kysely } from 'kysely'
import type { DB } from '../../db/schema.ts'
import { deleteInBatches } from '../../db/prune.ts'
import { messageIdSql } from '../events/events.repository.ts'
import type { AttemptKey } from './delivery.rules.ts'

export interface SubscriptionRow {
  integrator_uid: string
  id: string
  url: string
  event_types: string[] | null
  account_uids: string[] | null
  secret: string
  previous_secret: string | null
  previous_secret_until: number | null
  enabled: boolean
  disabled_reason: string | null
  disabled_at: number | null
  failing_since: number | null
  created_at: number
  updated_at: number
}

export interface DeliveryRow {
  uid: string
  event_id: number
  channel: 'webhook' | 'push'
  integrator_uid: string
  subscription_id: string
  message_id: string
  status: 'pending' | 'delivered' | 'failed' | 'cancelled'
  attempts: number
  first_attempt_at: number | null
  next_attempt_at: number
  /** ms since epoch: until when the process that claimed it holds it (NULL when nobody does). */
  locked_until: number | null
  last_status: number | null
  last_error: string | null
  created_at: number
  delivered_at: number | null
  /** A push delivery's phones and browsers already delivered to (or gone, or refused for good): phoneTarget, browserTarget. */
  push_targets_done: string[]
}

export interface AttemptRow {
  uid: string
  event_id: number
  message_id: string
  attempted_at: number
  status: number | null
  error: string | null
  latency_ms: number
}

const jsonOrNull = (value: unknown) => (value === null || value === undefined ? null : JSON.stringify(value))

/**
 * Most webhook subscriptions one integrator holds: every event of its accounts writes one outbox row per
 * subscription, in the event's own transaction (the farm's ingestion), and is sent once per subscription.
 */
export const MAX_WEBHOOK_SUBSCRIPTIONS = 100

/**
 * Runs `fn` in a transaction that holds the integrator's row, with the integrator's subscriptions as they stand:
 * creates and changes of one integrator's subscriptions run one at a time, so that no two pass a check on them
 * together (the cap, overlapping subscriptions).
 */
export async function withSubscriptionsHeld<T>(
  db: Kysely<DB>,
  integratorUid: string,
  fn: (trx: Kysely<DB>, held: SubscriptionRow[]) => Promise<T>,
): Promise<T> {
  return db.transaction().execute(async (trx) => {
    await sql`SELECT 1 FROM integrators WHERE uid = ${integratorUid} FOR NO KEY UPDATE`.execute(trx)
    return fn(trx, await listSubscriptions(trx, integratorUid))
  })
}

export async function insertSubscription(db: Kysely<DB>, row: SubscriptionRow): Promise<SubscriptionRow> {
  const { rows } = await sql<SubscriptionRow>`
    INSERT INTO webhook_subscriptions (integrator_uid, id, url, event_types, account_uids, secret, enabled, created_at, updated_at)
    VALUES (${row.integrator_uid}, ${row.id}, ${row.url}, ${jsonOrNull(row.event_types)}::jsonb,
            ${jsonOrNull(row.account_uids)}::jsonb, ${row.secret}, true, ${row.created_at}, ${row.updated_at})
    RETURNING *`.execute(db)
  return rows[0]!
}

export async function listSubscriptions(db: Kysely<DB>, integratorUid: string): Promise<SubscriptionRow[]> {
  const { rows } = await sql<SubscriptionRow>`
    SELECT * FROM webhook_subscriptions WHERE integrator_uid = ${integratorUid} ORDER BY created_at, id`.execute(db)
  return rows
}

export async function findSubscription(
  db: Kysely<DB>,
  integratorUid: string,
  id: string,
): Promise<SubscriptionRow | undefined> {
  const { rows } = await sql<SubscriptionRow>`
    SELECT * FROM webhook_subscriptions WHERE integrator_uid = ${integratorUid} AND id = ${id}`.execute(db)
  return rows[0]
}

export interface SubscriptionChanges {
  url?: string | undefined
  event_types?: string[] | null | undefined
  account_uids?: string[] | null | undefined
  enabled?: boolean | undefined
  secret?: string | undefined
  previous_secret?: string | null | undefined
  previous_secret_until?: number | null | undefined
  disabled_reason?: string | null | undefined
  disabled_at?: number | null | undefined
  failing_since?: number | null | undefined
}

export async function updateSubscription(
  db: Kysely<DB>,
  integratorUid: string,
  id: string,
  changes: SubscriptionChanges,
  now: number,
): Promise<SubscriptionRow | undefined> {
  const has = (key: keyof SubscriptionChanges) => changes[key] !== undefined
  const { rows } = await sql<SubscriptionRow>`
    UPDATE webhook_subscriptions SET
      url = CASE WHEN ${has('url')} THEN ${changes.url ?? null} ELSE url END,
      event_types = CASE WHEN ${has('event_types')} THEN ${jsonOrNull(changes.event_types)}::jsonb ELSE event_types END,
      account_uids = CASE WHEN ${has('account_uids')} THEN ${jsonOrNull(changes.account_uids)}::jsonb ELSE account_uids END,
      enabled = CASE WHEN ${has('enabled')} THEN ${changes.enabled ?? null}::boolean ELSE enabled END,
      secret = CASE WHEN ${has('secret')} THEN ${changes.secret ?? null} ELSE secret END,
      previous_secret = CASE WHEN ${has('previous_secret')} THEN ${changes.previous_secret ?? null} ELSE previous_secret END,
      previous_secret_until = CASE WHEN ${has('previous_secret_until')} THEN ${changes.previous_secret_until ?? null}::bigint ELSE previous_secret_until END,
      disabled_reason = CASE WHEN ${has('disabled_reason')} THEN ${changes.disabled_reason ?? null} ELSE disabled_reason END,
      disabled_at = CASE WHEN ${has('disabled_at')} THEN ${changes.disabled_at ?? null}::bigint ELSE disabled_at END,
      failing_since = CASE WHEN ${has('failing_since')} THEN ${changes.failing_since ?? null}::bigint ELSE failing_since END,
      updated_at = ${now}
    WHERE integrator_uid = ${integratorUid} AND id = ${id}
    RETURNING *`.execute(db)
  return rows[0]
}

/** Deletes the subscription; its pending deliveries are cancelled. */
export async function deleteSubscription(db: Kysely<DB>, integratorUid: string, id: string): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    await sql`
      UPDATE deliveries SET status = 'cancelled', last_error = 'subscription deleted'
      WHERE integrator_uid = ${integratorUid} AND subscription_id = ${id} AND status = 'pending'`.execute(trx)
    const { rows } = await sql`
      DELETE FROM webhook_subscriptions WHERE integrator_uid = ${integratorUid} AND id = ${id} RETURNING id`.execute(
      trx,
    )
    return rows.length > 0
  })
}

/**
 * Takes up to `limit` due deliveries for this process for `leaseMs`, counting the attempt; a process that dies
 * with them leaves them to be taken again when the lease ends (at least once). `busy`: subscriptions this
 * process already sends to at its per-endpoint cap, left for later.
 */
export async function claimDueDeliveries(
  db: Kysely<DB>,
  now: number,
  leaseMs: number,
  limit: number,
  busy: string[],
): Promise<DeliveryRow[]> {
  const { rows } = await sql<DeliveryRow>`
    UPDATE deliveries d
    SET locked_until = ${now + leaseMs}, attempts = d.attempts + 1, first_attempt_at = COALESCE(d.first_attempt_at, ${now})
    FROM (
      SELECT uid, event_id, channel, integrator_uid, subscription_id FROM deliveries
      WHERE status = 'pending' AND next_attempt_at <= ${now} AND (locked_until IS NULL OR locked_until <= ${now})
        AND NOT (integrator_uid || ' ' || subscription_id = ANY(${busy}::text[]))
      ORDER BY next_attempt_at, event_id
      LIMIT ${limit}
      FOR UPDATE SKIP LOCKED
    ) due
    WHERE d.uid = due.uid AND d.event_id = due.event_id AND d.channel = due.channel
      AND d.integrator_uid = due.integrator_uid AND d.subscription_id = due.subscription_id
    RETURNING d.*`.execute(db)
  return rows.map((row) => ({ ...row, event_id: Number(row.event_id) }))
}

/**
 * Moves a claimed delivery's lease to `until` if this process still holds it (its lease is the one it claimed);
 * false when its lease ran out and another claim took it.
 */
export async function renewLease(
  db: Kysely<DB>,
  d: Pick<DeliveryRow, 'uid' | 'event_id' | 'channel' | 'integrator_uid' | 'subscription_id' | 'locked_until'>,
  until: number,
): Promise<boolean> {
  const { rows } = await sql`
    UPDATE deliveries SET locked_until = ${until}
    WHERE uid = ${d.uid} AND event_id = ${d.event_id} AND channel = ${d.channel}
      AND integrator_uid = ${d.integrator_uid} AND subscription_id = ${d.subscription_id}
      AND status = 'pending' AND locked_until = ${d.locked_until}
    RETURNING 1`.execute(db)
  return rows.length > 0
}

export async function settleDelivery(
  db: Kysely<DB>,
  d: Pick<DeliveryRow, 'uid' | 'event_id' | 'channel' | 'integrator_uid' | 'subscription_id'>,
  outcome: {
    status: DeliveryRow['status']
    nextAttemptAt?: number | undefined
    lastStatus?: number | null | undefined
    lastError?: string | null | undefined
    deliveredAt?: number | undefined
    pushTargetsDone?: string[] | undefined
  },
): Promise<void> {
  await sql`
    UPDATE deliveries SET status = ${outcome.status}, locked_until = NULL,
      next_attempt_at = COALESCE(${outcome.nextAttemptAt ?? null}::bigint, next_attempt_at),
      last_status = ${outcome.lastStatus ?? null}, last_error = ${outcome.lastError ?? null},
      delivered_at = ${outcome.deliveredAt ?? null},
      push_targets_done = COALESCE(${outcome.pushTargetsDone ?? null}::text[], push_targets_done)
    WHERE uid = ${d.uid} AND event_id = ${d.event_id} AND channel = ${d.channel}
      AND integrator_uid = ${d.integrator_uid} AND subscription_id = ${d.subscription_id}`.execute(db)
}

export async function recordAttempt(
  db: Kysely<DB>,
  d: Pick<DeliveryRow, 'uid' | 'event_id' | 'integrator_uid' | 'subscription_id' | 'message_id'>,
  attempt: { at: number; status?: number | undefined; error?: string | undefined; latencyMs: number },
): Promise<void> {
  await sql`
    INSERT INTO delivery_attempts (integrator_uid, subscription_id, uid, event_id, message_id, attempted_at, status, error, latency_ms)
    VALUES (${d.integrator_uid}, ${d.subscription_id}, ${d.uid}, ${d.event_id}, ${d.message_id}, ${attempt.at},
            ${attempt.status ?? null}, ${attempt.error?.slice(0, 500) ?? null}, ${attempt.latencyMs})`.execute(db)
}

/**
 * Deletes the delivery log from before `before` (ms), at most `batchRows` rows a statement: finished deliveries
 * whose last attempt was due before then, and the attempts made before then but those of a delivery still pending.
 * Returns the rows deleted per table.
 */
export async function pruneDeliveryLog(
  db: Kysely<DB>,
  before: number,
  batchRows: number,
): Promise<{ deliveries: number; delivery_attempts: number }> {
  const untilFewer = (statement: () => Promise<{ numAffectedRows?: bigint }>) =>
    deleteInBatches(batchRows, async () => Number((await statement()).numAffectedRows ?? 0n))
  // A row is named by its ctid: delivery_attempts has no key. The status is checked again by the delete itself,
  // so a delivery queued again meanwhile (redeliver) is not taken.
  const deliveries = await untilFewer(() =>
    sql`
      DELETE FROM deliveries WHERE status <> 'pending' AND ctid = ANY(ARRAY(
        SELECT ctid FROM deliveries WHERE status <> 'pending' AND next_attempt_at < ${before}
        ORDER BY next_attempt_at LIMIT ${batchRows}))`.execute(db),
  )
  const attempts = await untilFewer(() =>
    sql`
      DELETE FROM delivery_attempts WHERE ctid = ANY(ARRAY(
        SELECT a.ctid FROM delivery_attempts a WHERE a.attempted_at < ${before} AND NOT EXISTS (
          SELECT 1 FROM deliveries d
          WHERE d.uid = a.uid AND d.event_id = a.event_id AND d.channel = 'webhook'
            AND d.integrator_uid = a.integrator_uid AND d.subscription_id = a.subscription_id AND d.status = 'pending')
        ORDER BY a.attempted_at LIMIT ${batchRows}))`.execute(db),
  )
  return { deliveries, delivery_attempts: attempts }
}

/** Which of a subscription's attempts to list: one account's, one event's, failed or delivered ones, after a key. */
export interface AttemptFilter {
  uid?: string
  eventId?: number
  failed?: boolean
  before?: AttemptKey
}

export async function listAttempts(
  db: Kysely<DB>,
  integratorUid: string,
  subscriptionId: string,
  filter: AttemptFilter,
  limit: number,
): Promise<AttemptRow[]> {
  const { uid, eventId, failed, before } = filter
  const conditions = [
    sql`integrator_uid = ${integratorUid}`,
    sql`subscription_id = ${subscriptionId}`,
    ...(uid !== undefined ? [sql`uid = ${uid}`] : []),
    ...(eventId !== undefined ? [sql`event_id = ${eventId}`] : []),
    ...(failed === true ? [sql`error IS NOT NULL`] : failed === false ? [sql`error IS NULL`] : []),
    // The first comparison is the one an index can walk; the row comparison breaks ties within a millisecond.
    ...(before
      ? [
          sql`attempted_at <= ${before.attemptedAt}`,
          sql`(attempted_at, uid, event_id) < (${before.attemptedAt}, ${before.uid}, ${before.eventId})`,
        ]
      : []),
  ]
  const { rows } = await sql<AttemptRow>`
    SELECT uid, event_id, message_id, attempted_at, status, error, latency_ms FROM delivery_attempts
    WHERE ${sql.join(conditions, sql` AND `)}
    ORDER BY attempted_at DESC, uid DESC, event_id DESC LIMIT ${limit}`.execute(db)
  return rows.map((row) => ({ ...row, event_id: Number(row.event_id), attempted_at: Number(row.attempted_at) }))
}

export async function linkedAccounts(db: Kysely<DB>, integratorUid: string): Promise<string[]> {
  const { rows } = await sql<{ uid: string }>`
    SELECT uid FROM user_integrator_links WHERE integrator_uid = ${integratorUid}`.execute(db)
  return rows.map((row) => row.uid)
}

/**
 * Whether the integrator may still receive the account's events: what its token could read through the feed (the
 * account, not deactivated, links it, and the integrator is active with the read permission).
 */
export async function mayReceive(db: Kysely<DB>, uid: string, integratorUid: string): Promise<boolean> {
  const { rows } = await sql`
    SELECT 1 FROM user_integrator_links l JOIN integrators i ON i.uid = l.integrator_uid JOIN users u ON u.uid = l.uid
    WHERE l.uid = ${uid} AND l.integrator_uid = ${integratorUid} AND i.is_active AND i.can_read
      AND NOT u.inactive`.execute(db)
  return rows.length > 0
}

/** The most events one redelivery request queues. */
export const REDELIVER_MAX = 100_000
/** Events queued per statement: the embedded store runs one statement at a time, and others wait for it. */
const REDELIVER_CHUNK = 5_000

/**
 * Queues the events of the subscription's accounts again (one event, or those created in a time range), with
 * their first webhook-id: a receiver that kept what it saw recognises a repeat. Returns how many: at most
 * REDELIVER_MAX, the first in (uid, id) order.
 */
export async function redeliver(
  db: Kysely<DB>,
  s: SubscriptionRow,
  which: {
    uid?: string | undefined
    eventId?: number | undefined
    since?: number | undefined
    until?: number | undefined
  },
  now: number,
): Promise<number> {
  let queued = 0
  // In (uid, id) order, a chunk a statement: every chunk is a short statement, so other requests' statements
  // run between them.
  let after: { uid: string; id: string } | undefined
  while (queued < REDELIVER_MAX) {
    const { rows } = await sql<{ n: number; last_uid: string | null; last_id: string | null }>`
      WITH chosen AS (
        SELECT e.uid, e.id FROM events e
        JOIN user_integrator_links l ON l.uid = e.uid AND l.integrator_uid = ${s.integrator_uid}
        WHERE (${which.uid ?? null}::text IS NULL OR e.uid = ${which.uid ?? null})
          AND (${which.eventId ?? null}::bigint IS NULL OR e.id = ${which.eventId ?? null})
          AND (${which.since ?? null}::bigint IS NULL OR e.created_at >= ${which.since ?? null})
          AND (${which.until ?? null}::bigint IS NULL OR e.created_at <= ${which.until ?? null})
          AND (${jsonOrNull(s.event_types)}::jsonb IS NULL OR ${jsonOrNull(s.event_types)}::jsonb ? e.event_type)
          AND (${jsonOrNull(s.account_uids)}::jsonb IS NULL OR ${jsonOrNull(s.account_uids)}::jsonb ? e.uid)
          AND (${after?.uid ?? null}::text IS NULL OR (e.uid, e.id) > (${after?.uid ?? null}::text, ${after?.id ?? null}::bigint))
        ORDER BY e.uid, e.id
        LIMIT ${Math.min(REDELIVER_CHUNK, REDELIVER_MAX - queued)}
      ), queued AS (
        INSERT INTO deliveries (uid, event_id, channel, integrator_uid, subscription_id, message_id, next_attempt_at, created_at)
        SELECT chosen.uid, chosen.id, 'webhook', ${s.integrator_uid}, ${s.id}, ${messageIdSql(sql.ref('chosen.id'), sql.ref('chosen.uid'))}, ${now}, ${now} FROM chosen
        ON CONFLICT ON CONSTRAINT deliveries_pkey DO UPDATE SET
          status = 'pending', attempts = 0, first_attempt_at = NULL, next_attempt_at = ${now}, locked_until = NULL,
          last_error = NULL
        RETURNING 1
      ), last AS (SELECT uid, id FROM chosen ORDER BY uid DESC, id DESC LIMIT 1)
      SELECT (SELECT count(*)::int FROM queued) AS n, (SELECT uid FROM last) AS last_uid, (SELECT id::text FROM last) AS last_id`.execute(
      db,
    )
    const row = rows[0]
    const n = row?.n ?? 0
    queued += n
    if (n < REDELIVER_CHUNK || !row?.last_uid || row.last_id === null) break
    after = { uid: row.last_uid, id: row.last_id }
  }
  return queued
}
