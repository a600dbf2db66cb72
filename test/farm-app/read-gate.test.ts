// Store-independent: runs in the embedded pass of npm test only (test/run.ts).
// The farm app's gate on expensive reads: which paths the service counts as expensive (against the service's own
// routes), and that no more than the bound run at once, in the order they came, a failed read giving its turn to the
// next.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { API_PREFIX } from '../../src/http/route-policy.ts'
import { createGate, isExpensiveRead } from '../../web/src/read-gate.ts'
import { createTestApp, type TestContext } from '../support/app.ts'

describe('the expensive-read gate', () => {
  it('knows the reads the service counts as expensive', () => {
    for (const path of [
      '/users/u1/kpis',
      '/users/u1/kpis?from=2026-06-01&to=2026-06-30',
      '/users/u1/due-lists',
      '/users/u1/predictions/accuracy?from=2026-09-01&to=2026-11-29',
      '/users/u1/litterguards/summary',
      '/users/u1/animals?cycleState=pregnant&limit=100&page=2',
    ]) {
      assert.equal(isExpensiveRead(path), true, path)
    }
    for (const path of [
      '/users/u1/animals?limit=100&page=1',
      '/users/u1/predictions/settings',
      '/users/u1/events?status=open',
      '/users/u1/litterguards',
      '/users/u1/kpisx',
      '/users/u1/animals?filter[Group]=cycleState',
    ]) {
      assert.equal(isExpensiveRead(path), false, path)
    }
  })

  describe("against the service's routes", () => {
    let ctx: TestContext
    before(async () => {
      ctx = await createTestApp()
    })
    after(() => ctx.close())

    // A read the app sends, as the gate sees it: the path under the API prefix, each path parameter a value.
    const readsOf = (counted: (cost: TestContext['app']['routeCatalog'][number]['cost']) => boolean) =>
      ctx.app.routeCatalog
        .filter((r) => r.method === 'GET' && r.url.startsWith(`${API_PREFIX}/users/`) && counted(r.cost))
        .map((r) => r.url.slice(API_PREFIX.length).replace(/:[A-Za-z]+/g, 'p1'))

    it('counts every read the service always counts as expensive', () => {
      const expensive = readsOf((cost) => cost === 'expensive')
      assert.ok(expensive.length >= 5)
      for (const path of expensive) assert.equal(isExpensiveRead(path), true, path)
    })

    it('counts no read the service never counts as expensive', () => {
      const cheap = readsOf((cost) => cost === undefined)
      assert.ok(cheap.length >= 20)
      for (const path of cheap) assert.equal(isExpensiveRead(path), false, path)
    })
  })

  it('runs at most its bound at once, in the order the tasks came', async () => {
    const gate = createGate(2)
    let running = 0
    let most = 0
    const started: number[] = []
    const releases: (() => void)[] = []
    const task = (n: number) => () => {
      started.push(n)
      running++
      most = Math.max(most, running)
      return new Promise<number>((resolve) =>
        releases.push(() => {
          running--
          resolve(n)
        }),
      )
    }
    const results = [1, 2, 3, 4, 5].map((n) => gate(task(n)))
    await new Promise((resolve) => setImmediate(resolve))
    assert.deepEqual(started, [1, 2])
    while (releases.length > 0) {
      releases.shift()!()
      await new Promise((resolve) => setImmediate(resolve))
    }
    assert.deepEqual(await Promise.all(results), [1, 2, 3, 4, 5])
    assert.deepEqual(started, [1, 2, 3, 4, 5])
    assert.equal(most, 2)
  })

  it('gives a failed task its turn back', async () => {
    const gate = createGate(1)
    const failed = gate(() => Promise.reject(new Error('429')))
    const next = gate(() => Promise.resolve('answered'))
    await assert.rejects(failed, /429/)
    assert.equal(await next, 'answered')
    assert.equal(await gate(() => Promise.resolve('again')), 'again')
  })
})
