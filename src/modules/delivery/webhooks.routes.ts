// Webhook subscriptions of an integrator (docs/delivery.md): create (the secret is shown once), list, read,
// change, delete, rotate the secret, send a test, read the delivery log, redeliver. Integrator tokens only;
// a subscription covers only the accounts linked to its integrator, at the time of each delivery.
import { randomBytes } from 'node:crypto'
import Type from 'typebox'
import type { App } from '../../types.ts'
import { callerOf } from '../../auth/caller.ts'
import { defineModule } from '../../http/api-module.ts'
import { Envelope, ok } from '../../http/envelope.ts'
import { badRequest, conflict, forbidden, notFound, orNotFound, validationFailed } from '../../http/errors.ts'
import { nextLink } from '../../http/next-link.ts'
import {
  deleteSubscription,
  findSubscription,
  insertSubscription,
  linkedAccounts,
  listAttempts,
  listSubscriptions,
  MAX_WEBHOOK_SUBSCRIPTIONS,
  redeliver,
  REDELIVER_MAX,
  updateSubscription,
  withSubscriptionsHeld,
  type SubscriptionRow,
} from './delivery.repository.ts'
import { attemptCursor, attemptKeyOf, overlappingSubscription, type SubscriptionReach } from './delivery.rules.ts'
import type { EventType } from '../events/event-kinds.ts'
import { postJson, refusedUrl } from './outbound.ts'
import { secretsInUse, webhookHeaders } from './delivery-worker.ts'
import { newWebhookSecret, sealSecret } from './webhook-secrets.ts'
import {
  Attempt,
  AttemptsQuery,
  Deleted,
  Queued,
  RedeliverBody,
  RotateBody,
  Subscription,
  SubscriptionCreate,
  SubscriptionPatch,
  SubscriptionPath,
  SubscriptionWithSecret,
  TestResult,
  WEBHOOK_MESSAGES,
} from './webhooks.schemas.ts'

export const webhooksModule = defineModule({
  tag: 'webhooks',
  description:
    "Integrators' webhook subscriptions: events of linked accounts POSTed as they happen, signed per Standard Webhooks 1.0",
  schemas: [],
  webhooks: WEBHOOK_MESSAGES,
  routes: webhookRoutes,
})

const toApi = (s: SubscriptionRow) => ({
  id: s.id,
  url: s.url,
  eventTypes: s.event_types as EventType[] | null,
  accounts: s.account_uids,
  enabled: s.enabled,
  disabledReason: s.disabled_reason,
  disabledAt: s.disabled_at === null ? null : Number(s.disabled_at),
  failingSince: s.failing_since === null ? null : Number(s.failing_since),
  secretOverlapUntil: s.previous_secret_until === null ? null : Number(s.previous_secret_until),
  createdAt: Number(s.created_at),
  updatedAt: Number(s.updated_at),
})

async function webhookRoutes(app: App) {
  const db = app.database.db
  const { delivery } = app.config
  const serviceSecret = app.config.jwtSecret!
  const integratorOf = (req: Parameters<typeof callerOf>[0]) => {
    const caller = callerOf(req)
    if (caller.kind !== 'integrator') throw forbidden('An integrator token is required')
    return caller.integrator.uid
  }
  const subscriptionOf = async (integratorUid: string, id: string) =>
    orNotFound(await findSubscription(db, integratorUid, id), 'Subscription')
  const checkUrl = (url: string) => {
    const refused = refusedUrl(url, delivery.allowInsecure)
    if (refused) throw validationFailed([{ field: 'url', message: refused }])
  }
  const checkAccounts = async (integratorUid: string, accounts: string[] | null | undefined) => {
    if (!accounts) return
    const linked = new Set(await linkedAccounts(db, integratorUid))
    const problems = accounts.flatMap((uid, i) =>
      linked.has(uid) ? [] : [{ field: `accounts[${i}]`, message: 'is not an account linked to this integrator' }],
    )
    if (problems.length > 0) throw validationFailed(problems)
  }
  const refuseOverlap = (reach: SubscriptionReach, others: SubscriptionRow[]) => {
    const other = overlappingSubscription(reach, others)
    if (other)
      throw conflict(
        `Subscription ${other.id} already sends some of these events to this URL: ` +
          'change that one, or make their eventTypes or accounts disjoint',
      )
  }
  const config = { access: 'integratorToken' } as const

  app.post(
    '/webhooks/subscriptions',
    {
      schema: {
        operationId: 'createWebhookSubscription',
        summary: 'Subscribe to events by webhook',
        description:
          'Integrator token. Events of the linked accounts (all, or `accounts`) of the kinds in `eventTypes` (all when absent) are ' +
          'POSTed to `url` as `{type, timestamp, data: {userId, event}}`, signed per Standard Webhooks 1.0 (`webhook-id`, ' +
          '`webhook-timestamp`, `webhook-signature: v1,<base64 HMAC-SHA256>`). The answer carries the signing `secret` once. ' +
          'https and a public address only, unless the operator allows otherwise. Retries with backoff for about three days; ' +
          `410 Gone disables the subscription; Retry-After is honoured. An integrator holds at most ${MAX_WEBHOOK_SUBSCRIPTIONS} ` +
          'subscriptions (409 beyond), and no two that would send one event to the same URL (409: the same URL, compared with ' +
          'scheme and host in lower case and without a default port or fragment, with overlapping `eventTypes` and `accounts`).',
        body: SubscriptionCreate,
        response: {
          201: Envelope(SubscriptionWithSecret, 'The subscription and its secret', 'Webhook subscription created'),
          409: Type.Ref('ErrorEnvelope', {
            description:
              'The integrator holds the most subscriptions allowed, or another that sends some of these events to this URL',
          }),
        },
      },
      config: { ...config, idempotent: true },
    },
    async (req, reply) => {
      const integratorUid = integratorOf(req)
      checkUrl(req.body.url)
      await checkAccounts(integratorUid, req.body.accounts)
      const secret = newWebhookSecret()
      const now = app.clock()
      const candidate: SubscriptionRow = {
        integrator_uid: integratorUid,
        id: `whs_${randomBytes(9).toString('base64url')}`,
        url: req.body.url,
        event_types: req.body.eventTypes ?? null,
        account_uids: req.body.accounts ?? null,
        secret: sealSecret(secret, serviceSecret),
        previous_secret: null,
        previous_secret_until: null,
        enabled: true,
        disabled_reason: null,
        disabled_at: null,
        failing_since: null,
        created_at: now,
        updated_at: now,
      }
      const row = await withSubscriptionsHeld(db, integratorUid, async (trx, held) => {
        if (held.length >= MAX_WEBHOOK_SUBSCRIPTIONS)
          throw conflict(
            `An integrator holds at most ${MAX_WEBHOOK_SUBSCRIPTIONS} webhook subscriptions: delete one first`,
          )
        refuseOverlap(candidate, held)
        return insertSubscription(trx, candidate)
      })
      return reply.code(201).send(ok({ ...toApi(row), secret }, 'Webhook subscription created'))
    },
  )

  app.get(
    '/webhooks/subscriptions',
    {
      schema: {
        operationId: 'listWebhookSubscriptions',
        summary: "The integrator's webhook subscriptions",
        description: 'Integrator token. Secrets are never returned.',
        response: {
          200: Envelope(Type.Array(Subscription, { maxItems: MAX_WEBHOOK_SUBSCRIPTIONS }), 'The subscriptions'),
        },
      },
      config,
    },
    async (req) => ok((await listSubscriptions(db, integratorOf(req))).map(toApi)),
  )

  app.get(
    '/webhooks/subscriptions/:subscriptionId',
    {
      schema: {
        operationId: 'getWebhookSubscription',
        summary: 'One webhook subscription',
        description: "Integrator token; another integrator's subscription is a 404.",
        params: SubscriptionPath,
        response: { 200: Envelope(Subscription, 'The subscription') },
      },
      config,
    },
    async (req) => ok(toApi(await subscriptionOf(integratorOf(req), req.params.subscriptionId))),
  )

  app.patch(
    '/webhooks/subscriptions/:subscriptionId',
    {
      schema: {
        operationId: 'updateWebhookSubscription',
        summary: 'Change a webhook subscription',
        description:
          'Integrator token. `enabled: false` pauses deliveries (pending ones wait); `enabled: true` enables a subscription the ' +
          'service disabled, and clears why. A change of `url`, `eventTypes` or `accounts` that would make it send some event to ' +
          "the same URL as another of the integrator's subscriptions is refused (409).",
        params: SubscriptionPath,
        body: SubscriptionPatch,
        response: {
          200: Envelope(Subscription, 'The subscription', 'Webhook subscription updated'),
          409: Type.Ref('ErrorEnvelope', {
            description: 'Another subscription sends some of these events to this URL',
          }),
        },
      },
      config,
    },
    async (req) => {
      const integratorUid = integratorOf(req)
      await subscriptionOf(integratorUid, req.params.subscriptionId)
      if (req.body.url !== undefined) checkUrl(req.body.url)
      await checkAccounts(integratorUid, req.body.accounts)
      const enabling = req.body.enabled === true
      const { url, eventTypes, accounts } = req.body
      const row = await withSubscriptionsHeld(db, integratorUid, async (trx, held) => {
        const current = held.find((s) => s.id === req.params.subscriptionId)
        if (!current) return undefined
        if (url !== undefined || eventTypes !== undefined || accounts !== undefined)
          refuseOverlap(
            {
              url: url ?? current.url,
              event_types: eventTypes === undefined ? current.event_types : eventTypes,
              account_uids: accounts === undefined ? current.account_uids : accounts,
            },
            held.filter((s) => s !== current),
          )
        return updateSubscription(
          trx,
          integratorUid,
          current.id,
          {
            url,
            event_types: eventTypes,
            account_uids: accounts,
            enabled: req.body.enabled,
            ...(enabling ? { disabled_reason: null, disabled_at: null, failing_since: null } : {}),
          },
          app.clock(),
        )
      })
      return ok(toApi(orNotFound(row, 'Subscription')), 'Webhook subscription updated')
    },
  )

  app.delete(
    '/webhooks/subscriptions/:subscriptionId',
    {
      schema: {
        operationId: 'deleteWebhookSubscription',
        summary: 'Delete a webhook subscription',
        description: 'Integrator token. Its pending deliveries are cancelled.',
        params: SubscriptionPath,
        response: { 200: Envelope(Deleted, 'Deleted', 'Webhook subscription deleted') },
      },
      config,
    },
    async (req) => {
      if (!(await deleteSubscription(db, integratorOf(req), req.params.subscriptionId))) throw notFound('Subscription')
      return ok({ id: req.params.subscriptionId }, 'Webhook subscription deleted')
    },
  )

  app.post(
    '/webhooks/subscriptions/:subscriptionId/rotate-secret',
    {
      schema: {
        operationId: 'rotateWebhookSecret',
        summary: 'Rotate the signing secret',
        description:
          'Integrator token. A new secret, shown once; for `overlapSeconds` (default a day) every delivery carries a signature ' +
          'by each secret, so a receiver can switch without losing one. While an overlap lasts (`secretOverlapUntil`) a ' +
          'rotation is refused (409), but for `overlapSeconds: 0`, which ends it: every earlier secret stops signing at once.',
        params: SubscriptionPath,
        body: RotateBody,
        response: {
          200: Envelope(SubscriptionWithSecret, 'The subscription and its new secret', 'Webhook secret rotated'),
          409: Type.Ref('ErrorEnvelope', { description: "The previous secret's overlap has not ended" }),
        },
      },
      config,
    },
    async (req) => {
      const integratorUid = integratorOf(req)
      const secret = newWebhookSecret()
      const overlapMs = (req.body.overlapSeconds ?? 86_400) * 1000
      const row = await withSubscriptionsHeld(db, integratorUid, async (trx, held) => {
        const s = orNotFound(
          held.find((h) => h.id === req.params.subscriptionId),
          'Subscription',
        )
        const now = app.clock()
        // Only one previous secret is kept: a second overlapping rotation would drop the oldest before its overlap ends.
        const overlapUntil = s.previous_secret_until === null ? null : Number(s.previous_secret_until)
        if (overlapMs > 0 && overlapUntil !== null && overlapUntil > now)
          throw conflict(
            `The previous secret signs until ${new Date(overlapUntil).toISOString()}: rotate again after then, ` +
              'or with overlapSeconds 0 to end its overlap now',
          )
        return updateSubscription(
          trx,
          integratorUid,
          s.id,
          {
            secret: sealSecret(secret, serviceSecret),
            previous_secret: overlapMs > 0 ? s.secret : null,
            previous_secret_until: overlapMs > 0 ? now + overlapMs : null,
          },
          now,
        )
      })
      return ok({ ...toApi(row!), secret }, 'Webhook secret rotated')
    },
  )

  app.post(
    '/webhooks/subscriptions/:subscriptionId/test',
    {
      schema: {
        operationId: 'testWebhookSubscription',
        summary: 'Send a test message',
        description:
          'Integrator token. POSTs `{type: "webhook.test", timestamp, data: {subscriptionId}}`, signed like every delivery, and ' +
          "answers with the receiver's status (not retried, not in the log). An expensive request: it waits for the " +
          'receiver, up to the delivery timeout.',
        params: SubscriptionPath,
        response: { 200: Envelope(TestResult, 'What the receiver answered') },
      },
      // An outbound request outside the delivery worker's per-endpoint bound, held for up to the timeout.
      config: { ...config, cost: 'expensive' },
    },
    async (req) => {
      const s = await subscriptionOf(integratorOf(req), req.params.subscriptionId)
      const now = app.clock()
      const messageId = `msg_test_${randomBytes(9).toString('base64url')}`
      const payload = JSON.stringify({
        type: 'webhook.test',
        timestamp: new Date(now).toISOString(),
        data: { subscriptionId: s.id },
      })
      // Signed as deliveries are, by each secret in use: a receiver still on the old secret during an overlap passes too.
      const secrets = secretsInUse(s, serviceSecret, now)
      const answer = await postJson(s.url, payload, webhookHeaders(messageId, secrets, now, payload), {
        timeoutMs: delivery.timeoutMs,
        allowInsecure: delivery.allowInsecure,
      })
      const delivered = answer.status !== undefined && answer.status >= 200 && answer.status < 300
      return ok({ delivered, status: answer.status ?? null, latencyMs: answer.latencyMs, error: answer.error ?? null })
    },
  )

  app.get(
    '/webhooks/subscriptions/:subscriptionId/deliveries',
    {
      schema: {
        operationId: 'listWebhookDeliveries',
        summary: "The subscription's delivery log",
        description:
          'Integrator token. Every attempt, newest first: the event, its webhook-id, status, error and latency; of one account ' +
          '(`userId`), of one event (`userId` and `eventId`), failed or delivered ones only (`failed`). A page that has more ' +
          'after it carries `Link: <...>; rel="next"`, the same query with the `cursor` where it ended. Kept for ' +
          `DELIVERY_LOG_RETENTION_DAYS (${delivery.logRetentionDays} days here); the attempts of a delivery still pending stay.`,
        params: SubscriptionPath,
        querystring: AttemptsQuery,
        response: {
          // Link: its component (http/response-headers.ts) says what it holds.
          200: {
            ...Envelope(Type.Array(Attempt, { maxItems: 100 }), 'The attempts'),
            headers: { Link: { type: 'string' } },
          },
        },
      },
      config,
    },
    async (req, reply) => {
      const s = await subscriptionOf(integratorOf(req), req.params.subscriptionId)
      const { limit = 50, userId, eventId, failed, cursor } = req.query
      if (eventId !== undefined && userId === undefined) throw badRequest('eventId needs userId')
      const before = cursor === undefined ? undefined : attemptKeyOf(cursor)
      if (cursor !== undefined && before === undefined)
        throw validationFailed([
          { field: 'query:cursor', message: "is not a cursor of this list: copy it from a page's Link header" },
        ])
      const filter = { uid: userId, eventId: eventId === undefined ? undefined : Number(eventId), failed, before }
      // One more than the page shows, to know whether a next page exists.
      const rows = await listAttempts(db, s.integrator_uid, s.id, filter, limit + 1)
      const page = rows.slice(0, limit).map((a) => ({
        userId: a.uid,
        eventId: String(a.event_id),
        webhookId: a.message_id,
        attemptedAt: a.attempted_at,
        status: a.status,
        error: a.error,
        latencyMs: a.latency_ms,
        cursor: attemptCursor({ attemptedAt: a.attempted_at, uid: a.uid, eventId: a.event_id }),
      }))
      const last = page.at(-1)
      if (rows.length > limit && last) void reply.header('link', nextLink(req.url, 'cursor', last.cursor))
      return ok(page)
    },
  )

  app.post(
    '/webhooks/subscriptions/:subscriptionId/redeliver',
    {
      schema: {
        operationId: 'redeliverWebhookEvents',
        summary: 'Deliver events again',
        description:
          'Integrator token. Queues again one event (`userId` and `eventId`) or the events created in `since`-`until` (of one ' +
          'account, or of every covered account), with their first webhook-id, so a receiver that kept what it saw knows a repeat. ' +
          `At most ${REDELIVER_MAX.toLocaleString('en')} events a request (by account, then event id); an expensive request. ` +
          'One event named that the subscription does not carry (no such event, another account, a type it leaves out): 404.',
        params: SubscriptionPath,
        body: RedeliverBody,
        response: { 200: Envelope(Queued, 'Queued', 'Events queued') },
      },
      config: { ...config, cost: 'expensive' },
    },
    async (req) => {
      const s = await subscriptionOf(integratorOf(req), req.params.subscriptionId)
      const { userId, eventId, since, until } = req.body
      if (eventId !== undefined && userId === undefined) throw badRequest('eventId needs userId')
      if (since !== undefined && until !== undefined && since > until) throw badRequest('since is after until')
      const queued = await redeliver(
        db,
        s,
        { uid: userId, eventId: eventId === undefined ? undefined : Number(eventId), since, until },
        app.clock(),
      )
      // One event named and none queued: it is not there, or not this subscription's to send (another account, a
      // type it does not carry); `queued: 0` read as done.
      if (eventId !== undefined && queued === 0) throw notFound('Event (of this subscription)')
      app.deliveries?.wake()
      return ok({ queued }, 'Events queued')
    },
  )
}
