// Migration 0115 settles the all-clears stored open before they were stored resolved (docs/events.md#the-event): each
// open or acknowledged one becomes resolved by the service at its creation; every other event is left as it was.
// The rows are written as the service stored them before; the migration's statements run on them as on a farm's store.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { sql, type Kysely } from 'kysely'
import * as m0115 from '../../src/db/migrations/0115_all_clears_settled.ts'
import { createTestApp, type TestContext } from '../support/app.ts'
import { assertError } from '../support/assertions.ts'
import { eventsFarm } from './farm.ts'

let ctx: TestContext
before(async () => {
  ctx = await createTestApp()
})
after(() => ctx.close())

const DAY = 86_400_000

/** What the migration may change of one event, as the feed shows it. */
function seenNow(feed: { data: Record<string, any>[] }, e: { id: string }) {
  const event = feed.data.find((row) => row.ID === e.id)!
  return [event.status, event.resolvedBy, event.resolvedAt, event.acknowledgedBy, event.note]
}

describe('migration 0115: all-clears settled', () => {
  it('resolves the open and acknowledged all-clears at their creation by the service, and nothing else', async () => {
    const farm = await eventsFarm(ctx)
    const uid = farm.user.uid
    const created = Date.now() - 40 * DAY
    let id = 1000
    /** An event row as stored before 0115 (an all-clear open, whatever its kind). */
    const stored = async (type: string, status: string, changes: Record<string, unknown> = {}) => {
      const row = {
        acknowledged_by: null,
        acknowledged_at: null,
        resolved_by: null,
        resolved_at: null,
        note: null,
        ...changes,
      }
      await sql`
        INSERT INTO events (uid, id, event_type, severity, status, mac, scale, value, t, evidence, episode_key, created_at,
                            acknowledged_by, acknowledged_at, resolved_by, resolved_at, note)
        VALUES (${uid}, ${++id}, ${type}, 'info', ${status}, 'EE:00:00:00:01:15', 'minutes', 1, ${created - id},
                '{}'::jsonb, ${`before-0115:${id}`}, ${created + id}, ${row.acknowledged_by}, ${row.acknowledged_at},
                ${row.resolved_by}, ${row.resolved_at}, ${row.note})`.execute(ctx.database.db)
      return { id: String(id), createdAt: created + id }
    }
    const openNormal = await stored('temperature-normal', 'open')
    const openHeard = await stored('tag-heard', 'open')
    const acknowledgedOnline = await stored('litter-online', 'acknowledged', {
      acknowledged_by: uid,
      acknowledged_at: created + DAY,
      note: 'seen',
    })
    const resolvedByHand = await stored('tag-heard', 'resolved', { resolved_by: uid, resolved_at: created + 2 * DAY })
    const openSilent = await stored('tag-silent', 'open')
    const acknowledgedRed = await stored('temperature-red', 'acknowledged', {
      acknowledged_by: uid,
      acknowledged_at: created + DAY,
    })
    const db = ctx.database.db as unknown as Kysely<unknown>
    const open = async () => (await farm.list('?status=open&sortBy=ID&sortOrder=asc')).data.map((e) => e.ID)
    assert.deepEqual(await open(), [openNormal.id, openHeard.id, openSilent.id], 'before: all-clears among the open')

    await m0115.up(db)

    const after = await farm.list('?after=0')
    const seen = (e: { id: string }) => seenNow(after, e)
    assert.deepEqual(seen(openNormal), ['resolved', 'service', openNormal.createdAt, null, null])
    assert.deepEqual(seen(openHeard), ['resolved', 'service', openHeard.createdAt, null, null])
    assert.deepEqual(seen(acknowledgedOnline), ['resolved', 'service', acknowledgedOnline.createdAt, uid, 'seen'])
    assert.deepEqual(seen(resolvedByHand), ['resolved', uid, created + 2 * DAY, null, null])
    assert.deepEqual(seen(openSilent), ['open', null, null, null, null])
    assert.deepEqual(seen(acknowledgedRed), ['acknowledged', null, null, uid, null])
    assert.deepEqual(await open(), [openSilent.id], 'after: only what needs attention')
    assertError(
      await farm.request('PATCH', `/events/${openNormal.id}`, { status: 'acknowledged' }),
      409,
      'Event is resolved already',
    )

    // A second run changes nothing.
    const settled = (await farm.list('?after=0')).data
    await m0115.up(db)
    assert.deepEqual((await farm.list('?after=0')).data, settled)
    // Down puts the settled all-clears back as they were (what a person resolved stays), and up settles them again.
    await m0115.down(db)
    assert.deepEqual(seenNow(await farm.list('?after=0'), acknowledgedOnline), [
      'acknowledged',
      null,
      null,
      uid,
      'seen',
    ])
    assert.deepEqual(await open(), [openNormal.id, openHeard.id, openSilent.id])
    await m0115.up(db)
    assert.deepEqual((await farm.list('?after=0')).data, settled)
  })
})
