// The farm app in Chromium (docs/farm-app.md): what its first load transfers, and how long the herd screen of
// a 1,000-animal farm takes to render, against the same table written into a blank page as static HTML.
// The service runs in this process on an embedded in-memory store; the browser is Debian's Chromium.
import { existsSync } from 'node:fs'
import { chromium } from 'playwright-core'
import type { TableRow } from './scenario.ts'
import { buildApp } from '../src/app.ts'
import { loadConfig } from '../src/config.ts'
import { IN_MEMORY, openDatabase } from '../src/db/database.ts'
import { migrateToLatest } from '../src/db/migrate.ts'
import { hashPassword } from '../src/modules/users/passwords.ts'
import { insertUser } from '../src/modules/users/users.repository.ts'

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
const PASSWORD = 'bench farm password'

export interface FarmAppFigures {
  animals: number
  firstLoadBytes: number
  firstLoadFiles: number
  /** Herd screen opened: from the navigation to every row in the page, its API pages included. */
  herdOpenMs: number
  /** Re-sorting the whole herd: from the click to the next frame. */
  herdSortMs: number
  /** The same rows set as static HTML in a blank page, to the next frame. */
  staticTableMs: number
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

export async function measureFarmApp(animals: number, rounds: number): Promise<FarmAppFigures | undefined> {
  if (!existsSync(CHROMIUM)) return undefined
  const config = loadConfig({
    DATA_DIR: IN_MEMORY,
    LOG_LEVEL: 'silent',
    JWT_SECRET: 'bench-farm-app-0123456789abcdef0123456789',
    RATE_LIMIT_IP_MAX: '0',
    RATE_LIMIT_TOKENS_MAX: '0',
    QUOTA_USER: '0',
  })
  const database = await openDatabase(config)
  await migrateToLatest(database.db)
  const app = await buildApp({ config, database, logger: false })
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu'] })
  try {
    await insertUser(database.db, {
      uid: 'bench-farm',
      email: 'bench@farm.example',
      name: 'Bench farm',
      language: 'en',
      bd_user: false,
      admin: false,
      inactive: false,
      password_hash: await hashPassword(PASSWORD, config.passwordScryptLogN),
    })
    const login = await app.inject({
      method: 'POST',
      url: '/api/v1/tokens/login',
      payload: { email: 'bench@farm.example', password: PASSWORD },
    })
    const authorization = `Bearer ${login.json().data.accessToken as string}`
    for (let i = 0; i < animals; i++) {
      const mac = `0A:B0:00:00:${(i >> 8).toString(16).padStart(2, '0')}:${(i & 255).toString(16).padStart(2, '0')}`
      const created = await app.inject({
        method: 'POST',
        url: '/api/v1/users/bench-farm/animals',
        headers: { authorization },
        payload: { MAC: mac.toUpperCase(), Sex: 'female', Group: `Pen ${i % 24}`, Active: true },
      })
      if (created.statusCode !== 201) throw new Error(`seeding animal ${i}: ${created.statusCode} ${created.body}`)
    }
    await app.listen({ port: 0, host: '127.0.0.1' })
    const address = app.server.address()
    if (!address || typeof address !== 'object') throw new Error('no address')
    const base = `http://127.0.0.1:${address.port}/app/`

    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, serviceWorkers: 'block' })
    const page = await context.newPage()
    await page.goto(base)
    await page.waitForLoadState('networkidle')
    const firstLoad = await page.evaluate(() => {
      const entries = [
        ...performance.getEntriesByType('navigation'),
        ...performance.getEntriesByType('resource'),
      ] as PerformanceResourceTiming[]
      return { bytes: entries.reduce((sum, e) => sum + e.transferSize, 0), files: entries.length }
    })
    await page.getByLabel('E-mail').fill('bench@farm.example')
    await page.getByLabel('Password').fill(PASSWORD)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.getByRole('heading', { name: 'Needs attention' }).waitFor()

    const open: number[] = []
    const sort: number[] = []
    const table: number[] = []
    for (let round = 0; round < rounds; round++) {
      await page.goto(`${base}#/attention`)
      await page.getByRole('heading', { name: 'Needs attention' }).waitFor()
      open.push(
        await page.evaluate(async (count) => {
          const started = performance.now()
          location.hash = '#/herd'
          await new Promise<void>((resolve) => {
            const check = () =>
              document.querySelectorAll('table.herd tbody tr').length >= count
                ? resolve()
                : requestAnimationFrame(check)
            check()
          })
          await new Promise((resolve) => requestAnimationFrame(resolve))
          return performance.now() - started
        }, animals),
      )
      sort.push(
        await page.evaluate(async () => {
          const button = [...document.querySelectorAll<HTMLButtonElement>('button.sort')].find(
            (b) => b.textContent === 'Temperature',
          )!
          const started = performance.now()
          button.click()
          await new Promise((resolve) => requestAnimationFrame(resolve))
          await new Promise((resolve) => requestAnimationFrame(resolve))
          return performance.now() - started
        }),
      )
      const rowsHtml = await page.evaluate(() => document.querySelector('table.herd')!.outerHTML)
      const blank = await context.newPage()
      await blank.goto(`${base}no-such-page`).catch(() => undefined)
      table.push(
        await blank.evaluate(async (html) => {
          const started = performance.now()
          document.body.innerHTML = html
          await new Promise((resolve) => requestAnimationFrame(resolve))
          await new Promise((resolve) => requestAnimationFrame(resolve))
          return performance.now() - started
        }, rowsHtml),
      )
      await blank.close()
    }
    await context.close()
    return {
      animals,
      firstLoadBytes: firstLoad.bytes,
      firstLoadFiles: firstLoad.files,
      herdOpenMs: median(open),
      herdSortMs: median(sort),
      staticTableMs: median(table),
    }
  } finally {
    await browser.close()
    await app.close()
    await database.close()
  }
}

const FIRST_LOAD_BUDGET_BYTES = 150_000
const HERD_RENDER_BUDGET_MS = 200

/** The table's rows: the first load against its budget, and re-rendering the herd against 200 ms. */

export function farmAppRows(figures: FarmAppFigures | undefined, smoke: boolean): TableRow[] {
  if (!figures) {
    const skipped = { service: `no Chromium at ${CHROMIUM}`, baseline: '', ratio: null, target: 'reported', met: null }
    return [{ scenario: 'farm app in Chromium', ...skipped }]
  }
  return [
    {
      scenario: 'farm app: first load (JavaScript, CSS, page; compressed)',
      service: `${(figures.firstLoadBytes / 1000).toFixed(1)} kB in ${figures.firstLoadFiles} files`,
      baseline: `budget ${FIRST_LOAD_BUDGET_BYTES / 1000} kB`,
      ratio: Number((figures.firstLoadBytes / FIRST_LOAD_BUDGET_BYTES).toFixed(3)),
      target: 'ratio <= 1',
      met: smoke ? null : figures.firstLoadBytes <= FIRST_LOAD_BUDGET_BYTES,
      figures: { ...figures },
    },
    {
      scenario: `farm app: herd of ${figures.animals.toLocaleString('en')} re-sorted, to the next frame`,
      service: `${figures.herdSortMs.toFixed(0)} ms (screen opened with its ${Math.ceil(figures.animals / 100)} API pages: ${figures.herdOpenMs.toFixed(0)} ms)`,
      baseline: `the same table as static HTML: ${figures.staticTableMs.toFixed(0)} ms; budget ${HERD_RENDER_BUDGET_MS} ms`,
      ratio: Number((figures.herdSortMs / HERD_RENDER_BUDGET_MS).toFixed(3)),
      target: 'ratio <= 1',
      met: smoke ? null : figures.herdSortMs <= HERD_RENDER_BUDGET_MS,
      figures: { ...figures },
    },
  ]
}
