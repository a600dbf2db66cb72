// Two Ajv instances: bodies are validated strictly (a "5" in a number field is a 400, never coerced),
// query strings, path parameters and headers are coerced per schema since they arrive as text.
import { Ajv, type Options } from 'ajv'
import { createRequire } from 'node:module'
import type { FastifySchemaCompiler } from 'fastify'
import type { TSchema } from 'typebox'

// ajv-formats is CommonJS with a default export that ESM sees wrapped; require() gives the function itself.
const addFormats = createRequire(import.meta.url)('ajv-formats') as (ajv: Ajv) => Ajv

function makeAjv(options: Options, schemas: readonly TSchema[]): Ajv {
  const ajv = new Ajv({ allErrors: true, useDefaults: true, removeAdditional: false, strict: false, ...options })
  addFormats(ajv)
  for (const schema of schemas) ajv.addSchema(schema)
  return ajv
}

/** `schemas`: the shared schemas with an $id (app.addSchema) that route schemas may reference. */
export function makeValidatorCompiler(schemas: readonly TSchema[]): FastifySchemaCompiler<unknown> {
  const strict = makeAjv({ coerceTypes: false }, schemas)
  const coercing = makeAjv({ coerceTypes: 'array' }, schemas)
  return ({ schema, httpPart }) => {
    const ajv = httpPart === 'body' ? strict : coercing
    return ajv.compile(schema as object)
  }
}
