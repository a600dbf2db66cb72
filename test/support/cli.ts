// Runs the operator CLI as a real process on a store of its own: a scratch database in the
// real-server mode, a temporary DATA_DIR on the embedded store.
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createScratchDatabase, testEnv } from './app.ts'

const BIN = join(import.meta.dirname, '../../bin/livestock-api.js')

export interface CliStore {
  /** The environment the CLI (and an app on the same store) runs with. */
  env: Record<string, string>
  run: (args: string[], input?: string) => { code: number | null; stdout: string; stderr: string; json: () => any }
  cleanup: () => Promise<void>
}

export async function cliStore(name: string): Promise<CliStore> {
  const scratch = await createScratchDatabase()
  const dataDir = mkdtempSync(join(tmpdir(), `lsapi-${name}-`))
  const env = testEnv(scratch ? { DATABASE_URL: scratch.url } : { DATA_DIR: dataDir })
  delete env.REDIS_URL
  return {
    env,
    run: (args, input) => {
      const result = spawnSync(process.execPath, [BIN, ...args], { env: { PATH: process.env.PATH ?? '', ...env }, encoding: 'utf8', input, timeout: 120_000 })
      return { code: result.status, stdout: result.stdout, stderr: result.stderr, json: () => JSON.parse(result.stdout) }
    },
    cleanup: async () => {
      await scratch?.drop()
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}
