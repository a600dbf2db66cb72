// Housekeeping inside the service: expired revocations, refresh tokens, idempotency keys and access-log
// records past ACCESS_LOG_RETENTION_DAYS are pruned hourly, as the job's single runner.
import type { App } from '../types.ts'
import { pruneKeys } from '../db/idempotency-keys.ts'
import { pruneExpiredTokens } from '../auth/token-store.ts'
import { pruneAccessLog } from '../modules/access-log/access-log.repository.ts'
import { IDEMPOTENCY_TTL_MS } from '../plugins/idempotency.ts'
import { startSchedule, type ScheduledJob } from './scheduler.ts'

/** The job's single-runner key. */
export const MAINTENANCE_LOCK = 6_105_003
const HOUR_MS = 3_600_000
const DAY_MS = 86_400_000

export function maintenanceJob(app: App) {
  return {
    name: 'maintenance',
    lockKey: MAINTENANCE_LOCK,
    firstRunAt: (now: number) => now,
    nextRunAt: (now: number) => now + HOUR_MS,
    run: async (conn, at) => {
      const deleted = await pruneExpiredTokens(conn, at)
      const idempotencyKeys = await pruneKeys(conn, at - IDEMPOTENCY_TTL_MS)
      const accessLog = await pruneAccessLog(conn, new Date(at - app.config.accessLog.retentionDays * DAY_MS))
      return { deleted: { ...deleted, idempotencyKeys, accessLog } }
    },
    done: 'pruned expired records',
    quiet: ({ deleted }) => Object.values(deleted).every((n) => n === 0),
  } satisfies ScheduledJob<{ deleted: Record<string, number> }>
}

export function startMaintenance(app: App): () => void {
  return startSchedule(app, maintenanceJob(app))
}
