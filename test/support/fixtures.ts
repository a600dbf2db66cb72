// Accounts and tokens for tests, created through the repositories (the CLI has tests of its own); animals through the API.
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import type { TestContext } from './app.ts'
import { insertUser } from '../../src/modules/users/users.repository.ts'
import { hashPassword } from '../../src/modules/users/passwords.ts'
import { insertIntegrator, link } from '../../src/modules/integrators/integrators.repository.ts'
import { hashClientSecret } from '../../src/modules/integrators/client-secrets.ts'
import type { Tier } from '../../src/auth/tiers.ts'
import type { components, operations } from '../../clients/typescript/src/schema.d.ts'

export type Animal = components['schemas']['Animal']
export type AnimalFields = operations['createAnimal']['requestBody']['content']['application/json']

export const PASSWORD = 'correct horse battery staple'

export function uniqueId(prefix: string): string {
  return `${prefix}-${randomBytes(5).toString('hex')}`
}

export async function createUser(
  ctx: TestContext,
  options: { bdUser?: boolean; admin?: boolean; inactive?: boolean; password?: string | null } = {},
) {
  const uid = uniqueId('user')
  const password = options.password === undefined ? PASSWORD : options.password
  const row = await insertUser(ctx.database.db, {
    uid,
    email: `${uid}@farm.example`,
    name: `Farm ${uid}`,
    language: 'en',
    bd_user: options.bdUser ?? false,
    admin: options.admin ?? false,
    inactive: options.inactive ?? false,
    password_hash: password ? await hashPassword(password, ctx.config.passwordScryptLogN) : null,
  })
  return { uid, email: row.email, password }
}

/**
 * An integrator row. Without `clientSecret` it is one of the operator's --no-secret integrators (the bare
 * {integratorUID} flow), which keeps the many token tests short; the secret flow has tests of its own.
 */
export async function createIntegrator(
  ctx: TestContext,
  options: {
    tier?: Tier
    active?: boolean
    canWrite?: boolean
    canDelete?: boolean
    canRead?: boolean
    clientSecret?: string
    linkTo?: string[]
  } = {},
) {
  const uid = uniqueId('int')
  await insertIntegrator(ctx.database.db, {
    uid,
    email: `${uid}@vendor.example`,
    name: `Vendor ${uid}`,
    tier: options.tier ?? 'pro',
    is_active: options.active ?? true,
    can_read: options.canRead ?? true,
    can_write: options.canWrite ?? false,
    can_delete: options.canDelete ?? false,
    client_secret_hash: options.clientSecret ? hashClientSecret(options.clientSecret) : null,
  })
  for (const userUid of options.linkTo ?? []) await link(ctx.database.db, userUid, uid, 'operator')
  return { uid, clientSecret: options.clientSecret }
}

export async function integratorToken(ctx: TestContext, integratorUID: string, body: Record<string, unknown> = {}) {
  const res = await ctx.app.inject({ method: 'POST', url: '/api/v1/tokens', payload: { integratorUID, ...body } })
  if (res.statusCode !== 200) throw new Error(`POST /tokens failed: ${res.statusCode} ${res.body}`)
  return res.json().data as { accessToken: string; refreshToken?: string; expiresAt: number; integratorUID: string }
}

export async function userToken(ctx: TestContext, email: string, password = PASSWORD) {
  const res = await ctx.app.inject({ method: 'POST', url: '/api/v1/tokens/login', payload: { email, password } })
  if (res.statusCode !== 200) throw new Error(`POST /tokens/login failed: ${res.statusCode} ${res.body}`)
  return res.json().data as { accessToken: string; refreshToken: string; expiresAt: number; uid: string }
}

/** Registers an animal through the API (for tests whose subject is not the create route itself); returns it as stored. */
export async function addAnimal(ctx: TestContext, uid: string, headers: Record<string, string>, fields: AnimalFields) {
  const res = await ctx.app.inject({ method: 'POST', url: `/api/v1/users/${uid}/animals`, headers, payload: fields })
  assert.equal(res.statusCode, 201, res.body)
  return res.json().data as Animal
}

export function bearer(token: string) {
  return { authorization: `Bearer ${token}` }
}

/** A settable clock for expiry tests: no sleeping. */
export function manualClock(start = Date.now()) {
  const clock = {
    now: start,
    advance: (seconds: number) => {
      clock.now += seconds * 1000
    },
  }
  return clock
}
