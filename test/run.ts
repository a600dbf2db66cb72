// `npm test`: runs every test file with node:test. Embedded store by default; with DATABASE_URL and
// REDIS_URL set, against those servers, each test file in a database of its own, all dropped after.
import { spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { globSync } from 'node:fs'
import { adminQuery } from './support/app.ts'

const filters = process.argv.slice(2)
const files = globSync('test/**/*.test.ts').sort().filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
if (files.length === 0) {
  console.error(`no test files match ${filters.join(' ')}`)
  process.exit(1)
}

const runId = randomBytes(3).toString('hex')
const prefix = `lsapi_test_${runId}_`
const mode = process.env.DATABASE_URL ? `PostgreSQL${process.env.REDIS_URL ? ' + Redis' : ''}` : 'embedded PGlite'
console.log(`livestock-api tests on ${mode}: ${files.length} files`)

const concurrency = process.env.TEST_CONCURRENCY ?? '2'
const result = spawnSync(process.execPath, ['--test', `--test-concurrency=${concurrency}`, '--test-reporter=spec', ...files], {
  stdio: 'inherit',
  env: { ...process.env, TEST_DB_PREFIX: prefix },
})

if (process.env.DATABASE_URL) {
  // A file that crashed before its own cleanup leaves its database behind; drop what this run made.
  const leftovers = await adminQuery(process.env.DATABASE_URL, `SELECT datname FROM pg_database WHERE datname LIKE '${prefix}%'`)
  for (const row of leftovers.rows as { datname: string }[]) {
    await adminQuery(process.env.DATABASE_URL, `DROP DATABASE IF EXISTS "${row.datname}" WITH (FORCE)`)
  }
}
process.exit(result.status ?? 1)
