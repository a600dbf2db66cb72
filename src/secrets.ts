// The JWT signing key: JWT_SECRET when set; in embedded mode, generated on first start (256 random
// bits) and kept in DATA_DIR so tokens survive a restart.
import { randomBytes } from 'node:crypto'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import type { Config } from './config.ts'
import { IN_MEMORY } from './db/database.ts'

export function resolveJwtSecret(config: Config): {
  secret: string
  source: 'env' | 'generated' | 'data-dir' | 'ephemeral'
} {
  if (config.jwtSecret) return { secret: config.jwtSecret, source: 'env' }
  if (config.databaseUrl) throw new Error('JWT_SECRET is required when DATABASE_URL is set')
  if (config.dataDir === IN_MEMORY) return { secret: randomBytes(32).toString('base64url'), source: 'ephemeral' }
  const dir = resolve(config.dataDir)
  const file = join(dir, 'jwt-secret')
  try {
    const existing = readFileSync(file, 'utf8').trim()
    if (Buffer.byteLength(existing) >= 32) return { secret: existing, source: 'data-dir' }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
  }
  mkdirSync(dir, { recursive: true })
  const secret = randomBytes(32).toString('base64url')
  writeFileSync(file, `${secret}\n`, { mode: 0o600 })
  return { secret, source: 'generated' }
}
