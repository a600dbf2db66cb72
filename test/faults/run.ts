// `npm run test:faults`: the fault tests (docs/testing.md, Faults). Each file starts the throwaway servers it
// faults (a PostgreSQL cluster from initdb, a redis-server, the API as a process) on free ports and tears
// them down in its `after` hooks; the machine's shared PostgreSQL, Redis and Mosquitto are never stopped
// or signalled (the MQTT kill test publishes to the shared Mosquitto, which it does not fault; the broker
// tests start their own). The files run one at a time: they measure latencies, and a neighbour's load
// would blur them.
import { spawnSync } from 'node:child_process'
import { chmodSync, globSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sweepRun } from './support/scratch.ts'

const filters = process.argv.slice(2)
const files = globSync('test/faults/*.fault.ts')
  .sort()
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
if (files.length === 0) {
  console.error(`no fault test files match ${filters.join(' ')}`)
  process.exit(1)
}
console.log(`livestock-api fault tests: ${files.length} files`)
const runDir = mkdtempSync(join(tmpdir(), 'lsapi-faults-'))
chmodSync(runDir, 0o755)
const started = performance.now()

// A hung test fails on its own after 2 minutes; the whole run is stopped after 10.
const result = spawnSync(
  process.execPath,
  ['--test', '--test-concurrency=1', '--test-timeout=120000', '--test-reporter=spec', ...files],
  {
    stdio: 'inherit',
    env: { ...process.env, FAULTS_RUN_DIR: runDir },
    timeout: 10 * 60_000,
    killSignal: 'SIGKILL',
  },
)
if (result.error) console.error(`the fault test run was stopped: ${result.error.message}`)
const leftovers = sweepRun(runDir)
if (leftovers.length > 0) console.error(`stopped what a test process left running: ${leftovers.join(', ')}`)
console.log(`fault tests took ${Math.round((performance.now() - started) / 1000)} s`)
process.exit(result.status ?? 1)
