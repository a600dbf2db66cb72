// Result rows as objects, built by one generated constructor per list of columns. pg builds each row by
// spreading a null-prototype template and then storing every column under a name known only at run time,
// which V8 runs as a slow object clone and megamorphic keyed stores (its cost: docs/performance.md). The pool
// (database.ts) asks pg for rows as arrays and turns them into objects here: one object literal per row, so
// every row of a statement shares one hidden class. The names come from the statement's row description; they are written
// as JSON string literals, so no name can break out of the generated code.

type RowObject = Record<string, unknown>
type Construct = (values: unknown[]) => RowObject

/** Statements of this service have a few hundred distinct column lists; beyond this many, new ones are not kept. */
const MAX_SHAPES = 1000
const constructors = new Map<string, Construct>()

/** A constructor for rows of these columns: a later column of the same name wins, as with pg's own rows. */
function constructorOf(names: readonly string[]): Construct {
  const key = names.join('\u0000')
  let construct = constructors.get(key)
  if (construct) return construct
  // `"__proto__": v` in a literal would set the prototype: such a name is written as a computed key (an own property).
  const properties = names.map((name, i) => `${name === '__proto__' ? `["__proto__"]` : JSON.stringify(name)}: v[${i}]`)
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- names quoted as JSON strings, see above
  construct = new Function('v', `return { ${properties.join(', ')} }`) as Construct
  if (constructors.size < MAX_SHAPES) constructors.set(key, construct)
  return construct
}

/** Rows given as arrays of column values (pg's rowMode 'array'), as objects keyed by column name. */
export function rowObjects(fields: readonly { name: string }[], rows: unknown[][]): RowObject[] {
  if (rows.length === 0) return []
  const construct = constructorOf(fields.map((f) => f.name))
  const out = new Array<RowObject>(rows.length)
  for (let i = 0; i < rows.length; i++) out[i] = construct(rows[i]!)
  return out
}
