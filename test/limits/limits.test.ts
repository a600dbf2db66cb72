// The spec's Limits, through HTTP: each limit at its boundary, the headers, the UTC-day reset.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createTestApp, type TestContext } from '../support/app.ts'
import {
  PASSWORD,
  bearer,
  createIntegrator,
  createUser,
  integratorToken,
  manualClock,
  userToken,
} from '../support/fixtures.ts'

type Res = Awaited<ReturnType<TestContext['app']['inject']>>

// Each test's app has limits of its own (the counters live in the app's process, or under its own Redis prefix), all
// on one store: its accounts are new for each test, so a store of its own would prove nothing more.
let store: TestContext
before(async () => {
  store = await createTestApp()
})
after(() => store.close())

async function withApp(env: Record<string, string>, fn: (ctx: TestContext) => Promise<void>, clock?: () => number) {
  const ctx = await createTestApp({ env, clock, store })
  try {
    await fn(ctx)
  } finally {
    await ctx.close()
  }
}

function headersOf(res: Res) {
  return {
    limit: Number(res.headers['x-ratelimit-limit']),
    remaining: Number(res.headers['x-ratelimit-remaining']),
    reset: Number(res.headers['x-ratelimit-reset']),
  }
}

describe('failed integrator authentications', () => {
  it('refuses an IP that failed AUTH_FAILURES_MAX times for one integratorUID with 429, even with the right secret', async () => {
    await withApp({ AUTH_FAILURES_MAX: '3' }, async (ctx) => {
      const { uid, clientSecret } = await createIntegrator(ctx, { clientSecret: 'the-right-secret-0123456789' })
      const attempt = (secret: string | undefined, ip = '10.1.0.1', integratorUID = uid) =>
        ctx.app.inject({
          method: 'POST',
          url: '/api/v1/tokens',
          remoteAddress: ip,
          payload: { integratorUID, ...(secret ? { clientSecret: secret } : {}) },
        })
      for (const secret of ['wrong-1', undefined, 'wrong-3']) assert.equal((await attempt(secret)).statusCode, 401)
      const refused = await attempt(clientSecret)
      assert.equal(refused.statusCode, 429)
      assert.equal(
        refused.json().error,
        'Too many failed authentication attempts for this integratorUID from this address: 3 per 15 minutes',
      )
      assert.ok(Number(refused.headers['retry-after']) > 0)
      // another address, or another UID from this address, is not held back
      assert.equal((await attempt(clientSecret, '10.1.0.2')).statusCode, 200)
      assert.equal((await attempt('x', '10.1.0.1', 'int_unknown')).statusCode, 401)
    })
  })

  it('checks at most AUTH_FAILURES_MAX wrong secrets sent at once', async () => {
    // The brake read the count before the check and raised it after a failure: secrets sent together all passed it
    // (8 of 8 checked with a bound of 3), so the bound held only for guesses sent one after another.
    await withApp({ AUTH_FAILURES_MAX: '3' }, async (ctx) => {
      const { uid, clientSecret } = await createIntegrator(ctx, { clientSecret: 'the-right-secret-0123456789' })
      const attempt = (secret: string) =>
        ctx.app.inject({
          method: 'POST',
          url: '/api/v1/tokens',
          remoteAddress: '10.1.1.1',
          payload: { integratorUID: uid, clientSecret: secret },
        })
      const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => attempt(`wrong guess ${i}`)))
      assert.deepEqual(answers.map((res) => res.statusCode).sort(), [401, 401, 401, 429, 429, 429, 429, 429])
      assert.equal((await attempt(clientSecret!)).statusCode, 429)
    })
  })

  it('gives a right secret back its place in the count', async () => {
    await withApp({ AUTH_FAILURES_MAX: '3' }, async (ctx) => {
      const { uid, clientSecret } = await createIntegrator(ctx, { clientSecret: 'the-right-secret-0123456789' })
      const attempt = (secret: string) =>
        ctx.app.inject({ method: 'POST', url: '/api/v1/tokens', payload: { integratorUID: uid, clientSecret: secret } })
      for (let i = 0; i < 5; i++) assert.equal((await attempt(clientSecret!)).statusCode, 200)
      for (let i = 0; i < 2; i++) assert.equal((await attempt(`wrong guess ${i}`)).statusCode, 401)
      assert.equal((await attempt(clientSecret!)).statusCode, 200)
      assert.equal((await attempt('wrong guess 2')).statusCode, 401)
      assert.equal((await attempt(clientSecret!)).statusCode, 429)
    })
  })
})

describe('failed logins per account', () => {
  it('refuses an account LOGIN_FAILURES_MAX failed logins from any addresses with 429, the right password too; other accounts go on', async () => {
    await withApp({ LOGIN_FAILURES_MAX: '3' }, async (ctx) => {
      const user = await createUser(ctx)
      const other = await createUser(ctx)
      const login = (email: string, password: string, ip: string) =>
        ctx.app.inject({ method: 'POST', url: '/api/v1/tokens/login', remoteAddress: ip, payload: { email, password } })
      for (const ip of ['10.2.0.1', '10.2.0.2', '10.2.0.3'])
        assert.equal((await login(user.email, 'a wrong password', ip)).statusCode, 401)
      const refused = await login(user.email.toUpperCase(), PASSWORD, '10.2.0.4')
      assert.equal(refused.statusCode, 429)
      assert.equal(refused.json().error, 'Too many failed logins for this account: 3 per 15 minutes')
      assert.ok(Number(refused.headers['retry-after']) > 0)
      assert.equal((await login(other.email, PASSWORD, '10.2.0.4')).statusCode, 200)
    })
  })

  it('checks at most LOGIN_FAILURES_MAX guesses sent at once, from any addresses', async () => {
    // The brake read the count before the password check and raised it after: guesses sent together all passed it
    // (8 of 8 checked with a bound of 3), so the bound held only for guesses sent one after another.
    await withApp({ LOGIN_FAILURES_MAX: '3' }, async (ctx) => {
      const user = await createUser(ctx)
      const login = (password: string, ip: string) =>
        ctx.app.inject({
          method: 'POST',
          url: '/api/v1/tokens/login',
          remoteAddress: ip,
          payload: { email: user.email, password },
        })
      const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => login(`wrong guess ${i}`, `10.3.0.${i}`)))
      const statuses = answers.map((res) => res.statusCode).sort()
      assert.deepEqual(statuses, [401, 401, 401, 429, 429, 429, 429, 429])
      assert.equal((await login(PASSWORD, '10.3.0.9')).statusCode, 429)
    })
  })

  it('gives a right password back its place in the count', async () => {
    await withApp({ LOGIN_FAILURES_MAX: '3' }, async (ctx) => {
      const user = await createUser(ctx)
      const login = (password: string) =>
        ctx.app.inject({ method: 'POST', url: '/api/v1/tokens/login', payload: { email: user.email, password } })
      for (let i = 0; i < 5; i++) assert.equal((await login(PASSWORD)).statusCode, 200)
      for (let i = 0; i < 2; i++) assert.equal((await login(`wrong guess ${i}`)).statusCode, 401)
      assert.equal((await login(PASSWORD)).statusCode, 200)
      assert.equal((await login('wrong guess 2')).statusCode, 401)
      assert.equal((await login(PASSWORD)).statusCode, 429)
    })
  })

  it("counts a password change's wrong current password as a failed login of the account", async () => {
    // A token of the account (one leaked for an hour) guessed its password through POST .../password, at the
    // user quota's 1,000 a day, past the login brake: the password then opened the account for good.
    await withApp({ LOGIN_FAILURES_MAX: '3' }, async (ctx) => {
      const user = await createUser(ctx)
      const { accessToken } = await userToken(ctx, user.email)
      const change = (currentPassword: string) =>
        ctx.app.inject({
          method: 'POST',
          url: `/api/v1/users/${user.uid}/password`,
          headers: bearer(accessToken),
          payload: { currentPassword, newPassword: 'a guessed way in' },
        })
      for (let i = 0; i < 3; i++) assert.equal((await change(`wrong guess ${i}`)).statusCode, 403)
      const refused = await change(PASSWORD)
      assert.equal(refused.statusCode, 429, refused.body)
      assert.equal(refused.json().error, 'Too many failed logins for this account: 3 per 15 minutes')
      const login = await ctx.app.inject({
        method: 'POST',
        url: '/api/v1/tokens/login',
        payload: { email: user.email, password: PASSWORD },
      })
      assert.equal(login.statusCode, 429)
    })
  })
})

describe('IP rate limits', () => {
  it('allows exactly RATE_LIMIT_IP_MAX requests per window, then 429 with Retry-After and headers', async () => {
    await withApp({ RATE_LIMIT_IP_MAX: '5' }, async (ctx) => {
      // The window starts with the first request: its reset lies 15 minutes after a moment between these two.
      const started = Math.floor(Date.now() / 1000)
      let firstAnswered = Infinity
      for (let i = 1; i <= 5; i++) {
        const res = await ctx.app.inject({ method: 'GET', url: '/api/v1/tokens' })
        if (i === 1) firstAnswered = Math.ceil(Date.now() / 1000)
        assert.equal(res.statusCode, 200, `request ${i}`)
        const h = headersOf(res)
        assert.equal(h.limit, 5)
        assert.equal(h.remaining, 5 - i)
        assert.ok(h.reset >= started + 899 && h.reset <= firstAnswered + 901, `reset ${h.reset} about 15 minutes ahead`)
      }
      const refused = await ctx.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })
      assert.equal(refused.statusCode, 429)
      assert.equal(refused.json().success, false)
      assert.equal(refused.json().error, 'Rate limit exceeded: 5 requests per 15 minutes per IP address')
      assert.match(refused.json().timestamp, /^\d{4}-/)
      const retryAfter = Number(refused.headers['retry-after'])
      assert.ok(retryAfter > 890 && retryAfter <= 900, `Retry-After ${retryAfter}`)
      assert.equal(headersOf(refused).remaining, 0)
      assert.ok(refused.headers['x-request-id'])
      assert.equal(refused.headers['ratelimit-policy'], '"ip";q=5;w=900')
      assert.match(String(refused.headers.ratelimit), /^"ip";r=0;t=\d+$/)
    })
  })

  it('counts routes that need a token before reading them: a spent IP gets 429 before 401, 415 or a quota count', async () => {
    await withApp({ RATE_LIMIT_IP_MAX: '3', QUOTA_FREE: '10' }, async (ctx) => {
      const { uid } = await createIntegrator(ctx, { tier: 'free' })
      const { accessToken } = await integratorToken(ctx, uid)
      const info = () => ctx.app.inject({ method: 'GET', url: '/api/v1/tokens/info', headers: bearer(accessToken) })
      const first = await info()
      assert.equal(first.statusCode, 200)
      assert.equal(first.headers['ratelimit-policy'], '"ip";q=3;w=900, "quota";q=10;w=86400')
      // without a token: counted against the IP, then 401
      const anonymous = await ctx.app.inject({ method: 'GET', url: '/api/v1/tokens/info' })
      assert.equal(anonymous.statusCode, 401)
      assert.equal(anonymous.headers['x-ratelimit-remaining'], '1')
      // a bad token and a body the route does not take: authentication comes before the body, so 401, not 415
      const badBody = await ctx.app.inject({
        method: 'POST',
        url: `/api/v1/users/u-1/animals`,
        headers: { authorization: 'Bearer nope', 'content-type': 'text/plain' },
        payload: 'x',
      })
      assert.equal(badBody.statusCode, 401)
      for (const refused of [
        await info(),
        await ctx.app.inject({ method: 'GET', url: '/api/v1/tokens/info', headers: bearer('not-a-token') }),
      ]) {
        assert.equal(refused.statusCode, 429)
        assert.equal(refused.json().error, 'Rate limit exceeded: 3 requests per 15 minutes per IP address')
      }
      const usage = await ctx.app.quotas.quotaUsage(
        { kind: 'integrator', integrator: { uid, tier: 'free' } } as never,
        'GET /api/v1/tokens/info',
      )
      assert.equal(usage.used, 1, 'requests the IP limit refused spent none of the daily quota')
    })
  })

  it('counts each IP on its own, and believes X-Forwarded-For only with TRUST_PROXY', async () => {
    await withApp({ RATE_LIMIT_IP_MAX: '2' }, async (ctx) => {
      const from = (ip: string, headers: Record<string, string> = {}) =>
        ctx.app.inject({ method: 'GET', url: '/api/v1/tokens', remoteAddress: ip, headers })
      assert.equal((await from('10.0.0.1')).statusCode, 200)
      assert.equal((await from('10.0.0.1')).statusCode, 200)
      assert.equal((await from('10.0.0.1')).statusCode, 429)
      assert.equal((await from('10.0.0.2')).statusCode, 200)
      // not trusted: a spoofed header does not buy a new budget
      assert.equal((await from('10.0.0.1', { 'x-forwarded-for': '203.0.113.9' })).statusCode, 429)
    })
    await withApp({ RATE_LIMIT_IP_MAX: '1', TRUST_PROXY: '10.0.0.1' }, async (ctx) => {
      const viaProxy = (client: string) =>
        ctx.app.inject({
          method: 'GET',
          url: '/api/v1/tokens',
          remoteAddress: '10.0.0.1',
          headers: { 'x-forwarded-for': client },
        })
      assert.equal((await viaProxy('203.0.113.1')).statusCode, 200)
      assert.equal((await viaProxy('203.0.113.1')).statusCode, 429)
      assert.equal((await viaProxy('203.0.113.2')).statusCode, 200)
    })
  })

  it('behind a trusted proxy, keys an IPv4-mapped address as its IPv4 address and an IPv6 address on its /64', async () => {
    await withApp({ RATE_LIMIT_IP_MAX: '1', TRUST_PROXY: '10.0.0.1' }, async (ctx) => {
      const viaProxy = (client: string) =>
        ctx.app.inject({
          method: 'GET',
          url: '/api/v1/tokens',
          remoteAddress: '10.0.0.1',
          headers: { 'x-forwarded-for': client },
        })
      assert.equal((await viaProxy('203.0.113.7')).statusCode, 200)
      assert.equal((await viaProxy('::ffff:203.0.113.7')).statusCode, 429, 'the same IPv4 address')
      assert.equal((await viaProxy('2001:db8:1:2::1')).statusCode, 200)
      for (const sameNetwork of ['2001:db8:1:2::2', '2001:DB8:1:2:ffff:ffff:ffff:ffff', '2001:0db8:0001:0002:0::9'])
        assert.equal((await viaProxy(sameNetwork)).statusCode, 429, sameNetwork)
      assert.equal((await viaProxy('2001:db8:1:3::1')).statusCode, 200, 'another /64')
    })
  })

  it('gives POST /tokens and POST /tokens/refresh a bucket each, apart from the general one', async () => {
    await withApp({ RATE_LIMIT_TOKENS_MAX: '3', RATE_LIMIT_IP_MAX: '100' }, async (ctx) => {
      const { uid } = await createIntegrator(ctx)
      for (let i = 1; i <= 3; i++) {
        const res = await ctx.app.inject({
          method: 'POST',
          url: '/api/v1/tokens',
          payload: { integratorUID: i === 2 ? 'int_wrong' : uid },
        })
        assert.notEqual(res.statusCode, 429, `request ${i} (refusals count too)`)
        assert.equal(headersOf(res).limit, 3)
      }
      const refused = await ctx.app.inject({ method: 'POST', url: '/api/v1/tokens', payload: { integratorUID: uid } })
      assert.equal(refused.statusCode, 429)
      assert.equal(
        refused.json().error,
        'Rate limit exceeded: 3 requests per 15 minutes per IP address on POST /api/v1/tokens',
      )
      for (let i = 1; i <= 3; i++) {
        const res = await ctx.app.inject({
          method: 'POST',
          url: '/api/v1/tokens/refresh',
          payload: { refreshToken: 'x.y.z' },
        })
        assert.equal(res.statusCode, 401, `refresh ${i} has its own bucket`)
      }
      const refreshRefused = await ctx.app.inject({
        method: 'POST',
        url: '/api/v1/tokens/refresh',
        payload: { refreshToken: 'x.y.z' },
      })
      assert.equal(refreshRefused.statusCode, 429)
      assert.equal(
        refreshRefused.json().error,
        'Rate limit exceeded: 3 requests per 15 minutes per IP address on POST /api/v1/tokens/refresh',
      )
      const general = await ctx.app.inject({ method: 'GET', url: '/api/v1/tokens' })
      assert.equal(general.statusCode, 200)
      assert.equal(headersOf(general).limit, 100)
      assert.equal(headersOf(general).remaining, 99)
    })
  })

  it('never limits health, readiness or metrics', async () => {
    await withApp({ RATE_LIMIT_IP_MAX: '1', METRICS_PUBLIC: 'on' }, async (ctx) => {
      for (let i = 0; i < 5; i++) {
        for (const url of ['/api/v1/health', '/api/v1/health/ready', '/metrics']) {
          const res = await ctx.app.inject({ method: 'GET', url })
          assert.equal(res.statusCode, 200, url)
          assert.equal(res.headers['x-ratelimit-limit'], undefined)
        }
      }
    })
  })

  it('treats 0 as unlimited', async () => {
    await withApp({ RATE_LIMIT_IP_MAX: '0' }, async (ctx) => {
      for (let i = 0; i < 30; i++)
        assert.equal((await ctx.app.inject({ method: 'GET', url: '/api/v1/tokens' })).statusCode, 200)
    })
  })
})

describe('daily per-endpoint quotas', () => {
  it('allows the Free tier exactly QUOTA_FREE calls per endpoint, then 429 naming the quota', async () => {
    const clock = manualClock(Date.UTC(2026, 10, 22, 10, 0, 0))
    await withApp(
      { QUOTA_FREE: '3' },
      async (ctx) => {
        const { uid } = await createIntegrator(ctx, { tier: 'free' })
        const { accessToken } = await integratorToken(ctx, uid)
        const midnight = Date.UTC(2026, 10, 23) / 1000
        for (let i = 1; i <= 3; i++) {
          const res = await ctx.app.inject({
            method: 'GET',
            url: '/api/v1/tokens/validate',
            headers: bearer(accessToken),
          })
          assert.equal(res.statusCode, 200, `call ${i}`)
          assert.deepEqual(headersOf(res), { limit: 3, remaining: 3 - i, reset: midnight })
        }
        const refused = await ctx.app.inject({
          method: 'GET',
          url: '/api/v1/tokens/validate',
          headers: bearer(accessToken),
        })
        assert.equal(refused.statusCode, 429)
        assert.equal(
          refused.json().error,
          'Daily quota exceeded: 3 requests per day to GET /api/v1/tokens/validate for the Free tier; it resets at 00:00 UTC',
        )
        assert.equal(refused.headers['retry-after'], String(14 * 3600))
        assert.deepEqual(headersOf(refused), { limit: 3, remaining: 0, reset: midnight })
        // another endpoint has a budget of its own
        const other = await ctx.app.inject({ method: 'GET', url: '/api/v1/tokens/info', headers: bearer(accessToken) })
        assert.equal(other.statusCode, 200)
        assert.equal(headersOf(other).remaining, 2)
      },
      () => clock.now,
    )
  })

  it("counts HEAD under GET's quota: a HEAD is no second daily budget for the same read", async () => {
    await withApp({ QUOTA_FREE: '2' }, async (ctx) => {
      const { uid } = await createIntegrator(ctx, { tier: 'free' })
      const headers = bearer((await integratorToken(ctx, uid)).accessToken)
      const call = (method: 'GET' | 'HEAD') => ctx.app.inject({ method, url: '/api/v1/tokens/validate', headers })
      assert.equal((await call('HEAD')).statusCode, 200)
      assert.equal(headersOf(await call('GET')).remaining, 0)
      const refused = await call('GET')
      assert.equal(refused.statusCode, 429)
      assert.equal(
        refused.json().error,
        'Daily quota exceeded: 2 requests per day to GET /api/v1/tokens/validate for the Free tier; it resets at 00:00 UTC',
      )
      assert.equal((await call('HEAD')).statusCode, 429)
    })
  })

  it('resets at 00:00 UTC (injected clock)', async () => {
    const clock = manualClock(Date.UTC(2026, 10, 22, 23, 59, 58))
    await withApp(
      { QUOTA_FREE: '2' },
      async (ctx) => {
        const { uid } = await createIntegrator(ctx, { tier: 'free' })
        const { accessToken } = await integratorToken(ctx, uid, { expiresIn: 86400 })
        const call = () =>
          ctx.app.inject({ method: 'GET', url: '/api/v1/tokens/validate', headers: bearer(accessToken) })
        assert.equal((await call()).statusCode, 200)
        assert.equal((await call()).statusCode, 200)
        const refused = await call()
        assert.equal(refused.statusCode, 429)
        assert.equal(refused.headers['retry-after'], '2')
        clock.advance(2) // 00:00:00 UTC
        const fresh = await call()
        assert.equal(fresh.statusCode, 200)
        assert.equal(headersOf(fresh).remaining, 1)
        assert.equal(headersOf(fresh).reset, Date.UTC(2026, 10, 24) / 1000)
      },
      () => clock.now,
    )
  })

  it('applies each tier its own quota, Enterprise none, and user tokens QUOTA_USER', async () => {
    await withApp(
      { QUOTA_FREE: '1', QUOTA_STARTER: '2', QUOTA_PRO: '3', QUOTA_ENTERPRISE: '0', QUOTA_USER: '4' },
      async (ctx) => {
        const spend = async (token: string) => {
          let allowed = 0
          for (let i = 0; i < 6; i++) {
            const res = await ctx.app.inject({ method: 'GET', url: '/api/v1/tokens/info', headers: bearer(token) })
            if (res.statusCode === 200) allowed++
            else assert.equal(res.statusCode, 429)
          }
          return allowed
        }
        for (const [tier, expected] of [
          ['free', 1],
          ['starter', 2],
          ['pro', 3],
          ['enterprise', 6],
        ] as const) {
          const { uid } = await createIntegrator(ctx, { tier })
          assert.equal(await spend((await integratorToken(ctx, uid)).accessToken), expected, tier)
        }
        const user = await createUser(ctx)
        assert.equal(await spend((await userToken(ctx, user.email)).accessToken), 4, 'user token')
      },
    )
  })

  it('of 50 parallel calls with 5 left, exactly 5 succeed', async () => {
    await withApp({ QUOTA_STARTER: '5' }, async (ctx) => {
      const { uid } = await createIntegrator(ctx, { tier: 'starter' })
      const { accessToken } = await integratorToken(ctx, uid)
      const results = await Promise.all(
        Array.from({ length: 50 }, () =>
          ctx.app.inject({ method: 'GET', url: '/api/v1/tokens/validate', headers: bearer(accessToken) }),
        ),
      )
      assert.equal(results.filter((r) => r.statusCode === 200).length, 5)
      assert.equal(results.filter((r) => r.statusCode === 429).length, 45)
    })
  })

  it('counts quota per caller: another integrator of the same tier has its own budget', async () => {
    await withApp({ QUOTA_FREE: '1' }, async (ctx) => {
      const a = await integratorToken(ctx, (await createIntegrator(ctx, { tier: 'free' })).uid)
      const b = await integratorToken(ctx, (await createIntegrator(ctx, { tier: 'free' })).uid)
      assert.equal(
        (await ctx.app.inject({ method: 'GET', url: '/api/v1/tokens/info', headers: bearer(a.accessToken) }))
          .statusCode,
        200,
      )
      assert.equal(
        (await ctx.app.inject({ method: 'GET', url: '/api/v1/tokens/info', headers: bearer(a.accessToken) }))
          .statusCode,
        429,
      )
      assert.equal(
        (await ctx.app.inject({ method: 'GET', url: '/api/v1/tokens/info', headers: bearer(b.accessToken) }))
          .statusCode,
        200,
      )
    })
  })

  it('reports in the headers whichever limit is closest to being spent', async () => {
    await withApp({ QUOTA_PRO: '50', RATE_LIMIT_IP_MAX: '10' }, async (ctx) => {
      const { accessToken } = await integratorToken(ctx, (await createIntegrator(ctx, { tier: 'pro' })).uid)
      const res = await ctx.app.inject({ method: 'GET', url: '/api/v1/tokens/info', headers: bearer(accessToken) })
      assert.equal(headersOf(res).limit, 10, 'the IP window has fewer requests left')
      assert.equal(res.headers['ratelimit-policy'], '"ip";q=10;w=900, "quota";q=50;w=86400')
    })
  })
})
