// The access matrix: every route × every kind of caller → the expected status and error text.
// Routes come from routes.ts (and must cover every route the app has); callers are built below.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { SignJWT } from 'jose'
import { createTestApp, type TestContext } from '../support/app.ts'
import { createIntegrator, createUser } from '../support/fixtures.ts'
import { MATRIX_DEVICE_MAC, MATRIX_MAC, recordFixtures, routes, type Rule, type RouteCase } from './routes.ts'
import { AUTH_ERRORS } from '../../src/auth/errors.ts'
import { TokenSigner, type Subject } from '../../src/auth/jwt.ts'
import { updateIntegrator } from '../../src/modules/integrators/integrators.repository.ts'
import { ok } from '../../src/http/envelope.ts'
import type { App } from '../../src/types.ts'
import { insertAnimal } from '../../src/modules/animals/animals.repository.ts'
import { createIdSource } from '../../src/db/ids.ts'
import { insertLitterguard } from '../../src/modules/litterguards/litterguards.repository.ts'
import { recordEvent } from '../../src/modules/events/events.repository.ts'

type Expect = { status: number; error: string } | 'allowed'

interface Caller {
  name: string
  /** Headers of one request; valid callers get a fresh token each time (some routes revoke theirs). */
  headers: () => Promise<Record<string, string>>
  expect: (rule: Rule, method: string) => Expect
}

// Probe routes for rules that no real route uses yet; real routes of later issues join routes.ts.
function probeRoutes(api: App) {
  const handler = async () => ok({ reached: true })
  for (const method of ['GET', 'POST', 'PATCH', 'DELETE'] as const) {
    api.route({ method, url: '/probe/users/:userId/own', config: { access: 'own' }, handler })
  }
  for (const method of ['GET', 'POST'] as const) {
    api.route({ method, url: '/probe/users/:userId/sensordata', config: { access: 'sensorData' }, handler })
  }
  api.get('/probe/admin', { config: { access: 'admin' } }, handler)
  api.get('/probe/bduser', { config: { access: 'bdUser' } }, handler)
}
const probes: RouteCase[] = [
  ...(['GET', 'POST', 'PATCH', 'DELETE'] as const).map((method) => ({
    method,
    url: '/api/v1/probe/users/:userId/own',
    rule: 'own' as const,
  })),
  ...(['GET', 'POST'] as const).map((method) => ({
    method,
    url: '/api/v1/probe/users/:userId/sensordata',
    rule: 'sensorData' as const,
  })),
  { method: 'GET', url: '/api/v1/probe/admin', rule: 'admin' },
  { method: 'GET', url: '/api/v1/probe/bduser', rule: 'bdUser' },
]

const denied = (status: number, error: string): Expect => ({ status, error })
const WRITE = new Set(['POST', 'PUT', 'PATCH'])

let ctx: TestContext
let callers: Caller[]
let ownerUid: string
let someIntegratorUid: string
/** The owner's animal (MATRIX_MAC), for :animalId and :animalMac. */
let animalId: string
/** A record of each collection and level, for the record item routes: "user:births" → its ID. */
const recordIds = new Map<string, string>()
let eventId: string
/** The app on a real port, for the routes whose answer is a stream (inject waits for a response's end). */
let streamBase: string
let ownerEmail: string
/** Puts the owner back, with its links, after a route that deleted it. */
let restoreOwner: () => Promise<void>

before(async () => {
  ctx = await createTestApp({ extend: probeRoutes })
  const signer = ctx.app.tokens
  const mint = async (subject: Subject) => (await signer.sign(subject, 'access', 600)).token
  const auth = (token: string) => ({ authorization: `Bearer ${token}` })

  const owner = await createUser(ctx)
  const other = await createUser(ctx)
  const admin = await createUser(ctx, { admin: true })
  const bd = await createUser(ctx, { bdUser: true })
  ownerUid = owner.uid
  const linked = await createIntegrator(ctx, { tier: 'pro', canWrite: true, canDelete: true, linkTo: [owner.uid] })
  const readOnly = await createIntegrator(ctx, { tier: 'pro', linkTo: [owner.uid] })
  const unlinked = await createIntegrator(ctx, { tier: 'enterprise', canWrite: true, canDelete: true })
  const inactive = await createIntegrator(ctx, { tier: 'pro', canWrite: true, canDelete: true, linkTo: [owner.uid] })
  const tiers = Object.fromEntries(
    await Promise.all(
      (['free', 'starter', 'pro', 'enterprise'] as const).map(async (tier) => [
        tier,
        await createIntegrator(ctx, { tier, canWrite: true, canDelete: true, linkTo: [owner.uid] }),
      ]),
    ),
  )
  // The integrator the partner routes link and unlink: none of the callers, so the matrix cannot change their links.
  someIntegratorUid = (await createIntegrator(ctx)).uid
  animalId = String(
    (await insertAnimal(ctx.database.db, owner.uid, { MAC: MATRIX_MAC, Sex: 'female' }, createIdSource(Date.now))).id,
  )
  await insertLitterguard(ctx.database.db, owner.uid, { MAC: MATRIX_DEVICE_MAC, Name: 'Matrix device' }, Date.now())
  const event = await recordEvent(ctx.database.db, {
    uid: owner.uid,
    type: 'tag-silent',
    mac: MATRIX_MAC,
    animalId: Number(animalId),
    value: 90,
    t: Date.now(),
    evidence: {},
    episodeKey: 'matrix',
    createdAt: Date.now(),
  })
  eventId = String(event!.id)
  ownerEmail = owner.email
  const ownerToken = await mint({ kind: 'user', id: owner.uid })
  for (const fixture of recordFixtures) {
    const res = await ctx.app.inject({
      method: 'POST',
      url: `/api/v1/users/${owner.uid}${fixture.path}`,
      headers: auth(ownerToken),
      payload: fixture.body(owner.uid),
    })
    if (res.statusCode !== 201) throw new Error(`record fixture ${fixture.path}: ${res.statusCode} ${res.body}`)
    recordIds.set(`${fixture.level}:${fixture.segment}`, res.json().data.ID as string)
  }
  const db = ctx.database.db
  const ownerRow = await db.selectFrom('users').selectAll().where('uid', '=', owner.uid).executeTakeFirstOrThrow()
  const ownerLinks = await db.selectFrom('user_integrator_links').selectAll().where('uid', '=', owner.uid).execute()
  restoreOwner = async () => {
    await db
      .insertInto('users')
      .values({ ...ownerRow, integration_flags: JSON.stringify(ownerRow.integration_flags) })
      .onConflict((oc) => oc.column('uid').doNothing())
      .execute()
    await db
      .insertInto('user_integrator_links')
      .values(ownerLinks)
      .onConflict((oc) => oc.columns(['uid', 'integrator_uid']).doNothing())
      .execute()
  }

  const inactiveToken = await mint({ kind: 'integrator', id: inactive.uid })
  await updateIntegrator(ctx.database.db, inactive.uid, { is_active: false })

  const revoked = await ctx.app.inject({
    method: 'POST',
    url: '/api/v1/tokens',
    payload: { integratorUID: linked.uid },
  })
  const revokedToken = revoked.json().data.accessToken as string
  await ctx.app.inject({ method: 'POST', url: '/api/v1/tokens/revoke', headers: auth(revokedToken) })
  const refreshToken = (
    await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/tokens',
      payload: { integratorUID: linked.uid, refreshToken: true },
    })
  ).json().data.refreshToken as string

  const past = new TokenSigner({
    secret: ctx.config.jwtSecret!,
    issuer: ctx.config.jwtIssuer,
    audience: ctx.config.jwtAudience,
    clock: () => Date.now() - 7200_000,
  })
  const expiredToken = (await past.sign({ kind: 'integrator', id: linked.uid }, 'access', 3600)).token
  const foreign = new TokenSigner({
    secret: 'another-key-another-key-another-key!!',
    issuer: ctx.config.jwtIssuer,
    audience: ctx.config.jwtAudience,
    clock: Date.now,
  })
  const otherKeyToken = (await foreign.sign({ kind: 'integrator', id: linked.uid }, 'access', 600)).token
  const valid = await mint({ kind: 'integrator', id: readOnly.uid })
  const [h, , s] = valid.split('.')
  const forgedPayload = Buffer.from(
    JSON.stringify({
      integratorUID: linked.uid,
      type: 'access',
      iss: ctx.config.jwtIssuer,
      aud: ctx.config.jwtAudience,
      jti: 'x',
      iat: Math.floor(Date.now() / 1000),
      exp: Math.floor(Date.now() / 1000) + 600,
    }),
  ).toString('base64url')
  const tamperedToken = `${h}.${forgedPayload}.${s}`
  const noneHeader = Buffer.from(JSON.stringify({ alg: 'none', typ: 'at+jwt' })).toString('base64url')
  const algNoneToken = `${noneHeader}.${forgedPayload}.`
  // HS256 with the public, guessable string "secret": a classic forgery attempt.
  const weakKeyToken = await new SignJWT({ integratorUID: linked.uid, type: 'access' })
    .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt' })
    .setIssuer(ctx.config.jwtIssuer)
    .setAudience(ctx.config.jwtAudience)
    .setJti('y')
    .setIssuedAt()
    .setExpirationTime('10m')
    .sign(new TextEncoder().encode('secret'))

  const fixed = (headers: Record<string, string>) => async () => headers
  const invalid =
    (error: string, status = 401) =>
    (rule: Rule): Expect =>
      rule === 'public' || rule === 'metrics' ? 'allowed' : denied(status, error)

  const asUser =
    (uid: string, flags: { admin?: boolean; bd?: boolean }) =>
    (rule: Rule): Expect => {
      switch (rule) {
        case 'public':
        case 'metrics':
        case 'bearer':
        case 'userToken':
          return 'allowed'
        case 'integratorToken':
          return denied(403, AUTH_ERRORS.integratorTokenOnly)
        case 'own':
        case 'self':
          return uid === owner.uid ? 'allowed' : denied(403, AUTH_ERRORS.notOwner)
        case 'sensorData':
          return denied(403, AUTH_ERRORS.sensorUserToken)
        case 'admin':
          return flags.admin ? 'allowed' : denied(403, AUTH_ERRORS.adminOnly)
        case 'bdUser':
          return flags.bd ? 'allowed' : denied(403, AUTH_ERRORS.bdUserOnly)
      }
    }
  const asIntegrator =
    (opts: { linked: boolean; tier: string; canWrite: boolean; canDelete: boolean }) =>
    (rule: Rule, method: string): Expect => {
      const permission = () => {
        if (method === 'DELETE' && !opts.canDelete) return denied(403, AUTH_ERRORS.noDelete)
        if (WRITE.has(method) && !opts.canWrite) return denied(403, AUTH_ERRORS.noWrite)
        return 'allowed' as const
      }
      switch (rule) {
        case 'public':
        case 'metrics':
        case 'bearer':
        case 'integratorToken':
          return 'allowed'
        case 'userToken':
        case 'self':
          return denied(403, AUTH_ERRORS.userTokenOnly)
        case 'own':
          return opts.linked ? permission() : denied(403, AUTH_ERRORS.notLinked)
        case 'sensorData':
          if (opts.tier !== 'pro' && opts.tier !== 'enterprise') return denied(403, AUTH_ERRORS.sensorTier)
          return opts.linked ? permission() : denied(403, AUTH_ERRORS.notLinked)
        case 'admin':
          return denied(403, AUTH_ERRORS.adminOnly)
        case 'bdUser':
          return denied(403, AUTH_ERRORS.bdUserOnly)
      }
    }

  callers = [
    { name: 'no Authorization header', headers: fixed({}), expect: invalid(AUTH_ERRORS.missingHeader) },
    {
      name: 'malformed header: Basic',
      headers: fixed({ authorization: 'Basic dXNlcjpwYXNz' }),
      expect: invalid(AUTH_ERRORS.invalidToken),
    },
    {
      name: 'malformed header: Bearer without token',
      headers: fixed({ authorization: 'Bearer' }),
      expect: invalid(AUTH_ERRORS.invalidToken),
    },
    {
      name: 'malformed header: not a JWT',
      headers: fixed({ authorization: 'Bearer abc.def' }),
      expect: invalid(AUTH_ERRORS.invalidToken),
    },
    {
      name: 'owner user',
      headers: async () => auth(await mint({ kind: 'user', id: owner.uid })),
      expect: asUser(owner.uid, {}),
    },
    {
      name: 'other user',
      headers: async () => auth(await mint({ kind: 'user', id: other.uid })),
      expect: asUser(other.uid, {}),
    },
    {
      name: 'admin user (not owner)',
      headers: async () => auth(await mint({ kind: 'user', id: admin.uid })),
      expect: asUser(admin.uid, { admin: true }),
    },
    {
      name: 'BDUser (not owner)',
      headers: async () => auth(await mint({ kind: 'user', id: bd.uid })),
      expect: asUser(bd.uid, { bd: true }),
    },
    {
      name: 'linked integrator (read, write, delete)',
      headers: async () => auth(await mint({ kind: 'integrator', id: linked.uid })),
      expect: asIntegrator({ linked: true, tier: 'pro', canWrite: true, canDelete: true }),
    },
    {
      name: 'linked integrator (read only)',
      headers: async () => auth(await mint({ kind: 'integrator', id: readOnly.uid })),
      expect: asIntegrator({ linked: true, tier: 'pro', canWrite: false, canDelete: false }),
    },
    {
      name: 'unlinked integrator',
      headers: async () => auth(await mint({ kind: 'integrator', id: unlinked.uid })),
      expect: asIntegrator({ linked: false, tier: 'enterprise', canWrite: true, canDelete: true }),
    },
    {
      name: 'inactive integrator',
      headers: fixed(auth(inactiveToken)),
      expect: invalid(AUTH_ERRORS.inactiveIntegrator, 403),
    },
    ...(['free', 'starter', 'pro', 'enterprise'] as const).map((tier) => ({
      name: `${tier} tier (linked)`,
      headers: async () => auth(await mint({ kind: 'integrator', id: tiers[tier]!.uid })),
      expect: asIntegrator({ linked: true, tier, canWrite: true, canDelete: true }),
    })),
    { name: 'expired token', headers: fixed(auth(expiredToken)), expect: invalid(AUTH_ERRORS.expired) },
    { name: 'revoked token', headers: fixed(auth(revokedToken)), expect: invalid(AUTH_ERRORS.revoked) },
    {
      name: 'refresh token used as bearer',
      headers: fixed(auth(refreshToken)),
      expect: invalid(AUTH_ERRORS.invalidToken),
    },
    { name: 'signature tampered', headers: fixed(auth(tamperedToken)), expect: invalid(AUTH_ERRORS.invalidToken) },
    { name: 'alg: none', headers: fixed(auth(algNoneToken)), expect: invalid(AUTH_ERRORS.invalidToken) },
    { name: 'signed with another key', headers: fixed(auth(otherKeyToken)), expect: invalid(AUTH_ERRORS.invalidToken) },
    {
      name: 'signed with a guessable key',
      headers: fixed(auth(weakKeyToken)),
      expect: invalid(AUTH_ERRORS.invalidToken),
    },
  ]
})
after(() => ctx.close())

function fillPath(url: string): string {
  const record = /\/(animals\/:animalMac\/)?([a-z-]+)\/:[A-Za-z]+Id$/.exec(url)
  const filled =
    record && recordIds.has(`${record[1] ? 'animal' : 'user'}:${record[2]}`)
      ? url.replace(/:[A-Za-z]+Id$/, recordIds.get(`${record[1] ? 'animal' : 'user'}:${record[2]}`)!)
      : url
  return filled
    .replace(':userId', ownerUid)
    .replace(':integratorUid', someIntegratorUid)
    .replace(':animalId', animalId)
    .replace(':animalMac', MATRIX_MAC)
    .replace(':classificationType', 'birth')
    .replace(':macAddress', MATRIX_DEVICE_MAC)
    .replace(':eventId', eventId)
    .replace(':subscriptionId', 'whs_matrix')
    .replace(':file', 'manifest.webmanifest')
}

const AFTER_EARLIER_WRITE = new Set([404, 409])

/** Whether the OpenAPI document lists this status for the route. */
function documents(route: RouteCase, status: number): boolean {
  const doc = ctx.app.swagger() as { paths: Record<string, Record<string, { responses?: Record<string, unknown> }>> }
  const path = route.url.split('?')[0]!.replace(/:([A-Za-z]+)/g, '{$1}')
  return doc.paths[path]?.[route.method.toLowerCase()]?.responses?.[String(status)] !== undefined
}

async function request(route: RouteCase, headers: Record<string, string>) {
  if (route.stream) return requestStream(route, headers)
  const body = route.body?.({ integratorUid: someIntegratorUid, userEmail: ownerEmail, userUid: ownerUid })
  return ctx.app.inject({
    method: route.method,
    url: fillPath(route.url),
    headers,
    ...(body !== undefined ? { payload: body as object } : {}),
  })
}

/** A stream route over the network: its status and headers, and the body of a refusal (an open stream is left at once). */
async function requestStream(route: RouteCase, headers: Record<string, string>) {
  streamBase ??= await ctx.app.listen({ port: 0, host: '127.0.0.1' })
  const abort = new AbortController()
  const res = await fetch(`${streamBase}${fillPath(route.url)}`, { headers, signal: abort.signal })
  const type = res.headers.get('content-type') ?? ''
  const text = type.includes('json') ? await res.text() : ''
  abort.abort()
  return { statusCode: res.status, headers: { 'content-type': type }, json: <T>() => JSON.parse(text) as T }
}

describe('access matrix', () => {
  it('covers every route of the app', () => {
    const known = new Set([...routes, ...probes].map((r) => `${r.method} ${r.url.split('?')[0]}`))
    const missing = ctx.app.routeCatalog.map((r) => `${r.method} ${r.url}`).filter((key) => !known.has(key))
    assert.deepEqual(missing, [], 'add these routes to test/access/routes.ts')
  })

  for (const route of [...routes, ...probes]) {
    it(`${route.method} ${route.url} (${route.rule})`, async () => {
      const mismatches: string[] = []
      // A public route answers the same whatever the caller sends.
      const baseline =
        route.rule === 'public' || route.rule === 'metrics' ? (await request(route, {})).statusCode : undefined
      for (const caller of callers) {
        const expected = caller.expect(route.rule, route.method)
        const res = await request(route, await caller.headers())
        if (route.deletesUser) await restoreOwner()
        const error = res.headers['content-type']?.toString().includes('json')
          ? res.json<{ error?: string }>().error
          : undefined
        if (expected === 'allowed') {
          // Reads must succeed outright. A write may meet a 404 or 409 after an earlier caller's write (a deleted or
          // duplicate item), and only where the route documents that answer: never a 400, a 5xx or an undocumented 4xx.
          const refused =
            baseline !== undefined
              ? res.statusCode !== baseline
              : route.method === 'GET'
                ? res.statusCode !== 200 && !(route.callersOwnItem && res.statusCode === 404 && documents(route, 404))
                : !(res.statusCode >= 200 && res.statusCode < 300) &&
                  !(AFTER_EARLIER_WRITE.has(res.statusCode) && documents(route, res.statusCode))
          if (refused) {
            mismatches.push(`${caller.name}: expected access, got ${res.statusCode} ${error ?? ''}`)
          }
        } else if (res.statusCode !== expected.status || error !== expected.error) {
          mismatches.push(
            `${caller.name}: expected ${expected.status} "${expected.error}", got ${res.statusCode} "${error ?? ''}"`,
          )
        }
      }
      assert.deepEqual(mismatches, [])
    })
  }
})
