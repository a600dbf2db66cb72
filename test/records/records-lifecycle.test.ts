// The life of a farm record over HTTP: PATCH (archive, correct, clear, move to another animal), DELETE,
// who may do what (owner, integrators by permission, strangers), records following their animal through
// a MAC change and through deletes of the animal and the user, and unique ids under concurrent creates.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { sql } from 'kysely'
import { createTestApp, type TestContext } from '../support/app.ts'
import { assertError, assertInvalid } from '../support/assertions.ts'
import { bearer, createIntegrator, integratorToken } from '../support/fixtures.ts'
import {
  ANIMAL_LEVEL,
  animalBodies,
  idsOf,
  nextMac,
  recordsFarm,
  userBodies,
  type Body,
  type RecordsFarm,
} from './records-farm.ts'

let ctx: TestContext
let f: RecordsFarm
before(async () => {
  ctx = await createTestApp()
  f = await recordsFarm(ctx)
})
after(() => ctx.close())

const RECORD_TABLES = [
  'treatments',
  'births',
  'inseminations',
  'general_events',
  'pregnancy_checks',
  'return_to_estrus',
  'weanings',
  'movements',
]

/** Rows of each record table that belong to the user (or to one of the user's animals). */
async function storedCounts(uid: string, animalId?: string): Promise<Record<string, number>> {
  const counts: Record<string, number> = {}
  for (const table of RECORD_TABLES) {
    const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM ${sql.table(table)} WHERE uid = ${uid}
      ${animalId === undefined ? sql`` : sql`AND animal_id = ${Number(animalId)}`}`.execute(ctx.database.db)
    counts[table] = rows[0]!.n
  }
  return counts
}

const treatment = (mac: string, changes: Body = {}) => ({ ...userBodies.treatments(mac, f.user.uid), ...changes })
const birth = (mac: string, changes: Body = {}) => ({ ...userBodies.births(mac, f.user.uid), ...changes })

describe('PATCH a record', () => {
  let a: string, b: string
  before(async () => {
    a = (await f.animal()).MAC
    b = (await f.animal()).MAC
  })

  it('archives and unarchives it, moving it between .../archived and .../active', async () => {
    const t = await f.create('/treatments', treatment(a))
    const archived = await f.call('PATCH', `/treatments/${t.ID}`, { Archived: true })
    assert.equal(archived.statusCode, 200, archived.body)
    assert.equal(archived.json().message, 'Treatment updated')
    assert.deepEqual(archived.json().data, { ...t, Archived: true })
    assert.ok(idsOf(await f.get('/treatments/archived?limit=100')).includes(t.ID))
    assert.ok(!idsOf(await f.get('/treatments/active?limit=100')).includes(t.ID))
    assert.equal((await f.call('PATCH', `/treatments/${t.ID}`, { Archived: false })).json().data.Archived, false)
    assert.ok(idsOf(await f.get('/treatments/active?limit=100')).includes(t.ID))

    const event = await f.create(`/animals/${a}/general-events`, animalBodies['general-events'])
    const res = await f.call('PATCH', `/animals/${a.toLowerCase()}/general-events/${event.ID}`, { Archived: true })
    assert.equal(res.statusCode, 200, res.body)
    assert.deepEqual(res.json().data, { ...event, Archived: true })
  })

  it('corrects the given fields and keeps the rest, ID and t included', async () => {
    const t = await f.create('/treatments', treatment(a))
    const res = await f.call('PATCH', `/treatments/${t.ID}`, { Medicine: 'Penicillin', TreatmentCount: 2, Dosis: 12 })
    assert.equal(res.statusCode, 200, res.body)
    assert.deepEqual(res.json().data, { ...t, Medicine: 'Penicillin', TreatmentCount: 2, Dosis: 12 })
    assert.deepEqual((await f.get(`/treatments/${t.ID}`)).data, res.json().data)
    for (const segment of ANIMAL_LEVEL) {
      const record = await f.create(`/animals/${a}/${segment}`, animalBodies[segment])
      const change = { Archived: true }
      const patched = await f.call('PATCH', `/animals/${a}/${segment}/${record.ID}`, change)
      assert.equal(patched.statusCode, 200, `${segment}: ${patched.body}`)
      assert.deepEqual(patched.json().data, { ...record, ...change })
    }
  })

  it('clears optional fields with null', async () => {
    const t = await f.create('/treatments', treatment(a, { Dosis: 10, Group: 'Pen 4', Validated: true }))
    const cleared = (await f.call('PATCH', `/treatments/${t.ID}`, { Dosis: null, Group: null, Validated: null })).json()
      .data
    assert.deepEqual(cleared, withoutFields(t, ['Dosis', 'Group', 'Validated']))
    const bi = await f.create('/births', birth(a, { Complications: 'Retained piglet', Parity: 3 }))
    const res = await f.call('PATCH', `/births/${bi.ID}`, {
      Complications: null,
      StartTime: null,
      Comment: null,
      Parity: null,
    })
    assert.equal(res.statusCode, 200, res.body)
    const clearedBirth = res.json().data
    assert.equal(clearedBirth.Complications, null, 'Complications is shown as null')
    for (const k of ['StartTime', 'Comment', 'Parity']) assert.equal(k in clearedBirth, false, k)
    const check = await f.create(`/animals/${a}/pregnancy-checks`, {
      ...animalBodies['pregnancy-checks'],
      notes: 'Clear image',
    })
    assert.equal(
      'notes' in (await f.call('PATCH', `/animals/${a}/pregnancy-checks/${check.ID}`, { notes: null })).json().data,
      false,
    )
  })

  it('refuses null for a required or defaulted field', async () => {
    const t = await f.create('/treatments', treatment(a))
    const bi = await f.create('/births', birth(a))
    const check = await f.create(`/animals/${a}/pregnancy-checks`, animalBodies['pregnancy-checks'])
    assertInvalid(await f.call('PATCH', `/treatments/${t.ID}`, { Medicine: null }), ['Medicine'])
    assertInvalid(await f.call('PATCH', `/treatments/${t.ID}`, { Mac: null }), ['Mac'])
    assertInvalid(await f.call('PATCH', `/births/${bi.ID}`, { Living: null }), ['Living'])
    assertInvalid(await f.call('PATCH', `/births/${bi.ID}`, { Archived: null }), ['Archived'])
    assertInvalid(await f.call('PATCH', `/animals/${a}/pregnancy-checks/${check.ID}`, { method: null }), ['method'])
    assert.deepEqual((await f.get(`/treatments/${t.ID}`)).data, t)
  })

  it('refuses an empty body, read-only fields (ID, t, Uid), unknown fields and bad values with 400', async () => {
    const t = await f.create('/treatments', treatment(a))
    const bi = await f.create('/births', birth(a))
    const event = await f.create(`/animals/${a}/general-events`, animalBodies['general-events'])
    assertInvalid(await f.call('PATCH', `/treatments/${t.ID}`, {}), ['(root)'])
    assertInvalid(await f.call('PATCH', `/treatments/${t.ID}`, { ID: '1' }), ['ID'])
    assertInvalid(await f.call('PATCH', `/treatments/${t.ID}`, { t: 1 }), ['t'])
    assertInvalid(await f.call('PATCH', `/treatments/${t.ID}`, { Uid: f.user.uid }), ['Uid'])
    assertInvalid(await f.call('PATCH', `/births/${bi.ID}`, { Uid: f.user.uid }), ['Uid'])
    assertInvalid(await f.call('PATCH', `/animals/${a}/general-events/${event.ID}`, { Uid: f.user.uid }), ['Uid'])
    assertInvalid(await f.call('PATCH', `/animals/${a}/births/${bi.ID}`, {}), ['(root)'])
    assertInvalid(await f.call('PATCH', `/treatments/${t.ID}`, { Color: 'red' }), ['Color'])
    assertInvalid(
      await f.call('PATCH', `/treatments/${t.ID}`, { TreatmentAmount: '3', Medicine: '', TreatmentInterval: -1 }),
      ['TreatmentAmount', 'Medicine', 'TreatmentInterval'],
    )
    assertInvalid(await f.call('PATCH', `/animals/${a}/general-events/${event.ID}`, { Diagnose: 'Fever' }), [
      'Diagnose',
    ])
    assert.deepEqual((await f.get(`/treatments/${t.ID}`)).data, t)
  })

  it('moves the record to the animal of a new MAC (either case), at either level', async () => {
    const bi = await f.create('/births', birth(a))
    const moved = await f.call('PATCH', `/births/${bi.ID}`, { MAC: b.toLowerCase() })
    assert.equal(moved.statusCode, 200, moved.body)
    assert.deepEqual(moved.json().data, { ...bi, MAC: b })
    assert.deepEqual((await f.get(`/animals/${b}/births/${bi.ID}`)).data, { ...bi, MAC: b })
    assertError(await f.call('GET', `/animals/${a}/births/${bi.ID}`), 404, 'Birth not found')

    const weaning = await f.create(`/animals/${a}/weanings`, animalBodies.weanings)
    const res = await f.call('PATCH', `/animals/${a}/weanings/${weaning.ID}`, { MAC: b, countWeaned: 9 })
    assert.equal(res.statusCode, 200, res.body)
    assert.deepEqual(res.json().data, { ...weaning, MAC: b, countWeaned: 9 })
    assert.ok(idsOf(await f.get(`/animals/${b}/weanings`)).includes(weaning.ID))
    assert.ok(!idsOf(await f.get(`/animals/${a}/weanings`)).includes(weaning.ID))

    const t = await f.create('/treatments', treatment(a))
    assert.equal((await f.call('PATCH', `/treatments/${t.ID}`, { Mac: b })).json().data.Mac, b)
  })

  it("refuses a MAC that is not among the user's animals with 400 and leaves the record where it was", async () => {
    const stranger = (await (await recordsFarm(ctx)).animal()).MAC
    const t = await f.create('/treatments', treatment(a))
    const bi = await f.create('/births', birth(a))
    for (const mac of [stranger, 'AA:BB:CC:FF:FF:FF']) {
      assertInvalid(await f.call('PATCH', `/treatments/${t.ID}`, { Mac: mac }), ['Mac'])
      assertInvalid(await f.call('PATCH', `/births/${bi.ID}`, { MAC: mac }), ['MAC'])
      assertInvalid(await f.call('PATCH', `/animals/${a}/births/${bi.ID}`, { MAC: mac, Living: -1 }), ['MAC', 'Living'])
    }
    assertInvalid(await f.call('PATCH', `/births/${bi.ID}`, { MAC: 'AA-BB' }), ['MAC'])
    assert.deepEqual((await f.get(`/births/${bi.ID}`)).data, bi)
  })

  it("answers 404 for an unknown record, and for another animal's record under this animal's path", async () => {
    const bi = await f.create('/births', birth(a))
    for (const id of ['1600000000000', 'abc']) {
      assertError(await f.call('PATCH', `/treatments/${id}`, { Archived: true }), 404, 'Treatment not found')
      assertError(await f.call('PATCH', `/animals/${a}/births/${id}`, { Archived: true }), 404, 'Birth not found')
    }
    assertError(await f.call('PATCH', `/animals/${b}/births/${bi.ID}`, { Archived: true }), 404, 'Birth not found')
    assertError(await f.call('DELETE', `/animals/${b}/births/${bi.ID}`), 404, 'Birth not found')
    assertError(
      await f.call('PATCH', `/animals/AA:BB:CC:FF:FF:FF/births/${bi.ID}`, { Archived: true }),
      404,
      'Animal not found',
    )
    assert.deepEqual((await f.get(`/births/${bi.ID}`)).data, bi)
  })

  it('treatments: keeps TreatmentCount within TreatmentAmount', async () => {
    const t = await f.create('/treatments', treatment(a, { TreatmentAmount: 3, TreatmentCount: 1 }))
    assert.equal(
      (await f.call('PATCH', `/treatments/${t.ID}`, { TreatmentAmount: 5, TreatmentCount: 5 })).statusCode,
      200,
    )
    assertInvalid(await f.call('PATCH', `/treatments/${t.ID}`, { TreatmentAmount: 4, TreatmentCount: 6 }), [
      'TreatmentCount',
    ])
  })

  // Suspected bug: a PATCH that breaks TreatmentCount <= TreatmentAmount against the stored record hits the
  // table's CHECK constraint inside updateRecord before the rule is asked, and the error is not mapped (500).
  it('treatments: refuses a PATCH whose TreatmentCount would exceed the stored TreatmentAmount, or the reverse, with 400', async () => {
    const t = await f.create('/treatments', treatment(a, { TreatmentAmount: 3, TreatmentCount: 1 }))
    assertError(
      await f.call('PATCH', `/treatments/${t.ID}`, { TreatmentCount: 4 }),
      400,
      'Validation failed',
      'TreatmentCount',
    )
    assertError(
      await f.call('PATCH', `/treatments/${t.ID}`, { TreatmentAmount: 0 }),
      400,
      'Validation failed',
      'TreatmentCount',
    )
    assert.deepEqual((await f.get(`/treatments/${t.ID}`)).data, t)
  })
})

describe('DELETE a record', () => {
  it('deletes it for the owner, at either level; a second delete is 404', async () => {
    const a = (await f.animal()).MAC
    const t = await f.create('/treatments', treatment(a))
    const res = await f.call('DELETE', `/treatments/${t.ID}`)
    assert.equal(res.statusCode, 200, res.body)
    assert.equal(res.json().message, 'Treatment deleted')
    assertError(await f.call('GET', `/treatments/${t.ID}`), 404, 'Treatment not found')
    assertError(await f.call('DELETE', `/treatments/${t.ID}`), 404, 'Treatment not found')
    for (const segment of ANIMAL_LEVEL) {
      const record = await f.create(`/animals/${a}/${segment}`, animalBodies[segment])
      assert.equal((await f.call('DELETE', `/animals/${a}/${segment}/${record.ID}`)).statusCode, 200, segment)
      assert.equal((await f.call('GET', `/animals/${a}/${segment}/${record.ID}`)).statusCode, 404, segment)
    }
    const bi = await f.create(`/animals/${a}/births`, animalBodies.births)
    assert.equal((await f.call('DELETE', `/births/${bi.ID}`)).json().message, 'Birth deleted')
    assertError(await f.call('GET', `/animals/${a}/births/${bi.ID}`), 404, 'Birth not found')
  })
})

describe('integrators and other users', () => {
  let a: string
  let record: Body
  const as = async (options: { canWrite?: boolean; canDelete?: boolean; linked?: boolean }) => {
    const integrator = await createIntegrator(ctx, {
      tier: 'starter',
      canWrite: options.canWrite ?? false,
      canDelete: options.canDelete ?? false,
      linkTo: options.linked === false ? [] : [f.user.uid],
    })
    return bearer((await integratorToken(ctx, integrator.uid)).accessToken)
  }
  before(async () => {
    a = (await f.animal()).MAC
    record = await f.create('/births', birth(a))
  })

  it('a linked integrator with write permission creates and changes records, but deletes only with delete permission', async () => {
    const writer = await as({ canWrite: true })
    const created = await f.create('/treatments', treatment(a), writer)
    await f.create(`/animals/${a}/movements`, animalBodies.movements, writer)
    assert.equal((await f.call('PATCH', `/treatments/${created.ID}`, { Archived: true }, writer)).statusCode, 200)
    assertError(
      await f.call('DELETE', `/treatments/${created.ID}`, undefined, writer),
      403,
      'Integrator does not have delete permission',
    )
    assertError(
      await f.call('DELETE', `/animals/${a}/births/${String(record.ID)}`, undefined, writer),
      403,
      'Integrator does not have delete permission',
    )
    assert.equal((await f.get(`/treatments/${created.ID}`)).data.Archived, true)

    const deleter = await as({ canDelete: true })
    assert.equal((await f.call('DELETE', `/treatments/${created.ID}`, undefined, deleter)).statusCode, 200)
  })

  it('a linked integrator without write permission reads but gets 403 on every write, before its body is looked at', async () => {
    const reader = await as({})
    assert.equal((await f.call('GET', '/births', undefined, reader)).statusCode, 200)
    assert.equal((await f.call('GET', `/animals/${a}/births/${String(record.ID)}`, undefined, reader)).statusCode, 200)
    const refused = 'Integrator does not have write permission'
    assertError(await f.call('POST', '/births', birth(a), reader), 403, refused)
    assertError(await f.call('POST', '/births', {}, reader), 403, refused)
    assertError(await f.call('POST', `/animals/${a}/weanings`, animalBodies.weanings, reader), 403, refused)
    assertError(await f.call('PATCH', `/births/${String(record.ID)}`, { Archived: true }, reader), 403, refused)
    assertError(
      await f.call('DELETE', `/births/${String(record.ID)}`, undefined, reader),
      403,
      'Integrator does not have delete permission',
    )
  })

  it('an unlinked integrator and another user get 403 on every record route', async () => {
    const unlinked = await as({ canWrite: true, canDelete: true, linked: false })
    const stranger = await recordsFarm(ctx)
    for (const [headers, error] of [
      [unlinked, "Integrator does not have access to this user's data"],
      [stranger.headers, "You do not have access to this user's data"],
    ] as const) {
      assertError(await f.call('GET', '/births', undefined, headers), 403, error)
      assertError(await f.call('GET', `/births/${String(record.ID)}`, undefined, headers), 403, error)
      assertError(await f.call('GET', '/births/statistics', undefined, headers), 403, error)
      assertError(await f.call('GET', `/animals/${a}/births/recent`, undefined, headers), 403, error)
      assertError(await f.call('POST', '/births', birth(a), headers), 403, error)
      assertError(
        await f.call('POST', `/animals/${a}/general-events`, animalBodies['general-events'], headers),
        403,
        error,
      )
      assertError(await f.call('PATCH', `/births/${String(record.ID)}`, { Archived: true }, headers), 403, error)
      assertError(await f.call('DELETE', `/births/${String(record.ID)}`, undefined, headers), 403, error)
    }
    assert.deepEqual((await f.get(`/births/${String(record.ID)}`)).data, record)
  })
})

describe('records and their animal', () => {
  it("follow the animal when its MAC changes: shown with the new MAC and listed under the new MAC's path", async () => {
    const animal = await f.animal()
    const t = await f.create('/treatments', treatment(animal.MAC))
    const bi = await f.create('/births', birth(animal.MAC))
    const event = await f.create(`/animals/${animal.MAC}/general-events`, animalBodies['general-events'])
    const newMac = nextMac()
    assert.equal((await f.call('PATCH', `/animals/${animal.ID}`, { MAC: newMac.toLowerCase() })).statusCode, 200)
    assert.deepEqual((await f.get(`/treatments/${t.ID}`)).data, { ...t, Mac: newMac })
    assert.deepEqual((await f.get(`/births/${bi.ID}`)).data, { ...bi, MAC: newMac })
    assert.deepEqual(idsOf(await f.get(`/animals/${newMac}/general-events`)), [event.ID])
    assert.deepEqual(idsOf(await f.get(`/animals/${newMac}/births`)), [bi.ID])
    assert.deepEqual(idsOf(await f.get(`/treatments/search?mac=${newMac}`)), [t.ID])
    assert.equal((await f.get(`/births/statistics?mac=${newMac}`)).data.totalBirths, 1)
    assertError(await f.call('GET', `/animals/${animal.MAC}/general-events`), 404, 'Animal not found')
    assert.deepEqual(idsOf(await f.get(`/treatments/search?mac=${animal.MAC}`)), [])
  })

  it('deleting an animal with records is a 409 naming their counts, and keeps the animal and its records', async () => {
    const animal = await f.animal()
    const t = await f.create('/treatments', treatment(animal.MAC))
    await f.create('/births', birth(animal.MAC))
    await f.create(`/animals/${animal.MAC}/births`, animalBodies.births)
    await f.create(`/animals/${animal.MAC}/movements`, animalBodies.movements)
    const res = await f.call('DELETE', `/animals/${animal.ID}`)
    assert.equal(res.statusCode, 409, res.body)
    assert.equal(res.json().success, false)
    for (const part of ['treatments 1', 'births 2', 'movements 1', 'deleteRecords=true'])
      assert.ok(res.json().error.includes(part), `${part} in: ${res.json().error}`)
    assert.ok(!res.json().error.includes('weanings'), 'collections without records are not named')
    assert.equal((await f.call('GET', `/animals/${animal.ID}`)).statusCode, 200)
    assert.deepEqual((await f.get(`/treatments/${t.ID}`)).data, t)
    assert.deepEqual(await storedCounts(f.user.uid, animal.ID), {
      treatments: 1,
      births: 2,
      inseminations: 0,
      general_events: 0,
      pregnancy_checks: 0,
      return_to_estrus: 0,
      weanings: 0,
      movements: 1,
    })
  })

  it('deleteRecords=true deletes the animal with all its records and nothing else', async () => {
    const animal = await f.animal()
    const keeper = await f.animal()
    const kept = await f.create('/births', birth(keeper.MAC))
    const records: string[] = [(await f.create('/treatments', treatment(animal.MAC))).ID]
    for (const segment of ANIMAL_LEVEL)
      records.push((await f.create(`/animals/${animal.MAC}/${segment}`, animalBodies[segment])).ID)
    const res = await f.call('DELETE', `/animals/${animal.ID}?deleteRecords=true`)
    assert.equal(res.statusCode, 200, res.body)
    assert.equal(res.json().message, 'Animal deleted')
    assertError(await f.call('GET', `/animals/${animal.ID}`), 404, 'Animal not found')
    assertError(await f.call('GET', `/treatments/${records[0]}`), 404, 'Treatment not found')
    assert.deepEqual(
      Object.values(await storedCounts(f.user.uid, animal.ID)),
      RECORD_TABLES.map(() => 0),
    )
    assert.deepEqual((await f.get(`/births/${String(kept.ID)}`)).data, kept)
  })

  it('deleting the user deletes their records', async () => {
    const u = await recordsFarm(ctx)
    const mac = (await u.animal()).MAC
    await u.create('/treatments', userBodies.treatments(mac, u.user.uid))
    for (const segment of ANIMAL_LEVEL) await u.create(`/animals/${mac}/${segment}`, animalBodies[segment])
    assert.deepEqual(
      Object.values(await storedCounts(u.user.uid)),
      RECORD_TABLES.map(() => 1),
    )
    const res = await ctx.app.inject({ method: 'DELETE', url: `/api/v1/users/${u.user.uid}`, headers: u.headers })
    assert.equal(res.statusCode, 200, res.body)
    assert.deepEqual(
      Object.values(await storedCounts(u.user.uid)),
      RECORD_TABLES.map(() => 0),
    )
  })
})

describe('record ids', () => {
  it('gives 100 concurrent creates 100 distinct ids, each the creation ms as a decimal string equal to t', async () => {
    const u = await recordsFarm(ctx)
    const mac = (await u.animal()).MAC
    const before = Date.now()
    const results = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        u.call('POST', '/treatments', { ...userBodies.treatments(mac, u.user.uid), Comment: `Course ${i}` }),
      ),
    )
    assert.deepEqual(
      results.map((r) => r.statusCode),
      results.map(() => 201),
      results.find((r) => r.statusCode !== 201)?.body,
    )
    const records = results.map((r) => r.json().data)
    assert.equal(new Set(records.map((r) => r.ID)).size, 100)
    for (const r of records) {
      assert.match(r.ID, /^[0-9]{13}$/)
      assert.ok(Number(r.ID) >= before)
      assert.equal(r.t, Number(r.ID))
    }
    assert.equal((await u.get('/treatments')).pagination.total, 100)
  })
})

/** The record without the given fields (as the API shows a record whose optional fields were cleared). */
function withoutFields(record: Body, cleared: string[]): Body {
  return Object.fromEntries(Object.entries(record).filter(([k]) => !cleared.includes(k)))
}
