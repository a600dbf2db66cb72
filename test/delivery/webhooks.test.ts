// Webhook subscriptions through HTTP, and deliveries to a local receiver that verifies them with the
// standardwebhooks package as a receiver would: signatures, the same webhook-id on a retry and a redelivery,
// Retry-After, 410 Gone, unlinking, secret rotation; who may not touch a subscription; bad inputs.
import assert from 'node:assert/strict'
import { createServer, type ServerResponse } from 'node:http'
import { after, before, describe, it } from 'node:test'
import { sql } from 'kysely'
import { Webhook } from 'standardwebhooks'
import { createTestApp, type TestContext } from '../support/app.ts'
import { bearer, createIntegrator, createUser, integratorToken, userToken } from '../support/fixtures.ts'
import { eventually } from '../support/eventually.ts'
import { assertError, assertInvalid } from '../support/assertions.ts'
import { announceEvent } from '../support/events.ts'
import {
  LOCAL_DELIVERY_ENV,
  startWebhookReceiver,
  type ReceivedRequest,
  type WebhookReceiver,
} from '../support/webhook-receiver.ts'
import { recordEvent } from '../../src/modules/events/events.repository.ts'
import { updateIntegrator } from '../../src/modules/integrators/integrators.repository.ts'

let ctx: TestContext
let receiver: WebhookReceiver
let receiverUrl: string
let received: ReceivedRequest[]
/** What the receiver answers next: a queue of [status, headers]; 200 when empty. */
let answers: WebhookReceiver['answers']

async function farmWithIntegrator() {
  const user = await createUser(ctx)
  const integrator = await createIntegrator(ctx, { linkTo: [user.uid] })
  const { accessToken } = await integratorToken(ctx, integrator.uid)
  return { uid: user.uid, email: user.email, integrator: integrator.uid, headers: bearer(accessToken) }
}

/** A birth alarm (or another event) of the account on the test tag, stored and announced. */
const derive = (uid: string, type: 'birth-alarm' | 'temperature-red' = 'birth-alarm') =>
  announceEvent(ctx, {
    uid,
    type,
    mac: 'A4:C1:38:5F:2B:91',
    group: 'Farrowing 2',
    value: 0.9,
    evidence: { probability: 0.9 },
  })

/** Makes the subscription's pending deliveries due now, instead of after their backoff, and wakes the worker. */
async function retryNow(integrator: string, id: string) {
  await sql`UPDATE deliveries SET next_attempt_at = 0
    WHERE integrator_uid = ${integrator} AND subscription_id = ${id} AND status = 'pending'`.execute(ctx.database.db)
  ctx.app.deliveries?.wake()
}

async function subscribe(headers: Record<string, string>, body: Record<string, unknown> = {}) {
  const res = await ctx.app.inject({
    method: 'POST',
    url: '/api/v1/webhooks/subscriptions',
    headers,
    payload: { url: receiverUrl, ...body },
  })
  assert.equal(res.statusCode, 201, res.body)
  return res.json().data as { id: string; secret: string }
}

const forSubscription = (secret: string) =>
  received.filter((r) => {
    try {
      new Webhook(secret).verify(r.body, r.headers as Record<string, string>)
      return true
    } catch {
      return false
    }
  })

/** The deliveries to the subscription of `secret`, once at least `count` came. */
const deliveriesTo = (secret: string, count: number, what: string) =>
  eventually(
    () => forSubscription(secret),
    (list) => list.length >= count,
    what,
  )

/** The first delivery to the subscription of `secret`, once it came, and its payload as a receiver verifies it. */
async function firstDelivery<P>(secret: string) {
  const [delivery] = await deliveriesTo(secret, 1, 'the delivery')
  return {
    delivery: delivery!,
    payload: new Webhook(secret).verify(delivery!.body, delivery!.headers as Record<string, string>) as P,
  }
}

/** Waits for a delivery to the subscription, then for the subscription to be disabled; returns it. */
async function disabledAfterADelivery(headers: Record<string, string>, id: string, secret: string) {
  await deliveriesTo(secret, 1, 'the delivery')
  return eventually(
    async () =>
      (await ctx.app.inject({ method: 'GET', url: `/api/v1/webhooks/subscriptions/${id}`, headers })).json().data,
    (data) => data.enabled === false,
    'the subscription disabled',
  )
}

describe('webhook subscriptions and deliveries', () => {
  before(async () => {
    receiver = await startWebhookReceiver()
    ;({ url: receiverUrl, received, answers } = receiver)
    ctx = await createTestApp({ env: LOCAL_DELIVERY_ENV })
  })
  after(() => {
    receiver?.close()
  })

  it('delivers a new event signed per Standard Webhooks, and shows the secret only once', async () => {
    const farm = await farmWithIntegrator()
    const { id, secret } = await subscribe(farm.headers, { eventTypes: ['birth-alarm'] })
    assert.match(secret, /^whsec_/)
    const listed = await ctx.app.inject({ method: 'GET', url: '/api/v1/webhooks/subscriptions', headers: farm.headers })
    assert.equal(listed.statusCode, 200)
    assert.deepEqual(
      listed.json().data.map((s: { id: string }) => s.id),
      [id],
    )
    assert.ok(!listed.body.includes(secret.slice(6)), 'the secret is never listed')

    const event = await derive(farm.uid)
    await derive(farm.uid, 'temperature-red') // not a subscribed kind
    const { delivery, payload } = await firstDelivery<{
      type: string
      data: { userId: string; event: { ID: string; EventType: string } }
    }>(secret)
    assert.equal(payload.type, 'birth-alarm')
    assert.equal(payload.data.userId, farm.uid)
    assert.equal(payload.data.event.ID, String(event.id))
    await new Promise((resolve) => setTimeout(resolve, 300))
    assert.equal(forSubscription(secret).length, 1, 'one delivery, none for an unsubscribed kind')

    const log = await ctx.app.inject({
      method: 'GET',
      url: `/api/v1/webhooks/subscriptions/${id}/deliveries`,
      headers: farm.headers,
    })
    assert.equal(log.json().data[0].status, 200)
    assert.equal(log.json().data[0].webhookId, delivery.headers['webhook-id'])
  })

  it('delivers an all-clear to a subscription of its kind as the feed shows it: resolved by the service', async () => {
    const farm = await farmWithIntegrator()
    const { secret } = await subscribe(farm.headers, { eventTypes: ['tag-heard'] })
    const event = await announceEvent(ctx, {
      uid: farm.uid,
      type: 'tag-heard',
      mac: 'A4:C1:38:5F:2B:91',
      value: 75,
      evidence: { heardAt: Date.now() },
    })
    const { payload } = await firstDelivery<{ type: string; data: { event: Record<string, unknown> } }>(secret)
    assert.equal(payload.type, 'tag-heard')
    const sent = payload.data.event
    assert.deepEqual(
      [sent.ID, sent.status, sent.resolvedBy, sent.resolvedAt],
      [String(event.id), 'resolved', 'service', sent.createdAt],
    )
  })

  it('retries with the same webhook-id, and redelivers on request with it too', async () => {
    const farm = await farmWithIntegrator()
    const { id, secret } = await subscribe(farm.headers)
    answers.push([503, {}])
    const event = await derive(farm.uid)
    await deliveriesTo(secret, 1, 'the first attempt')
    await retryNow(farm.integrator, id)
    const twice = await deliveriesTo(secret, 2, 'a retry')
    assert.equal(twice[0]!.headers['webhook-id'], twice[1]!.headers['webhook-id'])
    const again = await ctx.app.inject({
      method: 'POST',
      url: `/api/v1/webhooks/subscriptions/${id}/redeliver`,
      headers: farm.headers,
      payload: { userId: farm.uid, eventId: String(event.id) },
    })
    assert.equal(again.statusCode, 200, again.body)
    assert.equal(again.json().data.queued, 1)
    const thrice = await deliveriesTo(secret, 3, 'the redelivery')
    assert.equal(thrice[2]!.headers['webhook-id'], twice[0]!.headers['webhook-id'])
  })

  it('waits its backoff after a Retry-After shorter than it, so that Retry-After: 0 cannot have it sent again at once', async () => {
    const farm = await farmWithIntegrator()
    const { id, secret } = await subscribe(farm.headers)
    for (let i = 0; i < 50; i++) answers.push([503, { 'retry-after': '0' }])
    await derive(farm.uid)
    await deliveriesTo(secret, 1, 'the first attempt')
    // The first retry waits 4-6 s (5 s of backoff, jittered); a Retry-After of 0 had it sent again every few ms.
    await new Promise((resolve) => setTimeout(resolve, 1500))
    answers.length = 0
    assert.equal(forSubscription(secret).length, 1, 'one attempt within 1.5 s')
    const url = `/api/v1/webhooks/subscriptions/${id}`
    const log = await ctx.app.inject({ method: 'GET', url: `${url}/deliveries`, headers: farm.headers })
    assert.equal(log.json().data.length, 1, 'one attempt logged')
    // Its pending retry cancelled, so that it takes no later test's answer.
    assert.equal((await ctx.app.inject({ method: 'DELETE', url, headers: farm.headers })).statusCode, 200)
  })

  it('disables a subscription whose receiver answers 410 Gone', async () => {
    const farm = await farmWithIntegrator()
    const { id, secret } = await subscribe(farm.headers)
    answers.push([410, {}])
    await derive(farm.uid)
    const s = await disabledAfterADelivery(farm.headers, id, secret)
    assert.match(s.disabledReason, /410/)
  })

  it('disables a subscription whose every delivery has failed for more than three days, and says why', async () => {
    const farm = await farmWithIntegrator()
    const { id, secret } = await subscribe(farm.headers)
    const failingSince = Date.now() - 4 * 24 * 3_600_000
    await sql`UPDATE webhook_subscriptions SET failing_since = ${failingSince}
      WHERE integrator_uid = ${farm.integrator} AND id = ${id}`.execute(ctx.database.db)
    answers.push([500, {}])
    await derive(farm.uid)
    const s = await disabledAfterADelivery(farm.headers, id, secret)
    assert.equal(s.disabledReason, `every delivery failed since ${new Date(failingSince).toISOString()}`)
  })

  it('sends each of many queued events once to a slow receiver, however long they wait for its one slot', async () => {
    // One slot per endpoint and a 1 s timeout make the lease 6 s, while 300 events at ~30 ms each take longer:
    // a process that claimed more than it could send within the lease would send some twice. (A shorter timeout
    // would let a loaded machine time out a send, which is then rightly sent again.)
    const arrivals = new Map<string, number>()
    const slow = createServer((req, res) => {
      req.resume()
      req.on('end', () => {
        const id = String(req.headers['webhook-id'])
        arrivals.set(id, (arrivals.get(id) ?? 0) + 1)
        setTimeout(() => res.writeHead(204).end(), 25)
      })
    })
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve))
    const own = await createTestApp({
      env: {
        WEBHOOK_ALLOW_INSECURE: 'on',
        DELIVERY_POLL_MS: '50',
        WEBHOOK_TIMEOUT_MS: '1000',
        WEBHOOK_CONCURRENCY: '1',
      },
    })
    try {
      const address = slow.address()
      assert.ok(address && typeof address === 'object')
      const user = await createUser(own)
      const integrator = await createIntegrator(own, { linkTo: [user.uid] })
      const { accessToken } = await integratorToken(own, integrator.uid)
      const created = await own.app.inject({
        method: 'POST',
        url: '/api/v1/webhooks/subscriptions',
        headers: bearer(accessToken),
        payload: { url: `http://127.0.0.1:${address.port}/hooks` },
      })
      assert.equal(created.statusCode, 201, created.body)
      const events = 300
      const now = Date.now()
      const rows = []
      for (let i = 0; i < events; i++) {
        const row = await recordEvent(own.database.db, {
          uid: user.uid,
          type: 'birth-alarm',
          mac: 'A4:C1:38:5F:2B:91',
          value: 0.9,
          t: now,
          evidence: { probability: 0.9 },
          episodeKey: `slow-${i}-${now}`,
          createdAt: now,
        })
        assert.ok(row)
        rows.push(row)
      }
      own.app.events.announce(rows)
      await eventually(
        () => arrivals.size,
        (n) => n === events,
        'every event delivered',
        { timeoutMs: 30_000 },
      )
      await new Promise((resolve) => setTimeout(resolve, 300))
      assert.deepEqual(
        [...arrivals.values()].filter((n) => n > 1),
        [],
        'no event delivered twice',
      )
    } finally {
      await own.close()
      slow.closeAllConnections()
      slow.close()
    }
  })

  it('lets a receiver that hangs hold up no other subscription', async () => {
    const farm = await farmWithIntegrator()
    const hung: ServerResponse[] = []
    const hanging = createServer((_req, res) => hung.push(res))
    await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve))
    try {
      const address = hanging.address()
      assert.ok(address && typeof address === 'object')
      await subscribe(farm.headers, { url: `http://127.0.0.1:${address.port}/hooks` })
      const { secret } = await subscribe(farm.headers)
      await derive(farm.uid)
      await eventually(
        () => hung.length,
        (n) => n >= 1,
        'the hanging receiver called',
      )
      await deliveriesTo(secret, 1, 'the other receiver served meanwhile')
      assert.equal(hung.length, 1)
    } finally {
      for (const res of hung) res.writeHead(200).end()
      hanging.closeAllConnections()
      hanging.close()
    }
  })

  it('stops delivering an account the moment it unlinks the integrator', async () => {
    const farm = await farmWithIntegrator()
    const { secret } = await subscribe(farm.headers)
    const { accessToken } = await userToken(ctx, farm.email)
    const unlinked = await ctx.app.inject({
      method: 'DELETE',
      url: `/api/v1/partners/link/${farm.integrator}`,
      headers: bearer(accessToken),
    })
    assert.equal(unlinked.statusCode, 200)
    await derive(farm.uid)
    await new Promise((resolve) => setTimeout(resolve, 500))
    assert.equal(forSubscription(secret).length, 0)
  })

  it('stops delivering to an integrator the operator deactivated or withdrew the read permission from, and for a deactivated account', async () => {
    for (const change of [{ is_active: false }, { can_read: false }, { accountInactive: true }]) {
      const farm = await farmWithIntegrator()
      const { id, secret } = await subscribe(farm.headers)
      if ('accountInactive' in change)
        await ctx.database.db.updateTable('users').set({ inactive: true }).where('uid', '=', farm.uid).execute()
      else await updateIntegrator(ctx.database.db, farm.integrator, change)
      const event = await derive(farm.uid)
      const delivery = await eventually(
        async () =>
          (
            await sql<{ status: string }>`SELECT status FROM deliveries
              WHERE uid = ${farm.uid} AND event_id = ${event.id} AND subscription_id = ${id}`.execute(ctx.database.db)
          ).rows[0],
        (row) => row !== undefined && row.status !== 'pending',
        'the delivery settled',
      )
      assert.equal(delivery?.status, 'cancelled', JSON.stringify(change))
      assert.equal(forSubscription(secret).length, 0, JSON.stringify(change))
    }
  })

  it('signs deliveries and test messages with both secrets while a rotation overlaps', async () => {
    const farm = await farmWithIntegrator()
    const { id, secret: old } = await subscribe(farm.headers)
    const rotated = await ctx.app.inject({
      method: 'POST',
      url: `/api/v1/webhooks/subscriptions/${id}/rotate-secret`,
      headers: farm.headers,
      payload: { overlapSeconds: 3600 },
    })
    assert.equal(rotated.statusCode, 200, rotated.body)
    const fresh = rotated.json().data.secret as string
    assert.notEqual(fresh, old)
    await derive(farm.uid)
    await eventually(
      () => forSubscription(fresh),
      (list) => list.length >= 1,
      'a delivery signed by the new secret',
    )
    assert.equal(forSubscription(old).length, 1, 'the old secret verifies it too')
    const test = await ctx.app.inject({
      method: 'POST',
      url: `/api/v1/webhooks/subscriptions/${id}/test`,
      headers: farm.headers,
    })
    assert.equal(test.json().data.delivered, true, test.body)
    assert.equal(forSubscription(old).length, 2, 'a test message is signed as deliveries are: the old secret too')
  })

  it('sends a test message and answers with what the receiver said', async () => {
    const farm = await farmWithIntegrator()
    const { id, secret } = await subscribe(farm.headers)
    const res = await ctx.app.inject({
      method: 'POST',
      url: `/api/v1/webhooks/subscriptions/${id}/test`,
      headers: farm.headers,
    })
    assert.equal(res.statusCode, 200, res.body)
    assert.equal(res.json().data.delivered, true)
    const [test] = forSubscription(secret)
    assert.equal(JSON.parse(test!.body).type, 'webhook.test')
  })

  it('refuses bad subscriptions with the field named', async () => {
    const farm = await farmWithIntegrator()
    const other = await createUser(ctx)
    for (const [body, field] of [
      [{ url: 'ftp://fms.example/hook' }, 'url'],
      [{ url: 'not a url at all' }, 'url'],
      [{ url: receiverUrl, accounts: [other.uid] }, 'accounts[0]'],
      [{ url: receiverUrl, eventTypes: ['no-such-kind'] }, 'eventTypes'],
      [{ url: receiverUrl, eventTypes: [] }, 'eventTypes'],
      [{ url: receiverUrl, surprise: true }, 'surprise'],
    ] as const) {
      const res = await ctx.app.inject({
        method: 'POST',
        url: '/api/v1/webhooks/subscriptions',
        headers: farm.headers,
        payload: body,
      })
      assert.equal(res.statusCode, 400, `${JSON.stringify(body)}: ${res.body}`)
      assert.ok(
        res.json().details.some((d: { field: string }) => d.field.startsWith(field)),
        `${JSON.stringify(body)}: ${res.body}`,
      )
    }
    const { id } = await subscribe(farm.headers)
    const empty = await ctx.app.inject({
      method: 'PATCH',
      url: `/api/v1/webhooks/subscriptions/${id}`,
      headers: farm.headers,
      payload: {},
    })
    assert.equal(empty.statusCode, 400)
    const lone = await ctx.app.inject({
      method: 'POST',
      url: `/api/v1/webhooks/subscriptions/${id}/redeliver`,
      headers: farm.headers,
      payload: { eventId: '1' },
    })
    assert.equal(lone.statusCode, 400)
    const unknown = await ctx.app.inject({
      method: 'POST',
      url: `/api/v1/webhooks/subscriptions/${id}/redeliver`,
      headers: farm.headers,
      payload: { userId: farm.uid, eventId: '987654321' },
    })
    assertError(unknown, 404, 'Event (of this subscription) not found')
  })

  it('holds at most 100 subscriptions an integrator (each multiplies the outbox rows of every event of its accounts)', async () => {
    const farm = await farmWithIntegrator()
    for (let i = 0; i < 100; i++) await subscribe(farm.headers, { url: `${receiverUrl}/${i}` })
    const refused = await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/webhooks/subscriptions',
      headers: farm.headers,
      payload: { url: `${receiverUrl}/100` },
    })
    assertError(refused, 409, 'An integrator holds at most 100 webhook subscriptions: delete one first')
    const list = await ctx.app.inject({ method: 'GET', url: '/api/v1/webhooks/subscriptions', headers: farm.headers })
    assert.equal(list.json().data.length, 100)
    const [first] = list.json().data as { id: string }[]
    const deleted = await ctx.app.inject({
      method: 'DELETE',
      url: `/api/v1/webhooks/subscriptions/${first!.id}`,
      headers: farm.headers,
    })
    assert.equal(deleted.statusCode, 200)
    await subscribe(farm.headers)
  })

  it('refuses bad delivery-log and redelivery parameters, and answers 404 for an unknown subscription', async () => {
    const farm = await farmWithIntegrator()
    const { id } = await subscribe(farm.headers)
    const call = (method: 'GET' | 'POST', path: string, payload?: object) =>
      ctx.app.inject({
        method,
        url: `/api/v1/webhooks/subscriptions/${path}`,
        headers: farm.headers,
        ...(payload ? { payload } : {}),
      })
    for (const query of ['limit=0', 'limit=101', 'limit=x', 'color=red'])
      assertInvalid(await call('GET', `${id}/deliveries?${query}`), [`query:${query.split('=')[0]}`])
    assertInvalid(await call('POST', `${id}/redeliver`, {}), ['(root)'])
    assertInvalid(await call('POST', `${id}/redeliver`, { userId: farm.uid, eventId: 'abc' }), ['eventId'])
    assertInvalid(await call('POST', `${id}/redeliver`, { since: 1, surprise: true }), ['surprise'])
    assertError(await call('POST', `${id}/redeliver`, { since: 10, until: 5 }), 400, 'since is after until')
    const queued = await call('POST', `${id}/redeliver`, { since: 1 })
    assert.equal(queued.statusCode, 200, queued.body)
    assert.equal(queued.json().data.queued, 0)
    for (const [method, path, payload] of [
      ['GET', 'sub_nope/deliveries', undefined],
      ['POST', 'sub_nope/test', {}],
      ['POST', 'sub_nope/redeliver', { since: 1 }],
      ['POST', 'sub_nope/rotate-secret', {}],
    ] as const)
      assertError(await call(method, path, payload), 404, 'Subscription not found')
  })

  it('lets no user token and no other integrator see or touch a subscription', async () => {
    const farm = await farmWithIntegrator()
    const { id } = await subscribe(farm.headers)
    const stranger = await createIntegrator(ctx)
    const strangerHeaders = bearer((await integratorToken(ctx, stranger.uid)).accessToken)
    for (const [method, url] of [
      ['GET', `/api/v1/webhooks/subscriptions/${id}`],
      ['PATCH', `/api/v1/webhooks/subscriptions/${id}`],
      ['DELETE', `/api/v1/webhooks/subscriptions/${id}`],
      ['GET', `/api/v1/webhooks/subscriptions/${id}/deliveries`],
      ['POST', `/api/v1/webhooks/subscriptions/${id}/rotate-secret`],
    ] as const) {
      const res = await ctx.app.inject({
        method,
        url,
        headers: strangerHeaders,
        ...(method === 'PATCH' ? { payload: { enabled: false } } : method === 'POST' ? { payload: {} } : {}),
      })
      assert.equal(res.statusCode, 404, `${method} ${url}: ${res.body}`)
    }
    const { accessToken } = await userToken(ctx, farm.email)
    const asUser = await ctx.app.inject({
      method: 'GET',
      url: '/api/v1/webhooks/subscriptions',
      headers: bearer(accessToken),
    })
    assert.equal(asUser.statusCode, 403)
    const anonymous = await ctx.app.inject({ method: 'GET', url: '/api/v1/webhooks/subscriptions' })
    assert.equal(anonymous.statusCode, 401)
  })
})

// The file's store stays open for the app below, built on it: that app differs in configuration only.
after(async () => {
  await ctx?.close()
})
