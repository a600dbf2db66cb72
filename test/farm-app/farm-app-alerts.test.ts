// Store-independent: runs in the embedded pass of npm test only (test/run.ts): the app reads through the public API.
// Alerts on this device, in Debian's Chromium (and the herd's mark of an animal whose alerts are open): switched on in Settings (the browser's permission asked), a new event
// that needs attention shows as a notification naming the animal by its ID; an all-clear, an event of another farm
// and any event once switched off show none; a browser that denies notifications says so. Without a service worker
// the Notification API is replaced by a recorder before the app loads, so that what is asserted is the app's; with
// the app's worker controlling the page, the notification is the worker's, read back from its registration.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { noChromium } from '../support/chromium.ts'
import { appInChromium, type BrowserApp } from '../support/browser-app.ts'
import type { TestContext } from '../support/app.ts'
import { addAnimal, bearer, createUser, userToken } from '../support/fixtures.ts'
import { announceEvent } from '../support/events.ts'
import { eventually } from '../support/eventually.ts'
import { checkPage, controlledByServiceWorker } from '../support/farm-app.ts'

let ctx: TestContext
let browser: Browser
let base: string

/** The browser's Notification, recording what the app shows, with the permission the user gives. */
function recordNotifications(permission: 'granted' | 'denied') {
  const shown: { title: string; body?: string; tag?: string }[] = []
  ;(globalThis as unknown as { shownNotifications: typeof shown }).shownNotifications = shown
  class RecordingNotification {
    static permission: string = 'default'
    static requestPermission = async () => (RecordingNotification.permission = permission)
    onclick: (() => void) | null = null
    constructor(title: string, options: { body?: string; tag?: string } = {}) {
      shown.push({ title, body: options.body, tag: options.tag })
    }
    close() {}
  }
  ;(globalThis as unknown as { Notification: unknown }).Notification = RecordingNotification
}

async function farmWithSow() {
  const user = await createUser(ctx)
  const { accessToken } = await userToken(ctx, user.email)
  const mac = '02:B0:00:10:20:30'
  const created = await addAnimal(ctx, user.uid, bearer(accessToken), {
    MAC: mac,
    Sex: 'female',
    Group: 'Farrowing room 2',
    Active: true,
  })
  return { ...user, mac, id: created.ID }
}

async function signIn(page: Page, farm: { email: string; password: string | null }) {
  await page.goto(`${base}/app/`)
  await page.getByLabel('E-mail').fill(farm.email)
  await page.getByLabel('Password').fill(farm.password!)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.getByRole('heading', { name: 'Needs attention' }).waitFor()
}

/** Signed in without a service worker, the page's Notification a recorder with the user's `permission`. */
async function signedIn(farm: { email: string; password: string | null }, permission: 'granted' | 'denied') {
  // bypassCSP only so that the test can inject axe-core.
  const context = await browser.newContext({ serviceWorkers: 'block', bypassCSP: true })
  await context.addInitScript(recordNotifications, permission)
  const page = await context.newPage()
  await signIn(page, farm)
  return { context, page }
}

const shown = (page: Page) =>
  page.evaluate(() => (globalThis as unknown as { shownNotifications: unknown[] }).shownNotifications)

describe('alerts on this device', { skip: noChromium }, () => {
  let served: BrowserApp | undefined
  before(async () => {
    served = await appInChromium()
    ;({ ctx, base, browser } = served)
  })
  after(() => served?.close())

  it('shows a new alert as a notification once switched on, and nothing else', async () => {
    const farm = await farmWithSow()
    const other = await farmWithSow()
    const { context, page } = await signedIn(farm, 'granted')
    await page.goto(`${base}/app/#/settings`)
    const region = page.getByRole('region', { name: 'Alerts on this device' })
    const toggle = region.getByRole('checkbox', { name: 'Notify me on this device' })
    assert.equal(await toggle.isChecked(), false)
    await toggle.check()
    await page.goto(`${base}/app/#/attention`)
    await page.getByText('Live').waitFor()

    const derive = (uid: string, type: 'birth-alarm' | 'tag-heard') =>
      announceEvent(ctx, { uid, type, mac: farm.mac, group: 'Farrowing room 2', value: 0.9, evidence: {} })
    await derive(other.uid, 'birth-alarm')
    await derive(farm.uid, 'tag-heard')
    const alarm = await derive(farm.uid, 'birth-alarm')
    await page.getByText('Farrowing expected').waitFor()
    await page.waitForFunction(
      () => (globalThis as unknown as { shownNotifications: unknown[] }).shownNotifications.length > 0,
    )
    // Only the farm's own alarm: not the all-clear before it, not the other farm's.
    assert.deepEqual(await shown(page), [
      { title: 'Farrowing expected', body: `${farm.id} · Farrowing room 2`, tag: `event-${alarm.id}` },
    ])

    // The herd marks the sow whose alarm is open (the all-clear before it counts for nothing).
    await page.goto(`${base}/app/#/herd`)
    const row = page.getByRole('row').filter({ has: page.getByRole('link', { name: farm.id, exact: true }) })
    await row.locator('.alert-count').filter({ hasText: '1 alert needs attention' }).waitFor()
    // (No wait for the network to idle: with alerts on, the app holds its event stream open on every screen.)
    await checkPage(page, 'desktop', 'herd-alert')

    // Switched off: the next alarm is listed, not announced.
    await page.goto(`${base}/app/#/settings`)
    await toggle.uncheck()
    await page.goto(`${base}/app/#/attention`)
    await page.getByText('Live').waitFor()
    await derive(farm.uid, 'birth-alarm')
    await page.getByText('Farrowing expected').nth(1).waitFor()
    assert.equal((await shown(page)).length, 1)
    await context.close()
  })

  it("shows it through the app's service worker where one controls the page (a phone's browser has no other way)", async () => {
    const farm = await farmWithSow()
    const context = await browser.newContext({ permissions: ['notifications'] })
    const page = await context.newPage()
    await signIn(page, farm)
    await controlledByServiceWorker(page)
    await page.goto(`${base}/app/#/settings`)
    await page.getByRole('checkbox', { name: 'Notify me on this device' }).check()
    await page.goto(`${base}/app/#/attention`)
    await page.getByText('Live').waitFor()
    const alarm = await announceEvent(ctx, {
      uid: farm.uid,
      type: 'birth-alarm',
      mac: farm.mac,
      group: 'Farrowing room 2',
      value: 0.9,
      evidence: {},
    })
    const notifications = () =>
      page.evaluate(async () =>
        (await (await navigator.serviceWorker.ready).getNotifications()).map((n) => ({
          title: n.title,
          body: n.body,
          tag: n.tag,
        })),
      )
    const found = await eventually(notifications, (list) => list.length > 0, "the worker's notification")
    assert.deepEqual(found, [
      { title: 'Farrowing expected', body: `${farm.id} · Farrowing room 2`, tag: `event-${alarm.id}` },
    ])
    // The choice goes with the session: the next user of a shared device chooses again.
    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.getByRole('heading', { name: 'Sign in' }).waitFor()
    assert.equal(await page.evaluate(() => localStorage.getItem('livestock.deviceAlerts')), null)
    await context.close()
  })

  it('says so where the browser denies notifications', async () => {
    const farm = await farmWithSow()
    const { context, page } = await signedIn(farm, 'denied')
    await page.goto(`${base}/app/#/settings`)
    const region = page.getByRole('region', { name: 'Alerts on this device' })
    // Clicked, it asks the browser, which says no: the switch stays off.
    await region.getByRole('checkbox', { name: 'Notify me on this device' }).click()
    await region.getByRole('alert').getByText('This browser blocks notifications from this app').waitFor()
    assert.equal(await region.getByRole('checkbox', { name: 'Notify me on this device' }).isDisabled(), true)
    await context.close()
  })
})
