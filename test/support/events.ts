// An event as the service would derive it, for tests that need one to deliver, push or stream: stored (a fresh
// episode key each time, so it is never refused as a repeat) and announced to this process's stream readers.
import assert from 'node:assert/strict'
import { recordEvent, type NewEvent } from '../../src/modules/events/events.repository.ts'
import type { TestContext } from './app.ts'

let sequence = 0

export async function announceEvent(
  ctx: TestContext,
  event: Pick<NewEvent, 'uid' | 'type' | 'mac' | 'value' | 'evidence'> & Partial<Pick<NewEvent, 'animalId' | 'group'>>,
) {
  const now = Date.now()
  const row = await recordEvent(ctx.database.db, {
    ...event,
    t: now,
    episodeKey: `test:${event.type}:${event.mac}:${++sequence}:${now}`,
    createdAt: now,
  })
  assert.ok(row)
  ctx.app.events.announce([row])
  return row
}

/** No quiet hours for any role, so that a test of what reaches phones and browsers passes at any time of day. */
export async function withoutQuietHours(ctx: TestContext, uid: string, headers: Record<string, string>) {
  const rules = await ctx.app.inject({
    method: 'PUT',
    url: `/api/v1/users/${uid}/alert-rules`,
    headers,
    payload: { quietHours: { '1': null, '2': null, '3': null } },
  })
  assert.equal(rules.statusCode, 200, rules.body)
}
