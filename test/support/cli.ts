// The operator CLI in tests. Most tests run it in-process on the test app's own database (fast, and the
// app sees the CLI's writes at once); one end-to-end spawn per command group proves the real binary.
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { runCli } from '../../src/cli.ts'
import type { Config } from '../../src/config.ts'
import type { Database } from '../../src/db/database.ts'
import { createScratchDatabase, migratedDataDir, testEnv } from './app.ts'

export const BIN = join(import.meta.dirname, '../../bin/livestock-api.js')

export interface CliResult {
  code: number | null
  stdout: string
  stderr: string
  json: () => any
}

/**
 * Runs the CLI in this process on an open database (a TestContext has both); without one, for jobs that open none.
 * With the test's app, it answers once the app has seen what the command changed: the app learns of a change made
 * outside it from the database's notifications, which arrive a moment after the command's commit.
 */
export async function cliInProcess(
  target: { config: Config; database?: Database; app?: { syncAccessChanges: () => Promise<void> } },
  args: string[],
  input = '',
): Promise<CliResult> {
  let stdout = ''
  let stderr = ''
  const code = await runCli(args, {
    config: target.config,
    ...(target.database ? { database: target.database } : {}),
    io: {
      stdout: {
        write: (chunk: string) => {
          stdout += chunk
          return true
        },
      },
      stderr: {
        write: (chunk: string) => {
          stderr += chunk
          return true
        },
      },
      stdin: Readable.from([Buffer.from(input)]),
    },
  })
  await target.app?.syncAccessChanges()
  return { code, stdout, stderr, json: () => JSON.parse(stdout) }
}

export interface CliStore {
  /** The environment the CLI (and an app on the same store) runs with. */
  env: Record<string, string>
  run: (args: string[], input?: string) => CliResult
  cleanup: () => Promise<void>
}

/**
 * The real binary as a separate process, on a store of its own: a scratch database, or a temporary DATA_DIR. Either
 * starts migrated, from the run's template (test/run.ts), so the binary's first command does not migrate it all.
 */
export async function cliStore(name: string): Promise<CliStore> {
  const scratch = await createScratchDatabase()
  const dataDir = mkdtempSync(join(tmpdir(), `lsapi-${name}-`))
  if (!scratch) migratedDataDir(dataDir)
  const env = testEnv(scratch ? { DATABASE_URL: scratch.url } : { DATA_DIR: dataDir })
  delete env.REDIS_URL
  return {
    env,
    run: (args, input) => cliProcess(args, env, { input, timeoutMs: 120_000 }),
    cleanup: async () => {
      await scratch?.drop()
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

/** The real binary with a clean environment: only what the test names (plus PATH), `input` on its stdin. */
export function cliProcess(
  args: string[],
  env: Record<string, string> = {},
  options: { input?: string | undefined; timeoutMs?: number } = {},
): CliResult {
  const result = spawnSync(process.execPath, [BIN, ...args], {
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'silent', ...env },
    encoding: 'utf8',
    input: options.input,
    timeout: options.timeoutMs ?? 60_000,
  })
  return { code: result.status, stdout: result.stdout, stderr: result.stderr, json: () => JSON.parse(result.stdout) }
}
