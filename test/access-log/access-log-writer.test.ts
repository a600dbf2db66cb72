// The access-log writer on its own: rows wait in the process while the database refuses them and are
// written once, in order, when it answers again; a full batch is written without waiting for the timer.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { pino } from 'pino'
import { accessLogWriter } from '../../src/modules/access-log/access-log.writer.ts'
import { insertAccessLogRows, type NewAccessLogRow } from '../../src/modules/access-log/access-log.repository.ts'
import { createTestApp } from '../support/app.ts'
import { createIntegrator } from '../support/fixtures.ts'

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
  uid: null, integrator_uid: 'int-1', at: new Date(n), method: 'GET', endpoint: '/api/v1/health',
  response_code: 200, response_time_ms: 1, data_size: null, user_agent: null, ip_address: null,
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
    assert.deepEqual(state.written.map((r) => (r.at as Date).getTime()), [0, 1, 2, 3, 4, 5])
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
  it('stores every column of every row in one statement, nulls and awkward text included', async () => {
    const ctx = await createTestApp()
    try {
      const { uid } = await createIntegrator(ctx, { tier: 'free' })
      const rows = Array.from({ length: 5000 }, (_, i): NewAccessLogRow => ({
        uid: null, integrator_uid: uid, at: new Date(Date.UTC(2026, 10, 24, 10, 0, 0, i)), method: i % 2 ? 'POST' : 'GET',
        endpoint: '/api/v1/users/:userId/animals', response_code: i % 7 === 0 ? 404 : 200, response_time_ms: i / 1000,
        data_size: i % 3 === 0 ? null : i, user_agent: i === 1 ? 'curl/8.5 "quoted", {braced}, back\\slash, é' : null,
        ip_address: i % 5 === 0 ? '2001:db8::1' : '203.0.113.9',
      }))
      await insertAccessLogRows(ctx.database.db, [])
      await insertAccessLogRows(ctx.database.db, rows)
      const stored = await ctx.database.db.selectFrom('access_log').selectAll().where('integrator_uid', '=', uid).orderBy('at').execute()
      assert.equal(stored.length, 5000)
      for (const i of [0, 1, 2, 3, 7, 4999]) {
        const { id: _, ...columns } = stored[i]!
        assert.deepEqual(columns, rows[i], `row ${i}`)
      }
    } finally {
      await ctx.close()
    }
  })
})
