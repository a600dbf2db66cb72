// Store-independent: runs in the embedded pass of npm test only (test/run.ts): the app reads through the public API.
// Alerts while the farm app is closed (Web Push), the browser's side, in Debian's Chromium. There is no internet, so
// Chrome's own push service cannot be reached: the page's PushManager is replaced before the app loads by one that
// hands out a subscription whose endpoint is a local receiver and whose keys the test holds (a P-256 pair and an auth
// secret made in node), or that refuses as an unreachable push service does. The test then acts as the push service:
// it decrypts what the service sent there and hands the plaintext to the app's service worker through the DevTools
// protocol (ServiceWorker.deliverPushMessage), and reads the notification back from the worker's registration.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { Browser, BrowserContext, CDPSession, Page } from 'playwright-core'
import { noChromium } from '../support/chromium.ts'
import { appInChromium, type BrowserApp } from '../support/browser-app.ts'
import type { TestContext } from '../support/app.ts'
import { addAnimal, bearer, createUser, userToken } from '../support/fixtures.ts'
import { announceEvent, withoutQuietHours } from '../support/events.ts'
import { eventually } from '../support/eventually.ts'
import { checkPage, controlledByServiceWorker } from '../support/farm-app.ts'
import { browserKeys, decryptPush } from '../support/push-service.ts'
import { LOCAL_DELIVERY_ENV, startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts'

let ctx: TestContext
let browser: Browser
let base: string
let pushService: WebhookReceiver
let endpoints = 0

interface StubbedPush {
  endpoint: string
  keys: { p256dh: string; auth: string }
  /** Refuse to subscribe, as Chrome does when its push service cannot be reached. */
  unreachable: boolean
}

/**
 * In the page, before the app: PushManager's subscribe and getSubscription over a subscription the test made. What the
 * page subscribed with (the service's key) stays in sessionStorage until unsubscribed, across the app's navigations.
 */
function stubPushManager(stub: StubbedPush) {
  const HELD = 'test.pushSubscribedWith'
  const bytes = (base64url: string) =>
    Uint8Array.from(atob(base64url.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0)).buffer
  const subscription = (serverKey: string) => ({
    endpoint: stub.endpoint,
    expirationTime: null,
    options: { userVisibleOnly: true, applicationServerKey: bytes(serverKey) },
    getKey: (name: string) => bytes(name === 'auth' ? stub.keys.auth : stub.keys.p256dh),
    toJSON: () => ({ endpoint: stub.endpoint, expirationTime: null, keys: stub.keys }),
    unsubscribe: async () => {
      sessionStorage.removeItem(HELD)
      return true
    },
  })
  PushManager.prototype.getSubscription = async function () {
    const held = sessionStorage.getItem(HELD)
    return held ? subscription(held) : null
  }
  PushManager.prototype.subscribe = async function (options?: PushSubscriptionOptionsInit) {
    if (stub.unreachable) throw new DOMException('Registration failed - push service not available', 'AbortError')
    const key = btoa(String.fromCharCode(...new Uint8Array(options!.applicationServerKey as ArrayBuffer)))
    const serverKey = key.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')
    sessionStorage.setItem(HELD, serverKey)
    return subscription(serverKey)
  }
}

async function account() {
  const user = await createUser(ctx)
  const { accessToken } = await userToken(ctx, user.email)
  return { ...user, headers: bearer(accessToken) }
}

const subscriptionsOf = async (farm: { uid: string; headers: Record<string, string> }) => {
  const res = await ctx.app.inject({
    method: 'GET',
    url: `/api/v1/users/${farm.uid}/web-push-subscriptions`,
    headers: farm.headers,
  })
  assert.equal(res.statusCode, 200, res.body)
  return res.json().data as {
    id: string
    endpoint: string
    rank: number | null
    name: string | null
    lastDeliveredAt: string | null
  }[]
}

/** A browser context whose page has the app's service worker, the notification permission and `push` as its Push API. */
async function signedIn(
  farm: { email: string; password: string | null },
  push: Partial<StubbedPush> | 'no Push API' = {},
) {
  const context = await browser.newContext({ permissions: ['notifications'], bypassCSP: true })
  const keys = browserKeys()
  const stub = { endpoint: `${pushService.url}/browser-${++endpoints}`, keys: keys.keys, unreachable: false }
  if (push === 'no Push API')
    await context.addInitScript(() => delete (globalThis as { PushManager?: unknown }).PushManager)
  else await context.addInitScript(stubPushManager, { ...stub, ...push })
  const page = await context.newPage()
  await page.goto(`${base}/app/`)
  await page.getByLabel('E-mail').fill(farm.email)
  await page.getByLabel('Password').fill(farm.password!)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.getByRole('heading', { name: 'Needs attention' }).waitFor()
  await controlledByServiceWorker(page)
  return { context, page, keys, endpoint: stub.endpoint }
}

/** Settings' "Alerts on this device", switched on with alerts for `role`. */
async function switchOn(page: Page, role?: 'Admin' | 'Manager' | 'Worker') {
  await page.goto(`${base}/app/#/settings`)
  const region = page.getByRole('region', { name: 'Alerts on this device' })
  if (role) await region.getByLabel('Alerts for the role').selectOption({ label: role })
  await region.getByRole('checkbox', { name: 'Notify me on this device' }).check()
  return region
}

const subscribedWith = (page: Page) => page.evaluate(() => sessionStorage.getItem('test.pushSubscribedWith'))

/** The app's service worker registration as the DevTools protocol names it, to deliver push messages to. */
async function workerRegistration(context: BrowserContext, page: Page): Promise<{ cdp: CDPSession; id: string }> {
  const cdp = await context.newCDPSession(page)
  const registrations: { registrationId: string; scopeURL: string; isDeleted: boolean }[] = []
  cdp.on('ServiceWorker.workerRegistrationUpdated', (update) => registrations.push(...update.registrations))
  await cdp.send('ServiceWorker.enable')
  const found = await eventually(
    () => registrations.find((r) => r.scopeURL === `${base}/app/` && !r.isDeleted),
    Boolean,
    "the app's service worker registration",
  )
  return { cdp, id: found!.registrationId }
}

const notifications = (page: Page) =>
  page.evaluate(async () =>
    (await (await navigator.serviceWorker.ready).getNotifications()).map((n) => ({
      title: n.title,
      body: n.body,
      tag: n.tag,
      data: n.data as unknown,
    })),
  )

describe('alerts while the farm app is closed (Web Push)', { skip: noChromium }, () => {
  let served: BrowserApp | undefined
  before(async () => {
    pushService = await startWebhookReceiver()
    served = await appInChromium({ env: { ...LOCAL_DELIVERY_ENV } })
    ;({ ctx, base, browser } = served)
  })
  after(async () => {
    await served?.close()
    pushService?.close()
  })

  it('registers this browser for the chosen role once alerts are on, lists it, and removes it once they are off', async () => {
    const farm = await account()
    const other = await account()
    const othersBrowser = { endpoint: `${pushService.url}/other-farm`, keys: browserKeys().keys, rank: 3 }
    const registered = await ctx.app.inject({
      method: 'POST',
      url: `/api/v1/users/${other.uid}/web-push-subscriptions`,
      headers: other.headers,
      payload: { ...othersBrowser, name: 'The other farm’s browser' },
    })
    assert.equal(registered.statusCode, 201, registered.body)
    const { page, context, endpoint } = await signedIn(farm)
    const region = await switchOn(page, 'Manager')
    await region.getByText('Alerts reach this device even when the app is closed.').waitFor()

    const key = await ctx.app.inject({ method: 'GET', url: '/api/v1/web-push/key' })
    assert.equal(await subscribedWith(page), key.json().data.publicKey, "subscribed with the service's key")
    const [subscription, ...more] = await subscriptionsOf(farm)
    assert.deepEqual(more, [])
    assert.deepEqual(
      { endpoint: subscription!.endpoint, rank: subscription!.rank, name: subscription!.name },
      { endpoint, rank: 2, name: 'Chrome on Linux' },
    )
    assert.equal(await page.evaluate(() => localStorage.getItem('livestock.webPushSubscription')), subscription!.id)

    const browsers = page.getByRole('list', { name: 'Browsers for alerts while the app is closed' })
    const item = browsers.getByRole('listitem')
    await item.filter({ hasText: 'Chrome on Linux' }).filter({ hasText: 'this browser' }).waitFor()
    assert.match((await item.textContent()) ?? '', /Manager.*127\.0\.0\.1:\d+ · registered .* · no alert yet/)
    assert.equal(await item.count(), 1, "the page never shows another account's browsers")
    await checkPage(page, 'desktop', 'settings-web-push')

    // Another role: registered again, the same entry.
    await region.getByLabel('Alerts for the role').selectOption({ label: 'Worker' })
    await eventually(
      () => subscriptionsOf(farm),
      (list) => list.length === 1 && list[0]!.id === subscription!.id && list[0]!.rank === 3,
      'the role changed',
    )

    await region.getByRole('checkbox', { name: 'Notify me on this device' }).uncheck()
    await eventually(
      () => subscriptionsOf(farm),
      (list) => list.length === 0,
      'the subscription removed',
    )
    assert.equal(await subscribedWith(page), null, 'the browser unsubscribed')
    await page.getByText('No browser is registered.').waitFor()
    assert.equal((await subscriptionsOf(other)).length, 1)
    await context.close()
  })

  it('subscribes again for the same role when it opens after the service key changed', async () => {
    const farm = await account()
    const { page, context } = await signedIn(farm)
    const region = await switchOn(page, 'Manager')
    await region.getByText('Alerts reach this device even when the app is closed.').waitFor()
    const [before] = await subscriptionsOf(farm)
    // As if the browser had subscribed with the operator's earlier key: its push service would refuse the new one.
    await page.evaluate(() => sessionStorage.setItem('test.pushSubscribedWith', 'B'.repeat(86) + 'A'))
    await page.reload()
    const key = (await ctx.app.inject({ method: 'GET', url: '/api/v1/web-push/key' })).json().data.publicKey
    await eventually(
      () => subscribedWith(page),
      (held) => held === key,
      "subscribed again with the service's key",
    )
    const after = await eventually(
      () => subscriptionsOf(farm),
      (list) => list.length === 1 && list[0]!.id !== before!.id,
      'the old entry replaced',
    )
    assert.equal(after[0]!.rank, 2, 'for the role it had')
    await context.close()
  })

  it('registers again when it opens after the service dropped its subscription', async () => {
    const farm = await account()
    const { page, context, endpoint } = await signedIn(farm)
    const region = await switchOn(page)
    await region.getByText('Alerts reach this device even when the app is closed.').waitFor()
    const [before] = await subscriptionsOf(farm)
    // As the service does when the push service answers 410 for it (a reset browser, a lapsed subscription).
    const dropped = await ctx.app.inject({
      method: 'DELETE',
      url: `/api/v1/users/${farm.uid}/web-push-subscriptions/${before!.id}`,
      headers: farm.headers,
    })
    assert.equal(dropped.statusCode, 200, dropped.body)
    await page.reload()
    const after = await eventually(
      () => subscriptionsOf(farm),
      (list) => list.length === 1,
      'the browser registered again',
    )
    assert.equal(after[0]!.endpoint, endpoint)
    assert.notEqual(after[0]!.id, before!.id)
    await context.close()
  })

  it('keeps the alerts of the open app and says so where the push service cannot be reached', async () => {
    const farm = await account()
    const { page, context } = await signedIn(farm, { unreachable: true })
    const region = await switchOn(page)
    await region
      .getByRole('status')
      .filter({ hasText: 'Alerts reach this device only while the app is open.' })
      .filter({ hasText: 'The browser’s push service could not be reached' })
      .waitFor()
    assert.equal(await region.getByRole('checkbox', { name: 'Notify me on this device' }).isChecked(), true)
    assert.deepEqual(await subscriptionsOf(farm), [])
    await context.close()
  })

  it('says alerts come only while the app is open in a browser without the Push API', async () => {
    const farm = await account()
    const { page, context } = await signedIn(farm, 'no Push API')
    const region = await switchOn(page)
    await region
      .getByRole('status')
      .filter({ hasText: 'Alerts reach this device only while the app is open.' })
      .filter({ hasText: 'This browser cannot receive alerts while the app is closed.' })
      .waitFor()
    assert.equal(await region.getByLabel('Alerts for the role').count(), 0, 'no role to choose for closed-app alerts')
    assert.deepEqual(await subscriptionsOf(farm), [])
    await context.close()
  })

  it('shows a push as its notification, and a push without a readable payload as a generic alert', async () => {
    const farm = await account()
    const { page, context } = await signedIn(farm)
    const worker = await workerRegistration(context, page)
    const deliver = (data: string) =>
      worker.cdp.send('ServiceWorker.deliverPushMessage', { origin: base, registrationId: worker.id, data })
    const payload = { title: 'Lahmheit vermutet', body: '7731 · Stall 3', tag: 'event-991', eventId: '991', lang: 'de' }
    // A push the DevTools protocol hands to the worker is at times lost under load (CI, about one run in three: the
    // worker never saw the second); a push service delivers again until the worker takes it, and so does the test.
    const pushUntilShown = async (data: string, count: number) => {
      for (let attempt = 1; ; attempt++) {
        await deliver(data)
        try {
          return await eventually(
            () => notifications(page),
            (list) => list.length === count,
            `${count} notifications`,
            { timeoutMs: 4000 },
          )
        } catch (err) {
          if (attempt === 3) throw err
        }
      }
    }
    await pushUntilShown(JSON.stringify(payload), 1)
    const shown = await pushUntilShown('not a JSON payload', 2)
    assert.deepEqual(
      shown.sort((a, b) => a.tag.localeCompare(b.tag)),
      [
        { title: 'Lahmheit vermutet', body: '7731 · Stall 3', tag: 'event-991', data: { hash: '#/attention' } },
        {
          title: 'New alert on the farm',
          body: 'Open the app to see what needs attention.',
          tag: 'farm-alert',
          data: { hash: '#/attention' },
        },
      ],
    )
    await context.close()
  })

  it('gets a real event pushed by the service, shown once beside the open app’s alert, and leaves at sign-out', async () => {
    const farm = await account()
    await withoutQuietHours(ctx, farm.uid, farm.headers)
    const mac = 'A4:C1:38:5F:2B:93'
    const sow = await addAnimal(ctx, farm.uid, farm.headers, {
      MAC: mac,
      Sex: 'female',
      Group: 'Farrowing room 2',
      Active: true,
    })
    const { page, context, endpoint, keys } = await signedIn(farm)
    const region = await switchOn(page, 'Worker')
    await region.getByText('Alerts reach this device even when the app is closed.').waitFor()
    const worker = await workerRegistration(context, page)

    const alarm = await announceEvent(ctx, {
      uid: farm.uid,
      type: 'birth-alarm',
      mac,
      group: 'Farrowing room 2',
      value: 0.9,
      evidence: {},
    })
    const tag = `event-${alarm.id}`
    // The open app's alert first (the event stream: the sow by her ID), then the same event by Web Push (by her
    // tag, as the service names her) replaces it.
    const sowId = sow.ID
    await eventually(
      () => notifications(page),
      (list) => list.some((n) => n.tag === tag && n.body === `${sowId} · Farrowing room 2`),
      "the open app's alert",
    )
    const pushed = await eventually(
      () => pushService.received.filter((message) => message.headers['content-encoding'] === 'aes128gcm'),
      (list) => list.length > 0,
      'the push message',
    )
    assert.equal(pushed.length, 1)
    const plaintext = decryptPush(pushed[0]!, keys)
    const message = JSON.parse(plaintext)
    assert.deepEqual(
      { title: message.title, body: message.body, tag: message.tag, eventId: message.eventId },
      { title: 'Farrowing expected', body: `${mac} · Farrowing room 2`, tag, eventId: String(alarm.id) },
    )
    await worker.cdp.send('ServiceWorker.deliverPushMessage', {
      origin: base,
      registrationId: worker.id,
      data: plaintext,
    })
    const shown = await eventually(
      () => notifications(page),
      (list) => list.some((n) => n.tag === tag && n.body === message.body),
      'the pushed notification',
    )
    assert.deepEqual(
      shown.filter((n) => n.tag === tag),
      [{ title: 'Farrowing expected', body: `${mac} · Farrowing room 2`, tag, data: { hash: '#/attention' } }],
    )
    await eventually(
      () => subscriptionsOf(farm),
      (list) => list[0]?.endpoint === endpoint && list[0].lastDeliveredAt !== null,
      'the subscription marked delivered',
    )

    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.getByRole('heading', { name: 'Sign in' }).waitFor()
    await eventually(
      () => subscriptionsOf(farm),
      (list) => list.length === 0,
      'the subscription removed at sign-out',
    )
    assert.equal(await subscribedWith(page), null, 'the browser unsubscribed at sign-out')
    assert.equal(await page.evaluate(() => localStorage.getItem('livestock.webPushSubscription')), null)
    await context.close()
  })
})
