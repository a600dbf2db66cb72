// `serve --workers N` (WORKERS): N API processes share the port under a supervisor, which restarts a worker
// that dies and stops them all on SIGTERM. Worker 1 alone runs the schedules. The embedded store refuses it.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { createScratchDatabase, usingRealServers } from '../support/app.ts'
import { eventually } from '../support/eventually.ts'
import { call, keepAliveAgent, serviceEnv, startService, type ServiceProcess } from '../faults/support/service.ts'
import { SERVICE_ENVIRONMENT, SERVICE_NODE_FLAGS } from '../../src/runtime-flags.ts'

const CLI = join(import.meta.dirname, '../../bin/livestock-api.js')

/** The pids that logged a line matching `pattern`, in order of their first such line. */
function pidsLogging(output: string, pattern: RegExp): number[] {
  const pids = new Set<number>()
  for (const line of output.split('\n')) {
    if (!pattern.test(line)) continue
    try {
      pids.add((JSON.parse(line) as { pid: number }).pid)
    } catch {
      /* not a log line */
    }
  }
  return [...pids]
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

describe('serve --workers on the embedded store', () => {
  it('refuses more than one worker with a clear configuration error (exit 2)', async () => {
    const child = spawn(process.execPath, [CLI, 'serve', '--workers', '2'], {
      env: { PATH: process.env.PATH ?? '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stderr = ''
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString()
    })
    const code = await new Promise((resolve) => child.once('exit', resolve))
    assert.equal(code, 2)
    assert.match(stderr, /WORKERS other than 1 needs DATABASE_URL: the embedded store admits one process per DATA_DIR/)
  })
})

describe(
  'serve --workers 2 on PostgreSQL',
  { skip: usingRealServers ? false : 'needs DATABASE_URL (the embedded store admits one process)' },
  () => {
    let scratch: Awaited<ReturnType<typeof createScratchDatabase>>
    let service: ServiceProcess
    const agent = keepAliveAgent()

    before(async () => {
      scratch = await createScratchDatabase()
      service = await startService(serviceEnv({ DATABASE_URL: scratch!.url, WORKERS: '2' }))
    })
    after(async () => {
      agent.destroy()
      if (service.child.exitCode === null) service.child.kill('SIGTERM')
      await service.exited
      await scratch?.drop()
    })

    it('starts two workers on one port, spreads connections over them, and runs the schedules in one', async () => {
      const workers = await eventually(
        () => pidsLogging(service.output(), /Server listening at http:\/\/127\.0\.0\.1:/),
        (p) => p.length === 2,
        'two workers listening',
        { timeoutMs: 60_000 },
      )
      assert.ok(!workers.includes(service.child.pid!), 'the supervisor itself does not serve')
      for (const pid of workers) {
        const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')
        for (const flag of SERVICE_NODE_FLAGS)
          assert.ok(args.includes(flag), `worker ${pid} runs without ${flag}: ${args.join(' ')}`)
        // The test starts the supervisor with node and no MALLOC_ARENA_MAX: the workers get it all the same.
        const environment = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0')
        for (const [name, value] of Object.entries(SERVICE_ENVIRONMENT))
          assert.ok(environment.includes(`${name}=${value}`), `worker ${pid} runs without ${name}=${value}`)
      }
      for (let i = 0; i < 12; i++) {
        const res = await call(keepAliveAgent(1), service.port, 'GET', '/api/v1/health', {
          headers: { connection: 'close' },
        })
        assert.equal(res.status, 200)
      }
      assert.deepEqual(pidsLogging(service.output(), /"url":"\/api\/v1\/health"/).sort(), [...workers].sort())
      await eventually(
        () => pidsLogging(service.output(), /reference temperatures refreshed/),
        (p) => p.length === 1,
        'the schedules to run once',
      )
      assert.equal(pidsLogging(service.output(), /predictions scored/).length, 1)
    })

    it('restarts a worker killed with kill -9 while the other keeps answering', async () => {
      const before = pidsLogging(service.output(), /Server listening at http:\/\/127\.0\.0\.1:/)
      const scheduler = pidsLogging(service.output(), /reference temperatures refreshed/)[0]!
      const victim = before.find((pid) => pid !== scheduler)!
      process.kill(victim, 'SIGKILL')
      // (A connection the supervisor hands to the worker in the instant before it learns of the death is lost:
      // node:cluster's round-robin handle has no way back. Clients see that as a dropped connection.)
      await eventually(
        () => /worker died; starting another/.test(service.output()),
        Boolean,
        'the supervisor to see the death',
      )
      assert.equal((await call(agent, service.port, 'GET', '/api/v1/health', { timeoutMs: 5000 })).status, 200)
      const after = await eventually(
        () => pidsLogging(service.output(), /Server listening at http:\/\/127\.0\.0\.1:/),
        (p) => p.length === 3,
        'a new worker listening',
        { timeoutMs: 60_000 },
      )
      assert.equal(
        pidsLogging(service.output(), /reference temperatures refreshed/).length,
        1,
        'the new worker 2 runs no schedule',
      )
      assert.equal((await call(agent, service.port, 'GET', '/api/v1/health')).status, 200)
      assert.ok(!after.filter(alive).includes(victim))
    })

    it('stops every worker on SIGTERM and exits 0', async () => {
      const workers = pidsLogging(service.output(), /Server listening at http:\/\/127\.0\.0\.1:/).filter(alive)
      assert.equal(workers.length, 2)
      const started = performance.now()
      service.child.kill('SIGTERM')
      assert.equal(await service.exited, 0)
      assert.ok(
        performance.now() - started < 5000,
        `the workers stop without waiting out SHUTDOWN_TIMEOUT_MS:\n${service
          .output()
          .split('\n')
          .filter((l) => !/incoming request|request completed/.test(l))
          .slice(-12)
          .join('\n')}`,
      )
      assert.deepEqual(workers.filter(alive), [])
    })
  },
)
