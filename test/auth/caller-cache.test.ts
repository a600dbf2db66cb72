// The caller cache: served from memory while nothing changed, dropped by each change on the feed, never
// stale across a change that lands mid-lookup, bypassed while the feed is down. Then for real: two API
// processes on one PostgreSQL, where a revocation, an unlink and a deactivation made through one process (or
// the operator's SQL) are refused by the other within 1 s.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import pg from 'pg'
import { cachingCallerSource, changeTags, type ChangeFeed } from '../../src/auth/caller-cache.ts'
import type { CallerSource, IntegratorPrincipal, PrincipalState } from '../../src/auth/caller.ts'
import { createScratchDatabase, usingRealServers } from '../support/app.ts'
import { call, keepAliveAgent, serviceEnv, startService, type ServiceProcess } from '../faults/support/service.ts'
import { farmHeaders, seedFarm, type Farm } from '../faults/support/farm.ts'

function fakeFeed() {
  const listeners: ((payload: string) => void)[] = []
  const feed = {
    live: true,
    onChange: (l: (payload: string) => void) => {
      listeners.push(l)
    },
  }
  return {
    feed: feed as ChangeFeed & { live: boolean },
    emit: (payload: string) => {
      for (const l of listeners) l(payload)
    },
  }
}

function countingSource() {
  const calls = { integrator: 0, links: 0 }
  let pause: Promise<void> | undefined
  const state = (uid: string): PrincipalState<IntegratorPrincipal> => ({
    principal: { uid, is_active: true } as IntegratorPrincipal,
    revoked: false,
  })
  const source: CallerSource = {
    integrator: async (uid) => {
      calls.integrator++
      await pause
      return uid === 'unknown' ? undefined : state(uid)
    },
    user: async () => undefined,
    linkOf: async () => {
      calls.links++
      return 'linked' as const
    },
  }
  return {
    source,
    calls,
    pauseUntil: (p: Promise<void>) => {
      pause = p
    },
  }
}

const options = (now = () => 0) => ({ ttlMs: 30_000, maxEntries: 100, now })

describe('caller cache rules', () => {
  it('serves a caller and a link from memory after the first lookup', async () => {
    const { feed } = fakeFeed()
    const { source, calls } = countingSource()
    const cache = cachingCallerSource(source, feed, options())
    for (let i = 0; i < 3; i++) {
      await cache.integrator('int-1', 'jti-1')
      await cache.linkOf('farm-1', 'int-1')
    }
    assert.deepEqual(calls, { integrator: 1, links: 1 })
  })

  it('drops what a change touches: the principal, one token, one link, or the links of an account', async () => {
    const { feed, emit } = fakeFeed()
    const { source, calls } = countingSource()
    const cache = cachingCallerSource(source, feed, options())
    await cache.integrator('int-1', 'jti-1')
    await cache.integrator('int-1', 'jti-2')
    await cache.integrator('int-2', 'jti-3')
    emit(JSON.stringify({ jti: 'jti-1' }))
    assert.equal(cache.size(), 2)
    emit(JSON.stringify({ integrator: 'int-1' }))
    assert.equal(cache.size(), 1)
    await cache.linkOf('farm-1', 'int-2')
    emit(JSON.stringify({ user: 'farm-1', integrator: 'int-2' }))
    await cache.linkOf('farm-1', 'int-2')
    assert.equal(calls.links, 2)
    // A change to the account (deactivated, reactivated) drops its links too.
    emit(JSON.stringify({ user: 'farm-1' }))
    await cache.linkOf('farm-1', 'int-2')
    assert.equal(calls.links, 3)
    emit('reset')
    assert.equal(cache.size(), 0)
  })

  it('does not store an answer read while a change arrived', async () => {
    const { feed, emit } = fakeFeed()
    const { source, calls, pauseUntil } = countingSource()
    const cache = cachingCallerSource(source, feed, options())
    let release = () => {}
    pauseUntil(
      new Promise<void>((resolve) => {
        release = resolve
      }),
    )
    const lookup = cache.integrator('int-1', 'jti-1')
    emit(JSON.stringify({ integrator: 'int-1' }))
    release()
    await lookup
    pauseUntil(Promise.resolve())
    await cache.integrator('int-1', 'jti-1')
    assert.equal(calls.integrator, 2)
  })

  it('asks the source every time while the feed is down, and forgets what it held', async () => {
    const { feed } = fakeFeed()
    const { source, calls } = countingSource()
    const cache = cachingCallerSource(source, feed, options())
    await cache.integrator('int-1', 'jti-1')
    feed.live = false
    await cache.integrator('int-1', 'jti-1')
    await cache.integrator('int-1', 'jti-1')
    assert.equal(calls.integrator, 3)
    assert.equal(cache.size(), 0)
  })

  it('expires entries after the TTL and never keeps an unknown principal', async () => {
    let now = 0
    const { feed } = fakeFeed()
    const { source, calls } = countingSource()
    const cache = cachingCallerSource(
      source,
      feed,
      options(() => now),
    )
    await cache.integrator('int-1', 'jti-1')
    now = 30_001
    await cache.integrator('int-1', 'jti-1')
    await cache.integrator('unknown', 'jti-9')
    await cache.integrator('unknown', 'jti-9')
    assert.equal(calls.integrator, 4)
  })

  it('reads change payloads; anything unreadable clears everything', () => {
    assert.deepEqual(changeTags('{"jti":"a"}'), ['jti:a'])
    assert.deepEqual(changeTags('{"integrator":"i"}'), ['integrator:i'])
    assert.deepEqual(changeTags('{"user":"u","integrator":"i"}'), ['link:["u","i"]'])
    assert.equal(changeTags('not json'), 'all')
    assert.equal(changeTags('{}'), 'all')
  })
})

describe(
  'two API processes on one PostgreSQL',
  { skip: usingRealServers ? false : 'needs DATABASE_URL (the embedded store admits one process)' },
  () => {
    let scratch: Awaited<ReturnType<typeof createScratchDatabase>>
    let a: ServiceProcess
    let b: ServiceProcess
    let farm: Farm
    const agent = keepAliveAgent()

    before(async () => {
      scratch = await createScratchDatabase()
      const store = { DATABASE_URL: scratch!.url }
      farm = await seedFarm(store)
      ;[a, b] = await Promise.all([startService(serviceEnv(store)), startService(serviceEnv(store))])
    })
    after(async () => {
      agent.destroy()
      for (const service of [a, b]) {
        service?.child.kill('SIGTERM')
        await service?.exited
      }
      await scratch?.drop()
    })

    /** How long until process `service` answers `status` to the read; fails after 1 s. */
    async function refusedWithin(
      service: ServiceProcess,
      headers: Record<string, string>,
      status: number,
    ): Promise<number> {
      const started = performance.now()
      for (;;) {
        const res = await call(agent, service.port, 'GET', `/api/v1/users/${farm.uid}/animals`, { headers })
        const elapsed = performance.now() - started
        if (res.status === status) return elapsed
        assert.ok(elapsed < 1000, `still ${res.status} after ${elapsed.toFixed(0)} ms`)
        await new Promise((resolve) => setTimeout(resolve, 5))
      }
    }

    it('a token revoked through one process is refused by the other within 1 s', async () => {
      const headers = await farmHeaders(agent, a, farm)
      assert.equal((await call(agent, b.port, 'GET', `/api/v1/users/${farm.uid}/animals`, { headers })).status, 200)
      assert.equal((await call(agent, a.port, 'POST', '/api/v1/tokens/revoke', { headers })).status, 200)
      const ms = await refusedWithin(b, headers, 401)
      assert.ok(ms < 1000)
    })

    it('an unlink and a deactivation by the operator (SQL, no API at all) reach both processes within 1 s', async () => {
      const headers = await farmHeaders(agent, a, farm)
      for (const service of [a, b])
        assert.equal(
          (await call(agent, service.port, 'GET', `/api/v1/users/${farm.uid}/animals`, { headers })).status,
          200,
        )
      const client = new pg.Client({ connectionString: scratch!.url })
      await client.connect()
      try {
        await client.query('DELETE FROM user_integrator_links WHERE uid = $1 AND integrator_uid = $2', [
          farm.uid,
          farm.integratorUid,
        ])
        for (const service of [a, b]) await refusedWithin(service, headers, 403)
        await client.query('INSERT INTO user_integrator_links (uid, integrator_uid, linked_by) VALUES ($1, $2, $3)', [
          farm.uid,
          farm.integratorUid,
          'operator',
        ])
        for (const service of [a, b]) await refusedWithin(service, headers, 200)
        await client.query('UPDATE integrators SET is_active = false WHERE uid = $1', [farm.integratorUid])
        for (const service of [a, b]) await refusedWithin(service, headers, 403)
        await client.query('UPDATE integrators SET is_active = true WHERE uid = $1', [farm.integratorUid])
      } finally {
        await client.end()
      }
    })

    it('with its listener connection cut, a process serves nothing from its cache: a change made meanwhile is seen at once', async () => {
      const headers = await farmHeaders(agent, a, farm)
      assert.equal((await call(agent, b.port, 'GET', `/api/v1/users/${farm.uid}/animals`, { headers })).status, 200)
      const client = new pg.Client({ connectionString: scratch!.url })
      await client.connect()
      try {
        await client.query(
          `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'livestock-api access-changes' AND datname = current_database()`,
        )
        // The notification of this change goes to no one in the cut processes; they must not answer from memory.
        await client.query('UPDATE integrators SET is_active = false WHERE uid = $1', [farm.integratorUid])
        for (const service of [a, b]) await refusedWithin(service, headers, 403)
        await client.query('UPDATE integrators SET is_active = true WHERE uid = $1', [farm.integratorUid])
        for (const service of [a, b]) await refusedWithin(service, headers, 200)
      } finally {
        await client.end()
      }
    })
  },
)
