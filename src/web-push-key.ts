// The service's VAPID key (RFC 8292): one P-256 key pair that signs every Web Push message, so that a browser's
// push service accepts messages for a subscription only from the service the browser subscribed with. Only the
// private key is configured (WEB_PUSH_PRIVATE_KEY, 32 bytes base64url); the public key the farm app subscribes
// with is derived from it.
import { createECDH } from 'node:crypto'

/** Why a configured private key cannot be used, or undefined when it can. */
export function invalidWebPushPrivateKey(value: string): string | undefined {
  const bytes = /^[A-Za-z0-9_-]+$/.test(value) ? Buffer.from(value, 'base64url') : Buffer.alloc(0)
  if (bytes.length !== 32) return 'must be a P-256 private key: 32 bytes, base64url (`npx livestock-api web-push-key`)'
  try {
    createECDH('prime256v1').setPrivateKey(bytes)
  } catch {
    return 'is not a valid P-256 private key'
  }
  return undefined
}

/** The public key of a private one: the 65-byte uncompressed point, base64url, as `applicationServerKey` takes it. */
export function webPushPublicKey(privateKey: string): string {
  const ecdh = createECDH('prime256v1')
  ecdh.setPrivateKey(Buffer.from(privateKey, 'base64url'))
  return ecdh.getPublicKey().toString('base64url')
}

/** A new private key. */
export function newWebPushPrivateKey(): string {
  const ecdh = createECDH('prime256v1')
  ecdh.generateKeys()
  // getPrivateKey drops leading zero bytes; the key is 32 bytes.
  return Buffer.from(ecdh.getPrivateKey().toString('hex').padStart(64, '0'), 'hex').toString('base64url')
}
