// Password hashing with scrypt (memory-hard), parameters per the OWASP Password Storage Cheat Sheet:
// N = 2^17, r = 8, p = 1. The stored string carries its own parameters, so raising the cost later
// still verifies old hashes.
// @see https://cheatsheetseries.owasp.org/cheatsheets/Password_Storage_Cheat_Sheet.html#scrypt
import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto'

const KEY_LENGTH = 32
const SALT_LENGTH = 16
const R = 8
const P = 1

/**
 * At most this many hashes run at once: each holds a thread of libuv's pool (4) for its whole run, and a burst
 * of guesses would otherwise fill the pool and stall the other work queued there (docs/security.md).
 */
const HASHES_AT_ONCE = 2
let running = 0
const waiting: (() => void)[] = []

async function scryptAsync(password: string, salt: Buffer, logN: number, r: number, p: number): Promise<Buffer> {
  if (running >= HASHES_AT_ONCE) await new Promise<void>((resolve) => waiting.push(resolve))
  else running++
  try {
    return await scryptOnce(password, salt, logN, r, p)
  } finally {
    const next = waiting.shift()
    if (next) next()
    else running--
  }
}

function scryptOnce(password: string, salt: Buffer, logN: number, r: number, p: number): Promise<Buffer> {
  const N = 2 ** logN
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, KEY_LENGTH, { N, r, p, maxmem: 256 * N * r }, (err, key) =>
      err ? reject(err) : resolve(key),
    )
  })
}

/** `scrypt$<logN>$<r>$<p>$<salt b64url>$<key b64url>` */
export async function hashPassword(password: string, logN: number): Promise<string> {
  const salt = randomBytes(SALT_LENGTH)
  const key = await scryptAsync(password, salt, logN, R, P)
  return ['scrypt', logN, R, P, salt.toString('base64url'), key.toString('base64url')].join('$')
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$')
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false
  const [, logN, r, p, salt, key] = parts as [string, string, string, string, string, string]
  const expected = Buffer.from(key, 'base64url')
  const actual = await scryptAsync(password, Buffer.from(salt, 'base64url'), Number(logN), Number(r), Number(p))
  return actual.length === expected.length && timingSafeEqual(actual, expected)
}

let dummyHash: Promise<string> | undefined

/**
 * Spends the same work as a real check when there is no hash to check against (unknown e-mail,
 * account without password), so the response time does not reveal whether the account exists.
 */
export async function burnPasswordCheck(password: string, logN: number): Promise<false> {
  dummyHash ??= hashPassword(randomBytes(12).toString('hex'), logN)
  await verifyPassword(password, await dummyHash)
  return false
}

export const PASSWORD_MIN_LENGTH = 8
export const PASSWORD_MAX_LENGTH = 256
