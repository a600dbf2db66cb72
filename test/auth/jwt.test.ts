// Store-independent: runs in the embedded pass of npm test only (test/run.ts).
// TokenSigner keeps access tokens it has verified (auth/jwt.ts): what the cache must never change.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { TokenError, TokenSigner } from '../../src/auth/jwt.ts'

const SECRET = 'a-test-secret-of-more-than-32-bytes-0123456789'

function signer(clock: () => number, secret = SECRET) {
  return new TokenSigner({ secret, issuer: 'livestock-api', audience: 'livestock-api', clock })
}

test('a verified access token still expires on time when it is presented again', async () => {
  let now = Date.UTC(2026, 0, 1)
  const tokens = signer(() => now)
  const { token, exp } = await tokens.sign({ kind: 'integrator', id: 'int_a' }, 'access', 300)
  assert.equal((await tokens.verify(token, 'access')).exp, exp)
  now = exp * 1000 - 1
  assert.equal((await tokens.verify(token, 'access')).subject.id, 'int_a')
  now = exp * 1000
  await assert.rejects(
    tokens.verify(token, 'access'),
    (err: unknown) => err instanceof TokenError && err.reason === 'expired',
  )
  await assert.rejects(
    tokens.verify(token, 'access'),
    (err: unknown) => err instanceof TokenError && err.reason === 'expired',
  )
})

test('a verified access token is no refresh token, and an altered copy of it is verified afresh', async () => {
  const tokens = signer(Date.now)
  const { token } = await tokens.sign({ kind: 'user', id: 'farm-1' }, 'access', 300)
  await tokens.verify(token, 'access')
  await assert.rejects(tokens.verify(token, 'refresh'), TokenError)
  const [header, payload, signature] = token.split('.')
  const forged = Buffer.from(
    JSON.stringify({ ...JSON.parse(Buffer.from(payload!, 'base64url').toString()), sub: 'farm-2' }),
  ).toString('base64url')
  await assert.rejects(tokens.verify(`${header}.${forged}.${signature}`, 'access'), TokenError)
  await assert.rejects(signer(Date.now, `${SECRET}-other`).verify(token, 'access'), TokenError)
})

test('the verified token handed out cannot be changed by one request for the next', async () => {
  const tokens = signer(Date.now)
  const { token } = await tokens.sign({ kind: 'integrator', id: 'int_a' }, 'access', 300)
  const first = await tokens.verify(token, 'access')
  assert.throws(() => {
    ;(first.subject as { id: string }).id = 'int_b'
  }, TypeError)
  assert.equal((await tokens.verify(token, 'access')).subject.id, 'int_a')
})

test('imports its key once, however many tokens it signs and verifies', async (t) => {
  const importKey = t.mock.method(crypto.subtle, 'importKey')
  const tokens = signer(Date.now)
  for (let i = 0; i < 3; i++) {
    const { token } = await tokens.sign({ kind: 'integrator', id: `int_${i}` }, 'access', 300)
    await tokens.verify(token, 'access')
    const refresh = await tokens.sign({ kind: 'integrator', id: `int_${i}` }, 'refresh', 300)
    await tokens.verify(refresh.token, 'refresh')
  }
  assert.equal(importKey.mock.callCount(), 1)
})
