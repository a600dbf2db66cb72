// Store-independent: runs in the embedded pass of npm test only (test/run.ts): the app reads and writes through the
// public API, whose behaviour on each store the API's own tests check in both passes.
// The farm app end to end in Debian's Chromium, at a phone size and a desktop size, against the embedded store:
// sign in, see an alert and acknowledge it, open the animal, enter an insemination with one invalid field
// (the API's message shows at that field), fix it and see it in the timeline, unlink an integrator, sign
// out. axe-core checks every page (no serious or critical violation); a screenshot of each page goes to
// test-output/farm-app/.
import assert from 'node:assert/strict'
import { mkdirSync } from 'node:fs'
import { after, before, describe, it } from 'node:test'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { noChromium } from '../support/chromium.ts'
import { appInChromium, type BrowserApp } from '../support/browser-app.ts'
import { OUTPUT, checkPage, controlledByServiceWorker } from '../support/farm-app.ts'
import type { TestContext } from '../support/app.ts'
import { addAnimal, bearer, createIntegrator, createUser, integratorToken, userToken } from '../support/fixtures.ts'
import { announceEvent } from '../support/events.ts'
import type { NewEvent } from '../../src/modules/events/events.repository.ts'
import { alarmLevel } from '../../src/modules/predictions/calibration.rules.ts'

const VIEWPORTS = [
  { name: 'phone', width: 375, height: 812 },
  { name: 'desktop', width: 1280, height: 800 },
] as const

interface Farm {
  uid: string
  email: string
  password: string
  mac: string
  id: string
  integrator: string
  token: string
}

let ctx: TestContext
let browser: Browser
let base: string

/** An event as the service would derive it, stored and announced to this process's stream readers. */
async function deriveEvent(
  farm: { uid: string; mac: string; id: string },
  type: NewEvent['type'],
  value: number,
  evidence: Record<string, unknown>,
) {
  await announceEvent(ctx, {
    uid: farm.uid,
    type,
    mac: farm.mac,
    animalId: Number(farm.id),
    group: 'Farrowing room 2',
    value,
    evidence,
  })
}

async function seedFarm(): Promise<Farm> {
  const user = await createUser(ctx)
  const { accessToken } = await userToken(ctx, user.email)
  const mac = `02:A0:${Math.floor(Math.random() * 256)
    .toString(16)
    .padStart(2, '0')
    .toUpperCase()}:10:20:30`
  const created = await addAnimal(ctx, user.uid, bearer(accessToken), {
    MAC: mac,
    Sex: 'female',
    Group: 'Farrowing room 2',
    Active: true,
  })
  const integrator = await createIntegrator(ctx, { linkTo: [user.uid] })
  const id = created.ID
  const [subject, threshold] = [{ uid: user.uid, mac, id }, alarmLevel('birth')]
  await deriveEvent(subject, 'birth-alarm', 0.86, { probability: 0.86, threshold, predictionId: 'p-1' })
  // An all-clear: news, not work, so not among what needs attention.
  const now = Date.now()
  await deriveEvent(subject, 'tag-heard', 75, { lastHeardBefore: now - 4_500_000, heardAt: now, silentMinutes: 75 })
  return {
    uid: user.uid,
    email: user.email,
    password: user.password!,
    mac,
    id,
    integrator: integrator.uid,
    token: accessToken,
  }
}

/** Signs the farm in from the app's start page; resolves once its first screen is up. */
async function signIn(page: Page, farm: Farm) {
  await page.goto(`${base}/app/`)
  await page.getByLabel('E-mail').fill(farm.email)
  await page.getByLabel('Password').fill(farm.password)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.getByRole('heading', { name: 'Needs attention' }).waitFor()
}

/** Opens the herd screen and waits until its reads have ended. */
async function openHerd(page: Page, farm: Farm) {
  await page.goto(`${base}/app/#/herd`)
  await page.getByRole('link', { name: farm.id }).waitFor()
  await page.waitForLoadState('networkidle')
}

/** A phone signed in as the farm, its herd read once under the app's service worker (which keeps the answers). */
async function phoneWithHerdRead(farm: Farm): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width: 375, height: 812 } })
  const page = await context.newPage()
  await signIn(page, farm)
  await controlledByServiceWorker(page)
  await openHerd(page, farm)
  return { context, page }
}

describe('the farm app in Chromium', { skip: noChromium }, () => {
  let served: BrowserApp | undefined
  before(async () => {
    mkdirSync(OUTPUT, { recursive: true })
    served = await appInChromium()
    ;({ ctx, base, browser } = served)
  })
  after(() => served?.close())

  it('serves the app from this service with a strict content security policy', async () => {
    const page = await ctx.app.inject({ method: 'GET', url: '/app/' })
    assert.equal(page.statusCode, 200)
    assert.match(String(page.headers['content-security-policy']), /script-src 'self'/)
    assert.match(String(page.headers['content-security-policy']), /frame-ancestors 'none'/)
    assert.equal(page.headers['x-content-type-options'], 'nosniff')
    assert.doesNotMatch(page.body, /https?:\/\//, 'nothing from another origin')
    const script = /src="\.\/(app-[^"]+\.js)"/.exec(page.body)?.[1]
    assert.ok(script, page.body)
    const file = await ctx.app.inject({ method: 'GET', url: `/app/${script}`, headers: { 'accept-encoding': 'br' } })
    assert.equal(file.statusCode, 200)
    assert.equal(file.headers['content-encoding'], 'br')
    assert.match(String(file.headers['cache-control']), /immutable/)
    const notBrotli = await ctx.app.inject({
      method: 'GET',
      url: `/app/${script}`,
      headers: { 'accept-encoding': 'br;q=0, gzip' },
    })
    assert.equal(notBrotli.headers['content-encoding'], 'gzip', 'br;q=0 means brotli is not acceptable')
    const again = await ctx.app.inject({
      method: 'GET',
      url: `/app/${script}`,
      headers: { 'if-none-match': String(file.headers.etag) },
    })
    assert.equal(again.statusCode, 304)
    assert.equal((await ctx.app.inject({ method: 'GET', url: '/app' })).statusCode, 301)
    assert.equal((await ctx.app.inject({ method: 'GET', url: '/app/no-such-file.js' })).statusCode, 404)
    assert.equal(page.headers['x-ratelimit-limit'], undefined, 'the app files do not spend the IP limit')
  })

  for (const viewport of VIEWPORTS) {
    it(`works for a farm at ${viewport.name} size (${viewport.width}×${viewport.height})`, async () => {
      const farm = await seedFarm()
      // bypassCSP only so that the test can inject axe-core; the app itself runs under its policy.
      const context = await browser.newContext({ viewport, bypassCSP: true, serviceWorkers: 'block' })
      const page = await context.newPage()
      const errors: string[] = []
      page.on('pageerror', (err) => errors.push(err.message))
      const foreign: string[] = []
      page.on('request', (req) => {
        if (!req.url().startsWith(base)) foreign.push(req.url())
      })

      await page.goto(`${base}/app/`)
      await checkPage(page, viewport.name, 'sign-in')
      await page.getByLabel('E-mail').fill(farm.email)
      await page.getByLabel('Password').fill('not the password')
      await page.getByRole('button', { name: 'Sign in' }).click()
      await page.getByRole('alert').waitFor()
      await page.getByLabel('Password').fill(farm.password)
      await page.getByRole('button', { name: 'Sign in' }).click()
      await page.getByRole('heading', { name: 'Needs attention' }).waitFor()
      const attention = page.locator('ul.events')
      await attention.getByText('Farrowing expected').waitFor()
      // Why, in words: the probability against the alarm's.
      await attention.getByText(`Probability 86%, alarm from ${Math.round(alarmLevel('birth') * 100)}%`).waitFor()
      // The animal by her ID, as the stockperson knows her, beside her tag's MAC.
      await attention.getByRole('link', { name: `${farm.id} ${farm.mac}` }).waitFor()
      assert.equal(await attention.getByText('Ear tag heard again').count(), 0, 'the all-clear needs no attention')
      assert.equal(await attention.getByRole('button', { name: 'Acknowledge' }).count(), 1)
      await checkPage(page, viewport.name, 'attention')
      // By keyboard: acknowledge, then resolve; the pressed button goes away each time, and focus stays in the list
      // (on Resolve, then on the screen's heading once nothing is left) where it fell to the page's body.
      const alert = attention.getByRole('listitem').filter({ hasText: 'Farrowing expected' })
      await alert.getByRole('button', { name: 'Acknowledge' }).focus()
      await page.keyboard.press('Enter')
      await alert.getByText('Acknowledged').waitFor()
      await page.waitForFunction(() => document.activeElement?.textContent === 'Resolve')
      await page.keyboard.press('Enter')
      await page.getByText('Nothing needs attention').waitFor()
      await page.waitForFunction(() => document.activeElement?.textContent === 'Needs attention')

      // On a slow connection the herd says it is loading, not that the farm has no animals ("Herd (0 animals)").
      const slowHerd = (url: URL) => url.pathname.endsWith('/animals')
      await page.route(slowHerd, async (route) => {
        await new Promise((resolve) => setTimeout(resolve, 1000))
        await route.continue().catch(() => undefined)
      })
      await page.goto(`${base}/app/#/herd`)
      await page.getByRole('status').filter({ hasText: 'Loading' }).waitFor()
      assert.equal(await page.locator('main h2').first().textContent(), 'Herd')
      await page.getByRole('link', { name: farm.id }).waitFor()
      await page.unroute(slowHerd)
      assert.equal(await page.locator('main h2').first().textContent(), 'Herd (1 animal)')
      // The rows' visually hidden texts (the band in words) are placed within the table's scrolling box: placed on
      // the page, a herd with wider rows than this one's pushed them past a phone's right edge and widened it.
      const hiddenOutsideTable = await page.evaluate(
        () =>
          [...document.querySelectorAll('.table-wrap .visually-hidden')].filter(
            (e) => !(e as HTMLElement).offsetParent?.closest('.table-wrap'),
          ).length,
      )
      assert.equal(hiddenOutsideTable, 0)
      await checkPage(page, viewport.name, 'herd')
      await page.getByRole('link', { name: farm.id }).click()
      await page.getByRole('heading', { name: `${farm.id} · ${farm.mac}` }).waitFor()
      // The chart's alarm lines in words: the farm's alert thresholds, by default the scorer's alarm levels.
      const percent = (kind: 'birth' | 'heat' | 'lameness') => `${Math.round(alarmLevel(kind) * 100)} %`
      await page
        .getByRole('region', { name: 'Predictions' })
        .getByText(`Alarm at: Farrowing ${percent('birth')}, Heat ${percent('heat')}, Lameness ${percent('lameness')}`)
        .waitFor()
      const history = page.getByRole('region', { name: 'Events' })
      await history.getByText('Heard again after 75 minutes silent').waitFor()
      // Resolved above: the animal's history says so, where it showed the event as if still standing.
      await history.getByRole('listitem').filter({ hasText: 'Farrowing expected' }).getByText('Resolved').waitFor()
      await page.getByRole('region', { name: 'Predictions' }).getByText('No predictions yet.').waitFor()

      await page.getByRole('button', { name: '+ Service / insemination' }).click()
      const form = page.getByRole('form', { name: 'Service / insemination' })
      // Served yesterday (a service at noon today would lie ahead of a run before noon).
      await form.getByLabel('Date').fill(new Date(Date.now() - 86_400_000).toISOString().slice(0, 10))
      await form.getByLabel('Boar').fill('Duroc DK-4471')
      await form.getByLabel('Tubes').fill('-1')
      await form.getByRole('button', { name: 'Save' }).click()
      const tubesError = form.locator('#form-inseminations-Tubes-error')
      await tubesError.waitFor()
      assert.match((await tubesError.textContent()) ?? '', /0|negative|>=|minimum/i)
      assert.equal(await form.getByLabel('Tubes').getAttribute('aria-invalid'), 'true')
      await checkPage(page, viewport.name, 'animal-invalid-field')
      await form.getByLabel('Tubes').fill('2')
      await form.getByRole('button', { name: 'Save' }).click()
      await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor()
      await page.getByRole('list', { name: 'Farm records' }).getByText('Duroc DK-4471').waitFor()
      // Her cycle follows the record at once: a gilt until then, served from it.
      await page.getByText(/^served · (0 days|1 day)$/).waitFor()
      await checkPage(page, viewport.name, 'animal')

      const stored = await ctx.app.inject({
        method: 'GET',
        url: `/api/v1/users/${farm.uid}/animals/${farm.mac}/inseminations`,
        headers: bearer(farm.token),
      })
      assert.deepEqual(
        stored.json().data.map((r: { Boar: string; Tubes: number }) => [r.Boar, r.Tubes]),
        [['Duroc DK-4471', 2]],
        'one insemination stored, the invalid attempt none',
      )

      // The alarms on this farm: a farrowing alarm ten days ago at midnight, the farrowing recorded at 09:00 that day.
      const tenDaysAgo = new Date(Date.now() - 10 * 86_400_000).toISOString().slice(0, 10)
      const seeded = [
        {
          url: `/animals/${farm.mac}/predictions`,
          payload: {
            classificationType: 'birth',
            timestamp: `${tenDaysAgo}T00:00:00Z`,
            results: [{ timestamp: `${tenDaysAgo}T00:00:00Z`, probability: 0.8 }],
          },
        },
        {
          url: `/animals/${farm.mac}/births`,
          payload: { StartDate: tenDaysAgo, StartTime: '09:00', Living: 12, Dead: 1 },
        },
      ]
      for (const { url, payload } of seeded) {
        const res = await ctx.app.inject({
          method: 'POST',
          url: `/api/v1/users/${farm.uid}${url}`,
          headers: bearer(farm.token),
          payload,
        })
        assert.equal(res.statusCode, 201, res.body)
      }

      // A litter device that sent a reading a minute ago (through an integrator that may write, unlinked after).
      const writer = await createIntegrator(ctx, { canWrite: true, linkTo: [farm.uid] })
      const device = { MAC: farm.mac.replace(/^02:A0/, '06:A1'), Name: 'Farrowing pen 2 litter' }
      const readAt = Math.floor(Date.now() / 1000) - 60
      const writes = [
        { method: 'POST', url: '/litterguards', payload: device },
        {
          method: 'POST',
          url: `/litterguards/${device.MAC}/sensordata`,
          payload: { readings: [{ t: readAt, c: 31.5, x: 0, y: 0, z: 1 }] },
        },
      ] as const
      const writerHeaders = bearer((await integratorToken(ctx, writer.uid)).accessToken)
      for (const { method, url, payload } of writes) {
        const res = await ctx.app.inject({
          method,
          url: `/api/v1/users/${farm.uid}${url}`,
          headers: writerHeaders,
          payload,
        })
        assert.ok(res.statusCode < 300, res.body)
      }
      const unlinked = await ctx.app.inject({
        method: 'DELETE',
        url: `/api/v1/partners/link/${writer.uid}`,
        headers: bearer(farm.token),
      })
      assert.equal(unlinked.statusCode, 200, unlinked.body)

      for (const screen of ['performance', 'devices', 'settings']) {
        await page.goto(`${base}/app/#/${screen}`)
        await page.locator('main h2').first().waitFor()
        await page.waitForLoadState('networkidle')
        if (screen === 'performance') {
          // Each key figure with its unit; the monthly chart draws the rates in % on one axis, without the counts
          // (females, mated female days) that flattened them.
          const figures = page.getByRole('region', { name: 'Key figures' })
          const figure = (name: string) =>
            figures.getByRole('row', { name }).getByRole('cell').first().textContent({ timeout: 30_000 })
          assert.deepEqual(
            [await figure('Females'), await figure('Return rate'), await figure('Non-productive days')],
            ['1', '0%', '0 days'],
          )
          // A figure with nothing to count yet shows as "–", not hidden, with what it is counted from.
          const basis = (name: string) =>
            figures
              .getByRole('rowheader', { name: new RegExp(`^${name}`) })
              .locator('.kpi-basis')
              .textContent()
          assert.equal(await figure('Farrowing rate'), '–')
          assert.match((await basis('Farrowing rate')) ?? '', /^0 of 0 matings served [A-Z][a-z]{2} \d{1,2}, \d{4} – /)
          assert.equal(await basis('Born alive per litter'), '12 in 1 litter')
          // The published benchmark beside a figure, in the user's language (the API's range, written by Intl).
          assert.equal(
            await figures.getByRole('row', { name: 'Non-productive days' }).getByRole('cell').last().textContent(),
            '31–36 days',
          )
          // The due lists by their names in words, not the API's.
          const due = page.getByRole('region', { name: 'Due lists' })
          await due.getByRole('heading', { name: /^Due for a pregnancy check \(\d+\)$/ }).waitFor()
          await figures.locator('.u-legend').getByText('Return rate').waitFor()
          assert.equal(await figures.locator('.u-legend').getByText('Females').count(), 0)
          assert.equal(await figures.locator('.u-legend').getByText('--').count(), 0, 'the latest month, not "--"')
          // Per class (heat, farrowing, lameness) as the accuracy route counts the last 90 days: the farrowing
          // alarm confirmed 9 h ahead; the insemination entered above has no heat prediction around it (unscored).
          const alarms = page.getByRole('region', { name: 'Alarms on this farm' })
          const cells = (name: string) => alarms.getByRole('row', { name }).getByRole('cell').allTextContents()
          await alarms.getByRole('row', { name: 'Median lead' }).waitFor()
          assert.deepEqual(await cells('Alarms confirmed by the records'), ['0 / 0', '1 / 1', '0 / 0'])
          assert.deepEqual(await cells('Events missed'), ['0 / 0', '0 / 1', '0 / 0'])
          assert.deepEqual(await cells('Median lead'), ['–', '9.0 h', '–'])
          assert.deepEqual(await cells('False alarms per animal-month'), ['–', '0.00', '–'])
          // The scorer's setting per class, from the settings route's counts in the user's words (a new farm: the
          // defaults), and the route's own reasons one click away.
          await alarms
            .getByText('Alarm threshold: 1× the default · no event in the farm’s records yet')
            .first()
            .waitFor()
          assert.equal(await alarms.getByText('Calibration: global · no event in the farm’s records yet').count(), 3)
          const why = alarms.getByText('Why, in the service’s words')
          assert.equal(await why.count(), 3)
          await why.first().click()
          await alarms.getByText('not learned yet: the default threshold').first().waitFor()
        }
        if (screen === 'devices') {
          // When the device last sent data (LastSeen, Unix seconds), in the device's row and in the summary.
          const seen = await page.evaluate(
            (ms) => new Date(ms).toLocaleString(undefined, { dateStyle: 'short', timeStyle: 'short' }),
            readAt * 1000,
          )
          const row = page.getByRole('listitem').filter({ hasText: device.Name })
          await row.getByText(`31.5 °C · Last data ${seen}`).waitFor()
          await page.getByRole('region', { name: 'Litter devices' }).getByText(seen).waitFor()
        }
        await checkPage(page, viewport.name, screen)
      }

      await page.goto(`${base}/app/#/sharing`)
      const integrators = page.getByRole('list', { name: 'Linked integrators' })
      await integrators.getByText(farm.integrator, { exact: true }).waitFor()
      await page.waitForLoadState('networkidle')
      // Who it is and what it may do; the access log in words ("Added: sensor data"), not the API's paths.
      const item = integrators.getByRole('listitem').filter({ hasText: farm.integrator })
      await item.getByText(`Vendor ${farm.integrator}`).waitFor()
      assert.deepEqual(await item.locator('.pill').allTextContents(), ['reads'])
      const accessLog = page.getByRole('region', { name: 'Who read or changed the farm’s data' })
      await accessLog.getByText('Added: sensor data').waitFor()
      await accessLog.getByText('Added: litter devices').waitFor()
      await checkPage(page, viewport.name, 'sharing')
      await integrators
        .getByRole('listitem')
        .filter({ hasText: farm.integrator })
        .getByRole('button', { name: 'Unlink' })
        .click()
      await page.getByText('No integrator reads this farm’s data.').waitFor()
      const user = await ctx.app.inject({
        method: 'GET',
        url: `/api/v1/users/${farm.uid}`,
        headers: bearer(farm.token),
      })
      assert.deepEqual(user.json().data.integrators ?? [], [])

      await page.getByRole('button', { name: 'Sign out' }).click()
      await page.getByRole('heading', { name: 'Sign in' }).waitFor()
      assert.equal(await page.evaluate(() => localStorage.getItem('livestock.session')), null)

      assert.deepEqual(errors, [], 'no script error')
      assert.deepEqual(foreign, [], 'no request leaves this service')
      await context.close()
    })
  }

  it('opens offline with its shell and the herd it saw last', async () => {
    const farm = await seedFarm()
    const { context, page } = await phoneWithHerdRead(farm)
    await context.setOffline(true)
    await page.reload()
    await page.getByText('Offline: showing what the app saw last').waitFor()
    await page.getByRole('link', { name: farm.id }).waitFor()
    await page.screenshot({ path: `${OUTPUT}/phone-herd-offline.png`, fullPage: true })
    // A screen never read online says so in words (it said "TypeError: Failed to fetch").
    await page.getByRole('link', { name: 'Litter devices' }).click()
    await page
      .getByRole('alert')
      .filter({ hasText: 'No connection to the service; try again once online.' })
      .first()
      .waitFor()
    await context.close()
  })

  it("clears the farm's cached answers when its session ends without a sign-out (revoked or expired)", async () => {
    // Sign-out cleared them, but a session revoked elsewhere (a password change, a logout on another device) or
    // one that expired left the farm's data in the browser's cache storage after the app had dropped the session.
    const farm = await seedFarm()
    const { context, page } = await phoneWithHerdRead(farm)
    const cachedAnswers = () =>
      page.evaluate(async () =>
        (await caches.keys()).includes('farm-app-data')
          ? (await (await caches.open('farm-app-data')).keys()).length
          : 0,
      )
    assert.ok((await cachedAnswers()) > 0, 'the herd is cached for offline use')
    // The session is revoked behind the app's back: its next read is 401, and so is the renewal.
    const session = JSON.parse((await page.evaluate(() => localStorage.getItem('livestock.session'))) ?? '{}')
    const logout = await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/tokens/logout',
      headers: { authorization: `Bearer ${session.accessToken}` },
    })
    assert.equal(logout.statusCode, 200, logout.body)
    await page.reload()
    await page.getByLabel('E-mail').waitFor()
    // The sign-in screen says why it is back, where it came back without a word.
    await page.getByRole('status').filter({ hasText: 'Your session has ended; sign in again.' }).waitFor()
    await page.waitForLoadState('networkidle')
    assert.equal(await cachedAnswers(), 0)
    await context.close()
  })

  it("keeps the farm's answers out of the browser's HTTP cache, where they would outlive the session", async () => {
    // The app's reads, seen from the page (no service worker): one the HTTP cache held would be sent again with
    // If-None-Match (an app reading with the default cache mode did, and got 304s).
    const farm = await seedFarm()
    const context = await browser.newContext({ serviceWorkers: 'block' })
    const page = await context.newPage()
    const cdp = await context.newCDPSession(page)
    await cdp.send('Network.enable')
    const urls = new Map<string, string>()
    const conditional: string[] = []
    cdp.on('Network.requestWillBeSent', (e) => urls.set(e.requestId, e.request.url))
    cdp.on('Network.requestWillBeSentExtraInfo', (e) => {
      if (Object.keys(e.headers).some((name) => name.toLowerCase() === 'if-none-match')) conditional.push(e.requestId)
    })
    await signIn(page, farm)
    for (let visit = 0; visit < 2; visit++) {
      await page.goto(`${base}/app/#/attention`)
      await page.getByRole('heading', { name: 'Needs attention' }).waitFor()
      await openHerd(page, farm)
    }
    const apiReads = [...urls.values()].filter((url) => url.startsWith(`${base}/api/v1/users/`))
    assert.ok(apiReads.length >= 4, `the app read the farm's data: ${apiReads.length} reads`)
    const revalidated = conditional.map((id) => urls.get(id) ?? id).filter((url) => url.includes('/api/'))
    assert.deepEqual(revalidated, [], 'no API read revalidated from the HTTP cache')
    await context.close()
  })

  it("saves the farm's alert rules from the settings page, and shows the API's refusal at the field it names", async () => {
    const farm = await seedFarm()
    // bypassCSP only so that the test can inject axe-core.
    const context = await browser.newContext({ viewport: VIEWPORTS[0], bypassCSP: true, serviceWorkers: 'block' })
    const page = await context.newPage()
    await signIn(page, farm)
    await page.goto(`${base}/app/#/settings`)
    const rules = page.getByRole('region', { name: 'Alert rules' })
    await rules.getByText('The defaults apply: nothing changed yet.').waitFor()
    const readRules = async () => {
      const url = `/api/v1/users/${farm.uid}/alert-rules`
      const res = await ctx.app.inject({ method: 'GET', url, headers: bearer(farm.token) })
      assert.equal(res.statusCode, 200, res.body)
      return res.json().data
    }
    const save = () => rules.getByRole('button', { name: 'Save' }).click()

    // Each kind by its title, who gets it by role; the thresholds in words; quiet hours per role; the time zone.
    assert.equal(await rules.getByRole('checkbox', { name: 'Heat expected: Worker' }).isChecked(), true)
    await rules.getByRole('checkbox', { name: 'Heat expected: Worker' }).uncheck()
    await rules.getByRole('checkbox', { name: 'Heat expected: Manager' }).check()
    await rules.getByRole('checkbox', { name: 'Ear tag battery low: Raised' }).uncheck()
    await rules.getByLabel('Farrowing alarm at a probability of (%)').fill('70')
    await rules.getByRole('checkbox', { name: 'Admin', exact: true }).check()
    await rules.getByLabel('Admin: Quiet hours from').fill('21:30')
    await rules.getByLabel('Time zone').selectOption('Europe/Berlin')
    await save()
    await rules.getByRole('status').getByText('Saved').waitFor()
    const saved = await readRules()
    assert.equal(saved.thresholds.birthProbability, 0.7)
    assert.deepEqual(saved.kinds['heat-alarm'], { enabled: true, notifyRanks: [2] })
    assert.equal(saved.kinds['tag-battery-low'].enabled, false)
    assert.deepEqual(saved.quietHours['1'], { start: '21:30', end: '06:00' })
    assert.equal(saved.timeZone, 'Europe/Berlin')
    assert.equal(saved.updatedBy, farm.uid)
    await rules.getByText(/^Last changed .+ by you$/).waitFor()

    // Out of bounds: the API's message at the threshold, nothing saved.
    const gestation = rules.getByLabel('Gestation length')
    await gestation.fill('200')
    await save()
    await rules.getByText('must be <= 130').waitFor()
    assert.equal(await gestation.getAttribute('aria-invalid'), 'true')
    assert.equal((await readRules()).thresholds.gestationDays, saved.thresholds.gestationDays)
    // A rule across thresholds (red above yellow), said at the field the API names.
    await gestation.fill(String(saved.thresholds.gestationDays))
    const red = rules.getByLabel('High temperature (red) above')
    await red.fill('0.2')
    await save()
    await rules.getByText('must be above temperatureYellowDelta').waitFor()
    assert.equal(await red.getAttribute('aria-invalid'), 'true')
    assert.equal(await gestation.getAttribute('aria-invalid'), null)
    await page.waitForLoadState('networkidle')
    await checkPage(page, 'phone', 'settings-refused')

    await rules.getByRole('button', { name: 'Restore the defaults' }).click()
    await rules.getByRole('status').getByText('Saved').waitFor()
    const restored = await readRules()
    assert.equal(restored.thresholds.birthProbability, alarmLevel('birth'))
    assert.deepEqual(restored.kinds['heat-alarm'].notifyRanks, [3])
    assert.equal(await rules.getByLabel('High temperature (red) above').inputValue(), '0.6')
    await context.close()
  })

  it('shows a user of another farm nothing of this one', async () => {
    const farm = await seedFarm()
    const other = await createUser(ctx)
    const context = await browser.newContext({ serviceWorkers: 'block' })
    const page = await context.newPage()
    await page.goto(`${base}/app/`)
    await page.getByLabel('E-mail').fill(other.email)
    await page.getByLabel('Password').fill(other.password!)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.getByRole('heading', { name: 'Needs attention' }).waitFor()
    await page.goto(`${base}/app/#/animal/${encodeURIComponent(farm.mac)}`)
    // Said once, in words, where each section said "Not available on this service yet".
    await page.getByText('No animal with this tag on this farm.').waitFor()
    await page.waitForLoadState('networkidle')
    assert.equal(await page.getByText(farm.id).count(), 0)
    assert.equal(await page.getByText('Not available on this service yet.').count(), 0)
    await context.close()
  })
})
