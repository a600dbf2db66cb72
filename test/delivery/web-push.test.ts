// Web Push to the farm app's browsers: the service's key, registering a browser (its bad inputs and who may), and
// each event pushed to the browsers of the roles its kind notifies, encrypted for the browser and signed with the
// service's key, read back as the browser would (decrypted with its keys, the signature checked); a subscription
// its push service ended is removed.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createTestApp, TEST_WEB_PUSH_PRIVATE_KEY, type TestContext } from '../support/app.ts'
import { bearer, createIntegrator, createUser, integratorToken, userToken } from '../support/fixtures.ts'
import { eventually } from '../support/eventually.ts'
import { announceEvent, withoutQuietHours } from '../support/events.ts'
import { browserKeys, decryptPush, verifiedVapid } from '../support/push-service.ts'
import { LOCAL_DELIVERY_ENV, startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts'
import { webPushPublicKey } from '../../src/web-push-key.ts'

let ctx: TestContext
/** As an operator runs it: https and public addresses only (ctx allows a loopback push service). */
let guarded: TestContext
let pushService: WebhookReceiver

const subscriptionsOf = (uid: string) => `/api/v1/users/${uid}/web-push-subscriptions`

async function accountWithToken(app = ctx) {
  const user = await createUser(app)
  const { accessToken } = await userToken(app, user.email)
  return { user, headers: bearer(accessToken) }
}

function register(uid: string, headers: Record<string, string>, payload: object, app = ctx) {
  return app.app.inject({ method: 'POST', url: subscriptionsOf(uid), headers, payload })
}

describe('web push to the farm app', () => {
  before(async () => {
    pushService = await startWebhookReceiver()
    ctx = await createTestApp({ env: { ...LOCAL_DELIVERY_ENV, WEB_PUSH_CONTACT: 'mailto:ops@farm-service.example' } })
    guarded = await createTestApp()
  })
  after(async () => {
    await ctx?.close()
    await guarded?.close()
    pushService?.close()
  })

  it('gives the public key of the configured private key, to anyone', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/api/v1/web-push/key' })
    assert.equal(res.statusCode, 200, res.body)
    assert.equal(res.json().data.publicKey, webPushPublicKey(TEST_WEB_PUSH_PRIVATE_KEY))
    assert.equal(Buffer.from(res.json().data.publicKey, 'base64url').length, 65)
  })

  it('registers a browser once per endpoint, lists it, and removes it', async () => {
    const { user, headers } = await accountWithToken()
    const browser = browserKeys()
    const body = {
      endpoint: 'https://push.example.net/send/abc',
      keys: browser.keys,
      rank: 3,
      name: 'Chrome on Android',
    }
    const created = await register(user.uid, headers, body)
    assert.equal(created.statusCode, 201, created.body)
    const subscription = created.json().data
    assert.equal(created.headers.location, `${subscriptionsOf(user.uid)}/${subscription.id}`)
    const named = await ctx.app.inject({ method: 'GET', url: String(created.headers.location), headers })
    assert.equal(named.statusCode, 200, named.body)
    assert.deepEqual(named.json().data, subscription)
    assert.equal(subscription.pushService, 'push.example.net')
    assert.equal(subscription.rank, 3)
    assert.equal(subscription.lastDeliveredAt, null)

    const again = await register(user.uid, headers, { ...body, rank: 2, keys: browserKeys().keys })
    assert.equal(again.statusCode, 200, again.body)
    assert.equal(again.json().data.id, subscription.id)
    assert.equal(again.json().data.rank, 2)

    const list = await ctx.app.inject({ method: 'GET', url: subscriptionsOf(user.uid), headers })
    assert.deepEqual(
      list.json().data.map((s: { id: string; rank: number }) => [s.id, s.rank]),
      [[subscription.id, 2]],
    )
    const removed = await ctx.app.inject({
      method: 'DELETE',
      url: `${subscriptionsOf(user.uid)}/${subscription.id}`,
      headers,
    })
    assert.equal(removed.statusCode, 200, removed.body)
    const gone = await ctx.app.inject({
      method: 'DELETE',
      url: `${subscriptionsOf(user.uid)}/${subscription.id}`,
      headers,
    })
    assert.equal(gone.statusCode, 404)
    assert.equal(gone.json().error, 'Web push subscription not found')
    const read = await ctx.app.inject({
      method: 'GET',
      url: `${subscriptionsOf(user.uid)}/${subscription.id}`,
      headers,
    })
    assert.equal(read.statusCode, 404)
  })

  it('refuses bad subscriptions with the field they name', async () => {
    const { user, headers } = await accountWithToken(guarded)
    const { keys } = browserKeys()
    const cases: [object, string][] = [
      [{ endpoint: 'http://push.example.net/x', keys }, 'endpoint'],
      [{ endpoint: 'https://10.0.0.7/x', keys }, 'endpoint'],
      [{ endpoint: 'not a url', keys }, 'endpoint'],
      [{ endpoint: 'https://push.example.net/x', keys: { ...keys, p256dh: 'B'.repeat(87) } }, 'keys.p256dh'],
      [{ endpoint: 'https://push.example.net/x', keys: { ...keys, p256dh: 'short' } }, 'keys.p256dh'],
      [{ endpoint: 'https://push.example.net/x', keys: { ...keys, auth: 'x' } }, 'keys.auth'],
      [{ endpoint: 'https://push.example.net/x', keys, rank: 4 }, 'rank'],
      [{ endpoint: 'https://push.example.net/x', keys, expirationTime: null }, 'expirationTime'],
      [{ endpoint: 'https://push.example.net/x' }, 'keys'],
    ]
    for (const [payload, field] of cases) {
      const res = await register(user.uid, headers, payload, guarded)
      assert.equal(res.statusCode, 400, `${JSON.stringify(payload)}: ${res.body}`)
      assert.ok(
        (res.json().details as { field: string }[]).some((d) => d.field === field),
        `${JSON.stringify(payload)} names ${field}: ${res.body}`,
      )
    }
  })

  it('holds at most 20 browsers an account', async () => {
    const { user, headers } = await accountWithToken()
    for (let i = 0; i < 20; i++) {
      const res = await register(user.uid, headers, {
        endpoint: `https://push.example.net/${i}`,
        keys: browserKeys().keys,
      })
      assert.equal(res.statusCode, 201, res.body)
    }
    const full = await register(user.uid, headers, {
      endpoint: 'https://push.example.net/21',
      keys: browserKeys().keys,
    })
    assert.equal(full.statusCode, 409)
    assert.match(full.json().error, /at most 20 web push subscriptions/)
  })

  it("keeps each account's browsers to itself and its linked integrators", async () => {
    const owner = await accountWithToken()
    const other = await accountWithToken()
    const created = await register(owner.user.uid, owner.headers, {
      endpoint: 'https://push.example.net/owner',
      keys: browserKeys().keys,
    })
    assert.equal(created.statusCode, 201)
    const read = await ctx.app.inject({ method: 'GET', url: subscriptionsOf(owner.user.uid), headers: other.headers })
    assert.equal(read.statusCode, 403)
    const removed = await ctx.app.inject({
      method: 'DELETE',
      url: `${subscriptionsOf(owner.user.uid)}/${created.json().data.id}`,
      headers: other.headers,
    })
    assert.equal(removed.statusCode, 403)
    const unlinked = await createIntegrator(ctx, { canWrite: true })
    const { accessToken } = await integratorToken(ctx, unlinked.uid)
    const byUnlinked = await ctx.app.inject({
      method: 'GET',
      url: subscriptionsOf(owner.user.uid),
      headers: bearer(accessToken),
    })
    assert.equal(byUnlinked.statusCode, 403)
    const mine = await ctx.app.inject({ method: 'GET', url: subscriptionsOf(other.user.uid), headers: other.headers })
    assert.deepEqual(mine.json().data, [])
  })

  it('pushes an event to the browsers of the notified role, encrypted for each and signed by the service', async () => {
    const { user, headers } = await accountWithToken()
    const language = await ctx.app.inject({
      method: 'PATCH',
      url: `/api/v1/users/${user.uid}`,
      headers,
      payload: { Language: 'de-AT' },
    })
    assert.equal(language.statusCode, 200, language.body)
    await withoutQuietHours(ctx, user.uid, headers)
    const worker = browserKeys()
    const admin = browserKeys()
    const endpointOf = (name: string) => pushService.url.replace(/\/hooks$/, `/push/${name}`)
    for (const [name, browser, rank] of [
      ['worker', worker, 3],
      ['admin', admin, 1],
    ] as const) {
      const res = await register(user.uid, headers, { endpoint: endpointOf(name), keys: browser.keys, rank })
      assert.equal(res.statusCode, 201, res.body)
    }
    const sentBefore = pushService.received.length
    // Birth alarms notify workers (rank 3) by default.
    const event = await announceEvent(ctx, {
      uid: user.uid,
      type: 'birth-alarm',
      mac: 'A4:C1:38:5F:2B:91',
      group: 'Abferkelstall 2',
      value: 0.91,
      evidence: { probability: 0.91, threshold: 0.3441 },
    })

    const [message] = await eventually(
      () => pushService.received.slice(sentBefore),
      (list) => list.length >= 1,
      'a web push message',
    )
    assert.equal(message!.headers.ttl, '86400')
    assert.equal(message!.headers.urgency, 'normal')
    assert.match(String(message!.headers.topic), /^[A-Za-z0-9_-]{1,32}$/)
    const origin = new URL(pushService.url).origin
    const claims = await verifiedVapid(message!, webPushPublicKey(TEST_WEB_PUSH_PRIVATE_KEY), origin)
    assert.equal(claims.sub, 'mailto:ops@farm-service.example')
    assert.ok(claims.exp! * 1000 > Date.now() && claims.exp! * 1000 <= Date.now() + 24 * 3600_000)

    const payload = JSON.parse(decryptPush(message!, worker))
    assert.equal(payload.title, 'Abferkelung erwartet')
    assert.equal(payload.body, 'A4:C1:38:5F:2B:91 · Abferkelstall 2 · Wahrscheinlichkeit 91\u00a0%, Alarm ab 34\u00a0%')
    assert.equal(payload.tag, `event-${event.id}`)
    assert.equal(payload.eventType, 'birth-alarm')
    assert.equal(payload.lang, 'de-AT')
    assert.throws(() => decryptPush(message!, admin), 'another browser cannot read it')

    const list = await eventually(
      async () =>
        (await ctx.app.inject({ method: 'GET', url: subscriptionsOf(user.uid), headers })).json().data as {
          name: string | null
          rank: number
          lastDeliveredAt: string | null
        }[],
      (rows) => rows.some((s) => s.rank === 3 && s.lastDeliveredAt !== null),
      'the worker browser marked delivered',
    )
    assert.equal(list.find((s) => s.rank === 1)!.lastDeliveredAt, null, 'the admin browser got nothing')
    assert.equal(pushService.received.length - sentBefore, 1)
  })

  it('removes a browser whose push service says the subscription is gone', async () => {
    const { user, headers } = await accountWithToken()
    await withoutQuietHours(ctx, user.uid, headers)
    const res = await register(user.uid, headers, {
      endpoint: pushService.url.replace(/\/hooks$/, '/push/gone'),
      keys: browserKeys().keys,
      rank: 3,
    })
    assert.equal(res.statusCode, 201, res.body)
    pushService.answers.push([410])
    const sentBefore = pushService.received.length
    await announceEvent(ctx, { uid: user.uid, type: 'birth-alarm', mac: 'A4:C1:38:5F:2B:92', value: 0.8, evidence: {} })
    await eventually(
      () => pushService.received.length - sentBefore,
      (n) => n >= 1,
      'the push attempt',
    )
    await eventually(
      async () => (await ctx.app.inject({ method: 'GET', url: subscriptionsOf(user.uid), headers })).json().data,
      (rows: unknown[]) => rows.length === 0,
      'the ended subscription removed',
    )
  })
})

describe('web push without a key', () => {
  let bare: TestContext
  before(async () => {
    bare = await createTestApp({ env: { WEB_PUSH_PRIVATE_KEY: '' } })
  })
  after(() => bare?.close())

  it('says so, to the app and to a registration', async () => {
    const key = await bare.app.inject({ method: 'GET', url: '/api/v1/web-push/key' })
    assert.equal(key.statusCode, 404)
    assert.equal(key.json().error, 'Web push is not configured on this service')
    const user = await createUser(bare)
    const { accessToken } = await userToken(bare, user.email)
    const res = await bare.app.inject({
      method: 'POST',
      url: subscriptionsOf(user.uid),
      headers: bearer(accessToken),
      payload: { endpoint: 'https://push.example.net/x', keys: browserKeys().keys },
    })
    assert.equal(res.statusCode, 404)
    assert.equal(res.json().error, 'Web push is not configured on this service')
  })
})
