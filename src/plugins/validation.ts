// Two Ajv instances: bodies are validated strictly (a "5" in a number field is a 400, never coerced),
// query strings, path parameters and headers are coerced per schema since they arrive as text.
import { Ajv, type Options } from 'ajv'
import { createRequire } from 'node:module'
import type { FastifySchemaCompiler } from 'fastify'
import { sharedSchemas } from '../http/envelope.ts'

// ajv-formats is CommonJS with a default export that ESM sees wrapped; require() gives the function itself.
const addFormats = createRequire(import.meta.url)('ajv-formats') as (ajv: Ajv) => Ajv

function makeAjv(options: Options): Ajv {
  const ajv = new Ajv({ allErrors: true, useDefaults: true, removeAdditional: false, strict: false, ...options })
  addFormats(ajv)
  for (const schema of sharedSchemas) ajv.addSchema(schema)
  return ajv
}

export function makeValidatorCompiler(): FastifySchemaCompiler<unknown> {
  const strict = makeAjv({ coerceTypes: false })
  const coercing = makeAjv({ coerceTypes: 'array' })
  return ({ schema, httpPart }) => {
    const ajv = httpPart === 'body' ? strict : coercing
    return ajv.compile(schema as object)
  }
}
