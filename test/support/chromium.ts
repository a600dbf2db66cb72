// Debian's Chromium for the browser tests (the docs page, the farm app), driven by playwright-core: no browser
// is downloaded. CHROMIUM_PATH names another binary.
import { existsSync } from 'node:fs'
import { chromium, type Browser } from 'playwright-core'

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

/** A reason to skip a browser test on a machine without Chromium; CI has it, so there it never skips. */
export const noChromium = !existsSync(CHROMIUM) && !process.env.CI ? `no Chromium at ${CHROMIUM}` : false

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  })
}
