// Mosquitto's password file and ACL for the broker setup in deploy/mosquitto (docs/mqtt.md), as pure
// functions: an account per gateway, named <user_id>/<gateway>, that may publish its user's readings only,
// and the service's account, the only one that may read them. The password file holds what
// mosquitto_passwd writes: username:$7$<iterations>$<salt>$<PBKDF2-SHA512 hash>, base64.
import { pbkdf2Sync, randomBytes, timingSafeEqual } from 'node:crypto'
import { BROKER_DROPPED_TOPIC, eventsTopic, readingTopics } from './topics.ts'

/** mosquitto_passwd's defaults (Mosquitto 2.0): 101 iterations, a 12-byte salt, a 64-byte hash. */
const ITERATIONS = 101
const SALT_BYTES = 12
const HASH_BYTES = 64

export const GATEWAY_PATTERN = /^[A-Za-z0-9_-]{1,32}$/
/** A user id that can be part of a Mosquitto username (the password file splits at ':'). */
const BROKER_UID_PATTERN = /^[A-Za-z0-9_.@-]{1,128}$/
const SERVICE_PATTERN = /^[A-Za-z0-9_.-]{1,64}$/

export type BrokerAccount = { username: string; hash: string }

export function gatewayUsername(uid: string, gateway: string): string {
  if (!BROKER_UID_PATTERN.test(uid))
    throw new Error(`user id "${uid}" cannot name a broker account: letters, digits, _ . @ - only (no ':')`)
  if (!GATEWAY_PATTERN.test(gateway)) throw new Error('a gateway name is 1-32 letters, digits, underscores or hyphens')
  return `${uid}/${gateway}`
}

export function checkServiceUsername(username: string): string {
  if (!SERVICE_PATTERN.test(username))
    throw new Error('the service username is 1-64 letters, digits, dots, underscores or hyphens')
  return username
}

/** The user a gateway account publishes for; undefined for the service's account. */
export function gatewayUid(username: string): string | undefined {
  const slash = username.lastIndexOf('/')
  return slash < 0 ? undefined : username.slice(0, slash)
}

export function hashBrokerPassword(password: string, salt = randomBytes(SALT_BYTES)): string {
  const hash = pbkdf2Sync(password, salt, ITERATIONS, HASH_BYTES, 'sha512')
  return `$7$${ITERATIONS}$${salt.toString('base64')}$${hash.toString('base64')}`
}

export function verifyBrokerPassword(password: string, stored: string): boolean {
  const [, kind, iterations, salt, hash] = stored.split('$')
  if (kind !== '7' || !iterations || !salt || !hash) return false
  const expected = Buffer.from(hash, 'base64')
  const actual = pbkdf2Sync(password, Buffer.from(salt, 'base64'), Number(iterations), expected.length, 'sha512')
  return timingSafeEqual(actual, expected)
}

export function generateBrokerPassword(): string {
  return randomBytes(24).toString('base64url')
}

export function parsePasswordFile(text: string): BrokerAccount[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.startsWith('#'))
    .map((line) => {
      const colon = line.indexOf(':')
      return { username: line.slice(0, colon), hash: line.slice(colon + 1).trim() }
    })
}

export function formatPasswordFile(accounts: readonly BrokerAccount[]): string {
  return accounts.map((a) => `${a.username}:${a.hash}\n`).join('')
}

/** The whole ACL, from the accounts: each gateway writes its user's readings, the service reads everyone's. */
export function formatAcl(accounts: readonly BrokerAccount[]): string {
  const lines = [
    '# Written by `livestock-api broker` from the password file; edits here are overwritten (docs/mqtt.md).',
  ]
  for (const { username } of accounts) {
    const uid = gatewayUid(username)
    lines.push('', `user ${username}`)
    if (uid === undefined) {
      lines.push(
        ...readingTopics().map((topic) => `topic read ${topic}`),
        `topic read ${BROKER_DROPPED_TOPIC}`,
        `topic write ${eventsTopic()}`,
      )
    } else {
      lines.push(...readingTopics(uid).map((topic) => `topic write ${topic}`))
    }
  }
  return `${lines.join('\n')}\n`
}
