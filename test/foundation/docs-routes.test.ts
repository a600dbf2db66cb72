// The reference's routes without a browser (docs-page.test.ts renders the page in Chromium when there is
// one): Scalar's plugin is loaded on the first request to them, and answers as when it was registered
// itself. And what a start on PostgreSQL does not load: Scalar's 4.3 MB bundle, PGlite, the MQTT client.
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { createTestApp, type TestContext } from '../support/app.ts'
import { loadScalarHandlers, scalarPaths } from '../../src/plugins/docs.ts'

const SRC = join(import.meta.dirname, '../../src')

/**
 * Runs `code` in a fresh process that notes in `seen` which of the `watched` packages are resolved, and returns
 * what the code prints last (JSON).
 */
function inFreshProcess(code: string, watched: string[]): unknown {
  const script = `
    import { registerHooks } from 'node:module'
    const watched = ${JSON.stringify(watched)}
    const seen = new Set()
    registerHooks({ resolve(specifier, context, next) {
      for (const name of watched) if (specifier === name || specifier.startsWith(name + '/')) seen.add(name)
      return next(specifier, context)
    } })
    ${code}`
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    encoding: 'utf8',
    cwd: SRC,
    env: {
      PATH: process.env.PATH ?? '',
      ...(process.env.TEST_PGLITE_SNAPSHOT ? { TEST_PGLITE_SNAPSHOT: process.env.TEST_PGLITE_SNAPSHOT } : {}),
    },
  })
  assert.equal(result.status, 0, result.stderr)
  return JSON.parse(result.stdout.trim().split('\n').at(-1)!)
}

describe('the API reference routes', () => {
  let ctx: TestContext
  before(async () => {
    ctx = await createTestApp()
  })
  after(async () => {
    await ctx?.close()
  })

  it('redirects /api/v1/docs to the page', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/api/v1/docs' })
    assert.equal(res.statusCode, 301)
    assert.equal(res.headers.location, '/api/v1/docs/')
  })

  it('serves the page, pointing at the document and at its script on this service', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/api/v1/docs/' })
    assert.equal(res.statusCode, 200)
    assert.match(String(res.headers['content-type']), /^text\/html/)
    assert.match(res.body, /<script[^>]+src="js\/scalar\.js"/)
    assert.match(res.body, /\/api\/v1\/openapi\.json/)
    assert.doesNotMatch(res.body, /<script[^>]+src="https?:\/\//, 'no script from a CDN')
  })

  it('serves the script', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/api/v1/docs/js/scalar.js' })
    assert.equal(res.statusCode, 200)
    assert.match(String(res.headers['content-type']), /^application\/javascript/)
    assert.ok(res.rawPayload.length > 1_000_000, `${res.rawPayload.length} bytes`)
  })

  it('registers every route the Scalar plugin makes, and only those', async () => {
    const handlers = await loadScalarHandlers(ctx.app, {
      routePrefix: '/api/v1/docs',
      configuration: { url: '/api/v1/openapi.json' },
    })
    assert.deepEqual([...handlers.keys()].sort(), scalarPaths('/api/v1/docs').sort())
    const listed = ctx.app.routeCatalog
      .filter((r) => r.url.startsWith('/api/v1/docs'))
      .map((r) => r.url)
      .sort()
    assert.deepEqual(listed, scalarPaths('/api/v1/docs').sort())
  })
})

describe('start-up imports', () => {
  // One process for both tests, one step after the other: what importing loads, then what building the app and
  // its first request to the reference load.
  let steps: { onStart: string[]; scalarAtBuild: boolean; status: number; scalarAfterRequest: boolean }
  before(() => {
    steps = inFreshProcess(
      `
      // Importing the server and the app is what a start on PostgreSQL does before it opens the pool.
      await import('./server.ts'); await import('./app.ts'); await import('./db/database.ts')
      const onStart = [...seen].sort()
      const { buildApp } = await import('./app.ts')
      const { openDatabase, openEmbeddedSnapshot, IN_MEMORY } = await import('./db/database.ts')
      const { loadConfig } = await import('./config.ts')
      const config = loadConfig({ DATA_DIR: IN_MEMORY, JWT_SECRET: 'x'.repeat(32), LOG_LEVEL: 'silent' })
      // The run's migrated snapshot when there is one: the same store, without initdb's cost.
      const snapshot = process.env.TEST_PGLITE_SNAPSHOT
      const { readFileSync } = await import('node:fs')
      const database = snapshot
        ? await openEmbeddedSnapshot(new Blob([readFileSync(snapshot)]), config)
        : await openDatabase(config)
      const app = await buildApp({ config, database, logger: false })
      const scalarAtBuild = seen.has('@scalar/fastify-api-reference')
      const res = await app.inject({ method: 'GET', url: '/api/v1/docs/' })
      const scalarAfterRequest = seen.has('@scalar/fastify-api-reference')
      await app.close()
      await database.close()
      console.log(JSON.stringify({ onStart, scalarAtBuild, status: res.statusCode, scalarAfterRequest }))`,
      ['@scalar/fastify-api-reference', '@electric-sql/pglite', 'mqtt', 'fastify'],
    ) as typeof steps
  })

  it('loads neither Scalar, PGlite nor the MQTT client when the service starts on PostgreSQL', () => {
    assert.deepEqual(steps.onStart, ['fastify'])
  })

  it('loads Scalar on the first request to the reference, not when the app is built', () => {
    assert.equal(steps.scalarAtBuild, false, 'not loaded when the app is built')
    assert.equal(steps.status, 200)
    assert.equal(steps.scalarAfterRequest, true, 'loaded by the first request to the reference')
  })
})
