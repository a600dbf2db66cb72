import type { Migration } from 'kysely/migration'
import * as accounts from './0001_accounts.ts'

// Listed explicitly (not read from the folder) so the same list works from src/ and from dist/.
// Names sort in the order they run.
export const migrations: Record<string, Migration> = {
  '0001_accounts': accounts,
}
