// Compares a declared resource's field table with its table in the database: every stored field has a
// column of a type that holds its values, a field a client may unset has a column that admits NULL, and a
// field that is always set has a NOT NULL column.
import { sql, type Kysely } from 'kysely'
import type { DB } from '../../src/db/schema.ts'
import type { Field } from '../../src/resource/field.ts'
import type { Resource } from '../../src/resource/resource.ts'

/** information_schema's data_type values a field of each kind may be stored in. */
const STORED_AS: Record<Field['kind'], readonly string[]> = {
  string: ['text', 'character varying', 'date'],
  number: ['double precision', 'real', 'numeric', 'integer', 'bigint', 'smallint'],
  integer: ['bigint', 'integer', 'smallint'],
  boolean: ['boolean'],
  json: ['jsonb', 'json'],
}

interface ColumnInfo {
  table_name: string
  column_name: string
  data_type: string
  is_nullable: 'YES' | 'NO'
}

/** What the check leaves aside ("Resource.field" → why). */
export interface ColumnCheckExceptions {
  /** Fields with no column: a query or the route computes them. */
  computed?: Record<string, string>
  /** Fields whose column holds another type than the API shows, converted by the field's mappers. */
  converted?: Record<string, string>
}

/** The problems of each resource against the database's columns. */
export async function columnMismatches(
  db: Kysely<DB>,
  resources: readonly Resource[],
  exceptions: ColumnCheckExceptions = {},
): Promise<string[]> {
  const { rows } = await sql<ColumnInfo>`
    SELECT table_name, column_name, data_type, is_nullable FROM information_schema.columns
    WHERE table_schema = current_schema()`.execute(db)
  const columns = new Map(rows.map((c) => [`${c.table_name}.${c.column_name}`, c]))
  const problems: string[] = []
  for (const resource of resources) {
    for (const [name, f] of Object.entries(resource.fields)) {
      const key = `${resource.name}.${name}`
      if (f.virtual || exceptions.computed?.[key]) continue
      // Joined fields are the record's animal's.
      const table = f.joined ? 'animals' : resource.table
      const where = `${resource.name}.${name} (${table}.${f.column})`
      const column = columns.get(`${table}.${f.column}`)
      if (!column) {
        problems.push(`${where}: no such column`)
        continue
      }
      if (!STORED_AS[f.kind].includes(column.data_type) && !exceptions.converted?.[key])
        problems.push(`${where}: a ${f.kind} field in a ${column.data_type} column`)
      const clientMayUnset = f.nullable && !f.readOnly && (!f.createOnly || f.nullable === 'null')
      if (clientMayUnset && column.is_nullable === 'NO' && !f.joined)
        problems.push(`${where}: the field may be unset but the column is NOT NULL`)
      if ((f.required || f.default !== undefined) && !f.nullable && column.is_nullable === 'YES' && !f.joined)
        problems.push(`${where}: the field is always set but the column admits NULL`)
    }
  }
  return problems
}
