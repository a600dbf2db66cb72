// Operator provisioning through the CLI: in-process on the test app's store for the behaviour, and the
// real binary end to end once (with a restart of the service in between).
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { cliInProcess, cliStore, type CliStore } from '../support/cli.ts'
import { createTestApp, type TestContext } from '../support/app.ts'
import { bearer, createUser, userToken } from '../support/fixtures.ts'
import { assertError } from '../support/assertions.ts'
import { loadConfig } from '../../src/config.ts'
import { openDatabase } from '../../src/db/database.ts'
import { buildApp } from '../../src/app.ts'

let ctx: TestContext
before(async () => {
  ctx = await createTestApp()
})
after(() => ctx.close())

const cli = (args: string[], input?: string) => cliInProcess(ctx, args, input)
const post = (url: string, payload: object, headers: Record<string, string> = {}) =>
  ctx.app.inject({ method: 'POST', url: `/api/v1${url}`, payload, headers })
const get = (url: string, headers: Record<string, string>) =>
  ctx.app.inject({ method: 'GET', url: `/api/v1${url}`, headers })

describe('integrator, user and link commands', () => {
  it('provisions an integrator with a generated 128-bit UID, a client secret and default permissions', async () => {
    const res = await cli([
      'integrator',
      'create',
      '--name',
      'Acme FMS',
      '--email',
      'api@acme.example',
      '--tier',
      'Sandbox',
    ])
    assert.equal(res.code, 0, res.stderr)
    const out = res.json()
    assert.match(out.uid, /^int_[A-Za-z0-9_-]{22}$/)
    assert.equal(out.tier, 'free')
    assert.equal(out.isActive, true)
    assert.deepEqual(out.permissions, { canRead: true, canWrite: false, canDelete: false })
    assert.equal(out.hasClientSecret, true)
    assert.match(out.clientSecret, /^[A-Za-z0-9_-]{43}$/, '256 random bits, base64url')
    assert.equal(out.warning, undefined)
    const stored = await ctx.database.db
      .selectFrom('integrators')
      .select('client_secret_hash')
      .where('uid', '=', out.uid)
      .executeTakeFirstOrThrow()
    assert.ok(
      stored.client_secret_hash && !stored.client_secret_hash.includes(out.clientSecret),
      'only a hash is stored',
    )
  })

  it('accepts both names of every tier and refuses others', async () => {
    for (const [name, tier] of [
      ['Free', 'free'],
      ['starter', 'starter'],
      ['Integrator', 'pro'],
      ['PRO', 'pro'],
      ['Partner', 'enterprise'],
      ['enterprise', 'enterprise'],
    ]) {
      const res = await cli(['integrator', 'create', '--name', 'T', '--email', 't@x.example', '--tier', name!])
      assert.equal(res.code, 0, res.stderr)
      assert.equal(res.json().tier, tier)
    }
    const bad = await cli(['integrator', 'create', '--name', 'T', '--email', 't@x.example', '--tier', 'gold'])
    assert.equal(bad.code, 2)
    assert.match(bad.stderr, /--tier must be one of/)
  })

  it('refuses missing or bad options with usage errors on stderr', async () => {
    assert.match(
      (await cli(['integrator', 'create', '--email', 'a@b.example', '--tier', 'pro'])).stderr,
      /--name is required/,
    )
    assert.match(
      (await cli(['integrator', 'create', '--name', 'A', '--email', 'not-an-email', '--tier', 'pro'])).stderr,
      /not a valid e-mail/,
    )
    assert.equal((await cli(['integrator', 'frobnicate'])).code, 2)
    assert.equal((await cli(['integrator', 'update', '--uid', 'int_nobody', '--active', 'false'])).code, 1)
    assert.match(
      (await cli(['integrator', 'update', '--uid', 'x', '--active', 'maybe'])).stderr,
      /--active takes true or false/,
    )
    assert.match(
      (await cli(['integrator', 'update', '--uid', 'x', '--rotate-secret', '--clear-secret'])).stderr,
      /exclude each other/,
    )
  })

  it('a user cannot turn the integratorUID its account shows into access to other farms', async () => {
    // The defect this closes: the spec shows a user the UIDs of the integrators linked to the account, and a
    // UID without a secret is a bearer credential; farm A's user took a token as the integrator and read farm C.
    const farmA = await createUser(ctx)
    const farmC = await createUser(ctx)
    const integrator = (
      await cli(['integrator', 'create', '--name', 'Shared FMS', '--email', 'fms@vendor.example', '--tier', 'pro'])
    ).json()
    for (const farm of [farmA, farmC])
      assert.equal((await cli(['link', '--user', farm.uid, '--integrator', integrator.uid])).code, 0)

    const userAccess = (await userToken(ctx, farmA.email)).accessToken
    const shown = (await get(`/users/${farmA.uid}`, bearer(userAccess))).json().data.integrators as string[]
    assert.deepEqual(shown, [integrator.uid])
    assertError(await post('/tokens', { integratorUID: shown[0]! }), 401, 'Access denied: Invalid integratorUID')
    assertError(
      await post('/tokens', { integratorUID: shown[0]!, clientSecret: 'guess' }),
      401,
      'Access denied: Invalid integratorUID',
    )

    const issued = await post('/tokens', { integratorUID: integrator.uid, clientSecret: integrator.clientSecret })
    assert.equal(issued.statusCode, 200)
    assert.equal((await get(`/users/${farmC.uid}`, bearer(issued.json().data.accessToken))).statusCode, 200)
  })

  it("--no-secret keeps the bare flow as the operator's explicit choice, and list flags such integrators", async () => {
    const help = await cli(['integrator', '--help'])
    assert.match(help.stdout, /--no-secret creates an integrator for the bare \{integratorUID\} flow/)
    assert.match(help.stdout, /any such user can obtain the integrator's tokens/)
    const bare = (
      await cli([
        'integrator',
        'create',
        '--name',
        'Bare',
        '--email',
        'bare@vendor.example',
        '--tier',
        'pro',
        '--no-secret',
      ])
    ).json()
    assert.equal(bare.hasClientSecret, false)
    assert.equal(bare.clientSecret, undefined)
    assert.match(bare.warning, /the integratorUID alone obtains tokens/)
    assert.equal((await post('/tokens', { integratorUID: bare.uid })).statusCode, 200)

    const listed = (await cli(['integrator', 'list'])).json() as {
      uid: string
      hasClientSecret: boolean
      warning?: string
      clientSecret?: string
    }[]
    assert.ok(
      listed.every((i) => i.clientSecret === undefined),
      'secrets are shown once, never listed',
    )
    assert.ok(listed.every((i) => (i.warning !== undefined) === !i.hasClientSecret))
    assert.ok(listed.find((i) => i.uid === bare.uid)?.warning)

    const rotated = (await cli(['integrator', 'update', '--uid', bare.uid, '--rotate-secret'])).json()
    assert.equal(rotated.warning, undefined)
    assertError(await post('/tokens', { integratorUID: bare.uid }), 401, 'Access denied: Invalid integratorUID')
    assert.equal(
      (await post('/tokens', { integratorUID: bare.uid, clientSecret: rotated.clientSecret })).statusCode,
      200,
    )
  })

  it("a new client secret ends every token the old one (or a bare UID) obtained, and every session's refresh", async () => {
    // The defect this closes: rotating a leaked secret (or giving a --no-secret integrator one, whose UID its linked
    // users see) left every token issued before working, and a refresh token renewed its session for good.
    const farm = await createUser(ctx)
    for (const start of ['secret', 'bare'] as const) {
      const created = (
        await cli([
          'integrator',
          'create',
          '--name',
          `Leaky ${start}`,
          '--email',
          'leaky@vendor.example',
          '--tier',
          'pro',
          ...(start === 'bare' ? ['--no-secret'] : []),
        ])
      ).json()
      assert.equal((await cli(['link', '--user', farm.uid, '--integrator', created.uid])).code, 0)
      const credentials = {
        integratorUID: created.uid,
        ...(created.clientSecret ? { clientSecret: created.clientSecret } : {}),
      }
      const session = (await post('/tokens', { ...credentials, refreshToken: true })).json().data
      const standalone = (await post('/tokens', { ...credentials, expiresIn: 86_400 })).json().data
      assert.equal((await get(`/users/${farm.uid}/animals`, bearer(standalone.accessToken))).statusCode, 200)

      const rotated = await cli(['integrator', 'update', '--uid', created.uid, '--rotate-secret'])
      assert.equal(rotated.code, 0, rotated.stderr)
      for (const token of [session.accessToken, standalone.accessToken])
        assertError(await get(`/users/${farm.uid}/animals`, bearer(token)), 401, 'Token has been revoked')
      assertError(await post('/tokens/refresh', { refreshToken: session.refreshToken }), 401, 'Token has been revoked')
      // The new secret's tokens work at once.
      const fresh = await post('/tokens', { integratorUID: created.uid, clientSecret: rotated.json().clientSecret })
      assert.equal(fresh.statusCode, 200, fresh.body)
      assert.equal((await get(`/users/${farm.uid}/animals`, bearer(fresh.json().data.accessToken))).statusCode, 200)
    }
  })

  it('a deactivated integrator reactivated gets none of its earlier tokens back', async () => {
    // The defect this closes: deactivation refused the integrator's tokens only while it lasted, so an access token
    // without a refresh token (up to 24 hours) worked again once the operator reactivated the integrator.
    const farm = await createUser(ctx)
    const created = (
      await cli(['integrator', 'create', '--name', 'Paused', '--email', 'paused@vendor.example', '--tier', 'pro'])
    ).json()
    assert.equal((await cli(['link', '--user', farm.uid, '--integrator', created.uid])).code, 0)
    const credentials = { integratorUID: created.uid, clientSecret: created.clientSecret }
    const standalone = (await post('/tokens', { ...credentials, expiresIn: 86_400 })).json().data.accessToken
    assert.equal((await cli(['integrator', 'update', '--uid', created.uid, '--active', 'false'])).code, 0)
    assertError(await get(`/users/${farm.uid}/animals`, bearer(standalone)), 403, 'Integrator is inactive')
    assert.equal((await cli(['integrator', 'update', '--uid', created.uid, '--active', 'true'])).code, 0)
    assertError(await get(`/users/${farm.uid}/animals`, bearer(standalone)), 401, 'Token has been revoked')
    const fresh = (await post('/tokens', credentials)).json().data.accessToken
    assert.equal((await get(`/users/${farm.uid}/animals`, bearer(fresh))).statusCode, 200)
  })

  it('creates users, links them, issues tokens through the API, and deactivation cuts access', async () => {
    const user = await cli(
      [
        'user',
        'create',
        '--uid',
        'farm-cli-1',
        '--email',
        'owner@cli.example',
        '--name',
        'CLI Farm',
        '--password-stdin',
      ],
      'a long enough password\n',
    )
    assert.equal(user.code, 0, user.stderr)
    assert.equal(user.json().Uid, 'farm-cli-1')
    assert.equal(user.json().hasPassword, true)
    assert.equal(user.json().password_hash, undefined)
    assert.match(
      (await cli(['user', 'create', '--uid', 'farm-cli-1', '--email', 'x@cli.example', '--name', 'Dup'])).stderr,
      /already exists/,
    )
    assert.match(
      (await cli(['user', 'create', '--uid', 'farm-cli-2', '--email', 'OWNER@cli.example', '--name', 'Dup'])).stderr,
      /already exists/,
    )
    assert.match(
      (
        await cli([
          'user',
          'create',
          '--uid',
          'farm-cli-3',
          '--email',
          'p@cli.example',
          '--name',
          'P',
          '--password',
          'short',
        ])
      ).stderr,
      /8 to 256 characters/,
    )

    const integrator = (
      await cli([
        'integrator',
        'create',
        '--name',
        'Vet',
        '--email',
        'vet@vet.example',
        '--tier',
        'pro',
        '--can-write',
        'true',
      ])
    ).json()
    const linked = await cli(['link', '--user', 'farm-cli-1', '--integrator', integrator.uid])
    assert.equal(linked.code, 0, linked.stderr)
    assert.deepEqual(linked.json(), { user: 'farm-cli-1', integrators: [integrator.uid] })
    assert.match(
      (await cli(['link', '--user', 'nobody', '--integrator', integrator.uid])).stderr,
      /No user with uid nobody/,
    )

    assert.equal(
      (await post('/tokens/login', { email: 'owner@cli.example', password: 'a long enough password' })).statusCode,
      200,
    )
    const token = await post('/tokens', { integratorUID: integrator.uid, clientSecret: integrator.clientSecret })
    assert.equal(token.statusCode, 200)
    const accessToken = token.json().data.accessToken as string

    const deactivated = await cli([
      'integrator',
      'update',
      '--uid',
      integrator.uid,
      '--active',
      'false',
      '--tier',
      'Enterprise',
    ])
    assert.equal(deactivated.code, 0, deactivated.stderr)
    assert.equal(deactivated.json().isActive, false)
    assert.equal(deactivated.json().tier, 'enterprise')
    assertError(await get('/tokens/validate', bearer(accessToken)), 403, 'Integrator is inactive')

    const unlinked = await cli(['unlink', '--user', 'farm-cli-1', '--integrator', integrator.uid])
    assert.deepEqual(unlinked.json(), { user: 'farm-cli-1', integrators: [] })
    assert.equal((await cli(['unlink', '--user', 'farm-cli-1', '--integrator', integrator.uid])).code, 1)

    const newPassword = await cli([
      'user',
      'set-password',
      '--uid',
      'farm-cli-1',
      '--password',
      'another long password',
    ])
    assert.equal(newPassword.code, 0, newPassword.stderr)
    const admin = await cli(['user', 'update', '--uid', 'farm-cli-1', '--admin', 'true'])
    assert.equal(admin.json().Admin, true)
    assert.equal(
      (await post('/tokens/login', { email: 'owner@cli.example', password: 'a long enough password' })).statusCode,
      401,
    )
    assert.equal(
      (await post('/tokens/login', { email: 'owner@cli.example', password: 'another long password' })).statusCode,
      200,
    )
  })

  it('user delete: the operator deletes an account and its data (an integrator never can); its tokens stop working', async () => {
    const user = await createUser(ctx)
    const session = await userToken(ctx, user.email)
    const res = await cli(['user', 'delete', '--uid', user.uid])
    assert.equal(res.code, 0, res.stderr)
    assert.deepEqual(res.json(), { uid: user.uid, deleted: true })
    assertError(await get(`/users/${user.uid}`, bearer(session.accessToken)), 401, 'Invalid token')
    const again = await cli(['user', 'delete', '--uid', user.uid])
    assert.equal(again.code, 1)
    assert.match(again.stderr, new RegExp(`No user with uid ${user.uid}`))
  })

  it('prunes expired token records on demand', async () => {
    const res = await cli(['jobs', 'prune-tokens'])
    assert.equal(res.code, 0, res.stderr)
    assert.equal(res.json().job, 'prune-tokens')
  })
})

describe('the real binary, end to end', () => {
  let store: CliStore
  before(async () => {
    store = await cliStore('accounts')
  })
  after(() => store.cleanup())

  /** An app on the same store as the CLI (opened after the CLI has closed it: PGlite allows one process). */
  async function withApp<T>(fn: (app: Awaited<ReturnType<typeof buildApp>>) => Promise<T>): Promise<T> {
    const config = loadConfig(store.env)
    const database = await openDatabase(config)
    const app = await buildApp({ config, database, logger: false })
    try {
      return await fn(app)
    } finally {
      await app.close()
      await database.close()
    }
  }

  it('provisions through the binary, and revocations survive a restart of the service', async () => {
    const created = store.run(['integrator', 'create', '--name', 'R', '--email', 'r@r.example', '--tier', 'pro'])
    assert.equal(created.code, 0, created.stderr)
    const integrator = created.json()
    const token = await withApp(async (app) => {
      const issued = (
        await app.inject({
          method: 'POST',
          url: '/api/v1/tokens',
          payload: { integratorUID: integrator.uid, clientSecret: integrator.clientSecret },
        })
      ).json().data.accessToken as string
      await app.inject({ method: 'POST', url: '/api/v1/tokens/revoke', headers: bearer(issued) })
      return issued
    })
    await withApp(async (app) => {
      const res = await app.inject({ method: 'GET', url: '/api/v1/tokens/validate', headers: bearer(token) })
      assert.equal(res.statusCode, 401)
      assert.equal(res.json().error, 'Token has been revoked')
    })
    const user = store.run(
      ['user', 'create', '--uid', 'farm-bin', '--email', 'bin@farm.example', '--name', 'Bin', '--password-stdin'],
      'a long enough password\n',
    )
    assert.equal(user.code, 0, user.stderr)
    assert.equal(store.run(['link', '--user', 'farm-bin', '--integrator', integrator.uid]).code, 0)
    assert.match(store.run(['user', 'create']).stderr, /--uid is required/)
  })
})
