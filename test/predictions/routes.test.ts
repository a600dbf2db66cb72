// The prediction routes over HTTP: POST for an external model (validation, Location, Idempotency-Key, who may
// write), the list with every filter, one class, recent and range, with the bounds and bad values of each
// parameter; the AIPrediction shape; unknown animals as 404 whatever their form; predictions that follow
// their animal. The clock is fixed so that "now" and "the future" are known.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createTestApp, type TestContext } from '../support/app.ts'
import { assertError, assertInvalid } from '../support/assertions.ts'
import { bearer, createIntegrator, createUser } from '../support/fixtures.ts'
import { insertAnimal } from '../../src/modules/animals/animals.repository.ts'
import { createIdSource } from '../../src/db/ids.ts'
import { insertScoredPredictions } from '../../src/modules/predictions/predictions.repository.ts'
import { RANGE_MAX, RESULTS_MAX } from '../../src/modules/predictions/predictions.resource.ts'

const NOW = Date.UTC(2026, 2, 10, 12, 0, 0)
const MAC = 'AA:BB:CC:00:10:01'
const OTHER_MAC = 'AA:BB:CC:00:10:02'

let ctx: TestContext
let uid: string
let animalId: string
let owner: Record<string, string>
let writer: Record<string, string>
let reader: Record<string, string>
let stranger: Record<string, string>
const base = () => `/api/v1/users/${uid}/animals/${MAC}/predictions`

type Res = { statusCode: number; headers: Record<string, unknown>; json: () => any }
const get = (url: string, headers = owner): Promise<Res> => ctx.app.inject({ method: 'GET', url, headers })
const post = (body: unknown, headers: Record<string, string> = owner, url = base()): Promise<Res> =>
  ctx.app.inject({ method: 'POST', url, headers, payload: body as object })
const timestamps = (res: Res) => (res.json().data as { timestamp: string }[]).map((p) => p.timestamp)

/** Five predictions of the animal, posted oldest first: their timestamps, classes and results. */
const FIXTURES = [
  {
    timestamp: '2026-03-01T10:00:00.000Z',
    classificationType: 'birth',
    results: [{ timestamp: '2026-03-01T10:00:00Z', probability: 0.2 }],
  },
  {
    timestamp: '2026-03-02T10:00:00.000Z',
    classificationType: 'heat',
    results: [{ timestamp: '2026-03-02T10:00:00Z', probability: 0.7 }],
  },
  {
    timestamp: '2026-03-03T10:00:00.000Z',
    classificationType: 'birth',
    results: [
      { timestamp: '2026-03-03T10:00:00Z', probability: 0.4 },
      { timestamp: '2026-03-03T16:00:00+02:00', probability: 0.9 },
    ],
  },
  {
    timestamp: '2026-03-04T00:00:00.000Z',
    classificationType: 'lameness',
    results: [{ timestamp: '2026-03-04T00:00:00Z', probability: 0.05 }],
  },
  {
    timestamp: '2026-03-05T23:59:59.000Z',
    classificationType: 'birth',
    results: [{ timestamp: '2026-03-06T06:00:00Z', probability: 0.5 }],
  },
] as const
const T = FIXTURES.map((f) => f.timestamp)

before(async () => {
  ctx = await createTestApp({ clock: () => NOW })
  const user = await createUser(ctx)
  uid = user.uid
  const ids = createIdSource(() => NOW - 86_400_000)
  animalId = String(
    (await insertAnimal(ctx.database.db, uid, { MAC, Sex: 'female', Group: 'Farrowing 2', WatchdogWeight: 212.5 }, ids))
      .id,
  )
  await insertAnimal(ctx.database.db, uid, { MAC: OTHER_MAC, Sex: 'female' }, ids)
  const token = async (kind: 'user' | 'integrator', id: string) =>
    bearer((await ctx.app.tokens.sign({ kind, id }, 'access', 3600)).token)
  owner = await token('user', uid)
  writer = await token('integrator', (await createIntegrator(ctx, { canWrite: true, linkTo: [uid] })).uid)
  reader = await token('integrator', (await createIntegrator(ctx, { linkTo: [uid] })).uid)
  stranger = await token('user', (await createUser(ctx)).uid)
  for (const body of FIXTURES) assert.equal((await post(body)).statusCode, 201)
  // Another animal's and another user's predictions never show in these reads.
  await post(FIXTURES[0], owner, `/api/v1/users/${uid}/animals/${OTHER_MAC}/predictions`)
})
after(() => ctx.close())

describe('POST /users/<user_id>/animals/<animal_mac>/predictions', () => {
  it("stores an external model's prediction: 201, exactly an AIPrediction, and a Location that lists it", async () => {
    const res = await post(
      {
        timestamp: '2026-03-08T08:30:00+01:00',
        classificationType: 'heat',
        results: [{ timestamp: '2026-03-08T12:00:00+01:00', probability: 0.63 }],
      },
      writer,
    )
    assert.equal(res.statusCode, 201, JSON.stringify(res.json()))
    const prediction = res.json().data
    assert.deepEqual(prediction, {
      timestamp: '2026-03-08T07:30:00.000Z',
      classificationType: 'heat',
      userId: uid,
      animal: { id: animalId, mac: MAC, name: animalId, group: 'Farrowing 2', weight: 212.5, userId: uid },
      results: [{ timestamp: '2026-03-08T11:00:00.000Z', probability: 0.63 }],
    })
    const location = String(res.headers.location)
    assert.equal(
      location,
      `/api/v1/users/${uid}/animals/${encodeURIComponent(MAC)}/predictions/heat?startDate=2026-03-08T07%3A30%3A00.000Z&endDate=2026-03-08T07%3A30%3A00.000Z`,
    )
    assert.deepEqual((await get(location)).json().data, [prediction])
  })

  it('stamps a prediction without a timestamp with the time it arrived', async () => {
    const res = await post({
      classificationType: 'lameness',
      results: [{ timestamp: '2026-03-10T12:00:00Z', probability: 0 }],
    })
    assert.equal(res.statusCode, 201)
    assert.equal(res.json().data.timestamp, new Date(NOW).toISOString())
  })

  it('shows null for a group the animal has none of, and weight 0 (not known) where no weight is known', async () => {
    const res = await post(
      { classificationType: 'birth', results: [{ timestamp: '2026-03-01T00:00:00Z', probability: 1 }] },
      owner,
      `/api/v1/users/${uid}/animals/${OTHER_MAC}/predictions`,
    )
    assert.equal(res.statusCode, 201)
    assert.equal(res.json().data.animal.group, null)
    assert.equal(res.json().data.animal.weight, 0)
    const listed = (await get(`/api/v1/users/${uid}/animals/${OTHER_MAC}/predictions`)).json().data
    assert.ok(listed.length > 0 && listed.every((p: { animal: { weight: unknown } }) => p.animal.weight === 0))
  })

  it('takes the shape it shows: userId and animal, when they name the path, with name, group and weight stored as given', async () => {
    const mac = 'AA:BB:CC:00:10:06'
    const other = await insertAnimal(
      ctx.database.db,
      uid,
      { MAC: mac, Sex: 'female' },
      createIdSource(() => NOW),
    )
    const url = `/api/v1/users/${uid}/animals/${mac.toLowerCase()}/predictions`
    const animal = { id: String(other.id), mac, name: 'Sow 4711', group: 'Farrowing 3', weight: 198.5, userId: uid }
    const body = {
      timestamp: '2026-03-09T10:00:00.000Z',
      classificationType: 'birth',
      userId: uid,
      animal,
      results: [{ timestamp: '2026-03-09T10:00:00.000Z', probability: 0.8 }],
    }
    const res = await post(body, owner, url)
    assert.equal(res.statusCode, 201, JSON.stringify(res.json()))
    assert.deepEqual(res.json().data, body, 'what it reads is what it posted')
    assert.deepEqual((await get(url)).json().data, [body])
    // Parts of animal may be left out: the registry fills them; no weight known is 0.
    const partial = await post({ ...body, animal: { mac: mac.toLowerCase(), group: null } }, owner, url)
    assert.equal(partial.statusCode, 201, JSON.stringify(partial.json()))
    assert.deepEqual(partial.json().data.animal, { ...animal, name: animal.id, group: null, weight: 0 })
  })

  it("refuses userId and animal fields that name another user or animal than the path's, with the field", async () => {
    const body = { classificationType: 'heat', results: [{ timestamp: '2026-03-01T00:00:00Z', probability: 0.5 }] }
    const otherUser = (await createUser(ctx)).uid
    assertInvalid(await post({ ...body, userId: otherUser }), ['userId'])
    assertInvalid(await post({ ...body, animal: { userId: otherUser } }), ['animal.userId'])
    assertInvalid(await post({ ...body, animal: { mac: OTHER_MAC } }), ['animal.mac'])
    assertInvalid(await post({ ...body, animal: { id: '1' } }), ['animal.id'])
    assertInvalid(await post({ ...body, animal: { weight: -1 } }), ['animal.weight'])
    assertInvalid(await post({ ...body, animal: { weight: '200' } }), ['animal.weight'])
    assertInvalid(await post({ ...body, animal: { name: '' } }), ['animal.name'])
    assertInvalid(await post({ ...body, animal: { colour: 'pink' } }), ['animal.colour'])
    assertInvalid(await post({ ...body, animal: 'AA:BB:CC:00:10:01' }), ['animal'])
  })

  it('accepts probabilities 0 and 1 and up to the most results, and refuses every bad value with its field', async () => {
    const ok = (results: unknown[]) => ({ classificationType: 'birth', results })
    const at = (probability: unknown, timestamp: unknown = '2026-03-01T00:00:00Z') => ({ timestamp, probability })
    assert.equal((await post(ok([at(0), at(1)]))).statusCode, 201)
    assert.equal((await post(ok(Array.from({ length: RESULTS_MAX }, () => at(0.5))))).statusCode, 201)
    assertInvalid(await post(ok(Array.from({ length: RESULTS_MAX + 1 }, () => at(0.5)))), ['results'])
    assertInvalid(await post(ok([])), ['results'])
    assertInvalid(await post(ok([at(1.0001)])), ['results[0].probability'])
    assertInvalid(await post(ok([at(-0.1)])), ['results[0].probability'])
    assertInvalid(await post(ok([at('0.5')])), ['results[0].probability'])
    assertInvalid(await post(ok([at(null)])), ['results[0].probability'])
    assertInvalid(await post(ok([at(0.5, '2026-03-01')])), ['results[0].timestamp'])
    assertInvalid(await post(ok([at(0.5, '2026-02-30T10:00:00Z')])), ['results[0].timestamp'])
    assertInvalid(await post(ok([at(0.5, '1999-12-31T23:59:59Z')])), ['results[0].timestamp'])
    assertInvalid(await post(ok([at(0.5, '2100-01-01T00:00:00Z')])), ['results[0].timestamp'])
    assertInvalid(await post(ok([{ probability: 0.5 }])), ['results[0].timestamp'])
    assertInvalid(await post(ok([{ ...at(0.5), extra: 1 }])), ['results[0].extra'])
    assertInvalid(await post({ classificationType: 'fever', results: [at(0.5)] }), ['classificationType'])
    assertInvalid(await post({ classificationType: 'Heat', results: [at(0.5)] }), ['classificationType'])
    assertInvalid(await post({ results: [at(0.5)] }), ['classificationType'])
    assertInvalid(await post({ classificationType: 'heat' }), ['results'])
    assertInvalid(await post({ classificationType: 'heat', results: at(0.5) }), ['results'])
    assertInvalid(await post({ ...ok([at(0.5)]), userId: 'not a uid' }), ['userId'])
    assertInvalid(await post({ ...ok([at(0.5)]), timestamp: '2026-03-10T12:16:00Z' }), ['timestamp'])
    assertInvalid(await post({ ...ok([at(0.5)]), timestamp: 'yesterday' }), ['timestamp'])
    assertInvalid(await post([]), ['(root)'])
  })

  it('refuses a number beyond double precision (1e309) as a 400, not a 500', async () => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: base(),
      headers: { ...owner, 'content-type': 'application/json' },
      payload: '{"classificationType":"heat","results":[{"timestamp":"2026-03-01T00:00:00Z","probability":1e309}]}',
    })
    assertError(res, 400, 'Validation failed', 'results[0].probability')
  })

  it("answers 404 for a MAC that names none of the user's animals, whatever its form and body", async () => {
    const body = { classificationType: 'heat', results: [{ timestamp: '2026-03-01T00:00:00Z', probability: 0.5 }] }
    for (const mac of ['AA:BB:CC:DD:EE:99', 'not-a-mac', '12345', 'aa-bb-cc-00-10-01', 'x'.repeat(200)]) {
      assertError(await post(body, owner, `/api/v1/users/${uid}/animals/${mac}/predictions`), 404, 'Animal not found')
      assertError(
        await post({ classificationType: 'fever' }, owner, `/api/v1/users/${uid}/animals/${mac}/predictions`),
        404,
        'Animal not found',
      )
      assertError(await get(`/api/v1/users/${uid}/animals/${mac}/predictions`), 404, 'Animal not found')
      assertError(await get(`/api/v1/users/${uid}/animals/${mac}/predictions/recent`), 404, 'Animal not found')
      assertError(await get(`/api/v1/users/${uid}/animals/${mac}/predictions/birth`), 404, 'Animal not found')
      assertError(
        await get(`/api/v1/users/${uid}/animals/${mac}/predictions/range?startDate=2026-01-01&endDate=2026-12-31`),
        404,
        'Animal not found',
      )
    }
  })

  it('takes the MAC in either case', async () => {
    assert.equal((await get(`/api/v1/users/${uid}/animals/${MAC.toLowerCase()}/predictions?limit=1`)).statusCode, 200)
  })

  it('is for the owner and integrators with the write permission; readers and other users get 403', async () => {
    const body = { classificationType: 'heat', results: [{ timestamp: '2026-03-01T00:00:00Z', probability: 0.5 }] }
    assertError(await post(body, reader), 403, 'Integrator does not have write permission')
    assertError(await post(body, stranger), 403, "You do not have access to this user's data")
    assertError(await post(body, {}), 401, 'Authorization header is required')
    assert.equal((await get(base(), reader)).statusCode, 200)
    assertError(await get(base(), stranger), 403, "You do not have access to this user's data")
  })

  it('honours Idempotency-Key: a retry answers the first response and stores nothing; another body is a 422', async () => {
    const body = {
      timestamp: '2026-03-09T09:00:00Z',
      classificationType: 'birth',
      results: [{ timestamp: '2026-03-09T09:00:00Z', probability: 0.77 }],
    }
    const headers = { ...owner, 'idempotency-key': 'model-run-2026-03-09T09' }
    const first = await post(body, headers)
    assert.equal(first.statusCode, 201)
    const again = await post(body, headers)
    assert.equal(again.statusCode, 201)
    assert.equal(again.headers['idempotent-replayed'], 'true')
    assert.equal(again.headers.location, first.headers.location)
    assert.deepEqual(again.json().data, first.json().data)
    const stored = await get(`${base()}/range?startDate=2026-03-09T09:00:00Z&endDate=2026-03-09T09:00:00Z`)
    assert.equal(stored.json().data.length, 1, 'stored once')
    assertError(
      await post({ ...body, results: [{ timestamp: '2026-03-09T09:00:00Z', probability: 0.78 }] }, headers),
      422,
      'This Idempotency-Key was already used with a different request: use a new key for a new request',
    )
  })
})

describe('GET /users/<user_id>/animals/<animal_mac>/predictions', () => {
  const inMarch = '?startDate=2026-03-01&endDate=2026-03-06'

  it('lists newest first with the exact pagination object; items are AIPredictions of this animal only', async () => {
    const res = await get(`${base()}${inMarch}`)
    assert.deepEqual(timestamps(res), [...T].reverse())
    assert.deepEqual(res.json().pagination, { page: 1, limit: 10, total: 5, totalPages: 1 })
    const item = res.json().data[2]
    assert.deepEqual(Object.keys(item).sort(), ['animal', 'classificationType', 'results', 'timestamp', 'userId'])
    assert.deepEqual(item.results, [
      { timestamp: '2026-03-03T10:00:00.000Z', probability: 0.4 },
      { timestamp: '2026-03-03T14:00:00.000Z', probability: 0.9 },
    ])
    assert.ok((res.json().data as { animal: { mac: string } }[]).every((p) => p.animal.mac === MAC))
  })

  it('pages with page and limit (1-100, default 10)', async () => {
    const second = await get(`${base()}${inMarch}&limit=2&page=2`)
    assert.deepEqual(timestamps(second), [T[2], T[1]])
    assert.deepEqual(second.json().pagination, { page: 2, limit: 2, total: 5, totalPages: 3 })
    assert.equal((await get(`${base()}?limit=100`)).statusCode, 200)
    assert.equal((await get(`${base()}?limit=1`)).json().data.length, 1)
    for (const bad of [
      'limit=0',
      'limit=101',
      'limit=-1',
      'limit=1.5',
      'limit=ten',
      'page=0',
      'page=1000001',
      'page=x',
    ]) {
      assertInvalid(await get(`${base()}?${bad}`), [`query:${bad.split('=')[0]}`])
    }
  })

  it('filters by classificationType; anything else is a 400', async () => {
    assert.deepEqual(timestamps(await get(`${base()}${inMarch}&classificationType=birth`)), [T[4], T[2], T[0]])
    assert.deepEqual(timestamps(await get(`${base()}${inMarch}&classificationType=lameness`)), [T[3]])
    for (const bad of ['fever', 'BIRTH', ''])
      assertInvalid(await get(`${base()}?classificationType=${bad}`), ['query:classificationType'])
  })

  it('filters by when predicted: startDate and endDate inclusive, a bare endDate its whole UTC day, offsets honoured', async () => {
    assert.deepEqual(timestamps(await get(`${base()}?startDate=2026-03-02&endDate=2026-03-04`)), [T[3], T[2], T[1]])
    assert.deepEqual(timestamps(await get(`${base()}?startDate=2026-03-05&endDate=2026-03-05`)), [T[4]])
    assert.deepEqual(timestamps(await get(`${base()}?startDate=2026-03-02T10:00:00Z&endDate=2026-03-03T10:00:00Z`)), [
      T[2],
      T[1],
    ])
    assert.deepEqual(timestamps(await get(`${base()}?startDate=2026-03-03T12:00:00%2B02:00&endDate=2026-03-04`)), [
      T[3],
      T[2],
    ])
    assert.deepEqual(timestamps(await get(`${base()}?endDate=2026-03-01`)), [T[0]])
    assert.deepEqual(timestamps(await get(`${base()}?startDate=2026-03-05T23:59:59.001Z&endDate=2026-03-07`)), [])
  })

  it('refuses startDate after endDate, dates that do not exist and values that are not dates', async () => {
    assertInvalid(await get(`${base()}?startDate=2026-03-05&endDate=2026-03-01`), ['query:startDate'])
    assertInvalid(await get(`${base()}?startDate=2026-02-30`), ['query:startDate'])
    assertInvalid(await get(`${base()}?endDate=2026-13-01`), ['query:endDate'])
    assertInvalid(await get(`${base()}?startDate=2026-03-01T24:00:00Z`), ['query:startDate'])
    assertInvalid(await get(`${base()}?startDate=yesterday`), ['query:startDate'])
    assertInvalid(await get(`${base()}?endDate=1767225600000`), ['query:endDate'])
  })

  it("filters by probability on each prediction's highest result, 0.0-1.0", async () => {
    assert.deepEqual(timestamps(await get(`${base()}${inMarch}&minProbability=0.5`)), [T[4], T[2], T[1]])
    assert.deepEqual(timestamps(await get(`${base()}${inMarch}&maxProbability=0.5`)), [T[4], T[3], T[0]])
    assert.deepEqual(timestamps(await get(`${base()}${inMarch}&minProbability=0.5&maxProbability=0.7`)), [T[4], T[1]])
    assert.equal((await get(`${base()}${inMarch}&minProbability=0&maxProbability=1`)).json().pagination.total, 5)
    assert.equal((await get(`${base()}${inMarch}&minProbability=0.9&maxProbability=0.9`)).json().pagination.total, 1)
    for (const bad of ['1.01', '-0.1', '1e309', 'NaN', 'high', '']) {
      assertInvalid(await get(`${base()}?minProbability=${bad}`), ['query:minProbability'])
      assertInvalid(await get(`${base()}?maxProbability=${bad}`), ['query:maxProbability'])
    }
    assertInvalid(await get(`${base()}?minProbability=0.8&maxProbability=0.2`), ['query:minProbability'])
  })

  it('refuses parameters it does not take', async () => {
    assertInvalid(await get(`${base()}?sortBy=timestamp`), ['query:sortBy'])
    assertInvalid(await get(`${base()}?classification=heat`), ['query:classification'])
  })
})

describe('GET .../predictions/<classification_type>', () => {
  it("lists one class, with the list's parameters", async () => {
    assert.deepEqual(timestamps(await get(`${base()}/birth?startDate=2026-03-01&endDate=2026-03-06`)), [
      T[4],
      T[2],
      T[0],
    ])
    assert.deepEqual(timestamps(await get(`${base()}/heat?startDate=2026-03-01&endDate=2026-03-06`)), [T[1]])
    const paged = await get(`${base()}/birth?startDate=2026-03-01&endDate=2026-03-06&limit=1&page=2&minProbability=0.3`)
    assert.deepEqual(timestamps(paged), [T[2]])
    assert.deepEqual(paged.json().pagination, { page: 2, limit: 1, total: 2, totalPages: 2 })
  })

  it('answers 400 for anything but heat, birth or lameness; recent and range are their own routes', async () => {
    for (const bad of ['fever', 'Heat', 'births', '123', 'x'.repeat(150)])
      assertInvalid(await get(`${base()}/${bad}`), ['params:classificationType'])
    assert.equal((await get(`${base()}/recent`)).statusCode, 200)
    assertInvalid(await get(`${base()}/range`), ['query:startDate', 'query:endDate'])
    assertInvalid(await get(`${base()}/heat?classificationType=birth`), ['query:classificationType'])
  })
})

describe('GET .../predictions/recent', () => {
  it('gives the newest `limit` predictions (default 10, 1-100), newest first, optionally of one class', async () => {
    const all = await get(`${base()}/recent`)
    assert.equal(all.json().data.length, 10)
    assert.equal(all.json().pagination, undefined)
    const times = timestamps(all)
    assert.deepEqual(times, [...times].sort().reverse())
    assert.ok(timestamps(await get(`${base()}/recent?classificationType=heat&limit=100`)).includes(T[1]!))
    const lameness = await get(`${base()}/recent?classificationType=lameness&limit=1`)
    assert.equal(lameness.json().data.length, 1)
    assert.equal(lameness.json().data[0].classificationType, 'lameness')
    for (const bad of ['limit=0', 'limit=101', 'limit=abc', 'classificationType=fever'])
      assertInvalid(await get(`${base()}/recent?${bad}`), [`query:${bad.split('=')[0]}`])
  })
})

describe('GET .../predictions/range', () => {
  it('needs both startDate and endDate; gives the predictions between them oldest first, optionally of one class', async () => {
    assert.deepEqual(timestamps(await get(`${base()}/range?startDate=2026-03-01&endDate=2026-03-05`)), [...T])
    assert.deepEqual(
      timestamps(await get(`${base()}/range?startDate=2026-03-01&endDate=2026-03-05&classificationType=birth`)),
      [T[0], T[2], T[4]],
    )
    assertInvalid(await get(`${base()}/range?startDate=2026-03-01`), ['query:endDate'])
    assertInvalid(await get(`${base()}/range?endDate=2026-03-01`), ['query:startDate'])
    assertInvalid(await get(`${base()}/range?startDate=2026-03-05&endDate=2026-03-01`), ['query:startDate'])
    assertInvalid(await get(`${base()}/range?startDate=2026-03-01&endDate=2026-03-32`), ['query:endDate'])
    assertInvalid(await get(`${base()}/range?startDate=2026-03-01&endDate=2026-03-05&classificationType=fever`), [
      'query:classificationType',
    ])
  })

  it(`answers at most ${RANGE_MAX} and says how many the range holds`, async () => {
    const animal = await insertAnimal(
      ctx.database.db,
      uid,
      { MAC: 'AA:BB:CC:00:10:03', Sex: 'female' },
      createIdSource(() => NOW),
    )
    const start = Date.UTC(2025, 0, 1)
    const rows = Array.from({ length: RANGE_MAX + 1 }, (_, i) => ({
      animalId: animal.id,
      classificationType: 'heat' as const,
      predictedAt: start + i * 3_600_000,
      results: [{ timestamp: new Date(start + i * 3_600_000).toISOString(), probability: 0.1 }],
      peakProbability: 0.1,
    }))
    assert.equal(await insertScoredPredictions(ctx.database.db, uid, rows), RANGE_MAX + 1)
    const res = await get(
      `/api/v1/users/${uid}/animals/AA:BB:CC:00:10:03/predictions/range?startDate=2025-01-01&endDate=2025-12-31`,
    )
    assert.equal(res.json().data.length, RANGE_MAX)
    assert.equal(res.json().data[0].timestamp, new Date(start).toISOString())
    assert.equal(
      res.json().message,
      `The first ${RANGE_MAX} of ${RANGE_MAX + 1} predictions in the range; narrow it for the rest`,
    )
  })
})

describe('predictions and their animal', () => {
  it('follow the animal to a new MAC, show its current registry fields, and go when it is deleted', async () => {
    const ids = createIdSource(() => NOW)
    const animal = await insertAnimal(
      ctx.database.db,
      uid,
      { MAC: 'AA:BB:CC:00:10:04', Sex: 'female', Group: 'Pen 1' },
      ids,
    )
    const body = { classificationType: 'lameness', results: [{ timestamp: '2026-03-01T00:00:00Z', probability: 0.6 }] }
    assert.equal(
      (await post(body, owner, `/api/v1/users/${uid}/animals/AA:BB:CC:00:10:04/predictions`)).statusCode,
      201,
    )
    const patch = await ctx.app.inject({
      method: 'PATCH',
      url: `/api/v1/users/${uid}/animals/${animal.id}`,
      headers: owner,
      payload: { MAC: 'AA:BB:CC:00:10:05', Group: 'Hospital pen', WatchdogWeight: 180 },
    })
    assert.equal(patch.statusCode, 200)
    const moved = (await get(`/api/v1/users/${uid}/animals/AA:BB:CC:00:10:05/predictions`)).json().data
    assert.equal(moved.length, 1)
    assert.deepEqual(moved[0].animal, {
      id: String(animal.id),
      mac: 'AA:BB:CC:00:10:05',
      name: String(animal.id),
      group: 'Hospital pen',
      weight: 180,
      userId: uid,
    })
    assertError(await get(`/api/v1/users/${uid}/animals/AA:BB:CC:00:10:04/predictions`), 404, 'Animal not found')
    assert.equal(
      (await ctx.app.inject({ method: 'DELETE', url: `/api/v1/users/${uid}/animals/${animal.id}`, headers: owner }))
        .statusCode,
      200,
    )
    const left = await ctx.database.db
      .selectFrom('predictions')
      .select('id')
      .where('uid', '=', uid)
      .where('animal_id', '=', animal.id)
      .execute()
    assert.deepEqual(left, [])
  })

  it('documents in the OpenAPI document where animal.name and animal.weight come from', async () => {
    const doc = ctx.app.swagger() as { components: { schemas: Record<string, any> } }
    const animal = doc.components.schemas.AIPrediction.properties.animal
    assert.match(animal.properties.name.description, /ID/)
    assert.match(animal.properties.weight.description, /WatchdogWeight/)
  })
})
