// The access-log writer on its own: rows wait in the process while the database refuses them and are
// written once, in order, when it answers again; a full batch is written without waiting for the timer.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { Kysely } from 'kysely'
import { pino } from 'pino'
import type { DB } from '../../src/db/schema.ts'
import { accessLogWriter } from '../../src/modules/access-log/access-log.writer.ts'
import type { NewAccessLogRow } from '../../src/modules/access-log/access-log.repository.ts'

/** A stand-in for Kysely's insert chain that fails while `down` is set and keeps what it was given. */
function fakeDatabase() {
  const state = { down: false, written: [] as NewAccessLogRow[], inserts: 0 }
  const db = {
    insertInto: () => ({
      values: (rows: NewAccessLogRow[]) => ({
        execute: async () => {
          state.inserts++
          if (state.down) throw new Error('connection refused')
          state.written.push(...rows)
        },
      }),
    }),
  } as unknown as Kysely<DB>
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
