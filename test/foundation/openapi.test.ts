import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import SwaggerParser from '@apidevtools/swagger-parser'
import { createTestApp, type TestContext } from '../support/app.ts'

let ctx: TestContext
before(async () => { ctx = await createTestApp() })
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
      assert.ok(op.responses?.['200'] ?? op.responses?.['201'], `${route.method} ${route.url} documents no success response`)
    }
  })

  it('shows parameters and body fields that have defaults as optional', async () => {
    const doc = (await ctx.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json()
    const listUsers = doc.paths['/api/v1/users'].get
    for (const name of ['page', 'limit', 'sortBy', 'sortOrder']) {
      assert.equal(listUsers.parameters.find((p: { name: string }) => p.name === name).required, false, name)
    }
    assert.deepEqual(doc.paths['/api/v1/tokens'].post.requestBody.content['application/json'].schema.required, ['integratorUID'])
  })

  it('names shared schemas as components', async () => {
    const doc = (await ctx.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json()
    assert.ok(doc.components.schemas.ErrorEnvelope)
    assert.ok(doc.components.securitySchemes.bearer)
  })
})
