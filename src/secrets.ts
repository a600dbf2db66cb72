// The service's own keys: set in the environment, or, in embedded mode, generated on first start and kept in
// DATA_DIR so that they survive a restart. With DATABASE_URL several processes must share each key, so none is
// generated: the JWT signing key is then required (config.ts), the Web Push key optional.
import { randomBytes } from 'node:crypto'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import type { Config } from './config.ts'
import { IN_MEMORY } from './db/database.ts'
import { invalidWebPushPrivateKey, newWebPushPrivateKey } from './web-push-key.ts'

export type SecretSource = 'env' | 'generated' | 'data-dir' | 'ephemeral'

/** A key kept in DATA_DIR/`file`: the one there when `usable`, else a new one written there (readable by the owner only). */
function keptInDataDir(
  config: Config,
  file: string,
  generate: () => string,
  usable: (kept: string) => boolean,
): { secret: string; source: SecretSource } {
  if (config.dataDir === IN_MEMORY) return { secret: generate(), source: 'ephemeral' }
  const dir = resolve(config.dataDir)
  const path = join(dir, file)
  try {
    const existing = readFileSync(path, 'utf8').trim()
    if (usable(existing)) return { secret: existing, source: 'data-dir' }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
  }
  mkdirSync(dir, { recursive: true })
  const secret = generate()
  writeFileSync(path, `${secret}\n`, { mode: 0o600 })
  return { secret, source: 'generated' }
}

/** The JWT signing key: JWT_SECRET when set; in embedded mode 256 random bits kept in DATA_DIR/jwt-secret. */
export function resolveJwtSecret(config: Config): { secret: string; source: SecretSource } {
  if (config.jwtSecret) return { secret: config.jwtSecret, source: 'env' }
  if (config.databaseUrl) throw new Error('JWT_SECRET is required when DATABASE_URL is set')
  return keptInDataDir(
    config,
    'jwt-secret',
    () => randomBytes(32).toString('base64url'),
    (kept) => Buffer.byteLength(kept) >= 32,
  )
}

/** The VAPID private key: WEB_PUSH_PRIVATE_KEY when set; in embedded mode one kept in DATA_DIR/web-push-key. */
export function resolveWebPushKey(config: Config): { secret: string; source: SecretSource } | undefined {
  const configured = config.delivery.webPushPrivateKey
  if (configured) return { secret: configured, source: 'env' }
  if (config.databaseUrl) return undefined
  return keptInDataDir(config, 'web-push-key', newWebPushPrivateKey, (kept) => !invalidWebPushPrivateKey(kept))
}
