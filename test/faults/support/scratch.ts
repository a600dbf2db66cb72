// Where the fault tests keep their throwaway servers: one folder per run (FAULTS_RUN_DIR, set by
// test/faults/run.ts), holding each server's files and a pid file per process started. If a test process
// dies before its `after` hooks run, the runner stops what that folder lists, and nothing else. Outside the
// runner (a file run on its own, or a helper used by another suite) folders go to the temp folder and no
// pids are kept.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { spawnSync } from 'node:child_process'

const PIDS = 'pids'

const runDir = () => process.env.FAULTS_RUN_DIR

/** A new folder of this run (the caller removes it). */
export function scratchDir(name: string): string {
  return mkdtempSync(join(runDir() ?? tmpdir(), `lsapi-faults-${name}-`))
}

/** Notes a process this run started, for the runner's last-resort sweep. */
export function recordProcess(pid: number | undefined, what: string): void {
  const dir = runDir()
  if (pid === undefined || !dir) return
  mkdirSync(join(dir, PIDS), { recursive: true })
  writeFileSync(join(dir, PIDS, String(pid)), what)
}

export function forgetProcess(pid: number | undefined): void {
  const dir = runDir()
  if (pid !== undefined && dir) rmSync(join(dir, PIDS, String(pid)), { force: true })
}

/**
 * Stops whatever a run left behind (a test process killed before its cleanup): thaws and kills the
 * processes it recorded, stops its PostgreSQL clusters, removes the folder. Returns what it stopped.
 */
export function sweepRun(dir: string): string[] {
  const stopped: string[] = []
  let pids: string[] = []
  try {
    pids = readdirSync(join(dir, PIDS))
  } catch {
    /* none recorded */
  }
  for (const name of pids) {
    const pid = Number(name)
    const what = readFileSync(join(dir, PIDS, name), 'utf8')
    try {
      process.kill(pid, 'SIGCONT')
      process.kill(pid, 'SIGKILL')
      stopped.push(`${what} (pid ${pid})`)
    } catch {
      /* already gone */
    }
  }
  for (const entry of readdirSync(dir)) {
    const pidFile = join(dir, entry, 'data', 'postmaster.pid')
    let postmaster: number
    try {
      postmaster = Number(readFileSync(pidFile, 'utf8').split('\n')[0])
    } catch {
      continue
    }
    const children = spawnSync('pgrep', ['-P', String(postmaster)], { encoding: 'utf8' })
      .stdout.split('\n')
      .filter(Boolean)
      .map(Number)
    for (const pid of [postmaster, ...children]) {
      try {
        process.kill(pid, 'SIGCONT')
        process.kill(pid, 'SIGQUIT')
      } catch {
        /* gone */
      }
    }
    stopped.push(`PostgreSQL in ${entry} (pid ${postmaster})`)
  }
  rmSync(dir, { recursive: true, force: true })
  return stopped
}
