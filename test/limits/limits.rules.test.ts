// Store-independent: runs in the embedded pass of npm test only (test/run.ts).
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  clientAddressKey,
  closestToLimit,
  dailyQuotaOf,
  ipBucketOf,
  utcDayWindow,
  type LimitState,
} from '../../src/auth/limits.rules.ts'
import { loadConfig } from '../../src/config.ts'

const limits = loadConfig({}).limits

describe('limit rules', () => {
  it('counts a route in the bucket its limit class names: the general one by default, none when exempt', () => {
    for (const bucket of ['tokens', 'refresh', 'login', 'ip'] as const) assert.equal(ipBucketOf(bucket), bucket)
    assert.equal(ipBucketOf(undefined), 'ip')
    assert.equal(ipBucketOf('exempt'), undefined)
  })

  it('gives each tier the spec quota and user tokens 1,000', () => {
    assert.equal(dailyQuotaOf({ kind: 'integrator', tier: 'free' }, limits), 10)
    assert.equal(dailyQuotaOf({ kind: 'integrator', tier: 'starter' }, limits), 1000)
    assert.equal(dailyQuotaOf({ kind: 'integrator', tier: 'pro' }, limits), 10000)
    assert.equal(dailyQuotaOf({ kind: 'integrator', tier: 'enterprise' }, limits), 0)
    assert.equal(dailyQuotaOf({ kind: 'user' }, limits), 1000)
  })

  it('cuts days at 00:00 UTC', () => {
    const lastSecond = Date.UTC(2026, 10, 22, 23, 59, 59)
    assert.deepEqual(utcDayWindow(lastSecond), {
      day: '2026-11-22',
      resetAtSeconds: Date.UTC(2026, 10, 23) / 1000,
      secondsLeft: 1,
    })
    const midnight = Date.UTC(2026, 10, 23)
    assert.deepEqual(utcDayWindow(midnight), {
      day: '2026-11-23',
      resetAtSeconds: Date.UTC(2026, 10, 24) / 1000,
      secondsLeft: 86400,
    })
    assert.equal(utcDayWindow(Date.UTC(2026, 10, 23, 0, 0, 0, 1)).day, '2026-11-23')
  })

  it('reports the window with the fewest requests left', () => {
    const ip: LimitState = { name: 'ip', limit: 100, remaining: 40, resetAt: 1000, windowSeconds: 900 }
    const quota: LimitState = { name: 'quota', limit: 10, remaining: 3, resetAt: 5000, windowSeconds: 86400 }
    assert.equal(closestToLimit([ip, quota]), quota)
    assert.equal(closestToLimit([ip, { ...quota, remaining: 40 }])?.name, 'quota', 'a tie goes to the later reset')
    assert.equal(closestToLimit([]), undefined)
  })

  it('keys a client address: IPv4 as is, IPv4-mapped IPv6 as its IPv4, IPv6 on its /64 in canonical form', () => {
    assert.equal(clientAddressKey('203.0.113.7'), '203.0.113.7')
    assert.equal(clientAddressKey('::ffff:203.0.113.7'), '203.0.113.7')
    assert.equal(clientAddressKey('::FFFF:cb00:7107'), '203.0.113.7')
    assert.equal(clientAddressKey('2001:db8:1:2::1'), '2001:db8:1:2::/64')
    assert.equal(clientAddressKey('2001:0DB8:0001:0002:ffff:ffff:ffff:ffff'), '2001:db8:1:2::/64')
    assert.equal(clientAddressKey('2001:db8::1'), '2001:db8:0:0::/64')
    assert.equal(clientAddressKey('fe80::1%eth0'), 'fe80:0:0:0::/64')
    assert.equal(clientAddressKey('::1'), '0:0:0:0::/64')
    assert.equal(clientAddressKey('::'), '0:0:0:0::/64')
    assert.equal(clientAddressKey('2001:db8:1:2:3:4:10.0.0.1'), '2001:db8:1:2::/64')
    for (const notAnAddress of ['', 'unknown', '1:2:3', '2001:db8:::1', '300.1.1.1'])
      assert.equal(clientAddressKey(notAnAddress), notAnAddress)
  })
})
