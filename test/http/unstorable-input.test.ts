// Values no store keeps faithfully are refused at validation, in path, query and body, on public routes
// too: a NUL character, a lone surrogate, a number that is not finite, an integer beyond its bound.
// Each was a 500 (or silently stored as null) before.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createTestApp, type TestContext } from '../support/app.ts'
import { addAnimal, bearer, createUser, userToken } from '../support/fixtures.ts'
import { assertError } from '../support/assertions.ts'
import { unstorableValue } from '../../src/http/storable.ts'

let ctx: TestContext
let headers: Record<string, string>
let base: string
before(async () => {
  ctx = await createTestApp()
  const user = await createUser(ctx)
  headers = bearer((await userToken(ctx, user.email)).accessToken)
  base = `/api/v1/users/${user.uid}`
  await addAnimal(ctx, user.uid, headers, { MAC: 'AA:BB:CC:DD:EE:01', Sex: 'female' })
})
after(() => ctx.close())

const raw = (method: string, url: string, body?: string, extra: Record<string, string> = {}) =>
  ctx.app.inject({
    method: method as 'GET',
    url,
    headers: { ...headers, ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...extra },
    ...(body !== undefined ? { payload: body } : {}),
  })

describe('values no store keeps', () => {
  it('refuses a NUL character in a body, on a public route too', async () => {
    assertError(
      await raw('POST', '/api/v1/tokens', '{"integratorUID":"\\u0000"}', { authorization: '' }),
      400,
      'Validation failed',
      'integratorUID',
    )
    const res = await raw('POST', `${base}/animals`, '{"MAC":"AA:BB:CC:DD:EE:02","Sex":"female","Group":"Pen\\u00001"}')
    assertError(res, 400, 'Validation failed', 'Group')
    assert.match(res.json().details[0].message, /NUL/)
  })

  it('refuses a NUL character in a query string and in a path', async () => {
    assertError(await raw('GET', `${base}/animals/search?group=a%00b`), 400, 'Validation failed', 'query:group')
    assertError(
      await raw('GET', `${base}/animals/AA%00/sensordata/latest`),
      403,
      'Sensor data is available to integrator tokens only',
    )
    assertError(await raw('GET', `${base}/animals/AA%00`), 400, 'Validation failed', 'params:animalId')
  })

  it('refuses a lone surrogate', async () => {
    const res = await raw(
      'POST',
      `${base}/animals`,
      '{"MAC":"AA:BB:CC:DD:EE:03","Sex":"female","Father":"Boar \\ud800"}',
    )
    assertError(res, 400, 'Validation failed', 'Father')
    assert.match(res.json().details[0].message, /lone surrogate/)
  })

  it('refuses numbers that are not finite in a body (they read back as null before)', async () => {
    for (const field of ['NodeWeight', 'WatchdogWeight', 'CurrentActivity', 'EartagStart']) {
      const res = await raw('POST', `${base}/animals`, `{"MAC":"AA:BB:CC:DD:EE:04","Sex":"female","${field}":1e309}`)
      assertError(res, 400, 'Validation failed', field)
    }
  })

  it('refuses page and time bounds beyond what SQL holds in a query', async () => {
    for (const query of ['page=1e309', 'page=99999999999999999999999', 'page=1000001']) {
      assertError(await raw('GET', `${base}/animals?${query}`), 400, 'Validation failed', 'query:page')
      assertError(await raw('GET', `/api/v1/users/search?${query}`), 403, 'BDUser permission required')
    }
    assertError(
      await raw('GET', `${base}/animals/AA:BB:CC:DD:EE:01/locations?endTime=1e309`),
      400,
      'Validation failed',
      'query:endTime',
    )
    assertError(
      await raw('GET', `${base}/animals/AA:BB:CC:DD:EE:01/locations?startTime=99999999999999999999`),
      400,
      'Validation failed',
      'query:startTime',
    )
  })

  it('finds the first unstorable value and names it by JSON pointer, keys included', () => {
    assert.equal(unstorableValue({ a: [1, 'x', { b: 'ok' }] }, ''), undefined)
    assert.deepEqual(unstorableValue({ a: [1, 'x', { b: 'n\u0000' }] }, ''), {
      path: '/a/2/b',
      message: 'must not contain the NUL character (U+0000)',
    })
    assert.deepEqual(unstorableValue({ 'k\u0000': 1 }, ''), {
      path: '/k\u0000',
      message: 'must not contain the NUL character (U+0000)',
    })
    assert.equal(unstorableValue([Infinity], '')?.path, '/0')
    assert.equal(unstorableValue(-0, ''), undefined)
  })
})
