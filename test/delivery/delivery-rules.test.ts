// Store-independent: runs in the embedded pass of npm test only (test/run.ts).
// Delivery's pure rules: backoff with jitter over about three days, Retry-After, what an answer means, which
// addresses a webhook may reach, quiet hours and the phones an event reaches.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  alertBody,
  attemptCursor,
  attemptKeyOf,
  GIVE_UP_AFTER_MS,
  isPublicAddress,
  outcomeOf,
  overlappingSubscription,
  phonesToNotify,
  phoneTarget,
  browserTarget,
  retryAfterMs,
  retryDelayMs,
} from '../../src/modules/delivery/delivery.rules.ts'
import { refusedUrl } from '../../src/modules/delivery/outbound.ts'
import { newWebhookSecret, openSecret, sealSecret } from '../../src/modules/delivery/webhook-secrets.ts'

describe('delivery rules', () => {
  it('backs off exponentially with ±20 % jitter, at most 12 hours', () => {
    assert.equal(retryDelayMs(1, 0.5), 5_000)
    assert.equal(retryDelayMs(2, 0.5), 30_000)
    assert.equal(retryDelayMs(1, 0), 4_000)
    assert.equal(retryDelayMs(1, 1), 6_000)
    assert.equal(retryDelayMs(50, 0.5), 43_200_000)
    let total = 0
    let attempts = 0
    while (total < GIVE_UP_AFTER_MS) total += retryDelayMs(++attempts, 0.5)
    assert.ok(attempts >= 12 && attempts <= 16, `${attempts} attempts over three days`)
  })

  it('reads Retry-After in seconds or as a date, capped at a day', () => {
    const now = Date.UTC(2026, 10, 26, 12)
    assert.equal(retryAfterMs('120', now), 120_000)
    assert.equal(retryAfterMs(new Date(now + 60_000).toUTCString(), now), 60_000)
    assert.equal(retryAfterMs('999999', now), 86_400_000)
    assert.equal(retryAfterMs('soon', now), undefined)
    assert.equal(retryAfterMs(undefined, now), undefined)
  })

  it('2xx is delivered, 410 gone, anything else retried until three days have passed', () => {
    const now = 1_000_000_000
    const fresh = { attempts: 1, firstAttemptAt: now }
    assert.deepEqual(outcomeOf({ status: 204 }, fresh, now, 0.5), { kind: 'delivered' })
    assert.deepEqual(outcomeOf({ status: 410 }, fresh, now, 0.5), { kind: 'gone' })
    assert.deepEqual(outcomeOf({ status: 500 }, fresh, now, 0.5), { kind: 'retry', atMs: now + 5_000 })
    assert.deepEqual(outcomeOf({ status: 429, retryAfter: '30' }, fresh, now, 0.5), {
      kind: 'retry',
      atMs: now + 30_000,
    })
    assert.deepEqual(outcomeOf({}, fresh, now, 0.5), { kind: 'retry', atMs: now + 5_000 })
    assert.deepEqual(outcomeOf({ status: 503, retryAfter: '0' }, fresh, now, 0.5), {
      kind: 'retry',
      atMs: now + 5_000,
    })
    const old = { attempts: 14, firstAttemptAt: now - GIVE_UP_AFTER_MS + 1000 }
    assert.deepEqual(outcomeOf({ status: 500 }, old, now, 0.5), { kind: 'failed' })
  })

  it('lets webhooks reach public addresses only', () => {
    for (const address of [
      '93.184.216.34',
      '8.8.8.8',
      '192.0.78.9',
      '198.51.101.1',
      '2606:4700::1111',
      '2001:200::1',
      '2001:db9::1',
      '3fff:1000::1',
      '::ffff:93.184.216.34',
      '::ffff:5db8:d822',
    ])
      assert.ok(isPublicAddress(address), address)
    for (const address of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '::1',
      '::',
      'fe80::1',
      'fd00::1',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
      '::ffff:7f00:1',
      '::ffff:a9fe:a9fe',
      '0:0:0:0:0:ffff:c0a8:101',
      '::7f00:1',
      '0064:ff9b::a00:1',
      '64:ff9b::10.0.0.1',
      '64:ff9b::7f00:1',
      '64:ff9b::8.8.8.8',
      '64:ff9b:1::1',
      '64:ff9b:1:abcd::a9fe:a9fe',
      'fec0::1',
      '::ffff:0:a00:1',
      '::ffff:0:10.0.0.1',
      '0:0:0:0:ffff:0:7f00:1',
      '::ffff:0:5db8:d822',
      '2002:a00:1::1',
      '2002:c0a8:101::',
      '2002:5db8:d822::1',
      '2001:0:4136:e378:8000:63bf:f5ff:fefe',
      '2001::1',
      '2001:1::1',
      '2001:2::1',
      '2001:1ff::1',
      '2001:db8::1',
      '3fff::1',
      '3fff:fff::1',
      '100::1',
      '5f00::1',
      '4000::1',
      '1::1',
      '192.0.0.170',
      '192.0.2.1',
      '192.88.99.1',
      '198.18.0.1',
      '198.51.100.7',
      '203.0.113.7',
      '240.0.0.1',
      '255.255.255.255',
      'FEFF:1::1',
      'FE80::1%eth0',
      'ff02::1',
      'not an address',
    ])
      assert.equal(isPublicAddress(address), false, address)
  })

  it('refuses URLs that are not https, carry credentials or name a private address, unless allowed', () => {
    assert.equal(refusedUrl('https://fms.example/hook', false), undefined)
    assert.equal(refusedUrl('http://fms.example/hook', false), 'must use https')
    assert.equal(refusedUrl('ftp://fms.example/hook', true), 'must use https')
    assert.equal(refusedUrl('not a url', false), 'must be an absolute URL')
    assert.equal(refusedUrl('https://user:pw@fms.example/', false), 'must not carry credentials')
    for (const url of [
      'https://127.0.0.1/',
      'https://[::1]/',
      'https://169.254.169.254/latest',
      'https://localhost/',
      'https://[64:ff9b::192.168.1.1]/',
      'https://[64:ff9b:1::1]/',
      'https://[fec0::1]/hook',
    ])
      assert.match(refusedUrl(url, false) ?? '', /private/, url)
    assert.equal(refusedUrl('http://127.0.0.1:8080/hook', true), undefined)
  })

  it('finds another subscription that would send an event to the same URL, scheme, host and default port normalised', () => {
    const reach = (url: string, event_types: string[] | null = null, account_uids: string[] | null = null) => ({
      url,
      event_types,
      account_uids,
    })
    const held = [reach('https://fms.example/hooks', ['birth-alarm'], ['farm-a'])]
    for (const url of ['https://fms.example/hooks', 'HTTPS://FMS.Example:443/hooks', 'https://fms.example/hooks#x'])
      assert.equal(overlappingSubscription(reach(url), held), held[0], url)
    for (const url of ['https://fms.example/hooks/', 'https://fms.example:8443/hooks', 'https://fms.example/hooks?b=1'])
      assert.equal(overlappingSubscription(reach(url), held), undefined, url)
    // The same URL with disjoint kinds or disjoint accounts sends no event twice.
    assert.equal(overlappingSubscription(reach('https://fms.example/hooks', ['heat-alarm']), held), undefined)
    assert.equal(overlappingSubscription(reach('https://fms.example/hooks', null, ['farm-b']), held), undefined)
    assert.equal(
      overlappingSubscription(
        reach('https://fms.example/hooks', ['heat-alarm', 'birth-alarm'], ['farm-b', 'farm-a']),
        held,
      ),
      held[0],
    )
  })

  it('reaches the phones whose rank is notified', () => {
    const phones = [
      { token: 'admin', rank: 1 },
      { token: 'manager', rank: 2 },
      { token: 'worker', rank: 3 },
      { token: 'unranked', rank: null },
    ]
    assert.deepEqual(
      phonesToNotify(phones, [3]).map((p) => p.token),
      ['worker'],
    )
    assert.deepEqual(
      phonesToNotify(phones, [2, 3]).map((p) => p.token),
      ['manager', 'worker'],
    )
    assert.deepEqual(phonesToNotify(phones, []), [])
  })

  it('names a push target without keeping its token', () => {
    const token = 'fcm-registration-token-of-a-worker-phone'
    assert.match(phoneTarget(token), /^fcm:[A-Za-z0-9_-]{22}$/)
    assert.ok(!phoneTarget(token).includes(token))
    assert.equal(phoneTarget(token), phoneTarget(token))
    assert.notEqual(phoneTarget(token), phoneTarget(`${token}-2`))
    assert.equal(browserTarget('wps_1'), 'web:wps_1')
  })

  it('seals webhook secrets so that only the service key opens them', () => {
    const secret = newWebhookSecret()
    assert.match(secret, /^whsec_[A-Za-z0-9+/]{32}$/)
    const sealed = sealSecret(secret, 'service key one, long enough')
    assert.ok(!sealed.includes(secret.slice(6)))
    assert.equal(openSecret(sealed, 'service key one, long enough'), secret)
    assert.throws(() => openSecret(sealed, 'another service key'))
  })

  it("reads back the delivery log's cursor it wrote, and no other", () => {
    const key = { attemptedAt: 1_800_000_000_004, uid: 'hillside-farm', eventId: 1288 }
    const cursor = attemptCursor(key)
    assert.match(cursor, /^[A-Za-z0-9_-]+$/)
    assert.deepEqual(attemptKeyOf(cursor), key)
    const encoded = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')
    for (const value of [
      [],
      [1, 'a'],
      ['1', 'a', 1],
      [1, '', 1],
      [1, 'a', -1],
      [1.5, 'a', 1],
      [1, 'a'.repeat(129), 1],
      [Number.MAX_SAFE_INTEGER + 1, 'a', 1],
      { attemptedAt: 1, uid: 'a', eventId: 1 },
    ])
      assert.equal(attemptKeyOf(encoded(value)), undefined, JSON.stringify(value))
    assert.equal(attemptKeyOf('bm90LWpzb24'), undefined)
  })

  it("writes an alert's body as the tag, its group and why in the user's language, times in the farm's time zone", () => {
    const silent = {
      event_type: 'tag-silent',
      mac: 'A4:C1:38:5F:2B:91',
      group_name: 'Abferkelstall 2',
      evidence: { lastHeard: Date.UTC(2026, 10, 28, 22, 30), silentMinutes: 75, thresholdMinutes: 60 },
    }
    assert.equal(
      alertBody(silent, 'de-AT', 'Europe/Vienna'),
      'A4:C1:38:5F:2B:91 · Abferkelstall 2 · 75 Minuten lang nicht empfangen; zuletzt 28.11.26, 23:30',
    )
    assert.equal(
      // ICU writes the space before PM as a narrow no-break space in some versions.
      alertBody({ ...silent, group_name: null }, null, 'UTC').replace(/\u202f/g, ' '),
      'A4:C1:38:5F:2B:91 · Not heard for 75 minutes; last heard 11/28/26, 10:30 PM',
    )
    // Evidence without the facts of its line: the tag and the group alone, as before there were lines.
    assert.equal(alertBody({ ...silent, evidence: {} }, 'en', 'UTC'), 'A4:C1:38:5F:2B:91 · Abferkelstall 2')
  })
})
