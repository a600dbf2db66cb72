import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createTestApp, type TestContext } from '../support/app.ts'
import { bearer, createIntegrator, createUser, integratorToken, uniqueId, userToken } from '../support/fixtures.ts'
import { assertError, assertInvalid } from '../support/assertions.ts'

let ctx: TestContext
let adminToken: string
let bdToken: string
let plainToken: string

before(async () => {
  ctx = await createTestApp()
  const admin = await createUser(ctx, { admin: true })
  const bd = await createUser(ctx, { bdUser: true })
  const plain = await createUser(ctx)
  adminToken = (await userToken(ctx, admin.email)).accessToken
  bdToken = (await userToken(ctx, bd.email)).accessToken
  plainToken = (await userToken(ctx, plain.email)).accessToken
})
after(() => ctx.close())

function get(url: string, token: string) {
  return ctx.app.inject({ method: 'GET', url: `/api/v1${url}`, headers: bearer(token) })
}

/** Users made through POST /users, sharing a language tag unique to the calling test. */
async function seed(
  language: string,
  users: { Name: string; Email?: string; Flagged?: boolean; Inactive?: boolean }[],
) {
  const uids: string[] = []
  for (const u of users) {
    const uid = uniqueId('s')
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/users',
      headers: bearer(bdToken),
      payload: { Uid: uid, Email: `${uid}@farm.example`, Language: language, ...u },
    })
    assert.equal(res.statusCode, 201, res.body)
    uids.push(uid)
  }
  return uids
}

const uidsOf = (res: { json: () => any }) => res.json().data.map((u: { Uid: string }) => u.Uid)

describe('GET /users (admin)', () => {
  it('pages through the users with page, limit, total and totalPages; newest first by default', async () => {
    const uids = await seed('qa-list', [{ Name: 'A' }, { Name: 'B' }, { Name: 'C' }, { Name: 'D' }, { Name: 'E' }])
    const first = await get('/users?filter[Language]=qa-list&limit=2', adminToken)
    assert.equal(first.statusCode, 200, first.body)
    assert.deepEqual(first.json().pagination, { page: 1, limit: 2, total: 5, totalPages: 3 })
    const pages = [
      first,
      await get('/users?filter[Language]=qa-list&limit=2&page=2', adminToken),
      await get('/users?filter[Language]=qa-list&limit=2&page=3', adminToken),
    ]
    assert.deepEqual(pages.flatMap(uidsOf), [...uids].reverse())
    const beyond = await get('/users?filter[Language]=qa-list&limit=2&page=4', adminToken)
    assert.deepEqual(beyond.json().data, [])
    assert.deepEqual(beyond.json().pagination, { page: 4, limit: 2, total: 5, totalPages: 3 })
    const byName = await get('/users?filter[Language]=QA-LIST&sortBy=Name&sortOrder=asc', adminToken)
    assert.deepEqual(
      byName.json().data.map((u: { Name: string }) => u.Name),
      ['A', 'B', 'C', 'D', 'E'],
    )
  })

  it('defaults to page 1 and limit 10, and gives list items no integrators or push tokens', async () => {
    const [uid] = await seed('qa-defaults', [{ Name: 'Only' }])
    await createIntegrator(ctx, { linkTo: [uid!] })
    const res = await get('/users?filter[Language]=qa-defaults', adminToken)
    assert.deepEqual(res.json().pagination, { page: 1, limit: 10, total: 1, totalPages: 1 })
    const item = res.json().data[0]
    assert.equal(item.Uid, uid)
    assert.equal(item.integrators, undefined)
    assert.equal(item.FCMTokens, undefined)
    assert.equal(item.password_hash, undefined)
  })

  it('filters by filter[Field] on flags', async () => {
    const [, flagged] = await seed('qa-filter', [
      { Name: 'a' },
      { Name: 'b', Flagged: true },
      { Name: 'c', Inactive: true },
    ])
    assert.deepEqual(uidsOf(await get('/users?filter[Language]=qa-filter&filter[Flagged]=true', adminToken)), [flagged])
    assert.equal(
      (await get('/users?filter[Language]=qa-filter&filter[Inactive]=false', adminToken)).json().pagination.total,
      2,
    )
  })

  it('refuses bad list parameters with 400', async () => {
    assertInvalid(await get('/users?limit=0', adminToken), ['query:limit'])
    assertInvalid(await get('/users?limit=101', adminToken), ['query:limit'])
    assertInvalid(await get('/users?limit=ten', adminToken), ['query:limit'])
    assertInvalid(await get('/users?page=0', adminToken), ['query:page'])
    assertInvalid(await get('/users?sortBy=password_hash', adminToken), ['query:sortBy'])
    assertInvalid(await get('/users?sortOrder=up', adminToken), ['query:sortOrder'])
    assertInvalid(await get('/users?filter[Secret]=x', adminToken), ['query:filter[Secret]'])
    assertInvalid(await get('/users?filter[Flagged]=yes', adminToken), ['query:filter[Flagged]'])
    assertInvalid(await get('/users?Flagged=true', adminToken), ['query:Flagged'])
    assert.equal((await get('/users?limit=100', adminToken)).statusCode, 200)
  })

  it('is refused to everyone but admins', async () => {
    assertError(await get('/users', plainToken), 403, 'Admin permission required')
    assertError(await get('/users', bdToken), 403, 'Admin permission required')
    const integrator = await createIntegrator(ctx, { tier: 'enterprise' })
    assertError(
      await get('/users', (await integratorToken(ctx, integrator.uid)).accessToken),
      403,
      'Admin permission required',
    )
  })
})

describe('GET /users/search (BDUser)', () => {
  it('matches name as a case-insensitive substring', async () => {
    const marker = uniqueId('Meadow').replace('-', '')
    const [a, b] = await seed('qa-name', [
      { Name: `Green ${marker} Farm` },
      { Name: `${marker.toUpperCase()} Pigs` },
      { Name: 'Unrelated' },
    ])
    const res = await get(`/users/search?name=${marker.toLowerCase()}&sortBy=Uid&sortOrder=asc`, bdToken)
    assert.equal(res.statusCode, 200, res.body)
    assert.deepEqual(uidsOf(res), [a, b].sort())
    assert.equal(res.json().pagination.total, 2)
  })

  it('takes % and _ in a name literally', async () => {
    const marker = uniqueId('lit').replace('-', '')
    const [percent, underscore] = await seed('qa-like', [
      { Name: `${marker} 100% organic` },
      { Name: `${marker} a_b` },
      { Name: `${marker} 100 organic` },
      { Name: `${marker} aXb` },
    ])
    assert.deepEqual(uidsOf(await get(`/users/search?name=${encodeURIComponent(`${marker} 100%`)}`, bdToken)), [
      percent,
    ])
    assert.deepEqual(uidsOf(await get(`/users/search?name=${encodeURIComponent('a_b')}&language=qa-like`, bdToken)), [
      underscore,
    ])
    assert.deepEqual(uidsOf(await get(`/users/search?name=${encodeURIComponent('\\')}&language=qa-like`, bdToken)), [])
  })

  it('matches email exactly, ignoring case; a part of an address matches nothing', async () => {
    const [uid] = await seed('qa-email', [{ Name: 'x' }])
    const email = `${uid}@farm.example`
    assert.deepEqual(uidsOf(await get(`/users/search?email=${encodeURIComponent(email.toUpperCase())}`, bdToken)), [
      uid,
    ])
    assert.deepEqual(uidsOf(await get(`/users/search?email=${encodeURIComponent(uid!)}`, bdToken)), [])
  })

  it('combines flagged, inactive and language (case-insensitive), and paginates', async () => {
    const [, flagged, both] = await seed('qa-combo', [
      { Name: 'p' },
      { Name: 'q', Flagged: true },
      { Name: 'r', Flagged: true, Inactive: true },
    ])
    assert.deepEqual(uidsOf(await get('/users/search?language=QA-Combo&flagged=true&inactive=false', bdToken)), [
      flagged,
    ])
    assert.deepEqual(uidsOf(await get('/users/search?language=qa-combo&inactive=true', bdToken)), [both])
    const paged = await get('/users/search?language=qa-combo&limit=1&page=2&sortBy=Name&sortOrder=asc', bdToken)
    assert.deepEqual(paged.json().pagination, { page: 2, limit: 1, total: 3, totalPages: 3 })
    assert.deepEqual(uidsOf(paged), [flagged])
  })

  it('refuses bad parameters with 400', async () => {
    assertInvalid(await get('/users/search?flagged=yes', bdToken), ['query:flagged'])
    assertInvalid(await get('/users/search?inactive=2', bdToken), ['query:inactive'])
    assertInvalid(await get('/users/search?name=', bdToken), ['query:name'])
    assertInvalid(await get('/users/search?limit=1000', bdToken), ['query:limit'])
    assertInvalid(await get('/users/search?page=-1', bdToken), ['query:page'])
    // A misspelt criterion would otherwise match everyone.
    assertInvalid(await get('/users/search?Email=a@b.example', bdToken), ['query:Email'])
  })

  it('is refused to users without BDUser (admins included) and to integrators', async () => {
    assertError(await get('/users/search', plainToken), 403, 'BDUser permission required')
    assertError(await get('/users/search', adminToken), 403, 'BDUser permission required')
    const integrator = await createIntegrator(ctx, { tier: 'enterprise' })
    assertError(
      await get('/users/search', (await integratorToken(ctx, integrator.uid)).accessToken),
      403,
      'BDUser permission required',
    )
    const none = await ctx.app.inject({ method: 'GET', url: '/api/v1/users/search' })
    assertError(none, 401, 'Authorization header is required')
  })
})
