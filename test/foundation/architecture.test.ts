// The import graph of src/: no cycles (type-only imports included), and plugins, the auth layer, the
// resource layer and db/ never import a feature module (app.ts wires modules into them).
import assert from 'node:assert/strict'
import { globSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { describe, it } from 'node:test'

const root = resolve(import.meta.dirname, '../..')
const files = globSync('src/**/*.ts', { cwd: root }).sort()
const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+'(\.[^']+)'/g

const graph = new Map<string, string[]>(
  files.map((file) => {
    const text = readFileSync(join(root, file), 'utf8')
    const targets = [...text.matchAll(IMPORT)].map((m) => relative(root, resolve(dirname(join(root, file)), m[1]!)))
    return [file, targets]
  }),
)

describe('architecture', () => {
  it('has no import cycles in src/', () => {
    const cycles: string[] = []
    const state = new Map<string, 'visiting' | 'done'>()
    const visit = (file: string, path: string[]) => {
      if (state.get(file) === 'done') return
      if (state.get(file) === 'visiting') {
        cycles.push([...path.slice(path.indexOf(file)), file].join(' -> '))
        return
      }
      state.set(file, 'visiting')
      for (const next of graph.get(file) ?? []) visit(next, [...path, file])
      state.set(file, 'done')
    }
    for (const file of files) visit(file, [])
    assert.deepEqual(cycles, [])
  })

  it('keeps the cross-cutting layers free of feature modules', () => {
    const offenders = [...graph].flatMap(([file, targets]) =>
      /^src\/(plugins|auth|resource|db|http)\//.test(file)
        ? targets
            // DB is composed from the record collections' table types (type-only).
            .filter(
              (t) =>
                t.startsWith('src/modules/') && !(file === 'src/db/schema.ts' && t === 'src/modules/records/index.ts'),
            )
            .map((t) => `${file} imports ${t}`)
        : [],
    )
    assert.deepEqual(offenders, [])
  })
})
