// The access log over HTTP: every integrator request is recorded (UsageRecord), the farm owner reads the
// records of its own account and nobody else does, an integrator reads its own use against its daily
// quotas, user-token requests are not logged, bad parameters are 400s, and retention prunes old records.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createTestApp, type TestContext } from '../support/app.ts'
import { assertError, assertInvalid } from '../support/assertions.ts'
import { eventually } from '../support/eventually.ts'
import { bearer, createIntegrator, createUser, integratorToken, manualClock, userToken } from '../support/fixtures.ts'
import { AUTH_ERRORS } from '../../src/auth/errors.ts'
import { startMaintenance } from '../../src/jobs/maintenance.ts'

type Headers = Record<string, string>

const DAY_MS = 86_400_000
const clock = manualClock(Date.UTC(2026, 10, 23, 9, 30))
let ctx: TestContext
interface Farm {
  uid: string
  email: string
  owner: Headers
}
let farmA: Farm
let farmB: Farm
let vendor: { uid: string; headers: Headers }
let stranger: { uid: string; headers: Headers }

async function farm(): Promise<Farm> {
  const user = await createUser(ctx)
  return { uid: user.uid, email: user.email, owner: bearer((await userToken(ctx, user.email)).accessToken) }
}

const get = (url: string, headers: Headers) => ctx.app.inject({ method: 'GET', url: `/api/v1${url}`, headers })

/** The account's access log once it holds `count` records (the writer flushes every 20 ms here). */
async function logOf(account: Farm, count: number, query = '') {
  const probe = async () => {
    const res = await get(`/users/${account.uid}/access-log?limit=100${query}`, account.owner)
    return { status: res.statusCode, body: res.json() }
  }
  // The page and its total are two statements: a batch written between them can be in the total and not yet in
  // the page, so both must show it.
  const { status, body } = await eventually(
    probe,
    (r) => r.status !== 200 || (r.body.pagination.total >= count && r.body.data.length >= Math.min(count, 100)),
    `${count} access-log records of ${account.uid}`,
  )
  assert.equal(status, 200, JSON.stringify(body))
  return body as { data: Record<string, unknown>[]; pagination: { total: number } }
}

before(async () => {
  ctx = await createTestApp({ clock: () => clock.now, env: { ACCESS_LOG_FLUSH_INTERVAL_MS: '20', QUOTA_PRO: '50' } })
  farmA = await farm()
  farmB = await farm()
  const linked = await createIntegrator(ctx, { tier: 'pro', canWrite: true, linkTo: [farmA.uid, farmB.uid] })
  vendor = { uid: linked.uid, headers: bearer((await integratorToken(ctx, linked.uid)).accessToken) }
  const unlinked = await createIntegrator(ctx, { tier: 'enterprise' })
  stranger = { uid: unlinked.uid, headers: bearer((await integratorToken(ctx, unlinked.uid)).accessToken) }
})
after(() => ctx.close())

describe('recording', () => {
  it('records each integrator request on the account: time, route template, method, integrator, status, duration, size, agent, address', async () => {
    const res = await ctx.app.inject({
      method: 'GET',
      url: `/api/v1/users/${farmA.uid}/animals?limit=5`,
      headers: { ...vendor.headers, 'user-agent': 'FarmSoft/4.2 (sync)' },
    })
    assert.equal(res.statusCode, 200)
    const { data } = await logOf(farmA, 1)
    const record = data.find((r) => r.endpoint === '/api/v1/users/:userId/animals')
    assert.ok(record, JSON.stringify(data))
    assert.equal(record.method, 'GET')
    assert.equal(record.integratorUID, vendor.uid)
    assert.equal(record.responseCode, 200)
    assert.equal(record.timestamp, new Date(clock.now).toISOString())
    assert.ok(typeof record.responseTime === 'number' && record.responseTime >= 0)
    assert.equal(record.dataSize, Number(res.headers['content-length']))
    assert.equal(record.userAgent, 'FarmSoft/4.2 (sync)')
    assert.equal(record.ipAddress, '127.0.0.1')
    assert.deepEqual(Object.keys(record).sort(), [
      'dataSize',
      'endpoint',
      'integratorUID',
      'ipAddress',
      'method',
      'responseCode',
      'responseTime',
      'timestamp',
      'userAgent',
    ])
  })

  it('records the failed requests of a linked integrator, with their status', async () => {
    const before = (await logOf(farmA, 0)).pagination.total
    assert.equal((await get(`/users/${farmA.uid}/animals/no-such-animal`, vendor.headers)).statusCode, 404)
    const { data } = await logOf(farmA, before + 1)
    assert.ok(
      data.some((r) => r.endpoint === '/api/v1/users/:userId/animals/:animalId' && r.responseCode === 404),
      JSON.stringify(data),
    )
  })

  it("does not log the owner's own requests, nor put an unlinked integrator's refused request on the account", async () => {
    const before = (await logOf(farmA, 0)).pagination.total
    assert.equal((await get(`/users/${farmA.uid}/animals`, farmA.owner)).statusCode, 200)
    assertError(await get(`/users/${farmA.uid}/animals`, stranger.headers), 403, AUTH_ERRORS.notLinked)
    // the stranger's refusal reaches its own usage: once it is there, the writer has flushed past both requests
    await eventually(
      () => get('/tokens/usage', stranger.headers),
      (r) => r.json().data.totalRequests >= 1,
      "the stranger's usage",
    )
    const { data, pagination } = await logOf(farmA, 0)
    assert.equal(pagination.total, before)
    assert.ok(data.every((r) => r.integratorUID === vendor.uid))
  })

  it("keeps each account's records apart: farm B sees only what the integrator did on farm B", async () => {
    assert.equal((await get(`/users/${farmB.uid}`, vendor.headers)).statusCode, 200)
    const { data } = await logOf(farmB, 1)
    assert.deepEqual(
      data.map((r) => r.endpoint),
      ['/api/v1/users/:userId'],
    )
  })
})

describe('GET /users/:userId/access-log', () => {
  it('is for the account owner only: other users, admins and integrators (even linked ones) get 403', async () => {
    assertError(await get(`/users/${farmA.uid}/access-log`, farmB.owner), 403, AUTH_ERRORS.notOwner)
    assertError(await get(`/users/${farmA.uid}/access-log`, vendor.headers), 403, AUTH_ERRORS.userTokenOnly)
    assertError(await get(`/users/${farmA.uid}/access-log`, {}), 401, AUTH_ERRORS.missingHeader)
  })

  it('pages newest first, filters by integrator and status, and bounds by time', async () => {
    const before = (await logOf(farmA, 0)).pagination.total
    clock.advance(60)
    const later = new Date(clock.now).toISOString()
    assert.equal((await get(`/users/${farmA.uid}/animals/search?group=x`, vendor.headers)).statusCode, 200)
    const all = await eventually(
      () => logOf(farmA, before + 1),
      (log) => log.data[0]?.timestamp === later,
      'the newest record first',
    )
    const pageOne = (await get(`/users/${farmA.uid}/access-log?limit=1&sortOrder=asc`, farmA.owner)).json()
    assert.equal(pageOne.data.length, 1)
    assert.equal(pageOne.pagination.total, all.pagination.total)
    assert.notEqual(pageOne.data[0].timestamp, later)
    const since = await logOf(farmA, 1, `&from=${encodeURIComponent(later)}`)
    assert.deepEqual(
      since.data.map((r) => r.timestamp),
      [later],
    )
    const until = await logOf(farmA, 0, `&to=${encodeURIComponent(later)}`)
    assert.equal(until.pagination.total, all.pagination.total - 1)
    const notFound = await logOf(farmA, 0, '&filter[responseCode]=404')
    assert.ok(notFound.pagination.total >= 1 && notFound.data.every((r) => r.responseCode === 404))
    const other = await logOf(farmA, 0, `&filter[integratorUID]=${stranger.uid}`)
    assert.equal(other.pagination.total, 0)
  })

  it('refuses bad parameters with 400', async () => {
    const url = `/users/${farmA.uid}/access-log`
    assertInvalid(await get(`${url}?from=yesterday`, farmA.owner), ['query:from'])
    assertInvalid(await get(`${url}?to=2026-11-23T10:00:00.000000000000000000000000000000000Z`, farmA.owner), [
      'query:to',
    ])
    assertInvalid(await get(`${url}?from=2026-11-23T10:00:00Z&to=2026-11-23T09:00:00Z`, farmA.owner), ['query:from'])
    assertInvalid(await get(`${url}?filter[userAgent]=x`, farmA.owner), ['query:filter[userAgent]'])
    assertInvalid(await get(`${url}?filter[responseCode]=ok`, farmA.owner), ['query:filter[responseCode]'])
    assertInvalid(await get(`${url}?sortBy=ipAddress`, farmA.owner), ['query:sortBy'])
    assertInvalid(await get(`${url}?limit=0`, farmA.owner), ['query:limit'])
  })
})

describe('GET /tokens/usage', () => {
  it('gives an integrator its requests per endpoint today, with the live daily quota of each', async () => {
    const usage = await eventually(
      () => get('/tokens/usage', vendor.headers),
      (r) =>
        r
          .json()
          .data.endpoints.some((e: { endpoint: string }) => e.endpoint === '/api/v1/users/:userId/animals/search'),
      'usage of today',
    )
    const data = usage.json().data
    assert.equal(data.integratorUID, vendor.uid)
    assert.equal(data.tier, 'Pro')
    assert.equal(data.date, '2026-11-23')
    assert.equal(data.quotaResetsAt, '2026-11-24T00:00:00.000Z')
    const animals = data.endpoints.find((e: { endpoint: string }) => e.endpoint === '/api/v1/users/:userId/animals')
    assert.deepEqual(
      { requests: animals.requests, errors: animals.errors, quota: animals.quota },
      { requests: 1, errors: 0, quota: { limit: 50, used: 1, remaining: 49 } },
    )
    const one = data.endpoints.find(
      (e: { endpoint: string }) => e.endpoint === '/api/v1/users/:userId/animals/:animalId',
    )
    assert.equal(one.errors, 1)
    assert.equal(
      data.totalRequests,
      data.endpoints.reduce((sum: number, e: { requests: number }) => sum + e.requests, 0),
    )
  })

  it('reports another day from the log alone, without quota fields', async () => {
    const res = await get('/tokens/usage?date=2026-11-22', vendor.headers)
    assert.equal(res.statusCode, 200)
    assert.deepEqual(res.json().data, {
      integratorUID: vendor.uid,
      tier: 'Pro',
      date: '2026-11-22',
      totalRequests: 0,
      endpoints: [],
    })
  })

  it('is for integrator tokens only, and refuses a date that is not a real day', async () => {
    assertError(await get('/tokens/usage', farmA.owner), 403, AUTH_ERRORS.integratorTokenOnly)
    assertInvalid(await get('/tokens/usage?date=2026-02-30', vendor.headers), ['query:date'])
    assertInvalid(await get('/tokens/usage?date=today', vendor.headers), ['query:date'])
  })
})

describe('retention', () => {
  it('the hourly maintenance deletes records older than ACCESS_LOG_RETENTION_DAYS (90 by default)', async () => {
    const farmC = await farm()
    await createIntegratorLinkedTo(farmC.uid)
    const total = (await logOf(farmC, 1)).pagination.total
    clock.advance((90 * DAY_MS + 60_000) / 1000)
    farmC.owner = bearer((await userToken(ctx, farmC.email)).accessToken)
    const stop = startMaintenance(ctx.app)
    try {
      await eventually(
        () => logOf(farmC, 0),
        (log) => log.pagination.total === 0,
        'records past retention to be pruned',
      )
    } finally {
      stop()
    }
    assert.ok(total >= 1)
  })
})

/** A fresh integrator linked to the account, which makes one request there. */
async function createIntegratorLinkedTo(uid: string) {
  const integrator = await createIntegrator(ctx, { linkTo: [uid] })
  const headers = bearer((await integratorToken(ctx, integrator.uid, { expiresIn: 86_400 })).accessToken)
  assert.equal((await get(`/users/${uid}`, headers)).statusCode, 200)
}

describe('ACCESS_LOG=off', () => {
  it('records nothing', async () => {
    // An app of its own on the file's store: its accounts are its own, so its rows would be theirs.
    const off = await createTestApp({ env: { ACCESS_LOG: 'off', ACCESS_LOG_FLUSH_INTERVAL_MS: '10' }, store: ctx })
    try {
      const user = await createUser(off)
      const integrator = await createIntegrator(off, { linkTo: [user.uid] })
      const headers = bearer((await integratorToken(off, integrator.uid)).accessToken)
      assert.equal((await off.app.inject({ method: 'GET', url: `/api/v1/users/${user.uid}`, headers })).statusCode, 200)
      await new Promise((resolve) => setTimeout(resolve, 100))
      const rows = await off.database.db
        .selectFrom('access_log')
        .select('id')
        .where((eb) => eb.or([eb('uid', '=', user.uid), eb('integrator_uid', '=', integrator.uid)]))
        .execute()
      assert.equal(rows.length, 0)
    } finally {
      await off.close()
    }
  })
})
