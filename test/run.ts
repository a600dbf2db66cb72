// `npm test`: runs every test file with node:test. Embedded store by default; with DATABASE_URL and
// REDIS_URL set, against those servers, each test file in a database of its own, all dropped after.
// Either way the schema is migrated once per run: a PGlite data-folder snapshot, or a PostgreSQL
// template database, that each test file's store starts from.
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { globSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { availableParallelism, tmpdir } from 'node:os'
import { join } from 'node:path'
import { adminQuery } from './support/app.ts'
import { IN_MEMORY, openDatabase, snapshotEmbedded } from '../src/db/database.ts'
import { migrateToLatest } from '../src/db/migrate.ts'
import { loadConfig } from '../src/config.ts'
import { COMPILE_CACHE_DIR } from '../bin/compile-cache.js'
import { printSlowestFiles } from './support/slowest-files-reporter.ts'

/**
 * Files a batch holds at most; there are at least as many batches as lanes. Fewer on a server: a file's top-level
 * `after` runs when its batch ends, so a batch holds the connections of its files' apps until then, and the
 * server's connections (100 by default) are shared with every other batch (docs/testing.md).
 */
const BATCH_FILES = process.env.DATABASE_URL ? 6 : 12

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

// The files run in batches, each batch in one process (node --test-isolation=none), as many batches at a time as the
// machine has cores, at least two (files wait on servers and processes too): a file's process would pay the imports
// and a cold JIT again for each file (about 1.9 s of CPU each on the machine of 28 November 2026, docs/testing.md).
// Each file still opens a store of its own. TEST_ISOLATION=process runs every file in a process of its own instead.
// On the embedded store one lane more than the machine has cores: a batch also waits (a process it spawned, Chromium, a
// throwaway server), and the extra lane fills those waits (docs/testing.md). On a server two lanes of BATCH_FILES files
// stay under its 100 connections.
const defaultLanes = serverUrl ? Math.max(2, availableParallelism()) : Math.max(3, availableParallelism() + 1)
const lanes = Number(process.env.TEST_CONCURRENCY ?? defaultLanes)
const perProcess = process.env.TEST_ISOLATION === 'process'
// Round-robin, so that the slow files of one folder spread over the batches.
const batchCount = perProcess ? 1 : Math.min(files.length, Math.max(lanes, Math.ceil(files.length / BATCH_FILES)))
const batches = Array.from({ length: batchCount }, (_, k) => files.filter((_, i) => i % batchCount === k))
const timings = join(scratch, 'timings.jsonl')

// A hung test fails on its own after 3 minutes; a batch whose process never exits stops the run after 15 minutes.
function runBatch(batch: string[]): Promise<{ code: number; output: string }> {
  const args = [
    '--test',
    ...(perProcess ? [`--test-concurrency=${lanes}`] : ['--test-isolation=none']),
    '--test-timeout=180000',
    '--test-reporter=spec',
    '--test-reporter-destination=stdout',
    '--test-reporter=./test/support/slowest-files-reporter.ts',
    '--test-reporter-destination=stdout',
    ...batch,
  ]
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      // With the service's compile cache (bin/compile-cache.js) a process skips stripping and compiling the sources
      // another process loaded already.
      env: {
        NODE_COMPILE_CACHE: COMPILE_CACHE_DIR,
        ...process.env,
        TEST_DB_PREFIX: prefix,
        TEST_TIMINGS_FILE: timings,
        ...templateEnv,
      },
    })
    const chunks: Buffer[] = []
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk))
    child.stderr.on('data', (chunk: Buffer) => chunks.push(chunk))
    const stop = setTimeout(() => {
      chunks.push(Buffer.from(`\nthe batch ${batch.join(' ')} was stopped after 15 minutes\n`))
      child.kill('SIGKILL')
    }, 15 * 60_000)
    child.on('close', (code) => {
      clearTimeout(stop)
      resolve({ code: code ?? 1, output: Buffer.concat(chunks).toString() })
    })
  })
}

// Each batch prints whole when it ends, so that two batches' reports do not interleave.
const queue = batches.map((batch, k) => ({ batch, k }))
let failed = 0
await Promise.all(
  Array.from({ length: Math.min(lanes, batches.length) }, async () => {
    for (let next = queue.shift(); next; next = queue.shift()) {
      const began = performance.now()
      const { code, output } = await runBatch(next.batch)
      process.stdout.write(output)
      const seconds = Math.round((performance.now() - began) / 1000)
      console.log(
        `\n=== batch ${next.k + 1} of ${batches.length}: ${next.batch.length} files in ${seconds} s${code === 0 ? '' : `: FAILED (exit ${code})`}\n`,
      )
      if (code !== 0) failed++
    }
  }),
)
printSlowestFiles(timings)
console.log(
  `${files.length} files in ${batches.length} batches: ${Math.round((performance.now() - started) / 1000)} s${failed > 0 ? `; ${failed} batches FAILED` : ''}`,
)

rmSync(scratch, { recursive: true, force: true })
if (serverUrl) {
  // A file that crashed before its own cleanup leaves its database behind; drop what this run made.
  const leftovers = await adminQuery(serverUrl, `SELECT datname FROM pg_database WHERE datname LIKE '${prefix}%'`)
  for (const row of leftovers.rows as { datname: string }[]) {
    await adminQuery(serverUrl, `DROP DATABASE IF EXISTS "${row.datname}" WITH (FORCE)`)
  }
}
process.exit(failed > 0 ? 1 : 0)
