import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createTestApp, type TestContext } from '../support/app.ts'
import { addAnimal, bearer, createUser, userToken } from '../support/fixtures.ts'
import { patternInWords } from '../../src/http/input-patterns.ts'

let ctx: TestContext
let base: string
let owner: Record<string, string>
before(async () => {
  ctx = await createTestApp()
  const user = await createUser(ctx)
  owner = bearer((await userToken(ctx, user.email)).accessToken)
  base = `/api/v1/users/${user.uid}`
  await addAnimal(ctx, user.uid, owner, { MAC: 'AA:BB:CC:00:00:01', Sex: 'female' })
})
after(() => ctx.close())

/** The one detail of a 400: its field and message. */
async function detailOf(method: 'GET' | 'POST', url: string, payload?: object) {
  const res = await ctx.app.inject({ method, url: `${base}${url}`, headers: owner, ...(payload ? { payload } : {}) })
  assert.equal(res.statusCode, 400, res.body)
  const { error, details } = res.json<{ error: string; details: { field: string; message: string }[] }>()
  assert.equal(error, 'Validation failed')
  assert.equal(details.length, 1, res.body)
  return details[0]
}

describe('a request without its body', () => {
  it('is told to send a JSON object, where it was told "(root) must be object"', async () => {
    for (const payload of [undefined, '[]']) {
      const res = await ctx.app.inject({
        method: 'POST',
        url: '/api/v1/tokens',
        ...(payload ? { payload, headers: { 'content-type': 'application/json' } } : {}),
      })
      assert.equal(res.statusCode, 400, res.body)
      assert.deepEqual(res.json().details, [
        {
          field: '(root)',
          message: 'the body must be a JSON object ({} when every field is optional), sent as application/json',
        },
      ])
    }
  })
})

describe('a value of the wrong shape', () => {
  it('is told the shape expected in words, not the regular expression that checks it', async () => {
    const dateTime = 'YYYY-MM-DDTHH:mm[:ss[.sss]][Z|±HH:mm]'
    assert.deepEqual(await detailOf('GET', '/kpis?from=yesterday'), {
      field: 'query:from',
      message: 'must be a date, YYYY-MM-DD',
    })
    assert.deepEqual(await detailOf('GET', '/animals/AA:BB:CC:00:00:01/cycle?date=28.11.2026'), {
      field: 'query:date',
      message: 'must be a date, YYYY-MM-DD',
    })
    assert.deepEqual(await detailOf('GET', '/predictions/accuracy?to=last%20week'), {
      field: 'query:to',
      message: `must be an ISO 8601 date, YYYY-MM-DD, or date-time, ${dateTime}`,
    })
    assert.deepEqual(
      await detailOf('GET', '/animals/AA:BB:CC:00:00:01/births/range?startDate=2026-11&endDate=2026-12-01'),
      { field: 'query:startDate', message: `must be an ISO 8601 date, YYYY-MM-DD, or date-time, ${dateTime}` },
    )
    assert.deepEqual(await detailOf('GET', '/events?after=-1'), {
      field: 'query:after',
      message: 'must be an ID: 1-16 decimal digits',
    })
    assert.deepEqual(await detailOf('POST', '/animals', { MAC: 'AA-BB-CC-00-00-02', Sex: 'female' }), {
      field: 'MAC',
      message: 'must be a MAC address, AA:BB:CC:DD:EE:FF (either case)',
    })
    assert.deepEqual(
      await detailOf('POST', '/animals/AA:BB:CC:00:00:01/inseminations', {
        Boar: 'Duroc DK-4471',
        StartDate: '2026-11-01',
        StartTime: '8 am',
      }),
      { field: 'StartTime', message: 'must be a time of day, HH:mm or HH:mm:ss' },
    )
    assert.deepEqual(await detailOf('GET', '/access-log?from=2026-11-28'), {
      field: 'query:from',
      message: 'must be an ISO 8601 date-time with seconds and an offset, YYYY-MM-DDTHH:mm:ss[.sss] and Z or ±HH:mm',
    })
  })
})

describe('every pattern of a request in the OpenAPI document', () => {
  it('has its words, so that no caller is told a regular expression', async () => {
    const document = (await ctx.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json()
    const patterns = new Set<string>()
    const seen = new Set<unknown>()
    const walk = (node: unknown): void => {
      if (node === null || typeof node !== 'object' || seen.has(node)) return
      seen.add(node)
      if (Array.isArray(node)) return node.forEach(walk)
      const ref = (node as { $ref?: unknown }).$ref
      if (typeof ref === 'string')
        walk(
          ref
            .split('/')
            .slice(1)
            .reduce((at: any, key) => at?.[key], document),
        )
      for (const [key, value] of Object.entries(node)) {
        if (key === 'pattern' && typeof value === 'string') patterns.add(value)
        else walk(value)
      }
    }
    for (const operations of Object.values<Record<string, any>>(document.paths))
      for (const operation of Object.values<any>(operations)) {
        walk(operation.parameters)
        walk(operation.requestBody)
      }
    assert.ok(patterns.size > 5, `${patterns.size} patterns`)
    assert.deepEqual(
      [...patterns].filter((pattern) => patternInWords(pattern) === undefined),
      [],
    )
  })
})
