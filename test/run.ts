// `npm test`: runs every test file with node:test. Embedded store by default; with DATABASE_URL and
// REDIS_URL set, against those servers, each test file in a database of its own, all dropped after.
// Either way the schema is migrated once per run: a PGlite data-folder snapshot, or a PostgreSQL
// template database, that each test file's store starts from.
import { spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { globSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { availableParallelism, tmpdir } from 'node:os'
import { join } from 'node:path'
import { adminQuery } from './support/app.ts'
import { IN_MEMORY, openDatabase, snapshotEmbedded } from '../src/db/database.ts'
import { migrateToLatest } from '../src/db/migrate.ts'
import { loadConfig } from '../src/config.ts'
import { COMPILE_CACHE_DIR } from '../bin/compile-cache.js'

const filters = process.argv.slice(2)
const serverUrl = process.env.DATABASE_URL
// A file that no store changes (pure rules, the docs page) says so in its first line and runs in the embedded
// pass only: the PostgreSQL pass would run the same code again.
const STORE_INDEPENDENT = '// Store-independent:'
const storeIndependent = (file: string) => readFileSync(file, 'utf8').startsWith(STORE_INDEPENDENT)
const matching = globSync('test/**/*.test.ts')
  .sort()
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
if (matching.length === 0) {
  console.error(`no test files match ${filters.join(' ')}`)
  process.exit(1)
}
const files = matching.filter((f) => !serverUrl || !storeIndependent(f))
if (files.length === 0) {
  console.log(`${matching.join(', ')}: store-independent, run in the embedded pass only (unset DATABASE_URL)`)
  process.exit(0)
}

const runId = randomBytes(3).toString('hex')
const prefix = `lsapi_test_${runId}_`
const mode = serverUrl ? `PostgreSQL${process.env.REDIS_URL ? ' + Redis' : ''}` : 'embedded PGlite'
console.log(
  `livestock-api tests on ${mode}: ${files.length} files${serverUrl ? ' (store-independent files run in the embedded pass only)' : ''}`,
)

const started = performance.now()
const scratch = mkdtempSync(join(tmpdir(), 'lsapi-test-run-'))
const templateEnv: Record<string, string> = {}
if (serverUrl) {
  const template = `${prefix}template`
  await adminQuery(serverUrl, `CREATE DATABASE "${template}"`)
  const url = new URL(serverUrl)
  url.pathname = `/${template}`
  const database = await openDatabase(
    loadConfig({ DATABASE_URL: url.toString(), JWT_SECRET: 'x'.repeat(32), LOG_LEVEL: 'silent' }),
  )
  await migrateToLatest(database.db)
  await database.close()
  templateEnv.TEST_DB_TEMPLATE = template
} else {
  const database = await openDatabase(loadConfig({ DATA_DIR: IN_MEMORY, LOG_LEVEL: 'silent' }))
  await migrateToLatest(database.db)
  const file = join(scratch, 'migrated.tar')
  writeFileSync(file, Buffer.from(await (await snapshotEmbedded(database)).arrayBuffer()))
  await database.close()
  templateEnv.TEST_PGLITE_SNAPSHOT = file
}
console.log(`migrated the template store in ${Math.round(performance.now() - started)} ms`)

// As many files at a time as the machine has cores, at least two (files wait on servers and processes too).
const concurrency = process.env.TEST_CONCURRENCY ?? String(Math.max(2, availableParallelism()))
// A hung test fails on its own after 3 minutes; a file whose process never exits stops the run after 15.
const result = spawnSync(
  process.execPath,
  [
    '--test',
    `--test-concurrency=${concurrency}`,
    '--test-timeout=180000',
    '--test-reporter=spec',
    '--test-reporter-destination=stdout',
    '--test-reporter=./test/support/slowest-files-reporter.ts',
    '--test-reporter-destination=stdout',
    ...files,
  ],
  {
    stdio: 'inherit',
    // Each test file runs in a process of its own: with the service's compile cache (bin/compile-cache.js) they
    // skip stripping and compiling the sources every other file loaded already.
    env: { NODE_COMPILE_CACHE: COMPILE_CACHE_DIR, ...process.env, TEST_DB_PREFIX: prefix, ...templateEnv },
    timeout: 15 * 60_000,
    killSignal: 'SIGKILL',
  },
)
if (result.error) console.error(`the test run was stopped: ${result.error.message}`)

rmSync(scratch, { recursive: true, force: true })
if (serverUrl) {
  // A file that crashed before its own cleanup leaves its database behind; drop what this run made.
  const leftovers = await adminQuery(serverUrl, `SELECT datname FROM pg_database WHERE datname LIKE '${prefix}%'`)
  for (const row of leftovers.rows as { datname: string }[]) {
    await adminQuery(serverUrl, `DROP DATABASE IF EXISTS "${row.datname}" WITH (FORCE)`)
  }
}
process.exit(result.status ?? 1)
