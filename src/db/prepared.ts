// The hot point reads (an animal by MAC or ID, on every read of an animal and of its data), built by
// Kysely once and, on PostgreSQL, parsed and planned once per connection as a named prepared statement, which
// saves the server's CPU on every request (docs/performance.md). Only fixed statements qualify: their SQL may not
// depend on the arguments' values, and it names its columns (a prepared `SELECT *` fails with "cached plan must
// not change result type" once a migration adds a column). PGlite runs them as ordinary queries.
import { CompiledQuery, type Compilable, type Kysely } from 'kysely'
import type { DB } from './schema.ts'

/** SQL text → statement name, for the pool (database.ts) to pass to pg. */
const statementNames = new Map<string, string>()
const declaredNames = new Set<string>()

/** The name under which PostgreSQL prepares this SQL text on each connection, or undefined for any other text. */
export const preparedStatementName = (sqlText: string): string | undefined => statementNames.get(sqlText)

/**
 * A query whose parameters are its arguments, in order: `build` runs on the first call only, and its
 * compiled SQL serves every later call with the new arguments. A build whose parameters are not exactly
 * its arguments (a condition that depends on a value, a constant bound as a parameter) is refused on that
 * first call, so that a wrong reuse cannot slip through a test.
 */
export function preparedQuery<Args extends unknown[], Row>(
  name: string,
  build: (db: Kysely<DB>, ...args: Args) => Compilable<Row>,
) {
  if (declaredNames.has(name)) throw new Error(`prepared query ${name} is declared twice`)
  declaredNames.add(name)
  let sqlText: string | undefined
  return async (db: Kysely<DB>, ...args: Args): Promise<Row[]> => {
    if (sqlText === undefined) {
      const compiled = build(db, ...args).compile()
      if (compiled.parameters.length !== args.length || compiled.parameters.some((value, i) => value !== args[i])) {
        throw new Error(`prepared query ${name}: its SQL parameters must be its arguments, in order`)
      }
      sqlText = compiled.sql
      statementNames.set(sqlText, name)
    }
    return (await db.executeQuery<Row>(CompiledQuery.raw(sqlText, args))).rows
  }
}
