// Start to ready and memory of the service as a real process, started as `npm start` does (node with the
// service's V8 heap flags, then bin/serve.js): milliseconds from spawn
// to "Server listening", then VmRSS after 2 s idle and VmHWM (the peak so far) from /proc. On PostgreSQL when
// DATABASE_URL is set (a scratch database, migrated by the first start), on a fresh embedded DATA_DIR otherwise.
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { BENCH_JWT_SECRET, scratchEnv } from './support.ts'
import { memoryOf, serviceArgs } from './processes.ts'
import { SERVICE_ENVIRONMENT } from '../src/runtime-flags.ts'
import type { Scenario } from './scenario.ts'

const STARTS = 3

async function startOnce(env: Record<string, string>, idleMs: number): Promise<StartRun> {
  const started = performance.now()
  const child = spawn(process.execPath, serviceArgs(), {
    env: { PATH: process.env.PATH ?? '', ...SERVICE_ENVIRONMENT, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
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
    await new Promise((resolve) => setTimeout(resolve, idleMs))
    return { readyMs, ...memoryOf(child.pid!) }
  } finally {
    child.kill('SIGTERM')
    await new Promise((resolve) => child.once('exit', resolve))
  }
}

export interface StartRun {
  readyMs: number
  rssMb: number
  peakMb: number
}

export interface StartupFigures {
  store: 'postgres' | 'embedded'
  runs: StartRun[]
  /** The slowest start after the first (which also creates and migrates the store). */
  readyMs: number
  /** The largest resident size after `idleMs` idle, of the starts after the first. */
  rssIdleMb: number
  /** The peak resident size of the starts after the first, and of the first. */
  peakMb: number
  firstPeakMb: number
  targetMs: number
}

/**
 * Starts the service `starts` times on one new store (a scratch database on DATABASE_URL's server when
 * `store` is postgres, a fresh DATA_DIR otherwise) and reads its memory after `idleMs` idle.
 */
export async function measureStartup(
  store: 'postgres' | 'embedded',
  starts = STARTS,
  idleMs = 2000,
): Promise<StartupFigures> {
  const scratch = store === 'postgres' ? await scratchEnv() : { env: {}, drop: async () => {} }
  if (store === 'postgres' && !('DATABASE_URL' in scratch.env))
    throw new Error('measureStartup(postgres) needs DATABASE_URL')
  const dataDir = mkdtempSync(join(tmpdir(), 'lsapi-bench-start-'))
  const env = {
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'info',
    JWT_SECRET: BENCH_JWT_SECRET,
    DATA_DIR: dataDir,
    ...scratch.env,
  }
  try {
    const runs: StartRun[] = []
    for (let i = 0; i < starts; i++) runs.push(await startOnce(env, idleMs))
    const warm = runs.length > 1 ? runs.slice(1) : runs
    return {
      store,
      runs,
      readyMs: Math.max(...warm.map((r) => r.readyMs)),
      rssIdleMb: Math.max(...warm.map((r) => r.rssMb)),
      peakMb: Math.max(...warm.map((r) => r.peakMb)),
      firstPeakMb: runs[0]!.peakMb,
      targetMs: store === 'embedded' ? 3000 : 1500,
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true })
    await scratch.drop()
  }
}

export const startupScenario: Scenario = {
  name: 'startup',
  description: `start to ready and RSS of the service process (${STARTS} starts on one store; the first also migrates it)`,
  run: async () => {
    const figures = await measureStartup(process.env.DATABASE_URL ? 'postgres' : 'embedded')
    const { runs, readyMs, targetMs } = figures
    console.table(
      runs.map((r, i) => ({
        start: i === 0 ? 'first (migrates)' : `again ${i}`,
        'ready ms': Math.round(r.readyMs),
        'RSS idle MB': Math.round(r.rssMb),
        'RSS peak MB': Math.round(r.peakMb),
      })),
    )
    return {
      baseline: `target ${targetMs} ms (${figures.store === 'embedded' ? 'embedded' : 'PostgreSQL'})`,
      measured: `${Math.round(readyMs)} ms to ready; RSS idle ${Math.round(figures.rssIdleMb)} MB, peak ${Math.round(Math.max(figures.peakMb, figures.firstPeakMb))} MB`,
      ratio: Number((readyMs / targetMs).toFixed(3)),
      target: `ready <= ${targetMs} ms after the first start (ratio <= 1)`,
      met: readyMs <= targetMs,
    }
  },
}
