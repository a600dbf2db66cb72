// Store-independent: runs in the embedded pass of npm test only (test/run.ts).
// LeasePool (src/plugins/limit-leases.ts): points taken from Redis ahead, spent locally; refusals remembered.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { LeasePool } from '../../src/plugins/limit-leases.ts'

describe('lease pool', () => {
  it('asks for a key it holds nothing for, then spends a grant point by point, and asks again when it runs out', () => {
    const pool = new LeasePool()
    assert.equal(pool.peek('ip:a', 0), 'ask')
    // Redis counted 10 for this process (a grant of 10, the counter was at 0): this request spends one.
    assert.deepEqual(pool.record('ip:a', 1000, { consumed: 10, ttlMs: 60_000, granted: 10 }, 0), {
      consumedPoints: 1,
      msBeforeNext: 60_000,
    })
    const spent = []
    while (pool.peek('ip:a', 1000) === 'spend') spent.push(pool.spend('ip:a', 1000).consumedPoints)
    assert.deepEqual(spent, [2, 3, 4, 5, 6, 7, 8, 9, 10])
    assert.equal(pool.peek('ip:a', 1000), 'ask')
    assert.equal(pool.spend('ip:a', 1000).msBeforeNext, 59_000)
  })

  it('counts what other processes took as spent', () => {
    const pool = new LeasePool()
    // The counter stood at 40 (other processes' leases) when this process took 10.
    assert.equal(pool.record('ip:a', 1000, { consumed: 50, ttlMs: 1000, granted: 10 }, 0).consumedPoints, 41)
    assert.equal(pool.spend('ip:a', 0).consumedPoints, 42)
  })

  it('adds a grant to what is left of an earlier one in the same window, not to one that has ended', () => {
    const pool = new LeasePool()
    pool.record('k', 1000, { consumed: 10, ttlMs: 1000, granted: 10 }, 0) // 9 left here
    assert.equal(pool.record('k', 1000, { consumed: 30, ttlMs: 900, granted: 10 }, 100).consumedPoints, 12) // 30 - (9 + 9)
    let count = 0
    while (pool.peek('k', 200) === 'spend') {
      pool.spend('k', 200)
      count++
    }
    assert.equal(count, 18)
    pool.record('k', 1000, { consumed: 5, ttlMs: 1000, granted: 5 }, 5000) // a new window
    count = 0
    while (pool.peek('k', 5001) === 'spend') {
      pool.spend('k', 5001)
      count++
    }
    assert.equal(count, 4)
  })

  it('remembers a refusal until its window ends', () => {
    const pool = new LeasePool()
    const refused = pool.record('q', 10, { consumed: 11, ttlMs: 30_000, granted: 0 }, 0)
    assert.ok(refused.consumedPoints > 10)
    assert.equal(pool.peek('q', 29_999), 'refuse')
    assert.deepEqual(pool.spend('q', 20_000), { consumedPoints: 11, msBeforeNext: 10_000 })
    assert.equal(pool.peek('q', 30_000), 'ask')
  })

  it('holds at most maxKeys keys: ended windows go first, then the oldest grants', () => {
    const pool = new LeasePool({ maxKeys: 3 })
    pool.record('old', 100, { consumed: 5, ttlMs: 10, granted: 5 }, 0)
    pool.record('a', 100, { consumed: 5, ttlMs: 1000, granted: 5 }, 0)
    pool.record('b', 100, { consumed: 5, ttlMs: 1000, granted: 5 }, 0)
    pool.record('c', 100, { consumed: 5, ttlMs: 1000, granted: 5 }, 20) // 'old' has ended by now
    assert.equal(pool.size, 3)
    assert.equal(pool.peek('a', 20), 'spend')
    pool.record('d', 100, { consumed: 5, ttlMs: 1000, granted: 5 }, 30)
    assert.equal(pool.size, 3)
    assert.equal(pool.peek('a', 30), 'ask')
    assert.equal(pool.peek('d', 30), 'spend')
  })
})
