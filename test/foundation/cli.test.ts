// Store-independent: runs in the embedded pass of npm test only (test/run.ts): its processes run on a DATA_DIR of
// their own, or on a PostgreSQL that cannot be reached, whatever the run's store; cli-postgres.test.ts has the rest.
// The operator CLI and the service process, run as an operator would: real processes, real exit codes.
import assert from 'node:assert/strict'
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import { Readable } from 'node:stream'
import { migratedDataDir, TEST_JWT_SECRET } from '../support/app.ts'
import { eventually } from '../support/eventually.ts'
import { cliProcess as cli } from '../support/cli.ts'
import { freePort } from '../faults/support/servers.ts'
import { runCli } from '../../src/cli.ts'
import { commands } from '../../src/cli/commands.ts'
import { loadConfig } from '../../src/config.ts'
import { webPushPublicKey } from '../../src/web-push-key.ts'
import { openDatabase } from '../../src/db/database.ts'
import { sql } from 'kysely'

const SERVER = join(import.meta.dirname, '../../bin/serve.js')
const dirs: string[] = []
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

function tempDir() {
  const dir = mkdtempSync(join(tmpdir(), 'lsapi-cli-'))
  dirs.push(dir)
  return dir
}

/** The CLI in this process with a given environment (help and usage paths touch no store). */
async function cliHere(args: string[], env: Record<string, string> = {}) {
  let stdout = ''
  let stderr = ''
  const code = await runCli(args, {
    config: loadConfig({ LOG_LEVEL: 'silent', ...env }),
    io: {
      stdout: {
        write: (c: string) => {
          stdout += c
          return true
        },
      },
      stderr: {
        write: (c: string) => {
          stderr += c
          return true
        },
      },
      stdin: Readable.from([]),
    },
  })
  return { code, stdout, stderr }
}

describe('livestock-api CLI', () => {
  it('prints help for the CLI and for every command', async () => {
    const top = await cliHere(['--help'])
    assert.equal(top.code, 0)
    assert.match(top.stdout, /Usage: livestock-api <command>/)
    for (const command of ['serve', 'migrate', 'openapi', 'integrator', 'link', 'unlink', 'user', 'jobs', 'simulate']) {
      assert.match(top.stdout, new RegExp(`\\n  ${command} `))
      const help = await cliHere([command, '--help'])
      assert.equal(help.code, 0, `${command} --help`)
      assert.match(help.stdout, new RegExp(`Usage: livestock-api ${command}`))
    }
  })

  it('describes every option of every command in its --help', async () => {
    for (const command of commands) {
      const help = (await cliHere([command.name, '--help'])).stdout
      for (const [name, option] of Object.entries(command.options)) {
        assert.ok(option.description.length > 10, `--${name} of ${command.name} has a description`)
        const line = help.split('\n').find((l) => l.trimStart().startsWith(`--${name} `))
        assert.ok(
          line?.endsWith(option.description),
          `${command.name} --help shows --${name} with its description:\n${help}`,
        )
      }
    }
  })

  it('refuses an unknown command or option on stderr with a non-zero exit', async () => {
    const unknown = await cliHere(['frobnicate'])
    assert.equal(unknown.code, 2)
    assert.match(unknown.stderr, /Unknown command "frobnicate"/)
    assert.equal(unknown.stdout, '')
    const badOption = await cliHere(['migrate', '--nope'])
    assert.equal(badOption.code, 2)
    assert.match(badOption.stderr, /Unknown option '--nope'/)
  })

  it('answers a mistake with one line and where to read more, exit 2; no arguments at all is a mistake too', async () => {
    const none = await cliHere([])
    assert.equal(none.code, 2)
    assert.match(none.stderr, /Usage: livestock-api <command>/)
    const badOption = await cliHere(['user', 'create', '--bogus'])
    assert.deepEqual(badOption.stderr.trim().split('\n'), [
      "Unknown option '--bogus'",
      'See: livestock-api user --help',
    ])
    const missing = await cliHere(['integrator', 'create', '--name', 'X'])
    assert.equal(missing.code, 2)
    assert.equal(missing.stderr.trim().split('\n').length, 2, missing.stderr)
  })

  it('refuses a word the command does not take (migrate status is not migrate --status), and a missing action', async () => {
    const stray = await cliHere(['migrate', 'status'])
    assert.equal(stray.code, 2)
    assert.deepEqual(stray.stderr.trim().split('\n'), [
      'Unexpected argument "status"; did you mean --status?',
      'See: livestock-api migrate --help',
    ])
    assert.equal(stray.stdout, '')
    const second = await cliHere(['user', 'delete', 'demo', '--uid', 'demo'])
    assert.equal(second.code, 2)
    assert.match(second.stderr, /^Unexpected argument "demo"\n/)
    const none = await cliHere(['jobs'])
    assert.equal(none.code, 2)
    assert.match(none.stderr, /^Name an action: prune-tokens, maintenance, reference-temperature, predictions/)
  })

  it('reads a negative number after an option as its value: the same range error either way', async () => {
    const spaced = await cliHere(['simulate', '--user', 'demo', '--animals', '-3'])
    const joined = await cliHere(['simulate', '--user', 'demo', '--animals=-3'])
    assert.equal(spaced.code, 2)
    assert.equal(spaced.stderr, joined.stderr)
    assert.match(spaced.stderr, /^--animals must be a whole number from 1 to/)
  })

  it('gives an action its own help: its usage, its lines and only the options they mention', async () => {
    const create = await cliHere(['integrator', 'create', '--help'])
    assert.equal(create.code, 0)
    assert.match(create.stdout, /Usage: livestock-api integrator create \[options\]/)
    assert.match(create.stdout, /--no-secret/)
    assert.doesNotMatch(create.stdout, /--rotate-secret/)
    assert.doesNotMatch(create.stdout, /^update /m)
    const all = await cliHere(['integrator', '--help'])
    assert.match(all.stdout, /--rotate-secret/)
  })

  it('migrate (the real binary) applies migrations to DATA_DIR, prints JSON and releases the lock', () => {
    const dataDir = tempDir()
    const res = cli(['migrate'], { DATA_DIR: dataDir })
    assert.equal(res.code, 0, res.stderr)
    const out = JSON.parse(res.stdout)
    assert.equal(out.store, 'embedded')
    assert.ok(Array.isArray(out.migrations))
    assert.ok(out.migrations.every((m: { executedAt: string | null }) => m.executedAt !== null))
    const status = JSON.parse(cli(['migrate', '--status'], { DATA_DIR: dataDir }).stdout)
    assert.deepEqual(
      status.migrations.map((m: { name: string }) => m.name),
      out.migrations.map((m: { name: string }) => m.name),
    )
    assert.equal(status.applied, undefined, '--status applies nothing')
    assert.ok(!existsSync(join(dataDir, 'livestock-api.lock')), 'the lock is released on exit')
  })

  it('reports a bad configuration on stderr and exits non-zero', () => {
    const res = cli(['migrate'], { DATABASE_URL: 'postgres://127.0.0.1:1/x' })
    assert.equal(res.code, 1)
    assert.match(res.stderr, /JWT_SECRET is required when DATABASE_URL is set/)
  })

  it('names DATABASE_URL, not a migration, when its server cannot be reached: at start and in a command', async () => {
    const url = `postgres://postgres:secret@127.0.0.1:${await freePort()}/x`
    const expected = new RegExp(
      `ECONNREFUSED .*\\(no PostgreSQL server answers at DATABASE_URL=postgres://postgres:\\*\\*\\*@127\\.0\\.0\\.1:\\d+/x: is it running`,
    )
    const command = cli(['user', 'delete', '--uid', 'nobody'], { DATABASE_URL: url, JWT_SECRET: TEST_JWT_SECRET })
    assert.equal(command.code, 1)
    assert.match(command.stderr, expected)
    assert.doesNotMatch(command.stderr, /Migration|secret@/)
    const { exited, output } = spawnService({ DATABASE_URL: url, JWT_SECRET: TEST_JWT_SECRET, PORT: '0' })
    assert.equal(await exited, 1)
    assert.match(output(), /livestock-api could not start: /)
    assert.match(output(), expected)
    assert.doesNotMatch(output(), /Migration|secret@/)
  })

  it('prints the OpenAPI document', async () => {
    const res = await cliHere(['openapi'], { DATA_DIR: ':memory:' })
    assert.equal(res.code, 0, res.stderr)
    assert.equal(JSON.parse(res.stdout).openapi, '3.1.0')
  })

  it('prints a new Web Push key that the service accepts, with its public key', async () => {
    const res = await cliHere(['web-push-key'], {})
    assert.equal(res.code, 0, res.stderr)
    const { privateKey, publicKey } = JSON.parse(res.stdout) as { privateKey: string; publicKey: string }
    assert.equal(loadConfig({ WEB_PUSH_PRIVATE_KEY: privateKey }).delivery.webPushPrivateKey, privateKey)
    assert.equal(webPushPublicKey(privateKey), publicKey)
  })
})

/** A process started with `env` (on loopback, with PATH); its output (stdout and stderr) as it comes, and its exit. */
function spawnCaptured(command: string, args: string[], env: Record<string, string>, cwd?: string) {
  const server = spawn(command, args, {
    cwd,
    env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let text = ''
  server.stdout.on('data', (chunk: Buffer) => {
    text += chunk.toString()
  })
  server.stderr.on('data', (chunk: Buffer) => {
    text += chunk.toString()
  })
  const exited = new Promise<number | null>((resolve) => server.on('exit', (code) => resolve(code)))
  return { server, output: () => text, exited }
}

/** The service as npm start runs it, on loopback, with `env`. */
const spawnService = (env: Record<string, string>) => spawnCaptured(process.execPath, [SERVER], env)

/** The service's pid and address from its "Server listening" line, once it has written it. */
async function listeningService(output: () => string): Promise<{ pid: number; url: string }> {
  const match = await eventually(
    () => /"pid":(\d+)[^\n]*"msg":"Server listening at (http:\/\/[^"]+)"/.exec(output()),
    (found) => found !== null,
    'the server to listen',
    { timeoutMs: 60_000, intervalMs: 100 },
  )
  return { pid: Number(match![1]), url: match![2]! }
}

/** Kills a process that should have ended already (a test that failed halfway). */
function killIfRunning(pid: number | undefined) {
  try {
    if (pid !== undefined) process.kill(pid, 'SIGKILL')
  } catch {
    // already gone, as it should be
  }
}

describe('service process', () => {
  // One DATA_DIR for the file's processes, one after another, each on the store the one before left (a fresh one
  // would cost every process the whole migration). It starts as the run's migrated snapshot where there is one (the
  // embedded pass); in the PostgreSQL pass it starts empty, and the first server migrates it.
  const dataDir = tempDir()
  migratedDataDir(dataDir)

  it('serves, refuses a second process on the same DATA_DIR, and stops cleanly on SIGTERM', async () => {
    const { server, output, exited } = spawnService({ DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'info' })
    try {
      const port = await eventually(
        () => /Server listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(output())?.[1],
        (p) => p !== undefined,
        'the server to listen',
        { timeoutMs: 60_000, intervalMs: 100 },
      )
      const health = await fetch(`http://127.0.0.1:${port}/api/v1/health`)
      assert.equal(health.status, 200)
      assert.equal(((await health.json()) as { version: string }).version, 'v1')
      // LOG_LEVEL=info: Fastify's line for each answered request
      await eventually(output, (text) => /"msg":"request completed"/.test(text), 'the request log line')
      assert.ok(existsSync(join(dataDir, 'jwt-secret')), 'a JWT key is generated into DATA_DIR')
      // and a Web Push key, whose public half the farm app subscribes with
      const webPushKey = readFileSync(join(dataDir, 'web-push-key'), 'utf8').trim()
      const published = (await (await fetch(`http://127.0.0.1:${port}/api/v1/web-push/key`)).json()) as {
        data: { publicKey: string }
      }
      assert.equal(published.data.publicKey, webPushPublicKey(webPushKey))

      const second = cli(['migrate'], { DATA_DIR: dataDir })
      assert.equal(second.code, 1)
      assert.match(second.stderr, /is in use by another livestock-api process/)

      server.kill('SIGTERM')
      assert.equal(await exited, 0)
      assert.match(output(), /shutting down/)
      assert.ok(!existsSync(join(dataDir, 'livestock-api.lock')), 'the lock is released on shutdown')
      // the data survives a restart
      const again = cli(['migrate', '--status'], { DATA_DIR: dataDir })
      assert.equal(again.code, 0, again.stderr)
    } finally {
      server.kill('SIGKILL')
    }
  })

  it('stops the graceful way on a SIGTERM sent the moment it says it listens, before its start-up has ended', async () => {
    // Before, a signal between Fastify's "Server listening" line and the shutdown handlers ended the process at once,
    // without the drain, with requests perhaps in flight (1 run in 3 of a test that signalled at that line).
    const { server, output, exited } = spawnService({ DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'info' })
    try {
      let signalled = false
      server.stdout.on('data', () => {
        if (signalled || !/Server listening at/.test(output())) return
        signalled = true
        server.kill('SIGTERM')
      })
      assert.equal(await exited, 0, output())
      assert.match(output(), /"signal":"SIGTERM"[^\n]*shutting down/)
      assert.match(output(), /"msg":"stopped"/)
    } finally {
      server.kill('SIGKILL')
    }
  })

  it('npm start hands SIGTERM to the service, which stops the graceful way (a process manager signals npm alone)', async () => {
    const {
      server: npm,
      output,
      exited,
    } = spawnCaptured(
      'npm',
      ['start'],
      { HOME: tmpdir(), DATA_DIR: dataDir, PORT: '0' },
      join(import.meta.dirname, '../..'),
    )
    let servicePid: number | undefined
    try {
      const listening = await listeningService(output)
      servicePid = listening.pid
      assert.equal((await fetch(`${listening.url}/api/v1/health`)).status, 200)
      npm.kill('SIGTERM')
      assert.equal(await exited, 0, output())
      assert.match(output(), /"msg":"stopped"/)
      assert.ok(!existsSync(join(dataDir, 'livestock-api.lock')), 'the lock is released on shutdown')
    } finally {
      npm.kill('SIGKILL')
      killIfRunning(servicePid)
    }
  })

  it('stops the graceful way when the npm that started it is gone (npx runs it under a shell that dies on a signal)', async () => {
    // As `npx livestock-api serve` runs it: npm -> sh -c -> node, the shell not passing a signal on. Killing the shell
    // leaves the service re-parented; started by npm (npm_command), it notices within a second and stops.
    const { server: shell, output } = spawnCaptured('sh', ['-c', `"${process.execPath}" "${SERVER}"; true`], {
      DATA_DIR: dataDir,
      PORT: '0',
      npm_command: 'exec',
    })
    // The service holds the pipe after the shell has gone: its end is the service's exit.
    const outputEnded = new Promise<void>((resolve) => shell.stdout.on('close', () => resolve()))
    let servicePid: number | undefined
    try {
      servicePid = (await listeningService(output)).pid
      shell.kill('SIGKILL')
      await outputEnded
      assert.match(output(), /"signal":"parent exited"[^\n]*shutting down/)
      assert.match(output(), /"msg":"stopped"/)
      assert.ok(!existsSync(join(dataDir, 'livestock-api.lock')), 'the lock is released on shutdown')
    } finally {
      shell.kill('SIGKILL')
      killIfRunning(servicePid)
    }
  })

  it('at LOG_LEVEL=warn writes no line for the requests it answers (the request lines are at info)', async () => {
    const port = await freePort()
    const { server, output, exited } = spawnService({ DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'warn' })
    try {
      await eventually(
        () =>
          fetch(`http://127.0.0.1:${port}/api/v1/health`).then(
            (r) => r.status,
            () => 0,
          ),
        (status) => status === 200,
        'the server to answer',
        { timeoutMs: 60_000, intervalMs: 100 },
      )
      assert.equal((await fetch(`http://127.0.0.1:${port}/api/v1/nowhere`)).status, 404)
      server.kill('SIGTERM')
      assert.equal(await exited, 0)
      assert.doesNotMatch(output(), /incoming request|request completed/)
    } finally {
      server.kill('SIGKILL')
    }
  })

  it('says a newer release migrated the database, rather than Kysely\'s "corrupted migrations", after a rollback', async () => {
    const newer = async (change: 'add' | 'remove') => {
      const database = await openDatabase(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' }))
      try {
        if (change === 'add')
          await sql`INSERT INTO kysely_migration (name, timestamp) VALUES ('9999_from_a_newer_release', ${new Date().toISOString()})`.execute(
            database.db,
          )
        else await sql`DELETE FROM kysely_migration WHERE name = '9999_from_a_newer_release'`.execute(database.db)
      } finally {
        await database.close()
      }
    }
    assert.equal(cli(['migrate'], { DATA_DIR: dataDir }).code, 0)
    await newer('add')
    try {
      const res = cli(['migrate'], { DATA_DIR: dataDir })
      assert.equal(res.code, 1)
      assert.match(
        res.stderr,
        /^Error: The database has migration 9999_from_a_newer_release, which this release does not have: a newer release migrated it\. Run that release/,
      )
      assert.doesNotMatch(res.stderr, /corrupted/)
    } finally {
      await newer('remove')
    }
  })

  it('takes over a lock left by a process that died', () => {
    // a lock naming a pid that cannot be alive on this host
    spawnSync('sh', [
      '-c',
      `printf '{"pid":2147483646,"hostname":"'$(hostname)'","startedAt":"x"}' > ${join(dataDir, 'livestock-api.lock')}`,
    ])
    const res = cli(['migrate'], { DATA_DIR: dataDir })
    assert.equal(res.code, 0, res.stderr)
  })
})
