// Events as stored: the one insert path (recordEvent, inside the transaction of the event's cause), the
// resolution of open events, the subject states of the derivations, the feed's reads and the alert rules.
import { sql, type Kysely, type RawBuilder } from 'kysely'
import type { DB } from '../../db/schema.ts'
import { paginate, whereGiven, type Page, type PageParams } from '../../db/paginate.ts'
import { deleteInBatches } from '../../db/prune.ts'
import type { FilterValue } from '../../http/list-params.ts'
import type { Row } from '../../resource/resource.ts'
import { SERVICE_ACTOR } from './actors.rules.ts'
import { withDefaults, type AlertRules, type AlertRulesInput } from './alert-rules.rules.ts'
import { EVENT_KINDS, type EventType } from './event-kinds.ts'
import { events } from './events.resource.ts'

/** An event about to be stored; the kind gives its severity and Scale. */
export interface NewEvent {
  uid: string
  type: EventType
  mac: string
  animalId?: number | null | undefined
  group?: string | null | undefined
  value: number
  /** ms since epoch: when the cause happened. */
  t: number
  evidence: Record<string, unknown>
  /** Names the episode: a second event with the same key in the account is not stored. */
  episodeKey: string
  /** ms since epoch: now. */
  createdAt: number
}

/** A stored event row (the columns of `events`). */
export type EventRow = Row & { uid: string; id: number; event_type: EventType; created_at: number }

/**
 * Stores an event in the transaction of its cause and returns it, or undefined when its episode is stored
 * already: one statement (eventStatement) takes the id from the account's counter row, inserts the event and its
 * delivery outbox rows, and resolves the open events the new one supersedes (kinds.resolves); an all-clear is stored
 * resolved by the service at its creation. The counter row stays locked until the transaction commits, so the
 * account's events commit in id order (migration 0020): make this the transaction's last statement, or use
 * transitionWithEvent, so that the lock is held for as short a time as can be (docs/events.md#cost). Announce what
 * it returns once the transaction has committed.
 */
export async function recordEvent(trx: Kysely<DB>, e: NewEvent): Promise<EventRow | undefined> {
  const { rows } = await eventStatement([], sql`(SELECT 1) AS one`, e, true).execute(trx)
  return rows[0]
}

/** What a subject's state is stored under (alert_states): the account, `animal:<id>` or `device:<MAC>`, the rule. */
export interface StateKey {
  uid: string
  subject: string
  rule: string
}

/**
 * Moves a subject's state for a rule from `expected` (undefined: none stored yet) to `next` and, when this call made
 * the move, stores its event (when its kind is on in `rules`; else it only resolves what the event would have), in
 * one statement: with `db` not a transaction, a transaction of its own, whose counter lock lasts from that
 * statement to its commit with no round trip to the service between. Of several concurrent calls only one moves
 * the state (transition). Returns the event stored, if any.
 */
export async function transitionWithEvent(
  db: Kysely<DB>,
  rules: AlertRules,
  key: StateKey,
  expected: string | undefined,
  next: string,
  since: number,
  e: NewEvent,
): Promise<EventRow | undefined> {
  const moved = sql`moved AS (
    INSERT INTO alert_states (uid, subject, rule, state, since)
    VALUES (${key.uid}, ${key.subject}, ${key.rule}, ${next}, ${since})
    ON CONFLICT (uid, subject, rule) DO UPDATE SET state = EXCLUDED.state, since = EXCLUDED.since
    WHERE alert_states.state = ${expected ?? null}
    RETURNING 1
  )`
  const { rows } = await eventStatement([moved], sql`moved`, e, rules.kinds[e.type].enabled).execute(db)
  return rows[0]
}

/**
 * The statement that stores event `e` once for each row of `source` (one row, or none), after the `before` CTEs:
 * its id from the account's counter, the event (nothing when its episode is stored already), its outbox rows,
 * and the resolution of the open events it supersedes, only when it was stored. With `store` false only that
 * resolution, once per row of `source`.
 */
function eventStatement(before: RawBuilder<unknown>[], source: RawBuilder<unknown>, e: NewEvent, store: boolean) {
  const kind = EVENT_KINDS[e.type]
  const resolves = 'resolves' in kind ? kind.resolves : []
  // An all-clear says a condition is over: no one has to act on it, so it is stored resolved.
  const settled = 'allClear' in kind
  const stored = sql`event AS (
    INSERT INTO events (uid, id, event_type, severity, status, resolved_by, resolved_at, mac, animal_id, group_name,
                        scale, value, t, evidence, episode_key, created_at)
    SELECT ${e.uid}, next.last_id, ${e.type}, ${kind.severity}, ${settled ? 'resolved' : 'open'},
           ${settled ? SERVICE_ACTOR : null}, ${settled ? e.createdAt : null}, ${e.mac}, ${e.animalId ?? null},
           ${e.group ?? null}, ${kind.scale}, ${e.value}, ${e.t}, ${JSON.stringify(e.evidence)}::jsonb, ${e.episodeKey},
           ${e.createdAt}
    FROM next
    ON CONFLICT ON CONSTRAINT events_episode_key DO NOTHING
    RETURNING *
  )`
  const ctes = [
    ...before,
    ...(store
      ? [
          sql`next AS (
            INSERT INTO event_counters (uid, last_id) SELECT ${e.uid}, 1 FROM ${source}
            ON CONFLICT (uid) DO UPDATE SET last_id = event_counters.last_id + 1
            RETURNING last_id
          )`,
          stored,
          sql`outbox AS (${deliveriesOf(sql`event`)})`,
        ]
      : []),
    ...(resolves.length > 0
      ? [
          sql`resolved AS (
            ${resolveSql(e.uid, { animalId: e.animalId, mac: e.mac }, resolves, SERVICE_ACTOR, e.createdAt)}
            AND EXISTS (SELECT 1 FROM ${store ? sql`event` : source})
          )`,
        ]
      : []),
  ]
  return sql<EventRow>`WITH ${sql.join(ctes)} ${store ? sql`SELECT * FROM event` : sql`SELECT * FROM events WHERE false`}`
}

/** UPDATE resolving the open (or acknowledged) events of these kinds of one animal or device. */
function resolveSql(uid: string, target: EventTarget, types: readonly string[], by: string, at: number) {
  const subject =
    target.animalId === undefined || target.animalId === null
      ? sql`mac = ${target.mac} AND animal_id IS NULL`
      : sql`animal_id = ${target.animalId}`
  return sql`UPDATE events SET status = 'resolved', resolved_by = ${by}, resolved_at = ${at}
    WHERE uid = ${uid} AND event_type IN (${sql.join([...types])}) AND status <> 'resolved' AND ${subject}`
}

/** The webhook-id of an event's deliveries (SQL): the same for every attempt and redelivery of it. */
export const messageIdSql = (eventId: EventRow['id'] | RawBuilder<unknown>, uid: string | RawBuilder<unknown>) =>
  sql<string>`'msg_' || ${eventId} || '_' || substr(md5(${uid}), 1, 10)`

/**
 * The delivery outbox (docs/delivery.md) of the events in `event` (a CTE of inserted events), written with them:
 * one row per webhook subscription of an integrator linked to the account that covers the event's kind and
 * account, and one for the account's phones and browsers (Web Push) when it has any. The delivery worker (modules/delivery) sends them;
 * its webhook-id is the row's message_id.
 */
function deliveriesOf(event: RawBuilder<unknown>) {
  const messageId = messageIdSql(sql`e.id`, sql`e.uid`)
  return sql`
    INSERT INTO deliveries (uid, event_id, channel, integrator_uid, subscription_id, message_id, next_attempt_at, created_at)
    SELECT e.uid, e.id, 'webhook', s.integrator_uid, s.id, ${messageId}, e.created_at, e.created_at
    FROM ${event} e
    JOIN user_integrator_links l ON l.uid = e.uid
    JOIN webhook_subscriptions s ON s.integrator_uid = l.integrator_uid
    WHERE s.enabled
      AND (s.event_types IS NULL OR s.event_types ? e.event_type)
      AND (s.account_uids IS NULL OR s.account_uids ? e.uid)
    UNION ALL
    SELECT e.uid, e.id, 'push', '', '', ${messageId}, e.created_at, e.created_at
    FROM ${event} e
    WHERE EXISTS (SELECT 1 FROM user_push_tokens p WHERE p.uid = e.uid AND p.rank IS NOT NULL)
       OR EXISTS (SELECT 1 FROM web_push_subscriptions w WHERE w.uid = e.uid AND w.rank IS NOT NULL)
    ON CONFLICT ON CONSTRAINT deliveries_pkey DO NOTHING`
}

/** Stores the event when its kind is on in the account's rules; otherwise only resolves what it would have. */
export async function emitEvent(trx: Kysely<DB>, rules: AlertRules, e: NewEvent): Promise<EventRow | undefined> {
  if (rules.kinds[e.type].enabled) return recordEvent(trx, e)
  const kind = EVENT_KINDS[e.type]
  if ('resolves' in kind)
    await resolveOpenEvents(trx, e.uid, { animalId: e.animalId, mac: e.mac }, kind.resolves, SERVICE_ACTOR, e.createdAt)
  return undefined
}

/** What an event is about: an animal (by id, whatever its tag's MAC now), or a litter device by MAC. */
export interface EventTarget {
  animalId?: number | null | undefined
  mac: string
}

/** Resolves the open (or acknowledged) events of these kinds of one animal or device; returns how many. */
export async function resolveOpenEvents(
  db: Kysely<DB>,
  uid: string,
  target: EventTarget,
  types: readonly string[],
  by: string,
  at: number,
  episodeKey?: string,
): Promise<number> {
  let query = db
    .updateTable('events')
    .set({ status: 'resolved', resolved_by: by, resolved_at: at })
    .where('uid', '=', uid)
    .where('event_type', 'in', types)
    .where('status', '<>', 'resolved')
  query =
    target.animalId === undefined || target.animalId === null
      ? query.where('mac', '=', target.mac).where('animal_id', 'is', null)
      : query.where('animal_id', '=', target.animalId)
  if (episodeKey !== undefined) query = query.where('episode_key', '=', episodeKey)
  const result = await query.executeTakeFirst()
  return Number(result.numUpdatedRows)
}

/** The states of one rule for the account's subjects (animal:<id>, device:<MAC>, animal:<id>:<class>). */
export async function subjectStates(
  db: Kysely<DB>,
  uid: string,
  rule: string,
): Promise<Map<string, { state: string; since: number }>> {
  const rows = await db
    .selectFrom('alert_states')
    .select(['subject', 'state', 'since'])
    .where('uid', '=', uid)
    .where('rule', '=', rule)
    .execute()
  return new Map(rows.map((r) => [r.subject, { state: r.state, since: Number(r.since) }]))
}

/**
 * Moves a subject's state for a rule from `expected` (undefined: no state stored yet) to `next`. True when this
 * transaction made the change; false when another one changed the state first (it then made the event).
 */
export async function transition(
  db: Kysely<DB>,
  key: { uid: string; subject: string; rule: string },
  expected: string | undefined,
  next: string,
  since: number,
): Promise<boolean> {
  const { rows } = await sql`
    INSERT INTO alert_states (uid, subject, rule, state, since)
    VALUES (${key.uid}, ${key.subject}, ${key.rule}, ${next}, ${since})
    ON CONFLICT (uid, subject, rule) DO UPDATE SET state = EXCLUDED.state, since = EXCLUDED.since
    WHERE alert_states.state = ${expected ?? null}
    RETURNING 1`.execute(db)
  return rows.length > 0
}

export interface EventCriteria {
  uid: string
  mac?: string | undefined
  animalId?: number | undefined
  type?: string | undefined
  severity?: string | undefined
  status?: string | undefined
  since?: number | undefined
  until?: number | undefined
  /** Only events created after this id. */
  after?: number | undefined
}

function selectEvents(db: Kysely<DB>, c: EventCriteria) {
  return whereGiven(db.selectFrom('events').selectAll().where('uid', '=', c.uid), [
    ['mac', '=', c.mac],
    ['animal_id', '=', c.animalId],
    ['event_type', '=', c.type],
    ['severity', '=', c.severity],
    ['status', '=', c.status],
    ['t', '>=', c.since],
    ['t', '<=', c.until],
    ['id', '>', c.after],
  ])
}

/** A page of events; with `after`, in creation order (id ascending) whatever the sort asked. */
export async function listEvents(
  db: Kysely<DB>,
  criteria: EventCriteria,
  params: PageParams,
  filters: Record<string, FilterValue>,
): Promise<Page<Row>> {
  const sort: PageParams =
    criteria.after === undefined ? params : { ...params, page: 1, sortBy: 'ID', sortOrder: 'asc' }
  return paginate(selectEvents(db, criteria), {
    columns: events.columns(),
    params: sort,
    filters: events.filterValues(filters),
    tiebreak: 'id',
  })
}

/** Up to `limit` events created after the cursor, oldest first (the stream). */
export async function eventsAfter(db: Kysely<DB>, uid: string, after: number, limit: number): Promise<EventRow[]> {
  return (await selectEvents(db, { uid, after }).orderBy('id', 'asc').limit(limit).execute()) as EventRow[]
}

/** The newest event id of the account (0 before its first event). */
export async function lastEventId(db: Kysely<DB>, uid: string): Promise<number> {
  const row = await db.selectFrom('event_counters').select('last_id').where('uid', '=', uid).executeTakeFirst()
  return row ? Number(row.last_id) : 0
}

export async function findEvent(db: Kysely<DB>, uid: string, id: number): Promise<EventRow | undefined> {
  return (await selectEvents(db, { uid }).where('id', '=', id).executeTakeFirst()) as EventRow | undefined
}

/** Acknowledges or resolves an event; a resolved one is never acknowledged again ('resolved' is returned). */
export async function updateEventStatus(
  db: Kysely<DB>,
  uid: string,
  id: number,
  change: { status: 'acknowledged' | 'resolved'; note?: string | undefined; by: string; at: number },
): Promise<EventRow | 'resolved' | undefined> {
  return db.transaction().execute(async (trx) => {
    const current = await selectEvents(trx, { uid }).where('id', '=', id).forUpdate().executeTakeFirst()
    if (!current) return undefined
    if (current.status === 'resolved' && change.status === 'acknowledged') return 'resolved'
    const set =
      change.status === 'acknowledged'
        ? { status: 'acknowledged' as const, acknowledged_by: change.by, acknowledged_at: change.at }
        : { status: 'resolved' as const, resolved_by: change.by, resolved_at: change.at }
    await trx
      .updateTable('events')
      .set({ ...set, ...(change.note !== undefined ? { note: change.note } : {}) })
      .where('uid', '=', uid)
      .where('id', '=', id)
      .execute()
    return (await findEvent(trx, uid, id))!
  })
}

/** The account's rules as stored (undefined: never written). */
export async function findAlertRules(
  db: Kysely<DB>,
  uid: string,
): Promise<{ input: AlertRulesInput; updatedBy: string; updatedAt: number } | undefined> {
  const row = await db
    .selectFrom('alert_rules')
    .select(['rules', 'updated_by', 'updated_at'])
    .where('uid', '=', uid)
    .executeTakeFirst()
  return row && { input: row.rules, updatedBy: row.updated_by, updatedAt: Number(row.updated_at) }
}

/** The rules in force for an account: its own over the defaults. */
export async function alertRulesOf(db: Kysely<DB>, uid: string): Promise<AlertRules> {
  return withDefaults((await findAlertRules(db, uid))?.input)
}

/**
 * Writes an account's rules; false when `expectedUpdatedAt` is given and the stored rules' updatedAt is not it (null:
 * the account has none), so that a read-modify-write loses no one else's change. updated_at only ever grows, so two
 * writes within one millisecond still differ.
 */
export async function saveAlertRules(
  db: Kysely<DB>,
  uid: string,
  input: AlertRulesInput,
  by: string,
  at: number,
  expectedUpdatedAt?: number | null,
): Promise<boolean> {
  const rules = JSON.stringify(input)
  const changed = { rules, updated_by: by, updated_at: sql<number>`GREATEST(${at}, alert_rules.updated_at + 1)` }
  if (expectedUpdatedAt === undefined || expectedUpdatedAt === null) {
    const result = await db
      .insertInto('alert_rules')
      .values({ uid, rules, updated_by: by, updated_at: at })
      .onConflict((oc) =>
        expectedUpdatedAt === null ? oc.column('uid').doNothing() : oc.column('uid').doUpdateSet(changed),
      )
      .executeTakeFirst()
    return Number(result.numInsertedOrUpdatedRows ?? 0n) === 1
  }
  const result = await db
    .updateTable('alert_rules')
    .set(changed)
    .where('uid', '=', uid)
    .where('updated_at', '=', expectedUpdatedAt)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) === 1
}

/**
 * An event of `alias` resolved before `before` (ms). Written in the terms of the index the prune walks (migration
 * 0110, keyed on COALESCE(resolved_at, created_at), which is resolved_at for a resolved event), so that the planner
 * uses it: it holds every resolved event, all-clears included.
 */
const resolvedBefore = (alias: string, before: number) => {
  const c = (column: string) => sql.ref(`${alias}.${column}`)
  return sql`${c('status')} = 'resolved' AND COALESCE(${c('resolved_at')}, ${c('created_at')}) < ${before}`
}

/**
 * The statement that deletes at most `batchRows` of the events resolved before `before` (ms), oldest first, but for
 * those with a delivery still pending. It checks the resolution again on the row it takes, so an event resolved again
 * meanwhile stays.
 */
export function pruneEventsStatement(before: number, batchRows: number) {
  return sql`
    DELETE FROM events e WHERE ${resolvedBefore('e', before)} AND (e.uid, e.id) IN (
      SELECT x.uid, x.id FROM events x
      WHERE ${resolvedBefore('x', before)} AND NOT EXISTS (
        SELECT 1 FROM deliveries d WHERE d.uid = x.uid AND d.event_id = x.id AND d.status = 'pending')
      ORDER BY COALESCE(x.resolved_at, x.created_at) LIMIT ${batchRows})`
}

/**
 * Deletes the events resolved before `before` (ms), oldest first, at most `batchRows` a statement (pruneEventsStatement).
 * Open and acknowledged events stay whatever their age. Returns the rows deleted.
 */
export function pruneEvents(db: Kysely<DB>, before: number, batchRows: number): Promise<number> {
  return deleteInBatches(batchRows, async () => {
    const result = await pruneEventsStatement(before, batchRows).execute(db)
    return Number(result.numAffectedRows ?? 0n)
  })
}
