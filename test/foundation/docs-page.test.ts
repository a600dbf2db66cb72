// Store-independent: runs in the embedded pass of npm test only (test/run.ts).
// The interactive reference renders in a real headless Chromium, offline: every request it makes
// goes to this service, and the page lists the operations of the OpenAPI document.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { noChromium } from '../support/chromium.ts'
import { appInChromium, type BrowserApp } from '../support/browser-app.ts'
import type { TestContext } from '../support/app.ts'

let ctx: TestContext
let browser: Browser
let base: string

describe('GET /api/v1/docs', { skip: noChromium }, () => {
  let served: BrowserApp | undefined
  before(async () => {
    served = await appInChromium()
    ;({ ctx, base, browser } = served)
  })
  after(() => served?.close())

  it('serves the page and its script from this service', async () => {
    const page = await ctx.app.inject({ method: 'GET', url: '/api/v1/docs/' })
    assert.equal(page.statusCode, 200)
    assert.match(String(page.headers['content-type']), /text\/html/)
    assert.doesNotMatch(page.body, /<script[^>]+src="https?:\/\//, 'no script from a CDN')
    const redirect = await ctx.app.inject({ method: 'GET', url: '/api/v1/docs' })
    assert.equal(redirect.statusCode, 301)
  })

  // One page for both tests below, in this order: the reference renders 157 operations, and each load of it cost
  // CI 18-22 s of a core.
  let page: Page

  it('renders the operations in headless Chromium without leaving this host', async () => {
    page = await browser.newPage({ viewport: { width: 1400, height: 1000 } })
    const foreign: string[] = []
    page.on('request', (req) => {
      const url = req.url()
      if (!url.startsWith(base) && !url.startsWith('data:') && !url.startsWith('blob:')) foreign.push(url)
    })
    const errors: string[] = []
    page.on('pageerror', (err) => errors.push(err.message))
    // A Content-Security-Policy refusal is no page error, only a console message.
    page.on('console', (message) => {
      if (message.type() === 'error' && /Content Security Policy/i.test(message.text())) errors.push(message.text())
    })
    await page.goto(`${base}/api/v1/docs/`, { waitUntil: 'load' })
    await page.getByText('Liveness check').first().waitFor({ timeout: 30_000 })
    await page.getByText('Token-endpoint directory').first().waitFor({ state: 'attached', timeout: 10_000 })
    const text = await page.locator('body').innerText()
    assert.match(text, /Livestock API/)
    assert.match(text, /Readiness check/)
    if (process.env.DOCS_SCREENSHOT) await page.screenshot({ path: process.env.DOCS_SCREENSHOT, fullPage: false })
    assert.deepEqual(foreign, [], 'the page must not fetch anything from another host')
    assert.deepEqual(errors, [])
  })

  it('shows realistic pig-farm examples, never "string" placeholders', async () => {
    assert.ok(page, 'the page the test before rendered')
    for (const [operation, example] of [
      ['Get one animal', 'Lame on the left hind leg'],
      ['Record a treatment', 'Amoxicillin 15% LA'],
    ] as const) {
      await page.getByText(operation).first().click()
      await page.getByText(example).first().waitFor({ state: 'attached', timeout: 15_000 })
    }
    const examples = (await page.locator('pre, code').allInnerTexts()).join('\n')
    assert.match(examples, /"Mac": "A4:C1:38:5F:2B:91"/)
    assert.doesNotMatch(await page.locator('body').innerText(), /"string"/)
    await page.close()
  })
})
