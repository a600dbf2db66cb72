// A refresh token presented twice at nearly the same moment (a stolen copy racing its owner): the loser is
// told every token of the session is revoked, and then no token of that session may work, including what
// the winner's rotation issued while the revocation ran. Likewise a logout that races a rotation. Twenty
// rounds (ten of the logout) each at 0 ms and 2 ms apart, on the store the suite runs on, over a real port
// (inject runs the two requests too much in step to show the race).
import assert from 'node:assert/strict'
import type { AddressInfo } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import { after, before, describe, it } from 'node:test'
import { createTestApp, type TestContext } from '../support/app.ts'
import { bearer, createIntegrator, createUser, integratorToken, userToken } from '../support/fixtures.ts'
import { REUSED_REFRESH_TOKEN } from '../../src/modules/tokens/token-lifecycle.ts'

let ctx: TestContext
let email: string
let integratorUid: string
let base: string

before(async () => {
  ctx = await createTestApp()
  email = (await createUser(ctx)).email
  integratorUid = (await createIntegrator(ctx)).uid
  await ctx.app.listen({ port: 0, host: '127.0.0.1' })
  base = `http://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}/api/v1`
})
after(() => ctx.close())

const ROUNDS = 20
/** A user's login costs a password hash: fewer rounds of the logout race keep the file short. */
const LOGOUT_ROUNDS = 10

interface Answer {
  statusCode: number
  body: string
  json: () => any
}

async function call(method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<Answer> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  const text = await res.text()
  return { statusCode: res.status, body: text, json: () => JSON.parse(text) }
}
const refresh = (refreshToken: string) => call('POST', '/tokens/refresh', {}, { refreshToken })
const validate = (accessToken: string) => call('GET', '/tokens/validate', bearer(accessToken))
const logout = (accessToken: string) => call('POST', '/tokens/logout', bearer(accessToken))

/** Two calls, the second `gapMs` after the first (0: in the same turn). */
async function twoApart<T>(gapMs: number, first: () => Promise<T>, second: () => Promise<T>): Promise<[T, T]> {
  const a = first()
  if (gapMs > 0) await sleep(gapMs)
  return Promise.all([a, second()])
}

/**
 * Which tokens still work: the session's first access token, and what the rotation issued (its access token
 * validates, its refresh token rotates). The first refresh token is not presented again: a reuse would revoke
 * the family afresh and hide what the race left.
 */
async function survivors(firstAccessToken: string, issued: { accessToken: string; refreshToken: string }[]) {
  const alive: string[] = []
  if ((await validate(firstAccessToken)).statusCode === 200) alive.push('the first access token')
  for (const tokens of issued) {
    if ((await validate(tokens.accessToken)).statusCode === 200) alive.push("the rotation's access token")
    if ((await refresh(tokens.refreshToken)).statusCode === 200) alive.push("the rotation's refresh token")
  }
  return alive
}

describe('refresh-token reuse racing a rotation', () => {
  for (const gapMs of [0, 2]) {
    it(`two presentations ${gapMs} ms apart: one rotates, the other is told of reuse, and then no token of the session works (${ROUNDS} rounds)`, async (t) => {
      const leaked: string[] = []
      for (let round = 1; round <= ROUNDS; round++) {
        const session = await integratorToken(ctx, integratorUid, { refreshToken: true })
        const results = await twoApart(
          gapMs,
          () => refresh(session.refreshToken!),
          () => refresh(session.refreshToken!),
        )
        const statuses = results.map((r) => r.statusCode).sort()
        assert.deepEqual(statuses, [200, 401], `round ${round}: ${results.map((r) => r.body).join(' | ')}`)
        assert.equal(results.find((r) => r.statusCode === 401)!.json().error, REUSED_REFRESH_TOKEN)
        const issued = results.filter((r) => r.statusCode === 200).map((r) => r.json().data)
        const alive = await survivors(session.accessToken, issued)
        if (alive.length > 0) leaked.push(`round ${round}: ${alive.join(', ')}`)
      }
      t.diagnostic(`rounds that leaked a working token: ${leaked.length} of ${ROUNDS}`)
      assert.deepEqual(leaked, [])
    })

    it(`a logout and a rotation of its session ${gapMs} ms apart: afterwards no token of the session works (${LOGOUT_ROUNDS} rounds)`, async (t) => {
      const leaked: string[] = []
      for (let round = 1; round <= LOGOUT_ROUNDS; round++) {
        const session = await userToken(ctx, email)
        const [rotated, loggedOut] = await twoApart(
          gapMs,
          () => refresh(session.refreshToken),
          () => logout(session.accessToken),
        )
        assert.equal(loggedOut.statusCode, 200, loggedOut.body)
        const issued = rotated.statusCode === 200 ? [rotated.json().data] : []
        const alive = await survivors(session.accessToken, issued)
        if (alive.length > 0) leaked.push(`round ${round}: ${alive.join(', ')}`)
      }
      t.diagnostic(`rounds that leaked a working token: ${leaked.length} of ${LOGOUT_ROUNDS}`)
      assert.deepEqual(leaked, [])
    })
  }
})
