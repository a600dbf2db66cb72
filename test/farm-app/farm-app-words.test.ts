// Store-independent: runs in the embedded pass of npm test only (test/run.ts): the app reads through the public API.
// The farm app's figures in the farm's language, in Debian's Chromium: for a farm that chose German, the published
// KPI benchmarks in German words and numbers (the API's text is English), and the alert rules' probabilities in
// percent on the settings form, stored 0–1 through the API, with the API's bound in percent at the field, and
// refused when someone else saved the rules meanwhile; a
// record's listed values in German on the animal's timeline; and the Performance screen's expensive reads sent
// two at a time, none refused 429. At a phone's width, the herd's row scrolls sideways under the animal's ID.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { Browser } from 'playwright-core'
import { noChromium } from '../support/chromium.ts'
import { appInChromium, type BrowserApp } from '../support/browser-app.ts'
import type { TestContext } from '../support/app.ts'
import { addAnimal, bearer, createUser, userToken } from '../support/fixtures.ts'
import { alarmLevel } from '../../src/modules/predictions/calibration.rules.ts'

let ctx: TestContext
let browser: Browser
let base: string

/** Intl's no-break space before a German "%". */
const NBSP = '\u00a0'

async function germanFarm() {
  const user = await createUser(ctx)
  const { accessToken } = await userToken(ctx, user.email)
  const headers = bearer(accessToken)
  const res = await ctx.app.inject({
    method: 'PATCH',
    url: `/api/v1/users/${user.uid}`,
    headers,
    payload: { Language: 'de' },
  })
  assert.equal(res.statusCode, 200, res.body)
  return { ...user, headers }
}

describe('the farm app in the farm’s language', { skip: noChromium }, () => {
  let served: BrowserApp | undefined
  before(async () => {
    served = await appInChromium()
    ;({ ctx, base, browser } = served)
  })
  after(() => served?.close())

  it('writes the benchmarks in German and takes the alarm probabilities in percent', async () => {
    const farm = await germanFarm()
    const context = await browser.newContext({ serviceWorkers: 'block', locale: 'en-US' })
    const page = await context.newPage()
    const refused: string[] = []
    page.on('response', (response) => {
      if (response.status() === 429) refused.push(response.url())
    })
    await page.goto(`${base}/app/`)
    await page.getByLabel('E-mail').fill(farm.email)
    await page.getByLabel('Password').fill(farm.password!)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.getByRole('heading', { name: 'Handlungsbedarf' }).waitFor()

    await page.goto(`${base}/app/#/performance`)
    const figures = page.getByRole('region', { name: 'Kennzahlen' })
    const benchmark = (name: string) =>
      figures.getByRole('row', { name }).getByRole('cell').last().textContent({ timeout: 30_000 })
    assert.equal(await benchmark('Leertage'), '31–36 Tage')
    assert.equal(await benchmark('Absetz-Belegungs-Intervall'), '5,6–7 Tage')
    assert.equal(await benchmark('Abferkelrate'), `83–88${NBSP}%`)
    assert.equal(await benchmark('Umrauscherquote'), `unter 12${NBSP}%, die meisten davon regelmäßig`)
    await page.getByRole('region', { name: 'Fälligkeiten' }).waitFor()
    await page.waitForLoadState('networkidle')
    assert.deepEqual(refused, [], 'the app sends its expensive reads two at a time')
    // The scorer's setting in German words from the route's counts; its English reasons behind "Warum".
    const alarms = page.getByRole('region', { name: 'Alarme auf diesem Hof' })
    await alarms.getByText('Alarmschwelle: 1× der Vorgabe · noch kein Ereignis im Stallbuch').first().waitFor()
    assert.equal(await alarms.getByText('Warum, in den Worten des Dienstes (englisch)').count(), 3)

    await page.goto(`${base}/app/#/settings`)
    const rules = page.getByRole('region', { name: 'Alarmregeln' })
    const read = async () => {
      const url = `/api/v1/users/${farm.uid}/alert-rules`
      const res = await ctx.app.inject({ method: 'GET', url, headers: farm.headers })
      assert.equal(res.statusCode, 200, res.body)
      return res.json().data.thresholds
    }
    const save = () => rules.getByRole('button', { name: 'Speichern' }).click()
    const heat = rules.getByLabel('Rauschealarm ab einer Wahrscheinlichkeit von (%)')
    const hysteresis = rules.getByLabel('Ein Alarm endet so weit unter seiner Schwelle (Prozentpunkte)')
    assert.equal(await heat.inputValue(), String(Math.round(alarmLevel('heat') * 10_000) / 100))
    assert.equal(await hysteresis.inputValue(), '5')
    assert.deepEqual([await heat.getAttribute('max'), await heat.getAttribute('step')], ['100', '0.01'])

    await heat.fill('21.39')
    await hysteresis.fill('2.5')
    await save()
    await rules.getByRole('status').getByText('Gespeichert').waitFor()
    const saved = await read()
    assert.equal(saved.heatProbability, 0.2139)
    assert.equal(saved.probabilityHysteresis, 0.025)
    assert.equal(await heat.inputValue(), '21.39')

    // Out of bounds: the API's bound (1) at the field in percent, nothing saved.
    await heat.fill('150')
    await save()
    await rules.getByText('must be <= 100').waitFor()
    assert.equal(await heat.getAttribute('aria-invalid'), 'true')
    assert.equal((await read()).heatProbability, 0.2139)

    // Someone else saves the rules while the form is open: its save is refused, and it shows their rules.
    const url = `/api/v1/users/${farm.uid}/alert-rules`
    const payload = { thresholds: { heatProbability: 0.25 } }
    const other = await ctx.app.inject({ method: 'PUT', url, headers: farm.headers, payload })
    assert.equal(other.statusCode, 200, other.body)
    await heat.fill('30')
    await save()
    await rules.getByText('Jemand anderes hat die Alarmregeln gespeichert').waitFor()
    for (let tries = 0; (await heat.inputValue()) !== '25'; tries++) {
      assert.ok(tries < 100, `the form shows ${await heat.inputValue()}, not the rules saved meanwhile`)
      await page.waitForTimeout(100)
    }
    assert.equal((await read()).heatProbability, 0.25)
    await heat.fill('30')
    await save()
    await rules.getByRole('status').getByText('Gespeichert').waitFor()
    assert.equal((await read()).heatProbability, 0.3)

    // A record's listed values on the timeline in German; the API keeps the values themselves.
    const mac = 'AA:BB:CC:DD:EE:42'
    const record = async (animal: string, collection: string, payload: object) => {
      const url = `/api/v1/users/${farm.uid}/animals/${animal}/${collection}`
      const res = await ctx.app.inject({ method: 'POST', url, headers: farm.headers, payload })
      assert.equal(res.statusCode, 201, res.body)
    }
    await addAnimal(ctx, farm.uid, farm.headers, { MAC: mac, Sex: 'female' })
    await record(mac, 'inseminations', { Boar: 'Duroc DK-4471', StartDate: '2026-10-10' })
    await record(mac, 'pregnancy-checks', { checkDate: '2026-11-10', result: 'pregnant', method: 'ultrasound' })
    await page.goto(`${base}/app/#/animal/${encodeURIComponent(mac)}`)
    await page.getByText('tragend · Ultraschall').waitFor()
    // Her farrowing 115 days after the service, in German.
    const expected = (term: string) => page.locator('dt', { hasText: term }).locator('xpath=following-sibling::dd[1]')
    assert.equal(await expected('Abferkeln erwartet').textContent(), '2. Feb. 2027')
    // A sow weaned yesterday: her heat 3-8 days after, a span of days in German.
    const weanedMac = 'AA:BB:CC:DD:EE:43'
    await addAnimal(ctx, farm.uid, farm.headers, { MAC: weanedMac, Sex: 'female' })
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10)
    await record(weanedMac, 'weanings', { weaningDate: yesterday, countWeaned: 11 })
    await page.goto(`${base}/app/#/animal/${encodeURIComponent(weanedMac)}`)
    assert.match((await expected('Rausche erwartet').textContent()) ?? '', /^\d{1,2}\..*–.*\d{1,2}\. \S+ \d{4}$/)

    await page.setViewportSize({ width: 390, height: 844 })
    await page.goto(`${base}/app/#/herd`)
    const name = page.locator('table.herd tbody th').first()
    await name.waitFor()
    const left = async () => (await name.boundingBox())!.x
    const before = await left()
    const scrolled = await page.locator('.table-wrap').evaluate((wrap) => {
      wrap.scrollLeft = 300
      return wrap.scrollLeft
    })
    assert.ok(scrolled > 100, `the row is wider than a phone (scrolled ${scrolled} px)`)
    assert.equal(await left(), before, "the animal's ID stays in place")
    // The German tab labels ("Abferkelsensoren", "Einstellungen") wrap rather than widen the page.
    const widths = await page.evaluate(() => [document.documentElement.scrollWidth, innerWidth])
    assert.ok(widths[0]! <= widths[1]!, `the page is ${widths[0]} px wide in a ${widths[1]} px window`)
    await context.close()
  })
})
