// One caller's expensive requests (analytics, statistics, long series, deep or re-sorted pages) are bounded:
// past EXPENSIVE_REQUESTS_PER_CALLER at once, 429 with Retry-After, while other callers and cheap requests pass.
// And a page may skip at most PAGE_OFFSET_MAX items (400 naming the deepest page; the `last` link stops there).
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { ok } from '../../src/http/envelope.ts'
import { createTestApp, type TestContext } from '../support/app.ts'
import { addAnimal, bearer, createUser, userToken } from '../support/fixtures.ts'
import { assertError } from '../support/assertions.ts'

let ctx: TestContext
let open: () => void = () => {}
let gate = Promise.resolve()
const closeGate = () => {
  gate = new Promise((resolve) => (open = resolve))
}
/** Probe requests inside the handler, waiting at the gate. */
let waiting = 0
/**
 * Until `count` probes wait at the gate: they hold their places then. A fixed 50 ms was too short on a loaded CI
 * machine, and a third request admitted in their place waited at the closed gate until the test timed out.
 */
async function untilWaiting(count: number) {
  for (let tries = 0; waiting < count; tries++) {
    assert.ok(tries < 1000, `${waiting} of ${count} probes reached the gate`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

before(async () => {
  ctx = await createTestApp({
    env: { EXPENSIVE_REQUESTS_PER_CALLER: '2', PAGE_OFFSET_MAX: '4' },
    extend: (api) => {
      api.get('/probe/expensive', { config: { access: 'bearer', cost: 'expensive' } }, async () => {
        waiting++
        try {
          await gate
        } finally {
          waiting--
        }
        return ok({})
      })
    },
  })
})
after(() => ctx.close())

async function caller() {
  const user = await createUser(ctx)
  return { uid: user.uid, headers: bearer((await userToken(ctx, user.email)).accessToken) }
}

describe('expensive requests per caller', () => {
  it('admits two at once per caller and answers the third 429 with Retry-After; others and cheap requests pass', async () => {
    const heavy = await caller()
    const other = await caller()
    const get = (url: string, headers: Record<string, string>) => ctx.app.inject({ method: 'GET', url, headers })
    closeGate()
    const running = [get('/api/v1/probe/expensive', heavy.headers), get('/api/v1/probe/expensive', heavy.headers)]
    await untilWaiting(2)
    const third = await get('/api/v1/probe/expensive', heavy.headers)
    assertError(
      third,
      429,
      'Too many expensive requests at once: at most 2 per caller (analytics, statistics, long series, deep or sorted pages); retry when one has finished',
    )
    assert.equal(third.headers['retry-after'], '1')
    // A re-sorted page is expensive too (and so is a deep one); the first page in the default order is not.
    assert.equal((await get(`/api/v1/users/${heavy.uid}/animals?sortBy=MAC`, heavy.headers)).statusCode, 429)
    assert.equal((await get(`/api/v1/users/${heavy.uid}/animals`, heavy.headers)).statusCode, 200)
    // Another caller has bounds of its own.
    const others = [get('/api/v1/probe/expensive', other.headers), get('/api/v1/probe/expensive', other.headers)]
    open()
    for (const res of await Promise.all([...running, ...others])) assert.equal(res.statusCode, 200)
    // Finished requests free their places.
    assert.equal((await get('/api/v1/probe/expensive', heavy.headers)).statusCode, 200)
  })

  it("counts the herd's analytics as expensive: KPIs, due lists, the herd list by cycle state, prediction accuracy", async () => {
    const heavy = await caller()
    const get = (url: string) => ctx.app.inject({ method: 'GET', url, headers: heavy.headers })
    const mac = 'AA:00:00:00:01:01'
    await addAnimal(ctx, heavy.uid, heavy.headers, { MAC: mac, Sex: 'female' })
    closeGate()
    const running = [get('/api/v1/probe/expensive'), get('/api/v1/probe/expensive')]
    try {
      await untilWaiting(2)
      // Each reads every record of every female of the farm (or a year of its predictions), whatever the period.
      for (const path of ['kpis', 'due-lists', 'animals?cycleState=lactating', 'predictions/accuracy'])
        assert.equal((await get(`/api/v1/users/${heavy.uid}/${path}`)).statusCode, 429, path)
      // One female's cycle, and the herd list without the filter, are not.
      assert.equal((await get(`/api/v1/users/${heavy.uid}/animals/${mac}/cycle`)).statusCode, 200)
      assert.equal((await get(`/api/v1/users/${heavy.uid}/animals`)).statusCode, 200)
    } finally {
      open()
    }
    for (const res of await Promise.all(running)) assert.equal(res.statusCode, 200)
  })

  it('frees the place of a request that failed', async () => {
    const heavy = await caller()
    for (let i = 0; i < 3; i++) {
      const res = await ctx.app.inject({
        method: 'GET',
        url: `/api/v1/users/${heavy.uid}/animals?sortBy=Nope`,
        headers: heavy.headers,
      })
      assert.equal(res.statusCode, 400)
    }
    const res = await ctx.app.inject({
      method: 'GET',
      url: `/api/v1/users/nobody-${heavy.uid}/animals?sortBy=MAC`,
      headers: heavy.headers,
    })
    assert.equal(res.statusCode, 403)
    closeGate()
    open()
    assert.equal(
      (await ctx.app.inject({ method: 'GET', url: '/api/v1/probe/expensive', headers: heavy.headers })).statusCode,
      200,
    )
  })
})

describe('deep pages', () => {
  it('answers 400 naming the bound past PAGE_OFFSET_MAX, and the last link stops at the deepest page', async () => {
    const owner = await caller()
    const animals = `/api/v1/users/${owner.uid}/animals`
    for (let i = 0; i < 12; i++) {
      const mac = `AA:00:00:00:00:${i.toString(16).padStart(2, '0').toUpperCase()}`
      await addAnimal(ctx, owner.uid, owner.headers, { MAC: mac, Sex: 'female' })
    }
    // 12 animals, 2 a page: 6 pages, but a page may skip 4 items at most, so with limit=2 page 3 is the deepest.
    const first = await ctx.app.inject({ method: 'GET', url: `${animals}?limit=2`, headers: owner.headers })
    assert.equal(first.json().pagination.totalPages, 6)
    assert.match(String(first.headers.link), /page=3>; rel="last"/)
    const ten = await ctx.app.inject({ method: 'GET', url: `${animals}?limit=10`, headers: owner.headers })
    // 10 a page: page 2 would skip 10 items, so page 1 is the last one offered.
    assert.match(String(ten.headers.link), /page=1>; rel="last"/)
    assert.equal(
      (await ctx.app.inject({ method: 'GET', url: `${animals}?limit=2&page=3`, headers: owner.headers })).statusCode,
      200,
    )
    const deep = await ctx.app.inject({ method: 'GET', url: `${animals}?limit=2&page=4`, headers: owner.headers })
    assertError(deep, 400, 'Validation failed')
    assert.deepEqual(deep.json().details, [
      {
        field: 'query:page',
        message:
          'a page may skip at most 4 items ((page - 1) × limit); with limit=2 the deepest page is 3: narrow the list with filters or another sort instead',
      },
    ])
  })
})
