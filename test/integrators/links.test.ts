import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createTestApp, type TestContext } from '../support/app.ts'
import { bearer, createIntegrator, createUser, integratorToken, userToken } from '../support/fixtures.ts'
import { assertError } from '../support/assertions.ts'
import { eventually } from '../support/eventually.ts'
import { link } from '../../src/modules/integrators/integrators.repository.ts'

let ctx: TestContext
before(async () => {
  ctx = await createTestApp()
})
after(() => ctx.close())

describe('POST /partners/link and DELETE /partners/link/<integrator_uid>', () => {
  it('the owner links an integrator; the integrators array reflects it; linking twice changes nothing', async () => {
    const user = await createUser(ctx)
    const a = await createIntegrator(ctx)
    const b = await createIntegrator(ctx)
    const { accessToken } = await userToken(ctx, user.email)
    const link = (integratorUID: string) =>
      ctx.app.inject({
        method: 'POST',
        url: '/api/v1/partners/link',
        payload: { integratorUID },
        headers: bearer(accessToken),
      })
    const first = await link(a.uid)
    assert.equal(first.statusCode, 200)
    assert.deepEqual(first.json().data, { integrators: [a.uid] })
    assert.deepEqual((await link(b.uid)).json().data.integrators.sort(), [a.uid, b.uid].sort())
    assert.deepEqual((await link(a.uid)).json().data.integrators.sort(), [a.uid, b.uid].sort())

    const unlink = await ctx.app.inject({
      method: 'DELETE',
      url: `/api/v1/partners/link/${a.uid}`,
      headers: bearer(accessToken),
    })
    assert.equal(unlink.statusCode, 200)
    assert.deepEqual(unlink.json().data, { integrators: [b.uid] })
    const again = await ctx.app.inject({
      method: 'DELETE',
      url: `/api/v1/partners/link/${a.uid}`,
      headers: bearer(accessToken),
    })
    assertError(again, 404, 'Link not found')
  })

  it('refuses an integrator token: an integrator cannot link itself', async () => {
    const integrator = await createIntegrator(ctx)
    const { accessToken } = await integratorToken(ctx, integrator.uid)
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/partners/link',
      payload: { integratorUID: integrator.uid },
      headers: bearer(accessToken),
    })
    assertError(res, 403, 'This endpoint requires a user token')
    const del = await ctx.app.inject({
      method: 'DELETE',
      url: `/api/v1/partners/link/${integrator.uid}`,
      headers: bearer(accessToken),
    })
    assertError(del, 403, 'This endpoint requires a user token')
  })

  it('gives an unknown and an inactive integrator the same 404', async () => {
    const user = await createUser(ctx)
    const inactive = await createIntegrator(ctx, { active: false })
    const { accessToken } = await userToken(ctx, user.email)
    for (const integratorUID of ['int_unknown', inactive.uid]) {
      const res = await ctx.app.inject({
        method: 'POST',
        url: '/api/v1/partners/link',
        payload: { integratorUID },
        headers: bearer(accessToken),
      })
      assertError(res, 404, 'Integrator not found')
    }
  })

  it('refuses bad bodies and missing tokens', async () => {
    const user = await createUser(ctx)
    const { accessToken } = await userToken(ctx, user.email)
    for (const payload of [{}, { integratorUID: '' }, { integratorUID: 5 }, { integratorUID: 'x', extra: 1 }]) {
      const res = await ctx.app.inject({
        method: 'POST',
        url: '/api/v1/partners/link',
        payload,
        headers: bearer(accessToken),
      })
      assertError(res, 400, 'Validation failed')
    }
    const none = await ctx.app.inject({ method: 'POST', url: '/api/v1/partners/link', payload: { integratorUID: 'x' } })
    assertError(none, 401, 'Authorization header is required')
    // authentication comes before body validation: no token, bad body → still 401
    const noneBadBody = await ctx.app.inject({ method: 'POST', url: '/api/v1/partners/link', payload: { wrong: true } })
    assertError(noneBadBody, 401, 'Authorization header is required')
  })
})

describe('GET /users/<user_id>/integrators', () => {
  it("shows the owner who can reach the farm's data: name, contact, permissions, the link, the last request", async () => {
    const user = await createUser(ctx)
    const reader = await createIntegrator(ctx, { linkTo: [user.uid] })
    const writer = await createIntegrator(ctx, { canWrite: true, active: false })
    const unlinked = await createIntegrator(ctx)
    const owner = bearer((await userToken(ctx, user.email)).accessToken)
    const linked = await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/partners/link',
      payload: { integratorUID: writer.uid },
      headers: owner,
    })
    // An inactive integrator cannot be linked by the owner; the operator's link (below) can hold one.
    assertError(linked, 404, 'Integrator not found')
    await link(ctx.database.db, user.uid, writer.uid, 'operator')
    // The reader reads the farm once: its last request.
    const readerHeaders = bearer((await integratorToken(ctx, reader.uid)).accessToken)
    const read = await ctx.app.inject({
      method: 'GET',
      url: `/api/v1/users/${user.uid}/animals`,
      headers: readerHeaders,
    })
    assert.equal(read.statusCode, 200, read.body)

    const url = `/api/v1/users/${user.uid}/integrators`
    const list = async () => {
      const res = await ctx.app.inject({ method: 'GET', url, headers: owner })
      assert.equal(res.statusCode, 200, res.body)
      return res.json().data as Record<string, any>[]
    }
    const integrators = await eventually(list, (rows) => rows[0]?.lastRequestAt !== null, "the reader's request logged")
    assert.deepEqual(
      integrators.map((i) => i.integratorUID),
      [reader.uid, writer.uid],
    )
    const [first, second] = integrators
    assert.equal(first!.name, `Vendor ${reader.uid}`)
    assert.equal(first!.email, `${reader.uid}@vendor.example`)
    assert.deepEqual(first!.permissions, { canRead: true, canWrite: false, canDelete: false })
    assert.equal(first!.isActive, true)
    assert.equal(first!.linkedBy, 'operator')
    assert.ok(Math.abs(Date.parse(first!.lastRequestAt) - Date.now()) < 60_000, first!.lastRequestAt)
    assert.ok(Date.parse(first!.linkedAt) <= Date.now())
    assert.deepEqual(second!.permissions, { canRead: true, canWrite: true, canDelete: false })
    assert.equal(second!.isActive, false)
    assert.equal(second!.lastRequestAt, null)
    assert.equal(
      integrators.some((i) => i.integratorUID === unlinked.uid),
      false,
    )

    // The owner's user token only: not a linked integrator, not another farm, not anonymous.
    const other = await createUser(ctx)
    const otherOwner = bearer((await userToken(ctx, other.email)).accessToken)
    assert.equal((await ctx.app.inject({ method: 'GET', url, headers: readerHeaders })).statusCode, 403)
    assert.equal((await ctx.app.inject({ method: 'GET', url, headers: otherOwner })).statusCode, 403)
    assertError(await ctx.app.inject({ method: 'GET', url }), 401, 'Authorization header is required')
    // A farm with none: an empty list; a query parameter it does not take: 400.
    const empty = await ctx.app.inject({
      method: 'GET',
      url: `/api/v1/users/${other.uid}/integrators`,
      headers: otherOwner,
    })
    assert.deepEqual(empty.json().data, [])
    const unknown = await ctx.app.inject({ method: 'GET', url: `${url}?limit=5`, headers: owner })
    assert.equal(unknown.statusCode, 400)
  })
})
