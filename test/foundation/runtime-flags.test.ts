// Store-independent: runs in the embedded pass of npm test only (test/run.ts).
// The service's V8 flags (src/runtime-flags.ts) are on every command that starts it: `npm start`,
// the shebangs of the CLI and of bin/serve.js, the workers of `serve --workers N` (workers.test.ts checks their command
// lines on PostgreSQL) and the bench's service process.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { execFileSync } from 'node:child_process'
import { dirname, join } from 'node:path'
import { describe, it } from 'node:test'
import {
  missingServiceEnvironment,
  missingServiceFlags,
  SERVICE_ENVIRONMENT,
  SERVICE_NODE_FLAGS,
  withServiceEnvironment,
  withServiceFlags,
} from '../../src/runtime-flags.ts'
import { serviceArgs } from '../../bench/processes.ts'

const root = join(import.meta.dirname, '../..')
/** SERVICE_ENVIRONMENT as a command line's assignments: `MALLOC_ARENA_MAX=2`. */
const assignments = Object.entries(SERVICE_ENVIRONMENT)
  .map(([name, value]) => `${name}=${value}`)
  .join(' ')

describe('the service V8 flags and environment', () => {
  it('are on npm start', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
    assert.equal(pkg.scripts.start, `${assignments} exec node ${SERVICE_NODE_FLAGS.join(' ')} bin/serve.js`)
  })

  for (const entry of ['bin/livestock-api.js', 'bin/serve.js']) {
    it(`are on the shebang of ${entry}`, () => {
      const firstLine = readFileSync(join(root, entry), 'utf8').split('\n')[0]
      assert.equal(firstLine, `#!/usr/bin/env -S ${assignments} node ${SERVICE_NODE_FLAGS.join(' ')}`)
    })
  }

  it('start the bench service process', () => {
    assert.deepEqual(serviceArgs().slice(0, SERVICE_NODE_FLAGS.length), SERVICE_NODE_FLAGS)
    assert.match(serviceArgs().at(-1)!, /bin\/serve\.js$/)
  })

  it('the shebang runs (env -S passes the assignments and the flags to node)', () => {
    const output = execFileSync(join(root, 'bin/livestock-api.js'), ['--help'], {
      env: { PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}` },
    }).toString()
    assert.match(output, /operator CLI of the Livestock API/)
  })

  it('environment: added where a variable is not set, never overriding one that is', () => {
    assert.deepEqual(missingServiceEnvironment({}), Object.keys(SERVICE_ENVIRONMENT))
    assert.deepEqual(missingServiceEnvironment({ ...SERVICE_ENVIRONMENT }), [])
    assert.deepEqual(withServiceEnvironment({ PATH: '/bin' }), { ...SERVICE_ENVIRONMENT, PATH: '/bin' })
    assert.equal(withServiceEnvironment({ MALLOC_ARENA_MAX: '4' }).MALLOC_ARENA_MAX, '4')
  })

  it('are added to a command line that lacks them, and never override an option given', () => {
    assert.deepEqual(withServiceFlags([]), SERVICE_NODE_FLAGS)
    assert.deepEqual(withServiceFlags(['--max-semi-space-size=16', '--inspect']), [
      ...SERVICE_NODE_FLAGS.filter((f) => !f.startsWith('--max-semi-space-size')),
      '--max-semi-space-size=16',
      '--inspect',
    ])
    assert.deepEqual(missingServiceFlags([...SERVICE_NODE_FLAGS]), [])
    assert.deepEqual(
      missingServiceFlags(['--heap_growing_percent=80']),
      SERVICE_NODE_FLAGS.filter((f) => !f.startsWith('--heap-growing-percent')),
    )
    // An operator who wants V8's optimizing compiler for the embedded store's WebAssembly turns the tiers back on.
    const tiersOn = ['--wasm-tier-up', '--wasm-dynamic-tiering']
    assert.deepEqual(missingServiceFlags(tiersOn), ['--max-semi-space-size=16', '--heap-growing-percent=50'])
    assert.deepEqual(withServiceFlags(tiersOn), ['--max-semi-space-size=16', '--heap-growing-percent=50', ...tiersOn])
  })
})
