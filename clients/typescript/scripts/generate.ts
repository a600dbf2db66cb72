// `npm run client:generate`: writes the client's types (src/schema.d.ts) from the service's OpenAPI 3.1
// document, built from the route schemas by the app itself on an in-memory store (no server, no network).
// `npm run client:check` (CI): generates to a temporary file and fails when it differs from the committed one.
// The output depends on the route schemas only: the config is fixed here, never read from the environment.
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import openapiTS, { astToString, COMMENT_HEADER, type OpenAPI3 } from 'openapi-typescript'
import { loadConfig } from '../../../src/config.ts'
import { IN_MEMORY, openDatabase } from '../../../src/db/database.ts'
import { buildApp } from '../../../src/app.ts'

const target = fileURLToPath(new URL('../src/schema.d.ts', import.meta.url))
const shown = relative(process.cwd(), target)
const check = process.argv.includes('--check')

const HEADER = COMMENT_HEADER.replace(
  ' * Do not make direct changes to the file.',
  ' * Do not make direct changes to the file: `npm run client:generate` rewrites it from the\n' +
    " * service's OpenAPI document, and `npm run client:check` (CI) fails when it is out of date.",
)

async function openApiDocument(): Promise<OpenAPI3> {
  const config = loadConfig({ LOG_LEVEL: 'silent', DATA_DIR: IN_MEMORY, JWT_SECRET: 'x'.repeat(32) })
  const database = await openDatabase(config)
  try {
    const app = await buildApp({ config, database, logger: false })
    try {
      return structuredClone(app.swagger()) as OpenAPI3
    } finally {
      await app.close()
    }
  } finally {
    await database.close()
  }
}

async function generate(): Promise<string> {
  const ast = await openapiTS(await openApiDocument(), { silent: true, alphabetize: false })
  return HEADER + astToString(ast)
}

const source = await generate()
if (!check) {
  writeFileSync(target, source)
  console.log(`wrote ${shown} (${source.length} characters)`)
} else {
  let committed: string | undefined
  try {
    committed = readFileSync(target, 'utf8')
  } catch {
    committed = undefined
  }
  if (committed === source) {
    console.log(`${shown} matches the OpenAPI document`)
  } else {
    const scratch = mkdtempSync(join(tmpdir(), 'livestock-client-'))
    const fresh = join(scratch, 'schema.d.ts')
    writeFileSync(fresh, source)
    console.error(
      committed === undefined
        ? `${shown} is missing.`
        : `${shown} is out of date: the OpenAPI document the service builds now gives different types.`,
    )
    if (committed !== undefined) {
      const diff = spawnSync(
        'diff',
        ['-u', '--label', `${shown} (in the tree)`, '--label', `${shown} (generated)`, target, fresh],
        { encoding: 'utf8' },
      )
      const lines = (diff.stdout ?? '').split('\n')
      if (lines.length > 1)
        console.error(
          lines.slice(0, 60).join('\n') + (lines.length > 60 ? `\n... (${lines.length - 60} more diff lines)` : ''),
        )
    }
    console.error('Run `npm run client:generate` and commit the result.')
    rmSync(scratch, { recursive: true, force: true })
    process.exitCode = 1
  }
}
