// Start to ready and memory of the service as a real process (`node src/server.ts`): milliseconds from spawn
// to "Server listening", then VmRSS after 2 s idle and VmHWM (the peak so far) from /proc. On PostgreSQL when
// DATABASE_URL is set (a scratch database, migrated by the first start), on a fresh embedded DATA_DIR otherwise.
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { BENCH_JWT_SECRET, scratchEnv } from './support.ts'
import type { Scenario } from './scenarios.ts'

const SERVER = join(import.meta.dirname, '../src/server.ts')
const STARTS = 3

function memoryOf(pid: number): { rssMb: number; peakMb: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0)
  return { rssMb: kb('VmRSS') / 1024, peakMb: kb('VmHWM') / 1024 }
}

async function startOnce(env: Record<string, string>): Promise<{ readyMs: number; rssMb: number; peakMb: number }> {
  const started = performance.now()
  const child = spawn(process.execPath, [SERVER], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  try {
    const readyMs = await new Promise<number>((resolve, reject) => {
      let output = ''
      const seen = (chunk: Buffer) => {
        output += chunk.toString()
        if (/Server listening at/.test(output)) resolve(performance.now() - started)
      }
      child.stdout.on('data', seen)
      child.stderr.on('data', seen)
      child.once('exit', (code) => reject(new Error(`the service exited (${code}) before listening:\n${output}`)))
    })
    await new Promise((resolve) => setTimeout(resolve, 2000))
    return { readyMs, ...memoryOf(child.pid!) }
  } finally {
    child.kill('SIGTERM')
    await new Promise((resolve) => child.once('exit', resolve))
  }
}

export const startupScenario: Scenario = {
  name: 'startup',
  description: `start to ready and RSS of the service process (${STARTS} starts on one store; the first also migrates it)`,
  run: async () => {
    const scratch = await scratchEnv()
    const dataDir = mkdtempSync(join(tmpdir(), 'lsapi-bench-start-'))
    const embedded = !scratch.env.DATABASE_URL
    const env = { HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info', JWT_SECRET: BENCH_JWT_SECRET, DATA_DIR: dataDir, ...scratch.env }
    try {
      const runs = []
      for (let i = 0; i < STARTS; i++) runs.push(await startOnce(env))
      const warm = runs.slice(1)
      const readyMs = Math.max(...warm.map((r) => r.readyMs))
      const target = embedded ? 3000 : 1500
      console.table(runs.map((r, i) => ({ start: i === 0 ? 'first (migrates)' : `again ${i}`, 'ready ms': Math.round(r.readyMs), 'RSS idle MB': Math.round(r.rssMb), 'RSS peak MB': Math.round(r.peakMb) })))
      return {
        baseline: `target ${target} ms (${embedded ? 'embedded' : 'PostgreSQL'})`,
        measured: `${Math.round(readyMs)} ms to ready; RSS idle ${Math.round(Math.max(...warm.map((r) => r.rssMb)))} MB, peak ${Math.round(Math.max(...runs.map((r) => r.peakMb)))} MB`,
        ratio: Number((readyMs / target).toFixed(3)),
        target: `ready <= ${target} ms after the first start (ratio <= 1)`,
        met: readyMs <= target,
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true })
      await scratch.drop()
    }
  },
}
