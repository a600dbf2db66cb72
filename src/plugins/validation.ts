// Two Ajv instances: bodies are validated strictly (a "5" in a number field is a 400, never coerced),
// query strings, path parameters and headers are coerced per schema since they arrive as text (a number only
// from a plain decimal: `0x10`, `1e1` and ` 10` are refused, not read as JavaScript would).
// After the schema, every value is checked for what no schema keyword expresses and no store keeps:
// a NUL character (PostgreSQL text cannot hold U+0000), a lone surrogate (not valid UTF-8) and a number
// that is not finite (1e309 parses to Infinity).
import { Ajv, type Options } from 'ajv'
import { createRequire } from 'node:module'
import type { FastifySchemaCompiler, FastifySchemaValidationError, RouteOptions } from 'fastify'
import type { FastifyValidationResult } from 'fastify/types/schema.js'
import type { TSchema } from 'typebox'
import type { LazyCompilations } from '../http/lazy-compilation.ts'
import { DECIMAL_NUMBER } from '../http/list-params.ts'
import { unstorableValue } from '../http/storable.ts'

// ajv-formats is CommonJS with a default export that ESM sees wrapped; require() gives the function itself.
const addFormats = createRequire(import.meta.url)('ajv-formats') as (ajv: Ajv) => Ajv

function makeAjv(options: Options, schemas: readonly TSchema[]): Ajv {
  const ajv = new Ajv({ allErrors: true, useDefaults: true, removeAdditional: false, strict: false, ...options })
  addFormats(ajv)
  for (const schema of schemas) ajv.addSchema(schema)
  return ajv
}

/**
 * Unknown query parameters are refused as unknown body fields are (400 naming each), so that a typo such as
 * `?sortby=Name` or `?filter[Sex]` misspelt is an error rather than a silently unfiltered answer. Added to
 * every API route's query schema, including routes that take no parameters.
 */
export function refuseUnknownQueryParameters(route: RouteOptions) {
  const schema = (route.schema ??= {}) as { querystring?: Record<string, unknown> }
  const query = schema.querystring
  if (query?.additionalProperties !== undefined) return
  schema.querystring = query
    ? { ...query, additionalProperties: false }
    : { type: 'object', properties: {}, additionalProperties: false }
}

/** The numeric type of each property of an object schema that is a number or an integer (alone or in a union). */
function numericProperties(schema: unknown): Map<string, 'integer' | 'number'> {
  const numeric = new Map<string, 'integer' | 'number'>()
  const properties = (schema as { properties?: Record<string, unknown> } | undefined)?.properties ?? {}
  const typeOf = (s: unknown): 'integer' | 'number' | undefined => {
    const node = s as { type?: unknown; anyOf?: unknown[]; oneOf?: unknown[] } | undefined
    if (node?.type === 'integer' || node?.type === 'number') return node.type
    for (const branch of [...(node?.anyOf ?? []), ...(node?.oneOf ?? [])]) {
      const type = typeOf(branch)
      if (type) return type
    }
    return undefined
  }
  for (const [name, property] of Object.entries(properties)) {
    const type = typeOf(property)
    if (type) numeric.set(name, type)
  }
  return numeric
}

/**
 * Coercion reads a number as JavaScript does, so `limit=0x10` would be 16, and `1e1`, ` 10` or `0b11` numbers
 * too: a text that is not a plain decimal is refused as a non-number is.
 */
function notDecimal(data: unknown, numeric: Map<string, 'integer' | 'number'>): FastifySchemaValidationError[] {
  const errors: FastifySchemaValidationError[] = []
  if (numeric.size === 0 || typeof data !== 'object' || data === null) return errors
  for (const [name, type] of numeric) {
    const value = (data as Record<string, unknown>)[name]
    const texts = Array.isArray(value) ? value : [value]
    if (texts.some((text) => typeof text === 'string' && !DECIMAL_NUMBER.test(text)))
      errors.push({
        instancePath: `/${name}`,
        keyword: 'type',
        message: `must be ${type}`,
        params: { type },
        schemaPath: `#/properties/${name}/type`,
      })
  }
  return errors
}

/**
 * `schemas`: the shared schemas with an $id (app.addSchema) that route schemas may reference. With `lazily`,
 * each route's validator is compiled on its first request (http/lazy-compilation.ts), else at once.
 */
export function makeValidatorCompiler(
  schemas: readonly TSchema[],
  lazily?: LazyCompilations,
): FastifySchemaCompiler<unknown> {
  const strict = makeAjv({ coerceTypes: false }, schemas)
  const coercing = makeAjv({ coerceTypes: 'array' }, schemas)
  return ({ schema, httpPart }) => {
    const ajv = httpPart === 'body' ? strict : coercing
    // With the validator, the properties whose text coercion reads as a number (a body is never coerced).
    const compile = () => ({
      validate: ajv.compile(schema as object),
      numeric: httpPart === 'body' ? new Map<string, 'integer' | 'number'>() : numericProperties(schema),
    })
    const compiled = lazily ? lazily.once(compile) : undefined
    const eager = compiled ? undefined : compile()
    const checked: FastifyValidationResult = (data: unknown) => {
      const { validate, numeric } = eager ?? compiled!()
      const written = notDecimal(data, numeric)
      if (!validate(data) || written.length > 0) {
        // Every problem at once: the schema's, and the numbers not written as decimals (which coercion read).
        const others = ((validate.errors ?? []) as FastifySchemaValidationError[]).filter(
          (e) => !written.some((w) => w.instancePath === e.instancePath),
        )
        checked.errors = [...written, ...others]
        return false
      }
      const problem = unstorableValue(data, '')
      checked.errors = problem
        ? [{ instancePath: problem.path, keyword: 'storable', message: problem.message, params: {}, schemaPath: '' }]
        : null
      return !problem
    }
    return checked
  }
}
