import type { Kysely } from 'kysely'
import { Migrator, type MigrationResultSet } from 'kysely/migration'
import type { DB } from './schema.ts'
import { migrations } from './migrations/index.ts'

export interface MigrationOutcome {
  applied: string[]
  pending: string[]
}

/**
 * Brings the schema up to date. Kysely's migrator takes a lock in the database, so several processes
 * starting together against one DATABASE_URL apply each migration once.
 */
export async function migrateToLatest(db: Kysely<DB>): Promise<MigrationOutcome> {
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } })
  const result: MigrationResultSet = await migrator.migrateToLatest()
  if (result.error) {
    const failed = result.results?.find((r) => r.status === 'Error')
    // Kysely's words for a database a newer release migrated ("corrupted migrations") would send an operator who
    // rolled the code back looking for damage that is not there.
    const message = result.error instanceof Error ? result.error.message : ''
    const unknown = /previously executed migration (\S+) is missing/.exec(message)?.[1]
    if (unknown)
      throw new Error(
        `The database has migration ${unknown}, which this release does not have: a newer release migrated it. ` +
          'Run that release (or a later one), or restore the backup taken before the upgrade (docs/operations.md#upgrades)',
        { cause: result.error },
      )
    // None failed: the database could not be reached or locked, which is no migration's fault.
    if (!failed && result.error instanceof Error) throw result.error
    const reason = result.error instanceof Error ? result.error.message : JSON.stringify(result.error)
    throw new Error(`Migration ${failed?.migrationName ?? '(unknown)'} failed: ${reason}`, { cause: result.error })
  }
  return {
    applied: (result.results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName),
    pending: [],
  }
}

/** Lists every migration with whether it has been applied. */
export async function migrationStatus(db: Kysely<DB>): Promise<{ name: string; executedAt: string | null }[]> {
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } })
  const infos = await migrator.getMigrations()
  return infos.map((m) => ({ name: m.name, executedAt: m.executedAt ? m.executedAt.toISOString() : null }))
}
