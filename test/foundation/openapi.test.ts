import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createRequire } from 'node:module'
import SwaggerParser from '@apidevtools/swagger-parser'
import { Ajv2020 } from 'ajv/dist/2020.js'
import { createTestApp, type TestContext } from '../support/app.ts'
import { announceEvent } from '../support/events.ts'
import { createUser } from '../support/fixtures.ts'
import { webhookPayload } from '../../src/modules/delivery/delivery-worker.ts'

// ajv-formats is CommonJS with a default export that ESM sees wrapped; require() gives the function itself.
const addFormats = createRequire(import.meta.url)('ajv-formats') as (ajv: Ajv2020) => Ajv2020

let ctx: TestContext
before(async () => {
  ctx = await createTestApp()
})
after(() => ctx.close())

describe('OpenAPI document', () => {
  it('is served at /api/v1/openapi.json and validates as OpenAPI 3.1', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })
    assert.equal(res.statusCode, 200)
    const doc = res.json()
    assert.equal(doc.openapi, '3.1.0')
    await SwaggerParser.validate(structuredClone(doc))
  })

  it('documents every visible route with an operationId, tags and its responses', async () => {
    const doc = (await ctx.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json()
    const visible = ctx.app.routeCatalog.filter((r) => !r.hidden)
    assert.ok(visible.length >= 5)
    const operationIds = new Set<string>()
    for (const route of visible) {
      const path = route.url.replace(/:(\w+)/g, '{$1}')
      const op = doc.paths[path]?.[route.method.toLowerCase()]
      assert.ok(op, `${route.method} ${route.url} is missing from the document`)
      assert.ok(op.operationId, `${route.method} ${route.url} has no operationId`)
      assert.ok(!operationIds.has(op.operationId), `duplicate operationId ${op.operationId}`)
      operationIds.add(op.operationId)
      assert.ok(op.tags?.length, `${route.method} ${route.url} has no tag`)
      assert.ok(
        op.responses?.['200'] ?? op.responses?.['201'],
        `${route.method} ${route.url} documents no success response`,
      )
    }
  })

  it('shows parameters and body fields that have defaults as optional', async () => {
    const doc = (await ctx.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json()
    const listUsers = doc.paths['/api/v1/users'].get
    for (const name of ['page', 'limit', 'sortBy', 'sortOrder']) {
      assert.equal(listUsers.parameters.find((p: { name: string }) => p.name === name).required, false, name)
    }
    assert.deepEqual(doc.paths['/api/v1/tokens'].post.requestBody.content['application/json'].schema.required, [
      'integratorUID',
    ])
  })

  it('names shared schemas as components', async () => {
    const doc = (await ctx.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json()
    assert.ok(doc.components.schemas.ErrorEnvelope)
    assert.ok(doc.components.securitySchemes.bearer)
  })
})

// Examples: the reference (Scalar) builds its request and response samples from the schemas' examples, so
// every operation's body, responses, parameters and headers need one (on the schema or on each of its
// properties), a real one, that its own schema accepts.
type Json = Record<string, any>
const PLACEHOLDERS =
  /^(string|example|sample|test|foo|bar|baz|abc|xxx|value|text|lorem( ipsum)?|todo|tbd|null|undefined|)$/i

function at(doc: Json, ref: string): Json {
  return ref
    .replace(/^#\//, '')
    .split('/')
    .reduce((node: Json, key) => node?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], doc)
}

/** Where under `schema` a value has no example: itself, or, for objects, arrays and unions, each of its parts. */
function withoutExample(doc: Json, schema: Json | undefined, where: string, refs: string[] = []): string[] {
  if (!schema || typeof schema !== 'object') return [where]
  if (Array.isArray(schema.examples) ? schema.examples.length > 0 : schema.example !== undefined) return []
  if (schema.const !== undefined || Array.isArray(schema.enum) || schema.type === 'boolean' || schema.type === 'null')
    return []
  if (typeof schema.$ref === 'string') {
    return refs.includes(schema.$ref)
      ? []
      : withoutExample(doc, at(doc, schema.$ref), `${where} → ${schema.$ref}`, [...refs, schema.$ref])
  }
  const branches = schema.anyOf ?? schema.oneOf ?? schema.allOf
  if (Array.isArray(branches))
    return branches.flatMap((branch: Json, i: number) => withoutExample(doc, branch, `${where}.anyOf[${i}]`, refs))
  if (schema.type === 'array') return withoutExample(doc, schema.items, `${where}[]`, refs)
  if (schema.type === 'object' && schema.properties && Object.keys(schema.properties).length > 0) {
    return Object.entries(schema.properties as Json).flatMap(([name, property]) =>
      withoutExample(doc, property, `${where}.${name}`, refs),
    )
  }
  return [where]
}

/** Every operation's parts that a reader sees a sample of, each with where it is. */
function documentedParts(doc: Json): { where: string; schema: Json | undefined; example?: unknown }[] {
  const parts: { where: string; schema: Json | undefined; example?: unknown }[] = []
  for (const [path, operations] of Object.entries(doc.paths as Json)) {
    for (const [method, operation] of Object.entries(operations as Json)) {
      const op = `${method.toUpperCase()} ${path}`
      for (const parameter of operation.parameters ?? []) {
        parts.push({ where: `${op} parameter ${parameter.name}`, schema: parameter.schema, example: parameter.example })
      }
      for (const [type, media] of Object.entries(operation.requestBody?.content ?? {})) {
        parts.push({ where: `${op} body ${type}`, schema: (media as Json).schema })
      }
      for (const [status, response] of Object.entries(operation.responses as Json)) {
        for (const [type, media] of Object.entries(response.content ?? {})) {
          if (type === 'application/json') parts.push({ where: `${op} ${status}`, schema: (media as Json).schema })
        }
        for (const [name, header] of Object.entries(response.headers ?? {})) {
          const resolved = typeof (header as Json).$ref === 'string' ? at(doc, (header as Json).$ref) : (header as Json)
          parts.push({ where: `${op} ${status} header ${name}`, schema: resolved.schema, example: resolved.example })
        }
      }
    }
  }
  return parts
}

/** JSON pointers of every schema in the document that carries `examples`, with them. */
function schemasWithExamples(node: unknown, pointer = ''): { pointer: string; examples: unknown[] }[] {
  if (node === null || typeof node !== 'object') return []
  const found: { pointer: string; examples: unknown[] }[] = []
  if (!Array.isArray(node) && Array.isArray((node as Json).examples))
    found.push({ pointer, examples: (node as Json).examples })
  for (const [key, value] of Object.entries(node)) {
    if (key === 'examples') continue
    found.push(...schemasWithExamples(value, `${pointer}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`))
  }
  return found
}

function placeholders(value: unknown, where: string): string[] {
  if (typeof value === 'string') return PLACEHOLDERS.test(value.trim()) ? [`${where}: ${JSON.stringify(value)}`] : []
  if (value === null || typeof value !== 'object') return []
  return Object.entries(value).flatMap(([key, inner]) => placeholders(inner, `${where}.${key}`))
}

describe('OpenAPI examples', () => {
  it('gives every parameter, body, response and header of every operation an example', async () => {
    const doc = (await ctx.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json()
    const missing = documentedParts(doc).flatMap((part) =>
      part.example !== undefined ? [] : withoutExample(doc, part.schema, part.where),
    )
    assert.deepEqual(missing, [], `${missing.length} places without an example:\n${missing.join('\n')}`)
  })

  it('gives every component schema an example', async () => {
    const doc = (await ctx.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json()
    const missing = Object.entries(doc.components.schemas as Json).flatMap(([name, schema]) =>
      withoutExample(doc, schema, name),
    )
    assert.deepEqual(missing, [])
  })

  it('uses no placeholder ("string", "test", "") as an example', async () => {
    const doc = (await ctx.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json()
    const found = schemasWithExamples(doc).flatMap(({ pointer, examples }) => placeholders(examples, pointer))
    assert.deepEqual(found, [])
  })

  it('has examples that their own schemas accept', async () => {
    const doc = (await ctx.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json()
    const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false })
    addFormats(ajv)
    ajv.addSchema({ ...doc, $id: 'https://livestock-api.example/openapi.json' })
    const withExamples = schemasWithExamples(doc)
    assert.ok(withExamples.length > 300, `only ${withExamples.length} schemas carry examples`)
    const failures: string[] = []
    for (const { pointer, examples } of withExamples) {
      const validate = ajv.getSchema(`https://livestock-api.example/openapi.json#${pointer}`)
      assert.ok(validate, pointer)
      for (const example of examples) {
        if (!validate(example))
          failures.push(`${pointer}: ${JSON.stringify(example)} ${ajv.errorsText(validate.errors)}`)
      }
    }
    assert.deepEqual(failures, [])
  })
})

describe('OpenAPI webhooks', () => {
  it('describes the messages POSTed to a subscription, signed headers included, as the service sends them', async () => {
    const doc = (await ctx.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json()
    const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false })
    addFormats(ajv)
    ajv.addSchema({ ...doc, $id: 'https://livestock-api.example/openapi.json' })
    const bodyOf = (name: string) =>
      ajv.getSchema(
        `https://livestock-api.example/openapi.json#/webhooks/${name}/post/requestBody/content/application~1json/schema`,
      )
    for (const name of ['event', 'test']) {
      assert.deepEqual(
        doc.webhooks[name].post.parameters.map((p: { name: string; in: string }) => `${p.in}:${p.name}`),
        ['header:webhook-id', 'header:webhook-timestamp', 'header:webhook-signature'],
      )
    }
    const user = await createUser(ctx)
    const row = await announceEvent(ctx, {
      uid: user.uid,
      type: 'birth-alarm',
      mac: 'A4:C1:38:5F:2B:91',
      value: 0.9,
      evidence: { probability: 0.9 },
    })
    const event = bodyOf('event')!
    const delivered: unknown = JSON.parse(webhookPayload(row, 'int_reader'))
    assert.ok(event(delivered), ajv.errorsText(event.errors))
    assert.ok(!event({ ...(delivered as object), surprise: 1 }), 'the message schema is closed')
    const test = bodyOf('test')!
    const sent = { type: 'webhook.test', timestamp: new Date().toISOString(), data: { subscriptionId: 'whs_4kR9zQ2m' } }
    assert.ok(test(sent), ajv.errorsText(test.errors))
  })
})

describe('OpenAPI string formats', () => {
  // `.spectral.yaml` switches owasp:api4:2023-string-restricted off, since free text has no format to give; the
  // strings that do have one keep it, which this checks by field name.
  const FORMATTED = /^(MAC|Mac|mac|Uid|uid|userId|Email|email|timestamp|[a-z]+At|[A-Za-z]*Date)$/

  function unformatted(node: unknown, pointer: string): string[] {
    if (node === null || typeof node !== 'object') return []
    const found: string[] = []
    const properties = (node as Json).properties
    if (properties && typeof properties === 'object' && !Array.isArray(properties)) {
      for (const [name, property] of Object.entries(properties as Json)) {
        const branches: Json[] = property?.anyOf ?? [property]
        for (const branch of branches) {
          const isString = branch?.type === 'string' || (Array.isArray(branch?.type) && branch.type.includes('string'))
          if (
            FORMATTED.test(name) &&
            isString &&
            !(branch.format || branch.pattern || branch.enum || branch.const !== undefined)
          ) {
            found.push(`${pointer}/properties/${escape(name)}`)
          }
        }
      }
    }
    for (const [key, value] of Object.entries(node)) found.push(...unformatted(value, `${pointer}/${escape(key)}`))
    return found
  }
  const escape = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1')

  it('states a format or pattern for every MAC, Uid, e-mail, date and time a response or body holds', async () => {
    const doc = (await ctx.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json()
    // Login takes any e-mail text: a malformed one gets the same 401 as a wrong password, never a 400 that tells it apart.
    const exempt = new Set([
      '/paths/~1api~1v1~1tokens~1login/post/requestBody/content/application~1json/schema/properties/email',
    ])
    const found = [...new Set(unformatted(doc, ''))].filter((pointer) => !exempt.has(pointer))
    assert.deepEqual(found, [])
  })
})
