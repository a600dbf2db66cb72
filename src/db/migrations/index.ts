import type { Migration } from 'kysely/migration'

// Listed explicitly (not read from the folder) so the same list works from src/ and from dist/.
// Names sort in the order they run.
export const migrations: Record<string, Migration> = {}
