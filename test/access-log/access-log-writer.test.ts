// The access-log writer on its own: rows wait in the process while the database refuses them and are
// written once, in order, when it answers again; a full batch is written without waiting for the timer;
// rows of an account deleted while they waited do not hold up the rest.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { pino } from 'pino'
import { accessLogWriter } from '../../src/modules/access-log/access-log.writer.ts'
import { insertAccessLogRows, type NewAccessLogRow } from '../../src/modules/access-log/access-log.repository.ts'
import { createTestApp, type TestContext } from '../support/app.ts'
import { createIntegrator, createUser } from '../support/fixtures.ts'
import { deleteUserAndData } from '../../src/modules/users/users.repository.ts'

/** A batch insert that fails while `down` is set and keeps what it was given. */
function fakeDatabase() {
  const state = { down: false, written: [] as NewAccessLogRow[], inserts: 0 }
  const db = async (rows: NewAccessLogRow[]) => {
    state.inserts++
    if (state.down) throw new Error('connection refused')
    state.written.push(...rows)
  }
  return { db, state }
}

const row = (n: number): NewAccessLogRow => ({
  uid: null,
  integrator_uid: 'int-1',
  at: new Date(n),
  method: 'GET',
  endpoint: '/api/v1/health',
  response_code: 200,
  response_time_ms: 1,
  data_size: null,
  user_agent: null,
  ip_address: null,
})

const silent = pino({ level: 'silent' })

describe('access-log writer', () => {
  it('keeps rows while the database refuses them and writes each once, in order, when it is back', async () => {
    const { db, state } = fakeDatabase()
    const writer = accessLogWriter(db, { flushIntervalMs: 60_000, log: silent })
    state.down = true
    for (let i = 0; i < 5; i++) writer.record(row(i))
    await writer.flush()
    writer.record(row(5))
    await writer.flush()
    assert.equal(state.written.length, 0)
    state.down = false
    await writer.close()
    assert.deepEqual(
      state.written.map((r) => (r.at as Date).getTime()),
      [0, 1, 2, 3, 4, 5],
    )
  })

  it('writes a full batch of 1,000 rows at once, without waiting for the timer', async () => {
    const { db, state } = fakeDatabase()
    const writer = accessLogWriter(db, { flushIntervalMs: 60_000, log: silent })
    for (let i = 0; i < 1000; i++) writer.record(row(i))
    await new Promise((resolve) => setImmediate(resolve))
    await writer.flush()
    assert.equal(state.written.length, 1000)
    assert.equal(state.inserts, 1)
    await writer.close()
  })
})

describe('access-log batch insert', () => {
  // One store for both tests: each reads only the rows of integrators it created.
  let ctx: TestContext
  before(async () => {
    ctx = await createTestApp()
  })
  after(() => ctx.close())

  it('stores every column of every row in one statement, nulls and awkward text included', async () => {
    const { uid } = await createIntegrator(ctx, { tier: 'free' })
    const rows = Array.from({ length: 5000 }, (_, i): NewAccessLogRow => ({
      uid: null,
      integrator_uid: uid,
      at: new Date(Date.UTC(2026, 10, 24, 10, 0, 0, i)),
      method: i % 2 ? 'POST' : 'GET',
      endpoint: '/api/v1/users/:userId/animals',
      response_code: i % 7 === 0 ? 404 : 200,
      response_time_ms: i / 1000,
      data_size: i % 3 === 0 ? null : i,
      user_agent: i === 1 ? 'curl/8.5 "quoted", {braced}, back\\slash, é' : null,
      ip_address: i % 5 === 0 ? '2001:db8::1' : '203.0.113.9',
    }))
    await insertAccessLogRows(ctx.database.db, [])
    await insertAccessLogRows(ctx.database.db, rows)
    const stored = await ctx.database.db
      .selectFrom('access_log')
      .selectAll()
      .where('integrator_uid', '=', uid)
      .orderBy('at')
      .execute()
    assert.equal(stored.length, 5000)
    for (const i of [0, 1, 2, 3, 7, 4999]) {
      const { id: _, ...columns } = stored[i]!
      assert.deepEqual(columns, rows[i], `row ${i}`)
    }
  })

  it('writes a batch again without the rows of an account or an integrator deleted while they waited', async () => {
    const db = ctx.database.db
    const { uid: integratorUid } = await createIntegrator(ctx, { tier: 'free' })
    const { uid: goneIntegrator } = await createIntegrator(ctx, { tier: 'free' })
    const kept = await createUser(ctx)
    const gone = await createUser(ctx)
    const logRow = (uid: string | null, integrator: string, n: number): NewAccessLogRow => ({
      ...row(n),
      uid,
      integrator_uid: integrator,
    })
    const writer = accessLogWriter((rows) => insertAccessLogRows(db, rows), { flushIntervalMs: 60_000, log: silent })
    writer.record(logRow(kept.uid, integratorUid, 1))
    writer.record(logRow(gone.uid, integratorUid, 2))
    writer.record(logRow(null, integratorUid, 3))
    writer.record(logRow(kept.uid, goneIntegrator, 4))
    assert.equal(await deleteUserAndData(db, gone.uid, Date.now()), true)
    await db.deleteFrom('integrators').where('uid', '=', goneIntegrator).execute()
    await writer.flush()
    const stored = await db
      .selectFrom('access_log')
      .select(['uid', 'integrator_uid', 'at'])
      .where('integrator_uid', 'in', [integratorUid, goneIntegrator])
      .orderBy('at')
      .execute()
    assert.deepEqual(
      stored.map((r) => [r.uid, r.at.getTime()]),
      [
        [kept.uid, 1],
        [null, 3],
      ],
    )
    // The writer is not stuck on the batch: the next rows go in at the next flush.
    writer.record(logRow(kept.uid, integratorUid, 5))
    await writer.close()
    assert.equal(
      Number(
        (
          await db
            .selectFrom('access_log')
            .select((eb) => eb.fn.countAll().as('n'))
            .where('integrator_uid', '=', integratorUid)
            .executeTakeFirstOrThrow()
        ).n,
      ),
      3,
    )
  })
})
