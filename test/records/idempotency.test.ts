// The Idempotency-Key header on creates (plugins/idempotency.ts), over HTTP: a retry with the same key and
// body answers the first response again and creates nothing; the same key with another request is a 422,
// one still in flight a 409; keys belong to the caller and the account; failures and malformed keys keep
// nothing; a key older than 24 hours runs afresh. The clock is manual so that expiry needs no waiting.
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import { after, before, describe, it } from 'node:test'
import { createTestApp, type TestContext } from '../support/app.ts'
import { assertError, assertInvalid } from '../support/assertions.ts'
import { bearer, createIntegrator, integratorToken, manualClock, userToken } from '../support/fixtures.ts'
import { canonicalJson } from '../../src/plugins/idempotency.ts'
import { link } from '../../src/modules/integrators/integrators.repository.ts'
import {
  animalBodies,
  nextMac,
  recordsFarm,
  userBodies,
  type Body,
  type Headers,
  type RecordsFarm,
  type Res,
} from './records-farm.ts'

const clock = manualClock(Date.UTC(2026, 2, 1, 6, 0, 0))
let ctx: TestContext
let f: RecordsFarm
let mac: string
/** The owner's token, renewed after the clock jumps past its expiry. */
let owner: Headers

before(async () => {
  ctx = await createTestApp({ clock: () => clock.now })
  f = await recordsFarm(ctx)
  owner = f.headers
  mac = (await f.animal()).MAC
})
after(() => ctx.close())

const IN_PROGRESS = 'A request with this Idempotency-Key is still in progress: retry once it has finished'
const OTHER_REQUEST = 'This Idempotency-Key was already used with a different request: use a new key for a new request'

let keyCounter = 0
const newKey = () => `key-${++keyCounter}-${clock.now}`

function post(path: string, body: Body, key: string, headers: Headers = owner, farm: RecordsFarm = f): Promise<Res> {
  return farm.call('POST', path, body, { ...headers, 'idempotency-key': key })
}

const total = async (path: string) => (await f.get(path, owner)).pagination.total as number

/** The response was answered afresh: a 201 without the replay header. */
function assertFresh(res: Res) {
  assert.equal(res.statusCode, 201, res.body)
  assert.equal(res.headers['idempotent-replayed'], undefined)
}

/** The response is the first one again, byte for byte, with its Location and the replay header. */
function assertReplayOf(res: Res, first: Res) {
  assert.equal(res.statusCode, first.statusCode, res.body)
  assert.equal(res.headers['idempotent-replayed'], 'true')
  assert.equal(res.body, first.body)
  assert.equal(res.headers.location, first.headers.location)
  assert.match(String(res.headers['content-type']), /^application\/json/)
}

describe('the same key with the same request', () => {
  it('POST /animals: answers the first response again (status, body, Location) and creates nothing new', async () => {
    const key = newKey()
    const before = await total('/animals')
    const body = { MAC: nextMac(), Sex: 'female', Group: 'Pen 1' }
    const first = await post('/animals', body, key)
    assertFresh(first)
    const again = await post('/animals', { Group: 'Pen 1', Sex: 'female', MAC: body.MAC }, key)
    assertReplayOf(again, first)
    assert.equal(again.json().data.ID, first.json().data.ID)
    assertReplayOf(await post('/animals', body, key), first)
    assert.equal(await total('/animals'), before + 1)
  })

  it('record creates at user and animal level: the same record, created once', async () => {
    for (const [path, body, list] of [
      ['/treatments', userBodies.treatments(mac, f.user.uid), '/treatments'],
      ['/births', userBodies.births(mac, f.user.uid), '/births'],
      [`/animals/${mac}/births`, animalBodies.births, `/animals/${mac}/births`],
      [`/animals/${mac}/general-events`, animalBodies['general-events'], `/animals/${mac}/general-events`],
    ] as const) {
      const key = newKey()
      const before = await total(list)
      const first = await post(path, body, key)
      assertFresh(first)
      assertReplayOf(await post(path, body, key), first)
      assert.equal(await total(list), before + 1, path)
      assert.deepEqual((await f.get(`${list}/${first.json().data.ID}`, owner)).data, first.json().data)
    }
  })

  it('concurrent requests with one key create one record: the others replay it or are told it is in progress (409)', async () => {
    const key = newKey()
    const before = await total('/treatments')
    const body = userBodies.treatments(mac, f.user.uid)
    const results = await Promise.all(Array.from({ length: 5 }, () => post('/treatments', body, key)))
    const fresh = results.filter((r) => r.statusCode === 201 && r.headers['idempotent-replayed'] === undefined)
    assert.equal(
      fresh.length,
      1,
      results.map((r) => `${r.statusCode} ${String(r.headers['idempotent-replayed'])}`).join(', '),
    )
    for (const res of results) {
      if (res === fresh[0]) continue
      if (res.statusCode === 409) assertError(res, 409, IN_PROGRESS)
      else assertReplayOf(res, fresh[0]!)
    }
    assert.equal(await total('/treatments'), before + 1)
  })
})

describe('the same key with another request', () => {
  it('is a 422 and creates nothing; the key still replays its first response', async () => {
    const key = newKey()
    const body = userBodies.treatments(mac, f.user.uid)
    const first = await post('/treatments', body, key)
    assertFresh(first)
    const before = await total('/treatments')
    assertError(await post('/treatments', { ...body, Medicine: 'Penicillin' }, key), 422, OTHER_REQUEST)
    assertError(await post(`/animals/${mac}/births`, animalBodies.births, key), 422, OTHER_REQUEST)
    assertError(await post('/animals', { MAC: nextMac(), Sex: 'male' }, key), 422, OTHER_REQUEST)
    assert.equal(await total('/treatments'), before)
    assertReplayOf(await post('/treatments', body, key), first)
  })
})

describe('a key still in flight', () => {
  it('is a 409 with Retry-After for the same request, a 422 for another; once its lock runs out a retry runs afresh', async () => {
    // Another process holds the key: it claimed it with this request's fingerprint and has not answered yet.
    const key = newKey()
    const body = userBodies.treatments(mac, f.user.uid)
    const url = `${f.base}/treatments`
    const fingerprint = createHash('sha256')
      .update(`POST ${url}\n${canonicalJson(body)}`)
      .digest('base64url')
    await ctx.database.db
      .insertInto('idempotency_keys')
      .values({
        uid: f.user.uid,
        caller: `user:${f.user.uid}`,
        key,
        fingerprint,
        owner: 'another-process',
        status_code: null,
        body: null,
        location: null,
        created_at: clock.now,
        locked_until: clock.now + 60_000,
      })
      .execute()
    const before = await total('/treatments')

    const busy = await post('/treatments', { ...body }, key)
    assertError(busy, 409, IN_PROGRESS)
    assert.equal(busy.headers['retry-after'], '1')
    assertError(await post('/treatments', { ...body, Comment: 'Another' }, key), 422, OTHER_REQUEST)
    assert.equal(await total('/treatments'), before)

    // The holder died: its lock expires and the next retry takes the key over.
    await ctx.database.db
      .updateTable('idempotency_keys')
      .set({ locked_until: clock.now - 1 })
      .where('key', '=', key)
      .execute()
    const retry = await post('/treatments', body, key)
    assertFresh(retry)
    assertReplayOf(await post('/treatments', body, key), retry)
    assert.equal(await total('/treatments'), before + 1)
  })
})

describe('keys are scoped to the caller and the account', () => {
  it("the same key from another caller creates its own record; an integrator's key on another account is another key", async () => {
    const integrator = await createIntegrator(ctx, { tier: 'pro', canWrite: true })
    const second = await recordsFarm(ctx)
    const secondMac = (await second.animal()).MAC
    for (const uid of [f.user.uid, second.user.uid]) await link(ctx.database.db, uid, integrator.uid, 'operator')
    const integratorHeaders = bearer((await integratorToken(ctx, integrator.uid)).accessToken)

    const key = newKey()
    const body = userBodies.treatments(mac, f.user.uid)
    const byOwner = await post('/treatments', body, key)
    assertFresh(byOwner)
    const byIntegrator = await post('/treatments', body, key, integratorHeaders)
    assertFresh(byIntegrator)
    assert.notEqual(byIntegrator.json().data.ID, byOwner.json().data.ID)
    assertReplayOf(await post('/treatments', body, key, integratorHeaders), byIntegrator)
    assertReplayOf(await post('/treatments', body, key), byOwner)

    const elsewhere = await post(
      '/treatments',
      userBodies.treatments(secondMac, second.user.uid),
      key,
      integratorHeaders,
      second,
    )
    assertFresh(elsewhere)
    const elsewhereByOwner = await post(
      '/treatments',
      userBodies.treatments(secondMac, second.user.uid),
      key,
      second.headers,
      second,
    )
    assertFresh(elsewhereByOwner)
  })
})

describe('a request that fails keeps no key', () => {
  it('a refused body (400), whether by its schema or by its MAC, lets a corrected retry with the same key succeed', async () => {
    const body = userBodies.treatments(mac, f.user.uid)
    const schemaKey = newKey()
    assertInvalid(await post('/treatments', { ...body, Medicine: '' }, schemaKey), ['Medicine'])
    assertFresh(await post('/treatments', body, schemaKey))

    const macKey = newKey()
    const unknownMac = await post('/treatments', { ...body, Mac: 'AA:BB:CC:FF:FF:FF' }, macKey)
    assertInvalid(unknownMac, ['Mac'])
    const refusedAgain = await post('/treatments', { ...body, Mac: 'AA:BB:CC:FF:FF:FF' }, macKey)
    assertInvalid(refusedAgain, ['Mac'])
    assert.equal(refusedAgain.headers['idempotent-replayed'], undefined, 'an error is not replayed')
    const corrected = await post('/treatments', body, macKey)
    assertFresh(corrected)
    assertReplayOf(await post('/treatments', body, macKey), corrected)

    const animalKey = newKey()
    assertInvalid(
      await post(`/animals/${mac}/weanings`, { ...animalBodies.weanings, MAC: 'AA:BB:CC:FF:FF:FF' }, animalKey),
      ['MAC'],
    )
    assertFresh(await post(`/animals/${mac}/weanings`, animalBodies.weanings, animalKey))
  })

  it('a conflict (409, a MAC in use) lets a retry with the same key run afresh', async () => {
    const key = newKey()
    assertError(
      await post('/animals', { MAC: mac, Sex: 'female' }, key),
      409,
      `An animal with MAC ${mac} already exists`,
    )
    assertFresh(await post('/animals', { MAC: nextMac(), Sex: 'female' }, key))
  })
})

describe('malformed keys', () => {
  it('an empty key, one over 255 characters or one with a space is a 400 and creates nothing; 255 printable characters are fine', async () => {
    const animals = await total('/animals')
    const treatments = await total('/treatments')
    for (const key of ['', 'k'.repeat(256), 'has space']) {
      assertInvalid(await post('/animals', { MAC: nextMac(), Sex: 'female' }, key), ['headers:idempotency-key'])
      assertInvalid(await post('/treatments', userBodies.treatments(mac, f.user.uid), key), ['headers:idempotency-key'])
    }
    assert.equal(await total('/animals'), animals)
    assert.equal(await total('/treatments'), treatments)
    const longest = `${'k'.repeat(250)}-${String(++keyCounter).padStart(4, '0')}`
    assert.equal(longest.length, 255)
    const first = await post('/treatments', userBodies.treatments(mac, f.user.uid), longest)
    assertFresh(first)
    assertReplayOf(await post('/treatments', userBodies.treatments(mac, f.user.uid), longest), first)
  })
})

describe('expiry', () => {
  it('a key is replayed for 24 hours; after that the same request runs afresh', async () => {
    const key = newKey()
    const body = userBodies.treatments(mac, f.user.uid)
    const first = await post('/treatments', body, key)
    assertFresh(first)
    const before = await total('/treatments')

    clock.advance(24 * 3600 - 60)
    owner = bearer((await userToken(ctx, f.user.email)).accessToken)
    assertReplayOf(await post('/treatments', body, key), first)
    assert.equal(await total('/treatments'), before)

    clock.advance(61)
    owner = bearer((await userToken(ctx, f.user.email)).accessToken)
    const afresh = await post('/treatments', body, key)
    assertFresh(afresh)
    assert.notEqual(afresh.json().data.ID, first.json().data.ID)
    assert.equal(await total('/treatments'), before + 1)
    assertReplayOf(await post('/treatments', body, key), afresh)
  })
})

describe('an answer large enough to be compressed', () => {
  /** A treatment whose 201 answer is over COMPRESSION_MIN_BYTES (4,096 B): four texts of 1,500 characters. */
  const longTreatment = () => ({
    ...userBodies.treatments(mac, f.user.uid),
    Medicine: `Amoxicillin ${'m'.repeat(1488)}`,
    Diagnose: `Respiratory infection ${'d'.repeat(1478)}`,
    CustomName: `Dr. Hansen ${'c'.repeat(1489)}`,
    Comment: `First course ${'t'.repeat(1487)}`,
  })
  /** A prediction with 200 hourly results. */
  const bigPrediction = () => ({
    timestamp: '2026-03-01T06:00:00.000Z',
    classificationType: 'heat',
    results: Array.from({ length: 200 }, (_, i) => ({
      timestamp: new Date(Date.UTC(2026, 2, 1, 6) + i * 3_600_000).toISOString(),
      probability: (i % 100) / 100,
    })),
  })
  const decoded = (res: Res & { rawPayload?: Buffer }) => {
    const raw = (res as unknown as { rawPayload: Buffer }).rawPayload
    const encoding = res.headers['content-encoding']
    if (encoding === 'gzip') return gunzipSync(raw).toString()
    if (encoding === 'br') return brotliDecompressSync(raw).toString()
    return raw.toString()
  }

  for (const encoding of ['gzip', 'br', 'identity'] as const) {
    it(`Accept-Encoding: ${encoding}: a retry answers the first 201 again (compressed as asked) and creates one record`, async () => {
      for (const [path, body] of [
        ['/treatments', longTreatment()],
        [`/animals/${mac}/predictions`, bigPrediction()],
      ] as const) {
        const list = path === '/treatments' ? '/treatments' : `/animals/${mac}/predictions`
        const before = await total(list)
        const key = newKey()
        const headers = { ...owner, 'accept-encoding': encoding }
        const first = await post(path, body, key, headers)
        assert.equal(first.statusCode, 201, path)
        assert.equal(first.headers['content-encoding'], encoding === 'identity' ? undefined : encoding, path)
        const firstBody = decoded(first)
        assert.ok(firstBody.length > 4096, `${path}: ${firstBody.length} B`)
        for (let retry = 0; retry < 2; retry++) {
          const again = await post(path, body, key, headers)
          assert.equal(again.statusCode, 201, path)
          assert.equal(again.headers['idempotent-replayed'], 'true', path)
          assert.equal(again.headers['content-encoding'], first.headers['content-encoding'], path)
          assert.equal(decoded(again), firstBody, path)
          assert.equal(again.headers.location, first.headers.location, path)
        }
        assert.equal(await total(list), before + 1, `${path}: records for one key`)
      }
    })
  }
})
