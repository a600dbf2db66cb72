// `npm run openapi:lint`: builds the OpenAPI document from the route schemas and validates it as
// OpenAPI 3.1; prints a one-line summary, exits non-zero on an invalid document.
import SwaggerParser from '@apidevtools/swagger-parser'
import { loadConfig } from '../../src/config.ts'
import { IN_MEMORY, openDatabase } from '../../src/db/database.ts'
import { buildApp } from '../../src/app.ts'

const config = loadConfig({ LOG_LEVEL: 'silent', DATA_DIR: IN_MEMORY, JWT_SECRET: 'x'.repeat(32) })
const database = await openDatabase(config)
const app = await buildApp({ config, database, logger: false })
try {
  const doc = app.swagger() as { paths: Record<string, Record<string, unknown>> }
  await SwaggerParser.validate(structuredClone(doc) as never)
  const operations = Object.values(doc.paths).reduce((n, ops) => n + Object.keys(ops).length, 0)
  console.log(`OpenAPI 3.1 document valid: ${Object.keys(doc.paths).length} paths, ${operations} operations`)
} catch (err) {
  console.error(`OpenAPI document invalid: ${(err as Error).message}`)
  process.exitCode = 1
} finally {
  await app.close()
  await database.close()
}
