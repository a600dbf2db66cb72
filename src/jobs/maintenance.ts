// Housekeeping inside the service: expired revocations, refresh tokens, idempotency keys and access-log
// records past ACCESS_LOG_RETENTION_DAYS are pruned hourly. Every process may run it; the deletes are idempotent.
import type { App } from '../types.ts'
import { pruneKeys } from '../db/idempotency-keys.ts'
import { pruneExpiredTokens } from '../modules/tokens/token-store.ts'
import { pruneAccessLog } from '../modules/access-log/access-log.repository.ts'
import { IDEMPOTENCY_TTL_MS } from '../plugins/idempotency.ts'

const HOUR_MS = 3_600_000
const DAY_MS = 86_400_000

export function startMaintenance(app: App): () => void {
  const prune = async () => {
    try {
      const db = app.database.background
      const deleted = await pruneExpiredTokens(db, app.clock())
      const idempotencyKeys = await pruneKeys(db, app.clock() - IDEMPOTENCY_TTL_MS)
      const accessLog = await pruneAccessLog(db, new Date(app.clock() - app.config.accessLog.retentionDays * DAY_MS))
      if (deleted.revocations + deleted.refreshTokens + idempotencyKeys + accessLog > 0) {
        app.log.info({ deleted: { ...deleted, idempotencyKeys, accessLog } }, 'pruned expired records')
      }
    } catch (err) {
      app.log.warn({ err }, 'pruning expired records failed; will retry next hour')
    }
  }
  const timer = setInterval(() => void prune(), HOUR_MS)
  timer.unref()
  void prune()
  return () => clearInterval(timer)
}
