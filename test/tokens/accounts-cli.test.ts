// Operator provisioning through the CLI, as a real process against the store of the mode under test.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { cliStore, type CliStore } from '../support/cli.ts'
import { loadConfig } from '../../src/config.ts'
import { openDatabase } from '../../src/db/database.ts'
import { buildApp } from '../../src/app.ts'

let store: CliStore
let env: Record<string, string>

before(async () => {
  store = await cliStore('accounts')
  env = store.env
})
after(() => store.cleanup())

const cli = (args: string[], input?: string) => store.run(args, input)

/** An app on the same store as the CLI (opened after the CLI has closed it: PGlite allows one process). */
async function withApp<T>(fn: (app: Awaited<ReturnType<typeof buildApp>>) => Promise<T>): Promise<T> {
  const config = loadConfig(env)
  const database = await openDatabase(config)
  const app = await buildApp({ config, database, logger: false })
  try {
    return await fn(app)
  } finally {
    await app.close()
    await database.close()
  }
}

describe('integrator, user and link commands', () => {
  it('provisions an integrator with a generated 128-bit UID and default permissions', () => {
    const res = cli(['integrator', 'create', '--name', 'Acme FMS', '--email', 'api@acme.example', '--tier', 'Sandbox'])
    assert.equal(res.code, 0, res.stderr)
    const out = res.json()
    assert.match(out.uid, /^int_[A-Za-z0-9_-]{22}$/)
    assert.equal(out.tier, 'free')
    assert.equal(out.isActive, true)
    assert.deepEqual(out.permissions, { canRead: true, canWrite: false, canDelete: false })
    assert.equal(out.hasClientSecret, false)
  })

  it('accepts both names of every tier and refuses others', () => {
    for (const [name, tier] of [['Free', 'free'], ['starter', 'starter'], ['Integrator', 'pro'], ['PRO', 'pro'], ['Partner', 'enterprise'], ['enterprise', 'enterprise']]) {
      const res = cli(['integrator', 'create', '--name', 'T', '--email', 't@x.example', '--tier', name!])
      assert.equal(res.code, 0, res.stderr)
      assert.equal(res.json().tier, tier)
    }
    const bad = cli(['integrator', 'create', '--name', 'T', '--email', 't@x.example', '--tier', 'gold'])
    assert.equal(bad.code, 2)
    assert.match(bad.stderr, /--tier must be one of/)
  })

  it('refuses missing or bad options with usage errors on stderr', () => {
    assert.match(cli(['integrator', 'create', '--email', 'a@b.example', '--tier', 'pro']).stderr, /--name is required/)
    assert.match(cli(['integrator', 'create', '--name', 'A', '--email', 'not-an-email', '--tier', 'pro']).stderr, /not a valid e-mail/)
    assert.equal(cli(['integrator', 'frobnicate']).code, 2)
    assert.equal(cli(['integrator', 'update', '--uid', 'int_nobody', '--active', 'false']).code, 1)
    assert.match(cli(['integrator', 'update', '--uid', 'x', '--active', 'maybe']).stderr, /--active takes true or false/)
  })

  it('creates users, links them, issues tokens through the API, and deactivation cuts access', async () => {
    const user = cli(['user', 'create', '--uid', 'farm-cli-1', '--email', 'owner@cli.example', '--name', 'CLI Farm', '--password-stdin'], 'a long enough password\n')
    assert.equal(user.code, 0, user.stderr)
    assert.equal(user.json().Uid, 'farm-cli-1')
    assert.equal(user.json().hasPassword, true)
    assert.equal(user.json().password_hash, undefined)
    assert.match(cli(['user', 'create', '--uid', 'farm-cli-1', '--email', 'x@cli.example', '--name', 'Dup']).stderr, /already exists/)
    assert.match(cli(['user', 'create', '--uid', 'farm-cli-2', '--email', 'OWNER@cli.example', '--name', 'Dup']).stderr, /already exists/)
    assert.match(cli(['user', 'create', '--uid', 'farm-cli-3', '--email', 'p@cli.example', '--name', 'P', '--password', 'short']).stderr, /8 to 256 characters/)

    const integrator = cli(['integrator', 'create', '--name', 'Vet', '--email', 'vet@vet.example', '--tier', 'pro', '--can-write', 'true', '--with-secret']).json()
    assert.equal(integrator.hasClientSecret, true)
    assert.equal(typeof integrator.clientSecret, 'string')
    const linked = cli(['link', '--user', 'farm-cli-1', '--integrator', integrator.uid])
    assert.equal(linked.code, 0, linked.stderr)
    assert.deepEqual(linked.json(), { user: 'farm-cli-1', integrators: [integrator.uid] })
    assert.match(cli(['link', '--user', 'nobody', '--integrator', integrator.uid]).stderr, /No user with uid nobody/)

    const accessToken = await withApp(async (app) => {
      const login = await app.inject({ method: 'POST', url: '/api/v1/tokens/login', payload: { email: 'owner@cli.example', password: 'a long enough password' } })
      assert.equal(login.statusCode, 200)
      const token = await app.inject({ method: 'POST', url: '/api/v1/tokens', payload: { integratorUID: integrator.uid, clientSecret: integrator.clientSecret } })
      assert.equal(token.statusCode, 200)
      return token.json().data.accessToken as string
    })

    const list = cli(['integrator', 'list']).json() as { uid: string; clientSecret?: string }[]
    assert.ok(list.some((i) => i.uid === integrator.uid))
    assert.ok(list.every((i) => i.clientSecret === undefined), 'secrets are shown once, never listed')

    const deactivated = cli(['integrator', 'update', '--uid', integrator.uid, '--active', 'false', '--tier', 'Enterprise'])
    assert.equal(deactivated.code, 0, deactivated.stderr)
    assert.equal(deactivated.json().isActive, false)
    assert.equal(deactivated.json().tier, 'enterprise')
    await withApp(async (app) => {
      const res = await app.inject({ method: 'GET', url: '/api/v1/tokens/validate', headers: { authorization: `Bearer ${accessToken}` } })
      assert.equal(res.statusCode, 403)
      assert.equal(res.json().error, 'Integrator is inactive')
    })

    const unlinked = cli(['unlink', '--user', 'farm-cli-1', '--integrator', integrator.uid])
    assert.deepEqual(unlinked.json(), { user: 'farm-cli-1', integrators: [] })
    assert.equal(cli(['unlink', '--user', 'farm-cli-1', '--integrator', integrator.uid]).code, 1)

    const newPassword = cli(['user', 'set-password', '--uid', 'farm-cli-1', '--password', 'another long password'])
    assert.equal(newPassword.code, 0, newPassword.stderr)
    const admin = cli(['user', 'update', '--uid', 'farm-cli-1', '--admin', 'true'])
    assert.equal(admin.json().Admin, true)
    await withApp(async (app) => {
      const old = await app.inject({ method: 'POST', url: '/api/v1/tokens/login', payload: { email: 'owner@cli.example', password: 'a long enough password' } })
      assert.equal(old.statusCode, 401)
      const fresh = await app.inject({ method: 'POST', url: '/api/v1/tokens/login', payload: { email: 'owner@cli.example', password: 'another long password' } })
      assert.equal(fresh.statusCode, 200)
    })
  })

  it('revocations survive a restart of the service', async () => {
    const integrator = cli(['integrator', 'create', '--name', 'R', '--email', 'r@r.example', '--tier', 'pro']).json()
    const token = await withApp(async (app) => {
      const issued = (await app.inject({ method: 'POST', url: '/api/v1/tokens', payload: { integratorUID: integrator.uid } })).json().data.accessToken as string
      await app.inject({ method: 'POST', url: '/api/v1/tokens/revoke', headers: { authorization: `Bearer ${issued}` } })
      return issued
    })
    await withApp(async (app) => {
      const res = await app.inject({ method: 'GET', url: '/api/v1/tokens/validate', headers: { authorization: `Bearer ${token}` } })
      assert.equal(res.statusCode, 401)
      assert.equal(res.json().error, 'Token has been revoked')
    })
  })

  it('prunes expired token records on demand', () => {
    const res = cli(['jobs', 'prune-tokens'])
    assert.equal(res.code, 0, res.stderr)
    assert.equal(res.json().job, 'prune-tokens')
  })
})
