// The operator CLI against the run's PostgreSQL (the PostgreSQL pass of npm test): migrate creates a missing
// database, names a refused user, and two processes migrating one database at once. The CLI's other behaviour, on a
// DATA_DIR of its own: cli.test.ts.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { describe, it } from 'node:test'
import { adminQuery, createScratchDatabase, TEST_JWT_SECRET } from '../support/app.ts'
import { BIN, cliProcess as cli } from '../support/cli.ts'

describe(
  'several processes on one DATABASE_URL',
  { skip: process.env.DATABASE_URL ? false : 'runs with DATABASE_URL (the real-server mode)' },
  () => {
    it('migrate creates the database DATABASE_URL names when the server lacks it', async () => {
      const base = new URL(process.env.DATABASE_URL!)
      const name = `lsapi_test_created_${process.pid}_${Date.now()}`
      const url = new URL(base)
      url.pathname = `/${name}`
      try {
        const res = cli(['migrate'], { DATABASE_URL: url.toString(), JWT_SECRET: TEST_JWT_SECRET })
        assert.equal(res.code, 0, res.stderr)
        assert.equal(res.json().created, true)
        assert.ok(res.json().applied.length > 0)
        const again = cli(['migrate'], { DATABASE_URL: url.toString(), JWT_SECRET: TEST_JWT_SECRET })
        assert.equal(again.code, 0, again.stderr)
        assert.equal(again.json().created, undefined)
        assert.deepEqual(again.json().applied, [])
      } finally {
        await adminQuery(base.toString(), `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)
      }
    })

    it('says PostgreSQL refused the user of DATABASE_URL when the role does not exist', () => {
      const url = new URL(process.env.DATABASE_URL!)
      url.username = 'lsapi_no_such_role'
      url.password = 'pw'
      const res = cli(['migrate', '--status'], { DATABASE_URL: url.toString(), JWT_SECRET: TEST_JWT_SECRET })
      assert.equal(res.code, 1)
      assert.match(
        res.stderr,
        /role "lsapi_no_such_role" does not exist \(PostgreSQL refused the user or password of DATABASE_URL=postgres:\/\/lsapi_no_such_role:\*\*\*@/,
      )
    })

    it('two processes migrating one fresh database at once both succeed and apply each migration once', async () => {
      const scratch = (await createScratchDatabase())!
      try {
        const run = () =>
          new Promise<{ code: number | null; stderr: string }>((resolve) => {
            const child = spawn(process.execPath, [BIN, 'migrate'], {
              env: {
                PATH: process.env.PATH ?? '',
                LOG_LEVEL: 'silent',
                DATABASE_URL: scratch.url,
                JWT_SECRET: TEST_JWT_SECRET,
              },
              stdio: ['ignore', 'ignore', 'pipe'],
            })
            let stderr = ''
            child.stderr.on('data', (chunk: Buffer) => {
              stderr += chunk.toString()
            })
            child.on('exit', (code) => resolve({ code, stderr }))
          })
        const [a, b] = await Promise.all([run(), run()])
        assert.equal(a.code, 0, a.stderr)
        assert.equal(b.code, 0, b.stderr)
        const status = cli(['migrate', '--status'], { DATABASE_URL: scratch.url, JWT_SECRET: TEST_JWT_SECRET })
        assert.ok(
          JSON.parse(status.stdout).migrations.every((m: { executedAt: string | null }) => m.executedAt !== null),
        )
      } finally {
        await scratch.drop()
      }
    })
  },
)
