// Housekeeping inside the service: expired revocations and refresh tokens are pruned hourly.
// Every process may run it; the deletes are idempotent.
import type { App } from '../types.ts'
import { pruneExpiredTokens } from '../modules/tokens/token-store.ts'

const HOUR_MS = 3_600_000

export function startMaintenance(app: App): () => void {
  const prune = async () => {
    try {
      const deleted = await pruneExpiredTokens(app.database.db, app.clock())
      if (deleted.revocations + deleted.refreshTokens > 0) app.log.info({ deleted }, 'pruned expired token records')
    } catch (err) {
      app.log.warn({ err }, 'pruning expired token records failed; will retry next hour')
    }
  }
  const timer = setInterval(() => void prune(), HOUR_MS)
  timer.unref()
  void prune()
  return () => clearInterval(timer)
}
