import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createTestApp, type TestContext } from '../support/app.ts'
import { bearer, createIntegrator, createUser, integratorToken, userToken } from '../support/fixtures.ts'
import { assertError } from '../support/assertions.ts'

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
