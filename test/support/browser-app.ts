// A browser test's service and browser: the app on a free loopback port (embedded store) and Debian's Chromium.
import assert from 'node:assert/strict'
import type { Browser } from 'playwright-core'
import { createTestApp, type TestAppOptions, type TestContext } from './app.ts'
import { launchChromium } from './chromium.ts'

export interface BrowserApp {
  ctx: TestContext
  /** The service's origin, such as http://127.0.0.1:40123. */
  base: string
  browser: Browser
  close(): Promise<void>
}

/** `options` as createTestApp takes them (extra environment: a loopback push service allowed, for one). */
export async function appInChromium(options: TestAppOptions = {}): Promise<BrowserApp> {
  const ctx = await createTestApp(options)
  await ctx.app.listen({ port: 0, host: '127.0.0.1' })
  const address = ctx.app.server.address()
  assert.ok(address && typeof address === 'object')
  const browser = await launchChromium()
  return {
    ctx,
    base: `http://127.0.0.1:${address.port}`,
    browser,
    close: async () => {
      await browser.close()
      await ctx.close()
    },
  }
}
