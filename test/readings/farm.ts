// A farm for the readings tests: an owner, a linked Pro integrator that may write, and animals.
import assert from 'node:assert/strict'
import type { TestContext } from '../support/app.ts'
import { bearer, createIntegrator, createUser, integratorToken } from '../support/fixtures.ts'

let macCounter = 0
export function nextMac(): string {
  macCounter++
  return `AA:BB:${(macCounter >> 8).toString(16).padStart(2, '0').toUpperCase()}:${(macCounter & 255).toString(16).padStart(2, '0').toUpperCase()}:00:01`
}

export type Res = { statusCode: number; json: () => any; body: string }

export { assertError } from '../support/assertions.ts'

export async function readingsFarm(ctx: TestContext) {
  const user = await createUser(ctx)
  const integrator = await createIntegrator(ctx, { tier: 'pro', canWrite: true, canDelete: true, linkTo: [user.uid] })
  const headers = bearer((await integratorToken(ctx, integrator.uid)).accessToken)
  const base = `/api/v1/users/${user.uid}/animals`
  const inject = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, payload?: unknown) =>
    ctx.app.inject({
      method,
      url: `${base}${path}`,
      headers,
      ...(payload !== undefined ? { payload: payload as object } : {}),
    })
  const animal = async (mac = nextMac()) => {
    const res = await inject('POST', '', { MAC: mac, Sex: 'female' })
    assert.equal(res.statusCode, 201, res.body)
    return res.json().data as { ID: string; MAC: string }
  }
  return { user, integrator, headers, base, inject, animal }
}
