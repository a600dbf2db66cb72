// A resource's row → API object mapping, generated once per resource as straight-line code. The loop it
// replaces stored each field under a name known only at run time, which V8 runs as a megamorphic keyed
// store: on a 100-animal page (2,200 stores) that loop was the largest piece of the mapping. Here each store
// names its property in the code, so every object of a resource is built along the same hidden classes.
// The names and columns come from the resource declarations in this repository, never from a request.
import { identity, type Field } from './field.ts'

type Row = Record<string, unknown>
type ApiObject = Record<string, unknown>

/**
 * The mapper of a resource's fields (name → field): a field whose column holds null or nothing is left
 * out, or written as null when the field says `nullable: 'null'`; virtual fields have no column.
 */
export function compileRowMapper(fields: [string, Field][]): (row: Row) => ApiObject {
  const converters: ((value: unknown) => unknown)[] = []
  const lines = fields
    .filter(([, f]) => !f.virtual)
    .map(([name, f]) => {
      const key = JSON.stringify(name)
      let value = 'v'
      if (f.toApi !== identity) {
        converters.push(f.toApi)
        value = `convert[${converters.length - 1}](v)`
      }
      const absent = f.nullable === 'null' ? `out[${key}] = null` : ''
      return `v = row[${JSON.stringify(f.column)}]\nif (v === null || v === undefined) { ${absent} } else out[${key}] = ${value}`
    })
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- generated from declarations, see above
  const build = new Function(
    'convert',
    `return function toApi(row) {\nconst out = {}\nlet v\n${lines.join('\n')}\nreturn out\n}`,
  ) as (convert: ((value: unknown) => unknown)[]) => (row: Row) => ApiObject
  return build(converters)
}
