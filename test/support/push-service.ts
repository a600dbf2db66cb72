// A browser's side of Web Push for the tests (the push service itself is a webhook receiver): a browser's keys
// (a P-256 pair and an auth secret) to decrypt what it got (RFC 8291, with http_ece, as a browser does) and to
// check its VAPID signature (RFC 8292) against the service's public key.
import assert from 'node:assert/strict'
import { createECDH, randomBytes, type ECDH } from 'node:crypto'
import { createRequire } from 'node:module'
import { importJWK, jwtVerify, type JWTPayload } from 'jose'
import type { ReceivedRequest } from './webhook-receiver.ts'

const ece = createRequire(import.meta.url)('http_ece') as {
  decrypt(body: Buffer, params: { version: 'aes128gcm'; privateKey: ECDH; authSecret: string }): Buffer
}

export interface BrowserKeys {
  ecdh: ECDH
  /** What `PushSubscription.toJSON().keys` holds. */
  keys: { p256dh: string; auth: string }
}

export function browserKeys(): BrowserKeys {
  const ecdh = createECDH('prime256v1')
  ecdh.generateKeys()
  return {
    ecdh,
    keys: { p256dh: ecdh.getPublicKey().toString('base64url'), auth: randomBytes(16).toString('base64url') },
  }
}

/** The plaintext of a Web Push message, decrypted with the browser's keys. */
export function decryptPush(message: ReceivedRequest, browser: BrowserKeys): string {
  assert.equal(message.headers['content-encoding'], 'aes128gcm')
  return ece
    .decrypt(message.raw, { version: 'aes128gcm', privateKey: browser.ecdh, authSecret: browser.keys.auth })
    .toString()
}

/** The VAPID JWT of a message, verified with the service's public key (raw P-256 point, base64url). */
export async function verifiedVapid(
  message: ReceivedRequest,
  publicKey: string,
  audience: string,
): Promise<JWTPayload> {
  const match = /^vapid t=([^,]+), k=(.+)$/.exec(String(message.headers.authorization))
  assert.ok(match, `a VAPID authorization header: ${message.headers.authorization}`)
  assert.equal(match[2], publicKey)
  const point = Buffer.from(publicKey, 'base64url')
  const key = await importJWK(
    {
      kty: 'EC',
      crv: 'P-256',
      x: point.subarray(1, 33).toString('base64url'),
      y: point.subarray(33, 65).toString('base64url'),
    },
    'ES256',
  )
  return (await jwtVerify(match[1]!, key, { audience })).payload
}
