// Store-independent: runs in the embedded pass of npm test only (test/run.ts).
// The farm app's pure rules of Web Push: what a push message shows (the service's payload as the event's
// notification, anything unreadable as a generic one in the browser's language), what a browser is called in the
// account's list, and the key comparison that decides whether a held subscription is reused.
import assert from 'node:assert/strict'
import { createECDH } from 'node:crypto'
import { describe, it } from 'node:test'
import {
  GENERIC_PUSH_TAG,
  base64urlToBytes,
  browserKind,
  bytesToBase64url,
  pushNotification,
  sameKey,
} from '../../web/src/push.rules.ts'

const PAYLOAD = {
  title: 'Abferkelung erwartet',
  body: 'A4:C1:38:5F:2B:91 · Abferkelstall 2',
  tag: 'event-42',
  eventId: '42',
  eventType: 'birth-alarm',
  mac: 'A4:C1:38:5F:2B:91',
  userId: 'u1',
  lang: 'de-AT',
  createdAt: 1_800_000_000_000,
}

describe('web push rules', () => {
  it("shows the service's push as the event's notification, tagged as the open app tags it, opening the attention screen", () => {
    assert.deepEqual(pushNotification(JSON.stringify(PAYLOAD), 'en-US'), {
      title: 'Abferkelung erwartet',
      options: {
        body: 'A4:C1:38:5F:2B:91 · Abferkelstall 2',
        tag: 'event-42',
        lang: 'de-AT',
        icon: './icon.svg',
        data: { hash: '#/attention' },
      },
    })
    const { tag: _tag, lang: _lang, body: _body, ...bare } = PAYLOAD
    assert.deepEqual(pushNotification(JSON.stringify(bare), 'pt-BR').options, {
      body: '',
      tag: 'event-42',
      lang: 'pt',
      icon: './icon.svg',
      data: { hash: '#/attention' },
    })
  })

  it("shows a push without a readable title as a generic alert in the browser's language", () => {
    for (const payload of [undefined, '', 'not json', '[1]', 'null', '{"body":"no title"}', '{"title":7}']) {
      const { title, options } = pushNotification(payload, 'de-AT')
      assert.equal(title, 'Neuer Alarm im Betrieb', String(payload))
      assert.equal(options.body, 'Die App öffnen, um zu sehen, was Aufmerksamkeit braucht.')
      assert.equal(options.tag, GENERIC_PUSH_TAG)
      assert.equal(options.lang, 'de')
      assert.deepEqual(options.data, { hash: '#/attention' })
    }
    assert.equal(pushNotification(undefined, 'xx').title, 'New alert on the farm')
  })

  it('names a browser by its kind and platform, the browsers that also call themselves Chrome first', () => {
    const cases: [string, string | undefined, string | undefined][] = [
      [
        'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36',
        'Chrome',
        'Android',
      ],
      [
        'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1',
        'Safari',
        'iPhone',
      ],
      ['Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0', 'Firefox', 'Windows'],
      [
        'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0',
        'Edge',
        'Windows',
      ],
      [
        'Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/26.0 Chrome/122.0.0.0 Mobile Safari/537.36',
        'Samsung Internet',
        'Android',
      ],
      [
        'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
        'Chrome',
        'macOS',
      ],
      [
        'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/140.0.0.0 Safari/537.36',
        'Chrome',
        'Linux',
      ],
      ['curl/8.0', undefined, undefined],
    ]
    for (const [userAgent, browser, platform] of cases) {
      assert.deepEqual(browserKind(userAgent), { browser, platform }, userAgent)
    }
  })

  it("reuses a held subscription only where it was made with the service's key", () => {
    const ecdh = createECDH('prime256v1')
    ecdh.generateKeys()
    const publicKey = ecdh.getPublicKey().toString('base64url')
    const bytes = base64urlToBytes(publicKey)
    assert.equal(bytes.length, 65)
    assert.equal(bytesToBase64url(bytes), publicKey)
    assert.equal(sameKey(bytes.buffer, publicKey), true)
    assert.equal(sameKey(bytes.buffer, `${publicKey}=`), true, 'padded base64url')
    const other = createECDH('prime256v1')
    other.generateKeys()
    assert.equal(sameKey(new Uint8Array(other.getPublicKey()).buffer, publicKey), false)
    assert.equal(sameKey(null, publicKey), false)
  })
})
