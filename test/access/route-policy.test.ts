// The route policy hook: what a route declares becomes its check, its OpenAPI security and its errors.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createTestApp, type TestContext } from '../support/app.ts'
import { ok } from '../../src/http/envelope.ts'

type Operation = { security?: unknown[]; responses: Record<string, unknown>; tags?: string[] }
let ctx: TestContext
let operations: Record<string, Record<string, Operation>>
before(async () => {
  ctx = await createTestApp()
  operations = (ctx.app.swagger() as unknown as { paths: typeof operations }).paths
})
after(() => ctx.close())

describe('route policy', () => {
  // The apps that must refuse to start are built on the file's store: what they refuse is in the routes.
  it('refuses to start when a route declares no access rule (secure by default)', async () => {
    await assert.rejects(
      createTestApp({
        store: ctx,
        extend: (api) => {
          api.get('/probe/forgotten', async () => ok({}))
        },
      }),
      /Route GET \/api\/v1\/probe\/forgotten declares no access rule/,
    )
  })

  it('refuses an own rule on a route without :userId', async () => {
    await assert.rejects(
      createTestApp({
        store: ctx,
        extend: (api) => {
          api.get('/probe/nobody', { config: { access: 'own' } }, async () => ok({}))
        },
      }),
      /uses the own rule but has no :userId parameter/,
    )
  })

  it('documents bearer security on protected operations and none on public ones', () => {
    assert.deepEqual((ctx.app.swagger() as { security: unknown }).security, [{ bearer: [] }])
    assert.deepEqual(operations['/api/v1/tokens']!.post!.security, [])
    assert.deepEqual(operations['/api/v1/health']!.get!.security, [])
    assert.deepEqual(operations['/api/v1/users/{userId}/animals']!.get!.security, [{ bearer: [] }])
  })

  it('adds the standard errors: 401/403 only where a token is needed, 413/415 only with a body, no 429 when exempt', () => {
    const list = operations['/api/v1/users/{userId}/animals']!.get!.responses
    assert.deepEqual(Object.keys(list).sort(), ['200', '400', '401', '403', '404', '429', '500', '503'])
    const create = operations['/api/v1/users/{userId}/animals']!.post!.responses
    for (const status of ['201', '409', '413', '415']) assert.ok(create[status], status)
    const health = operations['/api/v1/health']!.get!.responses
    for (const status of ['401', '403', '413', '429']) assert.equal(health[status], undefined, status)
  })

  it('tags every operation with its module', () => {
    assert.deepEqual(operations['/api/v1/users/{userId}/animals']!.get!.tags, ['animals'])
    assert.deepEqual(operations['/api/v1/tokens/login']!.post!.tags, ['tokens'])
  })
})
