// Store-independent: runs in the embedded pass of npm test only (test/run.ts).
// The entries (bin/serve.js for npm start, bin/livestock-api.js for the CLI) run the sources through Node's
// compile cache, in the project's node_modules/.cache: a start after the first loads no TypeScript stripper.
import assert from 'node:assert/strict'
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { unsupportedNode } from '../../bin/compile-cache.js'

const root = join(import.meta.dirname, '../..')

/** What enableCompileCache() answers in a fresh process with `env`. */
function enableIn(env: Record<string, string>): { status: number; directory?: string } {
  const script =
    "const m = await import('./bin/compile-cache.js'); const { constants } = await import('node:module'); " +
    'const r = m.enableCompileCache(); process.stdout.write(JSON.stringify({ ...r, enabled: constants.compileCacheStatus.ENABLED, disabled: constants.compileCacheStatus.DISABLED, already: constants.compileCacheStatus.ALREADY_ENABLED }))'
  return JSON.parse(
    execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', ...env },
    }).toString(),
  ) as never
}

describe('the compile cache of the entries', () => {
  it('is enabled in the project folder, not in the shared temp folder', () => {
    const result = enableIn({}) as { status: number; directory?: string; enabled: number; already: number }
    assert.ok([result.enabled, result.already].includes(result.status), JSON.stringify(result))
    assert.equal(result.directory, join(root, 'node_modules/.cache/livestock-api'))
  })

  it('stays off with NODE_DISABLE_COMPILE_CACHE=1', () => {
    const result = enableIn({ NODE_DISABLE_COMPILE_CACHE: '1' }) as { status: number; disabled: number }
    assert.equal(result.status, result.disabled)
  })

  for (const entry of ['bin/serve.js', 'bin/livestock-api.js']) {
    it(`${entry} enables it before loading any source (no static import of a .ts module)`, () => {
      const text = readFileSync(join(root, entry), 'utf8')
      assert.doesNotMatch(text, /^import .*\.ts['"]/m)
      assert.ok(text.indexOf('enableCompileCache()') < text.indexOf("await import('../src/"))
    })
  }
})

describe('an older Node', () => {
  it('is told which Node the entries need', () => {
    assert.match(
      unsupportedNode('20.20.2') ?? '',
      /needs Node 22\.18 or later .* this is Node 20\.20\.2\. Run it through npm/,
    )
    assert.ok(unsupportedNode('22.17.1'))
    assert.equal(unsupportedNode('22.18.0'), undefined)
    assert.equal(unsupportedNode('24.21.0'), undefined)
    assert.equal(unsupportedNode('25.0.0'), undefined)
  })

  // The machine's own node, where it is an older one (Debian's is 20): the entry ends with the reason, no stack.
  const systemNode = '/usr/bin/node'
  const version = existsSync(systemNode)
    ? spawnSync(systemNode, ['-p', 'process.versions.node']).stdout.toString().trim()
    : ''
  it(
    'ends the CLI with that reason and exit code 1',
    { skip: !unsupportedNode(version || '99.0.0') && 'no older node here' },
    () => {
      const run = spawnSync(systemNode, [join(root, 'bin/livestock-api.js'), '--help'], { encoding: 'utf8' })
      assert.equal(run.status, 1)
      assert.equal(run.stderr, `${unsupportedNode(version)}\n`)
    },
  )
})
