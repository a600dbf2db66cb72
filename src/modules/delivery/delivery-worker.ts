// The delivery worker: every process runs one. It takes due deliveries from the outbox (claimDueDeliveries:
// SKIP LOCKED and a lease, so several processes share the work and each delivery goes out once in the
// normal case, again only after a process died holding it), sends each, and settles it: delivered, retried
// later with backoff, or failed. It wakes when this process creates events and polls for the rest.
import type { FastifyBaseLogger, FastifyInstance } from 'fastify'
import type { Kysely } from 'kysely'
import { sql } from 'kysely'
import { Webhook } from 'standardwebhooks'
import type { DB } from '../../db/schema.ts'
import { ranksToNotify } from '../events/alert-rules.rules.ts'
import { EVENT_KINDS } from '../events/event-kinds.ts'
import { eventTitle } from '../events/event-texts.ts'
import { alertRulesOf, findEvent, type EventRow } from '../events/events.repository.ts'
import { events } from '../events/events.resource.ts'
import { eventActorsSeenBy } from '../events/actors.rules.ts'
import {
  alertBody,
  browserTarget,
  DISABLE_AFTER_FAILING_MS,
  outcomeOf,
  phonesToNotify,
  phoneTarget,
} from './delivery.rules.ts'
import {
  claimDueDeliveries,
  findSubscription,
  mayReceive,
  recordAttempt,
  renewLease,
  settleDelivery,
  updateSubscription,
  type DeliveryRow,
  type SubscriptionRow,
} from './delivery.repository.ts'
import { createFcmSender, type PushSender } from './fcm.ts'
import { postJson } from './outbound.ts'
import {
  createWebPushSender,
  WEB_PUSH_TTL_SECONDS,
  webPushPayload,
  type WebPushMessage,
  type WebPushSender,
} from './web-push.ts'
import { deleteWebPushSubscription, listWebPushSubscriptions, markWebPushDelivered } from './web-push.repository.ts'
import { openSecret } from './webhook-secrets.ts'

export interface DeliverySettings {
  pollMs: number
  timeoutMs: number
  perEndpointConcurrency: number
  allowInsecure: boolean
  /** The key the webhook secrets are sealed with (the JWT secret). */
  serviceSecret: string
}

export interface DeliveryWorker {
  wake(): void
  stop(): Promise<void>
}

const LEASE_MARGIN_MS = 5_000
const LEASE_RENEW_MARGIN_MS = 1_000
const BATCH = 64

/**
 * What a subscriber receives: Standard Webhooks' recommended shape, {type, timestamp, data}; the event as the
 * subscription's integrator may see it (another integrator's UID is never shown: actorSeenBy).
 */
export function webhookPayload(row: EventRow, integratorUid: string): string {
  const viewer = { kind: 'integrator', uid: integratorUid } as const
  return JSON.stringify({
    type: row.event_type,
    timestamp: new Date(Number(row.created_at)).toISOString(),
    data: { userId: row.uid, event: eventActorsSeenBy(events.toApi(row), row.uid, viewer) },
  })
}

/** webhook-signature: one v1 signature per secret in use (two while a rotation overlaps). */
function signatures(secrets: string[], messageId: string, at: Date, payload: string): string {
  return secrets.map((secret) => new Webhook(secret).sign(messageId, at, payload)).join(' ')
}

/** The Standard Webhooks headers of a POST of `payload` at `now` (ms), signed with every secret in use. */
export function webhookHeaders(messageId: string, secrets: string[], now: number, payload: string) {
  return {
    'webhook-id': messageId,
    'webhook-timestamp': String(Math.floor(now / 1000)),
    'webhook-signature': signatures(secrets, messageId, new Date(now), payload),
    'user-agent': 'livestock-api-webhooks/1',
  }
}

export function secretsInUse(s: SubscriptionRow, serviceSecret: string, now: number): string[] {
  const current = openSecret(s.secret, serviceSecret)
  const previous =
    s.previous_secret && (s.previous_secret_until ?? 0) > now ? [openSecret(s.previous_secret, serviceSecret)] : []
  return [current, ...previous]
}

export function startDeliveryWorker(deps: {
  db: Kysely<DB>
  settings: DeliverySettings
  push: PushSender | undefined
  webPush: WebPushSender | undefined
  log: FastifyBaseLogger
  clock: () => number
}): DeliveryWorker {
  const { db, settings, log, clock } = deps
  const inFlight = new Map<string, number>()
  /** Claimed by this process and not yet sent, per endpoint. */
  const waiting = new Map<string, number>()
  const lease = settings.timeoutMs + LEASE_MARGIN_MS
  const running = new Set<Promise<void>>()
  let stopped = false
  let ticking: Promise<void> | undefined
  let again = false

  const endpointKey = (d: Pick<DeliveryRow, 'integrator_uid' | 'subscription_id'>) =>
    `${d.integrator_uid} ${d.subscription_id}`

  async function deliverWebhook(d: DeliveryRow) {
    const subscription = await findSubscription(db, d.integrator_uid, d.subscription_id)
    if (!subscription || !subscription.enabled)
      return settleDelivery(db, d, { status: 'cancelled', lastError: 'subscription disabled or deleted' })
    if (!(await mayReceive(db, d.uid, d.integrator_uid)))
      return settleDelivery(db, d, {
        status: 'cancelled',
        lastError: 'account unlinked, or the integrator inactive or without the read permission',
      })
    const event = await findEvent(db, d.uid, d.event_id)
    if (!event) return settleDelivery(db, d, { status: 'cancelled', lastError: 'event gone' })
    const now = clock()
    const payload = webhookPayload(event, d.integrator_uid)
    const secrets = secretsInUse(subscription, settings.serviceSecret, now)
    const answer = await postJson(subscription.url, payload, webhookHeaders(d.message_id, secrets, now, payload), {
      timeoutMs: settings.timeoutMs,
      allowInsecure: settings.allowInsecure,
    })
    const answeredAt = clock()
    await recordAttempt(db, d, { at: now, status: answer.status, error: answer.error, latencyMs: answer.latencyMs })
    const outcome = outcomeOf(
      answer,
      { attempts: d.attempts, firstAttemptAt: Number(d.first_attempt_at ?? now) },
      answeredAt,
      Math.random(),
    )
    const lastError = answer.error ?? (answer.status && answer.status >= 300 ? `HTTP ${answer.status}` : null)
    if (outcome.kind === 'delivered') {
      await settleDelivery(db, d, { status: 'delivered', lastStatus: answer.status, deliveredAt: answeredAt })
      if (subscription.failing_since !== null)
        await updateSubscription(db, d.integrator_uid, d.subscription_id, { failing_since: null }, answeredAt)
      return
    }
    if (outcome.kind === 'gone') {
      await settleDelivery(db, d, { status: 'failed', lastStatus: answer.status, lastError: '410 Gone' })
      await disable(subscription, 'the receiver answered 410 Gone', answeredAt)
      return
    }
    await settleDelivery(db, d, {
      status: outcome.kind === 'retry' ? 'pending' : 'failed',
      nextAttemptAt: outcome.kind === 'retry' ? outcome.atMs : undefined,
      lastStatus: answer.status ?? null,
      lastError,
    })
    const failingSince = Number(subscription.failing_since ?? answeredAt)
    if (subscription.failing_since === null)
      await updateSubscription(db, d.integrator_uid, d.subscription_id, { failing_since: answeredAt }, answeredAt)
    else if (answeredAt - failingSince > DISABLE_AFTER_FAILING_MS)
      await disable(subscription, `every delivery failed since ${new Date(failingSince).toISOString()}`, answeredAt)
  }

  async function disable(subscription: SubscriptionRow, reason: string, now: number) {
    await updateSubscription(
      db,
      subscription.integrator_uid,
      subscription.id,
      { enabled: false, disabled_reason: reason, disabled_at: now },
      now,
    )
    await sql`
      UPDATE deliveries SET status = 'cancelled', last_error = ${`subscription disabled: ${reason}`}
      WHERE integrator_uid = ${subscription.integrator_uid} AND subscription_id = ${subscription.id}
        AND status = 'pending'`.execute(db)
    log.warn(
      { integrator: subscription.integrator_uid, subscription: subscription.id, reason },
      'webhook subscription disabled',
    )
  }

  /**
   * One event to the account's phones (FCM) and browsers (Web Push) of the roles its kind notifies now. A retry
   * sends to all of them again: FCM's collapse key and the browsers' tag (the event) keep it to one notification.
   */
  async function deliverPush(d: DeliveryRow) {
    const { push, webPush } = deps
    if (!push && !webPush) return settleDelivery(db, d, { status: 'cancelled', lastError: 'push not configured' })
    const event = await findEvent(db, d.uid, d.event_id)
    if (!event) return settleDelivery(db, d, { status: 'cancelled', lastError: 'event gone' })
    const rules = await alertRulesOf(db, d.uid)
    const kind = EVENT_KINDS[event.event_type]
    // The account and its phones in one read. A deactivated account is blocked from everything, its phones included
    // (the webhooks' rule for an integrator).
    const { rows: account } = await sql<{
      inactive: boolean
      language: string | null
      token: string | null
      rank: number | null
    }>`
      SELECT u.inactive, u.language, p.token, p.rank FROM users u LEFT JOIN user_push_tokens p ON p.uid = u.uid
      WHERE u.uid = ${d.uid}`.execute(db)
    if (account.length === 0 || account[0]!.inactive)
      return settleDelivery(db, d, { status: 'cancelled', lastError: 'account inactive' })
    const language = account[0]!.language
    const title = eventTitle(event.event_type, language)
    const ranks =
      kind.severity === 'critical' && rules.kinds[event.event_type].enabled
        ? rules.kinds[event.event_type].notifyRanks
        : ranksToNotify(rules, event.event_type, clock())
    // A retry sends only to the phones and browsers an earlier attempt did not reach.
    const done = new Set(d.push_targets_done)
    const phones = push
      ? phonesToNotify(
          account.flatMap(({ token, rank }) => (token === null ? [] : [{ token, rank }])),
          ranks,
        ).filter((phone) => !done.has(phoneTarget(phone.token)))
      : []
    const browsers = webPush
      ? phonesToNotify(await listWebPushSubscriptions(db, d.uid), ranks).filter(
          (browser) => !done.has(browserTarget(browser.id)),
        )
      : []
    const errors: string[] = []
    const body = alertBody(event, language, rules.timeZone)
    const webPushMessage: WebPushMessage = {
      payload: webPushPayload(event, title, body, language),
      ttlSeconds: WEB_PUSH_TTL_SECONDS,
      urgency: kind.severity === 'critical' ? 'high' : 'normal',
      topic: d.message_id,
    }
    // All at once: the delivery's lease covers one send's timeout, not one per phone and browser.
    const [phoneResults, browserResults] = await Promise.all([
      Promise.all(
        phones.map((phone) =>
          push!.send({
            token: phone.token,
            title,
            body,
            data: { eventId: String(event.id), userId: event.uid, eventType: event.event_type, mac: String(event.mac) },
            collapseKey: d.message_id,
          }),
        ),
      ),
      Promise.all(
        browsers.map((browser) =>
          webPush!.send(
            { endpoint: browser.endpoint, keys: { p256dh: browser.p256dh, auth: browser.auth } },
            webPushMessage,
          ),
        ),
      ),
    ])
    for (const [i, result] of phoneResults.entries()) {
      const phone = phones[i]!
      if (result.kind !== 'retry') done.add(phoneTarget(phone.token))
      if (result.kind === 'unregistered')
        await sql`DELETE FROM user_push_tokens WHERE uid = ${d.uid} AND token = ${phone.token}`.execute(db)
      else if (result.kind === 'retry') errors.push(result.error)
      else if (result.kind === 'invalid') log.warn({ uid: d.uid, error: result.error }, 'push message refused')
    }
    const reached: string[] = []
    for (const [i, result] of browserResults.entries()) {
      const browser = browsers[i]!
      if (result.kind !== 'retry') done.add(browserTarget(browser.id))
      if (result.kind === 'ok') reached.push(browser.id)
      else if (result.kind === 'gone') await deleteWebPushSubscription(db, d.uid, browser.id)
      else if (result.kind === 'retry') errors.push(`${new URL(browser.endpoint).host}: ${result.error}`)
      else log.warn({ uid: d.uid, subscription: browser.id, error: result.error }, 'web push message refused')
    }
    const now = clock()
    await markWebPushDelivered(db, d.uid, reached, now)
    const pushTargetsDone = [...done]
    if (errors.length === 0)
      return settleDelivery(db, d, {
        status: 'delivered',
        deliveredAt: now,
        lastError: done.size > 0 ? null : 'no phone or browser to notify',
        pushTargetsDone,
      })
    const outcome = outcomeOf(
      {},
      { attempts: d.attempts, firstAttemptAt: Number(d.first_attempt_at ?? now) },
      now,
      Math.random(),
    )
    await settleDelivery(db, d, {
      status: outcome.kind === 'retry' ? 'pending' : 'failed',
      nextAttemptAt: outcome.kind === 'retry' ? outcome.atMs : undefined,
      lastError: errors[0],
      pushTargetsDone,
    })
  }

  function dispatch(d: DeliveryRow) {
    const key = endpointKey(d)
    inFlight.set(key, (inFlight.get(key) ?? 0) + 1)
    const work = (d.channel === 'webhook' ? deliverWebhook(d) : deliverPush(d))
      .catch((err: unknown) => log.error({ err, uid: d.uid, event: d.event_id }, 'a delivery failed to run'))
      .finally(() => {
        inFlight.set(key, (inFlight.get(key) ?? 1) - 1)
        running.delete(work)
        wake()
      })
    running.add(work)
  }

  async function tick() {
    // An endpoint with deliveries waiting here is busy too: claiming more for it would only queue them past their lease.
    const busy = [...new Set([...inFlight.keys(), ...waiting.keys()])].filter(
      (key) => (inFlight.get(key) ?? 0) >= settings.perEndpointConcurrency || (waiting.get(key) ?? 0) > 0,
    )
    const claimed = await claimDueDeliveries(db, clock(), lease, BATCH, busy)
    // A claim may hold more of one endpoint than its cap: those wait here, in order.
    const queues = new Map<string, DeliveryRow[]>()
    for (const d of claimed) queues.set(endpointKey(d), [...(queues.get(endpointKey(d)) ?? []), d])
    for (const [key, queue] of queues) {
      waiting.set(key, (waiting.get(key) ?? 0) + queue.length)
      void drain(key, queue)
    }
    if (claimed.length === BATCH) again = true
  }

  async function drain(key: string, queue: DeliveryRow[]) {
    try {
      for (const d of queue) {
        while ((inFlight.get(key) ?? 0) >= settings.perEndpointConcurrency && !stopped) await Promise.race([...running])
        if (stopped) return
        waiting.set(key, (waiting.get(key) ?? 1) - 1)
        // A slow receiver can keep a delivery waiting here until too little of its lease is left to cover a send:
        // renewed while this process still holds it, left to whoever claimed it since otherwise.
        if (Number(d.locked_until) - clock() < settings.timeoutMs + LEASE_RENEW_MARGIN_MS) {
          const until = clock() + lease
          if (!(await renewLease(db, d, until))) continue
          d.locked_until = until
        }
        dispatch(d)
      }
    } catch (err: unknown) {
      log.warn({ err }, 'the delivery worker could not renew a lease')
    } finally {
      waiting.delete(key)
    }
  }

  function wake() {
    if (stopped) return
    if (ticking) {
      again = true
      return
    }
    ticking = tick()
      .catch((err: unknown) => log.warn({ err }, 'the delivery worker could not read the outbox'))
      .finally(() => {
        ticking = undefined
        if (again && !stopped) {
          again = false
          wake()
        }
      })
  }

  const timer = setInterval(wake, settings.pollMs)
  timer.unref()
  wake()
  return {
    wake,
    async stop() {
      stopped = true
      clearInterval(timer)
      await ticking
      await Promise.allSettled([...running])
    },
  }
}

/** The app's worker (DELIVERY_WORKER=on, the default): woken by this process's new events, stopped on close. */
export function deliveryWorkerOf(app: FastifyInstance): DeliveryWorker | undefined {
  const { delivery, jwtSecret } = app.config
  if (!delivery.worker || !jwtSecret) return undefined
  const push = delivery.fcmServiceAccountFile
    ? createFcmSender({
        serviceAccountFile: delivery.fcmServiceAccountFile,
        endpoint: delivery.fcmEndpoint,
        timeoutMs: delivery.timeoutMs,
      })
    : undefined
  const webPush = delivery.webPushPrivateKey
    ? createWebPushSender({
        privateKey: delivery.webPushPrivateKey,
        contact: delivery.webPushContact,
        outbound: { timeoutMs: delivery.timeoutMs, allowInsecure: delivery.allowInsecure },
      })
    : undefined
  const worker = startDeliveryWorker({
    db: app.database.db,
    settings: {
      pollMs: delivery.pollMs,
      timeoutMs: delivery.timeoutMs,
      perEndpointConcurrency: delivery.perEndpointConcurrency,
      allowInsecure: delivery.allowInsecure,
      serviceSecret: jwtSecret,
    },
    push,
    webPush,
    log: app.log,
    clock: app.clock,
  })
  const unsubscribe = app.events.subscribe(() => worker.wake())
  app.addHook('onClose', async () => {
    unsubscribe()
    await worker.stop()
  })
  return worker
}
