// Validators and serializers are compiled on each route's first request (src/http/lazy-compilation.ts):
// a broken schema would otherwise only show on that request, so this compiles every one of them.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createTestApp, type TestContext } from '../support/app.ts'
import { lazyCompilations } from '../../src/http/lazy-compilation.ts'

describe('schema compilation', () => {
  let ctx: TestContext
  before(async () => {
    ctx = await createTestApp()
  })
  after(async () => {
    await ctx?.close()
  })

  it('compiles nothing of a route until its first request, then that route only', async () => {
    const compilations = ctx.app.schemaCompilations
    const before = compilations.pending
    assert.ok(before > 200, `${before} validators and serializers pending after build`)
    const res = await ctx.app.inject({ method: 'GET', url: '/api/v1/health' })
    assert.equal(res.statusCode, 200)
    const after = compilations.pending
    assert.ok(after < before && after > before - 10, `${before} -> ${after}`)
  })

  it('compiles every validator and serializer of every route', () => {
    ctx.app.schemaCompilations.compileAll()
    assert.equal(ctx.app.schemaCompilations.pending, 0)
  })

  it('compiles once, and reports a compilation error at compileAll', () => {
    const lazily = lazyCompilations()
    let runs = 0
    const get = lazily.once(() => ++runs)
    assert.equal(lazily.pending, 1)
    assert.equal(get(), 1)
    assert.equal(get(), 1)
    assert.equal(lazily.pending, 0)
    lazily.once(() => {
      throw new Error('bad schema')
    })
    assert.throws(() => lazily.compileAll(), /bad schema/)
  })
})
