// Exactly once: several ingestions (or job runs) deriving the same animal's event at the same time store it
// once. On PostgreSQL the requests run on separate connections and really race; the embedded store serializes them.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { deriveScheduledEvents } from '../../src/jobs/events.ts'
import { createTestApp, type TestContext } from '../support/app.ts'
import { eventsFarm } from './farm.ts'

let ctx: TestContext
before(async () => {
  ctx = await createTestApp()
})
after(() => ctx.close())

const MINUTE = 60_000

describe('exactly once', () => {
  it('stores one band event when eight ingestions of the same animal cross into red at once', async () => {
    const farm = await eventsFarm(ctx)
    for (let round = 0; round < 3; round++) {
      const sow = await farm.animal(38.0)
      const start = Date.now() - 60 * MINUTE
      await Promise.all(
        Array.from({ length: 8 }, (_, i) => farm.readings(sow.MAC, [39.0, 39.1], start + i * 2 * MINUTE)),
      )
      const res = await farm.request('GET', `/animals/${sow.MAC}/events`)
      assert.deepEqual(
        res.json().data.map((e: { EventType: string }) => e.EventType),
        ['temperature-red'],
      )
    }
  })

  it('stores one tag-silent event when two job runs find the same silence at once', async () => {
    const farm = await eventsFarm(ctx)
    const sow = await farm.animal(null)
    await farm.readings(sow.MAC, [38.0], Date.now() - 3 * 60 * MINUTE)
    const runs = await Promise.all(
      Array.from({ length: 4 }, () =>
        deriveScheduledEvents(ctx.database.db, { now: Date.now(), uid: farm.user.uid, activity: false }),
      ),
    )
    assert.equal(runs.flat().length, 1)
    assert.equal((await farm.list()).data.length, 1)
  })
})
