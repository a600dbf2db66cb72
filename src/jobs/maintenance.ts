// Housekeeping inside the service, hourly as the job's single runner: expired revocations, refresh tokens,
// idempotency keys, access-log records past ACCESS_LOG_RETENTION_DAYS, the delivery log past
// DELIVERY_LOG_RETENTION_DAYS (pending deliveries stay), and the readings, settled events and predictions past
// their retention (retention.ts).
import { sql, type Kysely } from 'kysely'
import type { Config } from '../config.ts'
import type { DB } from '../db/schema.ts'
import type { App } from '../types.ts'
import { pruneKeys } from '../db/idempotency-keys.ts'
import { pruneExpiredTokens } from '../auth/token-store.ts'
import { pruneAccessLog } from '../modules/access-log/access-log.repository.ts'
import { pruneDeliveryLog } from '../modules/delivery/delivery.repository.ts'
import { IDEMPOTENCY_TTL_MS } from '../plugins/idempotency.ts'
import { applyRetention } from './retention.ts'
import { startSchedule, type ScheduledJob } from './scheduler.ts'

/** The job's single-runner key. */
export const MAINTENANCE_LOCK = 6_105_003
const HOUR_MS = 3_600_000
const DAY_MS = 86_400_000

export interface MaintenanceOutcome {
  /** Rows deleted, per kind or table. */
  deleted: Record<string, number>
}

/** One run of the maintenance at `at` (ms). */
export async function runMaintenance(db: Kysely<DB>, config: Config, at: number): Promise<MaintenanceOutcome> {
  const tokens = await pruneExpiredTokens(db, at)
  const idempotencyKeys = await pruneKeys(db, at - IDEMPOTENCY_TTL_MS)
  const accessLog = await pruneAccessLog(
    db,
    new Date(at - config.accessLog.retentionDays * DAY_MS),
    config.retention.batchRows,
  )
  const deliveryLog = await pruneDeliveryLog(
    db,
    at - config.delivery.logRetentionDays * DAY_MS,
    config.retention.batchRows,
  )
  // As retention.ts does: the log is deleted from steadily, and the embedded store has no autovacuum.
  for (const [table, count] of Object.entries(deliveryLog))
    if (count > 0) await sql`VACUUM ${sql.table(table)}`.execute(db)
  const retained = await applyRetention(db, config.retention, at)
  return { deleted: { ...tokens, idempotencyKeys, accessLog, ...deliveryLog, ...retained } }
}

export function maintenanceJob(app: App) {
  return {
    name: 'maintenance',
    lockKey: MAINTENANCE_LOCK,
    firstRunAt: (now: number) => now,
    nextRunAt: (now: number) => now + HOUR_MS,
    run: (conn, at) => runMaintenance(conn, app.config, at),
    done: 'pruned expired records',
    quiet: ({ deleted }) => Object.values(deleted).every((n) => n === 0),
  } satisfies ScheduledJob<MaintenanceOutcome>
}

export function startMaintenance(app: App): () => void {
  return startSchedule(app, maintenanceJob(app))
}
