// `npm run openapi:lint`: builds the OpenAPI document from the route schemas, validates it as OpenAPI 3.1
// (swagger-parser), then lints it with Spectral under the committed ruleset `.spectral.yaml` (spectral:oas
// and the OWASP API Security ruleset). Prints every error and the warnings by rule with a count per
// ruleset; exits non-zero on an invalid document or on any Spectral error.
// `--json FILE` also writes the results (code, severity, path, message) to FILE.
import { writeFileSync } from 'node:fs'
import * as fs from 'node:fs'
import { dirname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import SwaggerParser from '@apidevtools/swagger-parser'
import { Document, Spectral, type ISpectralDiagnostic } from '@stoplight/spectral-core'
import Parsers from '@stoplight/spectral-parsers'
import { bundleAndLoadRuleset } from '@stoplight/spectral-ruleset-bundler/with-loader'
import { builtins } from '@stoplight/spectral-ruleset-bundler/plugins/builtins'
import { commonjs } from '@stoplight/spectral-ruleset-bundler/plugins/commonjs'
import { fetch } from '@stoplight/spectral-runtime'
import { loadConfig } from '../../src/config.ts'
import { IN_MEMORY, openDatabase } from '../../src/db/database.ts'
import { buildApp } from '../../src/app.ts'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..')
const RULESET = resolve(root, '.spectral.yaml')
/** The name the document is linted under: `overrides` in the ruleset address it as `openapi.json#/<pointer>`. */
const SOURCE = resolve(root, 'openapi.json')
const SEVERITY = ['error', 'warning', 'info', 'hint'] as const

/** Spectral's findings on a document, under the repository's ruleset. */
export async function lintWithSpectral(doc: unknown): Promise<ISpectralDiagnostic[]> {
  const spectral = new Spectral()
  // The OWASP ruleset is published as CommonJS; the CLI's loader adds these two plugins for the same reason.
  spectral.setRuleset(await bundleAndLoadRuleset(RULESET, { fs, fetch }, [builtins(), commonjs()]))
  return spectral.run(new Document(JSON.stringify(doc, null, 2), Parsers.Json, SOURCE))
}

/** Which ruleset a rule comes from. */
export const rulesetOf = (code: string | number) => (String(code).startsWith('owasp:') ? 'owasp' : 'oas')

async function main() {
  const jsonAt = process.argv.indexOf('--json')
  const config = loadConfig({ LOG_LEVEL: 'silent', DATA_DIR: IN_MEMORY, JWT_SECRET: 'x'.repeat(32) })
  const database = await openDatabase(config)
  const app = await buildApp({ config, database, logger: false })
  try {
    const doc = app.swagger() as { paths: Record<string, Record<string, unknown>> }
    await SwaggerParser.validate(structuredClone(doc) as never)
    const operations = Object.values(doc.paths).reduce((n, ops) => n + Object.keys(ops).length, 0)
    console.log(`OpenAPI 3.1 document valid: ${Object.keys(doc.paths).length} paths, ${operations} operations`)

    const results = await lintWithSpectral(doc)
    if (jsonAt > 0 && process.argv[jsonAt + 1]) {
      writeFileSync(
        process.argv[jsonAt + 1]!,
        JSON.stringify(
          results.map((r) => ({
            code: r.code,
            severity: SEVERITY[r.severity],
            path: r.path.join('.'),
            message: r.message,
          })),
          null,
          1,
        ),
      )
    }
    const counts = { oas: { error: 0, warning: 0 }, owasp: { error: 0, warning: 0 } }
    const warnings = new Map<string, { count: number; first: string }>()
    for (const r of results) {
      const severity = SEVERITY[r.severity]
      if (severity === 'error') {
        counts[rulesetOf(r.code)].error++
        console.log(`error    ${r.code}  ${r.path.join('.')}\n         ${r.message}`)
      } else if (severity === 'warning') {
        counts[rulesetOf(r.code)].warning++
        const seen = warnings.get(String(r.code))
        if (seen) seen.count++
        else warnings.set(String(r.code), { count: 1, first: `${r.path.join('.')}: ${r.message}` })
      }
    }
    for (const [code, { count, first }] of warnings) console.log(`warning  ${code} ×${count}  (first: ${first})`)
    console.log(
      `Spectral (.spectral.yaml): spectral:oas ${counts.oas.error} errors, ${counts.oas.warning} warnings; ` +
        `OWASP ${counts.owasp.error} errors, ${counts.owasp.warning} warnings`,
    )
    if (counts.oas.error + counts.owasp.error > 0) process.exitCode = 1
  } catch (err) {
    const causes = err instanceof AggregateError ? err.errors.map((e: Error) => `\n  ${e.message}`).join('') : ''
    console.error(`OpenAPI lint failed: ${(err as Error).message}${causes}`)
    process.exitCode = 1
  } finally {
    await app.close()
    await database.close()
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main()
