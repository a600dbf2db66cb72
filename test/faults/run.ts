// `npm run test:faults`: the fault tests (docs/testing.md, Faults). Each file starts the throwaway servers it
// faults (a PostgreSQL cluster from initdb, a redis-server, the API as a process) on free ports and tears
// them down in its `after` hooks; the machine's shared PostgreSQL, Redis and Mosquitto are never stopped
// or signalled (the MQTT kill test publishes to the shared Mosquitto, which it does not fault; the broker
// tests start their own). The files run one at a time, as they measure latencies and a neighbour's load
// would blur them; only the delivery file, mostly a wait, runs beside them.
import { spawn } from 'node:child_process'
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

// Most of a delivery fault file is a wait (PostgreSQL stopped for a minute) with little load: it runs beside the
// others. The file that bounds latencies to 100 ms runs last, alone.
const BESIDE = 'delivery.fault.ts'
const ALONE = 'expensive.fault.ts'
const lanes = [
  files.filter((f) => f.endsWith(BESIDE)),
  files.filter((f) => !f.endsWith(BESIDE) && !f.endsWith(ALONE)),
].filter((lane) => lane.length > 0)
const last = files.filter((f) => f.endsWith(ALONE))

// A hung test fails on its own after 2 minutes; a lane is stopped after 8.
function runLane(lane: string[], output: 'inherit' | 'buffer'): Promise<number> {
  const child = spawn(
    process.execPath,
    ['--test', '--test-concurrency=1', '--test-timeout=120000', '--test-reporter=spec', ...lane],
    {
      stdio: output === 'inherit' ? 'inherit' : ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, FAULTS_RUN_DIR: runDir },
    },
  )
  const chunks: Buffer[] = []
  child.stdout?.on('data', (chunk: Buffer) => chunks.push(chunk))
  child.stderr?.on('data', (chunk: Buffer) => chunks.push(chunk))
  const timer = setTimeout(() => {
    console.error(`the fault test lane ${lane.join(' ')} was stopped after 8 minutes`)
    child.kill('SIGKILL')
  }, 8 * 60_000)
  return new Promise((resolve) => {
    child.on('close', (code) => {
      clearTimeout(timer)
      // A lane run beside another prints when it ends, so the two reports do not interleave.
      if (chunks.length > 0) process.stdout.write(Buffer.concat(chunks))
      resolve(code ?? 1)
    })
  })
}

const statuses = await Promise.all(lanes.map((lane, i) => runLane(lane, i === lanes.length - 1 ? 'inherit' : 'buffer')))
if (last.length > 0) statuses.push(await runLane(last, 'inherit'))
const status = statuses.every((code) => code === 0) ? 0 : 1
const leftovers = sweepRun(runDir)
if (leftovers.length > 0) console.error(`stopped what a test process left running: ${leftovers.join(', ')}`)
console.log(`fault tests took ${Math.round((performance.now() - started) / 1000)} s`)
process.exit(status)
