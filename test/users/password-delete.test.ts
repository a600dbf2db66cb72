import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { sql } from 'kysely'
import { createTestApp, type TestContext } from '../support/app.ts'
import { PASSWORD, bearer, createIntegrator, createUser, integratorToken, userToken } from '../support/fixtures.ts'
import { assertError } from '../support/assertions.ts'

let ctx: TestContext
before(async () => {
  ctx = await createTestApp()
})
after(() => ctx.close())

type Method = 'GET' | 'POST' | 'DELETE'
function call(method: Method, url: string, token?: string, payload?: unknown) {
  return ctx.app.inject({
    method,
    url: `/api/v1${url}`,
    headers: token ? bearer(token) : {},
    ...(payload !== undefined ? { payload: payload as object } : {}),
  })
}

function login(email: string, password: string) {
  return ctx.app.inject({ method: 'POST', url: '/api/v1/tokens/login', payload: { email, password } })
}

function refresh(refreshToken: string) {
  return ctx.app.inject({ method: 'POST', url: '/api/v1/tokens/refresh', payload: { refreshToken } })
}

const NEW_PASSWORD = 'a brand new passphrase'

describe('POST /users/<user_id>/password', () => {
  it('changes the password, keeps the current session and signs out every other one', async () => {
    const user = await createUser(ctx)
    const current = await userToken(ctx, user.email)
    const other = await userToken(ctx, user.email)
    const res = await call('POST', `/users/${user.uid}/password`, current.accessToken, {
      currentPassword: PASSWORD,
      newPassword: NEW_PASSWORD,
    })
    assert.equal(res.statusCode, 200, res.body)
    assert.equal(res.json().message, 'Password changed; your other sessions were signed out')
    assert.ok(!res.body.includes(NEW_PASSWORD))

    assert.equal((await call('GET', `/users/${user.uid}`, current.accessToken)).statusCode, 200)
    assert.equal((await refresh(current.refreshToken)).statusCode, 200)
    assertError(await call('GET', `/users/${user.uid}`, other.accessToken), 401, 'Token has been revoked')
    assertError(await refresh(other.refreshToken), 401, 'Token has been revoked')

    assertError(await login(user.email, PASSWORD), 401, 'Invalid email or password')
    assert.equal((await login(user.email, NEW_PASSWORD)).statusCode, 200)
  })

  it('refuses a wrong current password with 403 and changes nothing', async () => {
    const user = await createUser(ctx)
    const { accessToken } = await userToken(ctx, user.email)
    assertError(
      await call('POST', `/users/${user.uid}/password`, accessToken, {
        currentPassword: 'not my password',
        newPassword: NEW_PASSWORD,
      }),
      403,
      'Current password is incorrect',
    )
    assert.equal((await login(user.email, PASSWORD)).statusCode, 200)
  })

  it('refuses bad bodies with 400', async () => {
    const user = await createUser(ctx)
    const { accessToken } = await userToken(ctx, user.email)
    const url = `/users/${user.uid}/password`
    const cases: [unknown, string[]][] = [
      [{}, ['currentPassword', 'newPassword']],
      [{ currentPassword: PASSWORD, newPassword: 'short' }, ['newPassword']],
      [{ currentPassword: PASSWORD, newPassword: 'x'.repeat(257) }, ['newPassword']],
      [{ currentPassword: PASSWORD, newPassword: 12345678 }, ['newPassword']],
      [{ currentPassword: PASSWORD, newPassword: NEW_PASSWORD, password: 'x' }, ['password']],
      [{ currentPassword: PASSWORD, newPassword: PASSWORD }, ['newPassword']],
    ]
    for (const [payload, fields] of cases) {
      const res = await call('POST', url, accessToken, payload)
      assertError(res, 400, 'Validation failed')
      assert.deepEqual(
        res
          .json()
          .details.map((d: { field: string }) => d.field)
          .sort(),
        fields.sort(),
      )
      assert.ok(!res.body.includes(PASSWORD), 'a password is never echoed')
    }
  })

  it("is for the account's own user token only: other users, admins and integrators (even linked writers) get 403", async () => {
    const user = await createUser(ctx)
    const other = await createUser(ctx, { admin: true, bdUser: true })
    const writer = await createIntegrator(ctx, { canWrite: true, canDelete: true, linkTo: [user.uid] })
    const body = { currentPassword: PASSWORD, newPassword: NEW_PASSWORD }
    assertError(
      await call('POST', `/users/${user.uid}/password`, (await userToken(ctx, other.email)).accessToken, body),
      403,
      "You do not have access to this user's data",
    )
    assertError(
      await call('POST', `/users/${user.uid}/password`, (await integratorToken(ctx, writer.uid)).accessToken, body),
      403,
      'This endpoint requires a user token',
    )
    assertError(
      await call('POST', `/users/${user.uid}/password`, undefined, body),
      401,
      'Authorization header is required',
    )
  })
})

async function countRows(uid: string) {
  const db = ctx.database.db
  const count = async (table: 'users' | 'user_push_tokens' | 'user_integrator_links') =>
    Number(
      (
        await db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('uid', '=', uid)
          .executeTakeFirstOrThrow()
      ).n,
    )
  const refresh = await db
    .selectFrom('refresh_tokens')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('subject_kind', '=', 'user')
    .where('subject_id', '=', uid)
    .executeTakeFirstOrThrow()
  return {
    users: await count('users'),
    pushTokens: await count('user_push_tokens'),
    links: await count('user_integrator_links'),
    refreshTokens: Number(refresh.n),
  }
}

describe('DELETE /users/<user_id>', () => {
  it('deletes the account with its push tokens, links and sessions; its tokens stop working, also for a new account with the same Uid', async () => {
    const user = await createUser(ctx)
    const session = await userToken(ctx, user.email)
    const integrator = await createIntegrator(ctx, { linkTo: [user.uid] })
    await call('POST', `/users/${user.uid}/push-tokens`, session.accessToken, {
      token: 'fcm',
      customName: '',
      name: 'Phone',
      email: user.email,
    })
    assert.deepEqual(await countRows(user.uid), { users: 1, pushTokens: 1, links: 1, refreshTokens: 1 })

    const res = await call('DELETE', `/users/${user.uid}`, session.accessToken)
    assert.equal(res.statusCode, 200, res.body)
    assert.equal(res.json().message, 'User and all their data deleted')
    assert.deepEqual(await countRows(user.uid), { users: 0, pushTokens: 0, links: 0, refreshTokens: 0 })
    assert.equal(
      (await ctx.database.db.selectFrom('integrators').select('uid').where('uid', '=', integrator.uid).execute())
        .length,
      1,
      'the integrator itself stays',
    )

    assertError(await call('GET', `/users/${user.uid}`, session.accessToken), 401, 'Invalid token')
    assertError(await refresh(session.refreshToken), 401, 'Invalid token')
    assertError(await login(user.email, PASSWORD), 401, 'Invalid email or password')
    assertError(
      await call('GET', `/users/${user.uid}`, (await integratorToken(ctx, integrator.uid)).accessToken),
      403,
      "Integrator does not have access to this user's data",
    )

    const bd = await createUser(ctx, { bdUser: true })
    const again = await call('POST', '/users', (await userToken(ctx, bd.email)).accessToken, {
      Uid: user.uid,
      Email: user.email,
      Name: 'Reborn',
      Password: PASSWORD,
    })
    assert.equal(again.statusCode, 201)
    assertError(await call('GET', `/users/${user.uid}`, session.accessToken), 401, 'Token has been revoked')
  })

  it("is the owner's alone: a linked integrator, even with delete permission, gets 403 and the account stays", async () => {
    const user = await createUser(ctx)
    const writer = await createIntegrator(ctx, { canWrite: true, linkTo: [user.uid] })
    const deleter = await createIntegrator(ctx, { canWrite: true, canDelete: true, linkTo: [user.uid] })
    for (const integrator of [writer, deleter]) {
      assertError(
        await call('DELETE', `/users/${user.uid}`, (await integratorToken(ctx, integrator.uid)).accessToken),
        403,
        'This endpoint requires a user token',
      )
    }
    assert.equal((await countRows(user.uid)).users, 1)
    assert.equal((await userToken(ctx, user.email)).uid, user.uid, 'the owner can still log in')
  })

  it('is refused to other users and admins', async () => {
    const user = await createUser(ctx)
    const admin = await createUser(ctx, { admin: true })
    assertError(
      await call('DELETE', `/users/${user.uid}`, (await userToken(ctx, admin.email)).accessToken),
      403,
      "You do not have access to this user's data",
    )
    assert.equal((await countRows(user.uid)).users, 1)
  })

  it("covers every table holding a user's data: each `uid` tenant key references users ON DELETE CASCADE", async () => {
    // Guards later tables too: a farm table without the cascade would survive the account's deletion.
    const { rows } = await sql<{ table_name: string; cascades: boolean }>`
      SELECT c.relname AS table_name,
             EXISTS (SELECT 1 FROM pg_constraint k
                     WHERE k.conrelid = c.oid AND k.contype = 'f' AND k.confrelid = 'users'::regclass
                       AND k.confdeltype = 'c' AND k.conkey = ARRAY[a.attnum]) AS cascades
      FROM pg_class c
      JOIN pg_namespace n ON n.oid = c.relnamespace
      JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'uid' AND NOT a.attisdropped
      WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p') AND NOT c.relispartition
        AND c.relname NOT IN ('users', 'integrators') AND c.relname NOT LIKE 'kysely_%'
      ORDER BY c.relname`.execute(ctx.database.db)
    assert.ok(rows.some((r) => r.table_name === 'user_push_tokens'))
    assert.deepEqual(
      rows.filter((r) => !r.cascades).map((r) => r.table_name),
      [],
    )
  })
})
