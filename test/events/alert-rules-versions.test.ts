// The alert rules' updatedAt as a version: a PUT carrying it applies only to the rules it was read from, and two
// writes within one millisecond still leave different versions (the service's clock held still here).
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createTestApp, type TestContext } from '../support/app.ts'
import { bearer, createUser, manualClock, userToken } from '../support/fixtures.ts'
import { assertError } from '../support/assertions.ts'

let ctx: TestContext
const clock = manualClock()

before(async () => {
  ctx = await createTestApp({ clock: () => clock.now })
})
after(() => ctx.close())

const CHANGED = 'The alert rules changed since updatedAt: read them again and apply the change to them'

describe('alert rules versions', () => {
  it('moves updatedAt on every write, within one millisecond too, and takes a write only at the version it names', async () => {
    const user = await createUser(ctx)
    const headers = bearer((await userToken(ctx, user.email)).accessToken)
    const put = (payload: object) =>
      ctx.app.inject({ method: 'PUT', url: `/api/v1/users/${user.uid}/alert-rules`, headers, payload })
    const start = clock.now

    const first = await put({ updatedAt: null, thresholds: { gestationDays: 116 } })
    assert.equal(first.statusCode, 200, first.body)
    assert.equal(first.json().data.updatedAt, start)
    const second = await put({ updatedAt: start, thresholds: { gestationDays: 117 } })
    assert.equal(second.statusCode, 200, second.body)
    assert.equal(second.json().data.updatedAt, start + 1, 'the same millisecond: one past the last write')

    assertError(await put({ updatedAt: start, thresholds: { gestationDays: 120 } }), 409, CHANGED)
    assertError(await put({ updatedAt: null }), 409, CHANGED)
    assertError(await put({ updatedAt: start + 2 }), 409, CHANGED)

    clock.advance(60)
    const third = await put({ updatedAt: start + 1, thresholds: { gestationDays: 118 } })
    assert.equal(third.statusCode, 200, third.body)
    assert.equal(third.json().data.updatedAt, start + 60_000, "the clock's time once it is past the last write")
    assert.equal(third.json().data.thresholds.gestationDays, 118)
  })
})
