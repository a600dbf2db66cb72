// Webhook signing secrets: `whsec_` and 24 random bytes in base64, as Standard Webhooks shows them. The service
// must sign with them, so it keeps them (not a hash), encrypted at rest with AES-256-GCM under a key derived
// from the JWT secret: a copy of the database alone does not give them away.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto'

export function newWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`
}

function keyOf(serviceSecret: string): Buffer {
  return Buffer.from(hkdfSync('sha256', serviceSecret, 'livestock-api', 'webhook signing secrets', 32))
}

export function sealSecret(secret: string, serviceSecret: string): string {
  const iv = randomBytes(12)
  const cipher = createCipheriv('aes-256-gcm', keyOf(serviceSecret), iv)
  const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()])
  return `v1.${iv.toString('base64url')}.${sealed.toString('base64url')}.${cipher.getAuthTag().toString('base64url')}`
}

export function openSecret(sealed: string, serviceSecret: string): string {
  const [version, iv, data, tag] = sealed.split('.')
  if (version !== 'v1' || !iv || !data || !tag) throw new Error('not a sealed webhook secret')
  const decipher = createDecipheriv('aes-256-gcm', keyOf(serviceSecret), Buffer.from(iv, 'base64url'))
  decipher.setAuthTag(Buffer.from(tag, 'base64url'))
  return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8')
}
