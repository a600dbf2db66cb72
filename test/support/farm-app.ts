// The farm app's browser tests' page check: a screenshot to test-output/farm-app/, no page wider than its window,
// and axe-core's serious and critical violations (none allowed); and the wait for the app's service worker.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import type { Page } from 'playwright-core'

export const OUTPUT = 'test-output/farm-app'
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')

/** Runs axe-core on the page as it stands; returns the serious and critical violations. */
async function seriousViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ content: AXE_SOURCE })
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run: (context: unknown, options: unknown) => Promise<any> } }).axe
    const result = await axe.run(document, { resultTypes: ['violations'] })
    return result.violations.map((v: any) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length, help: v.help }))
  })
  return violations
    .filter((v: { impact: string }) => v.impact === 'serious' || v.impact === 'critical')
    .map((v: { id: string; nodes: number; help: string }) => `${v.id} (${v.nodes}): ${v.help}`)
}

export async function checkPage(page: Page, viewport: string, name: string) {
  await page.screenshot({ path: `${OUTPUT}/${viewport}-${name}.png`, fullPage: true })
  // A wide table scrolls in its own box; the page itself never scrolls sideways (the herd once widened a phone's).
  const widths = await page.evaluate(() => [document.documentElement.scrollWidth, innerWidth])
  assert.ok(widths[0]! <= widths[1]!, `${name} (${viewport}) is ${widths[0]} px wide in a ${widths[1]} px window`)
  assert.deepEqual(await seriousViolations(page), [], `axe on ${name} (${viewport})`)
}

/** Resolves once the app's service worker controls the page (it caches what the page reads from then on). */
export async function controlledByServiceWorker(page: Page) {
  await page.evaluate(async () => {
    await navigator.serviceWorker.ready
    if (!navigator.serviceWorker.controller)
      await new Promise((resolve) => navigator.serviceWorker.addEventListener('controllerchange', resolve))
  })
}
