// The events' retention (docs/operations.md#retention, docs/events.md#retention): the maintenance job deletes
// settled events (resolved ones, all-clears among them from their creation) resolved more than EVENTS_RETENTION_DAYS
// ago, in statements of at most RETENTION_BATCH_ROWS rows; open and acknowledged events stay, and so does an event with
// a delivery pending.
// A pruned event whose cause still stands is not derived, nor delivered, again.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { sql } from 'kysely'
import { deriveScheduledEvents } from '../../src/jobs/events.ts'
import { runMaintenance } from '../../src/jobs/maintenance.ts'
import { dateOf, dayOfInstant } from '../../src/modules/cycle/cycle.rules.ts'
import { deriveDueEvents } from '../../src/modules/events/due-events.ts'
import { alertRulesOf, pruneEventsStatement } from '../../src/modules/events/events.repository.ts'
import { derivePredictionEvents } from '../../src/modules/events/prediction-events.ts'
import { assertError } from '../support/assertions.ts'
import { createTestApp, type TestContext } from '../support/app.ts'
import { cliInProcess } from '../support/cli.ts'
import { eventually } from '../support/eventually.ts'
import { announceEvent } from '../support/events.ts'
import { LOCAL_DELIVERY_ENV, startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts'
import { bearer, createIntegrator, integratorToken } from '../support/fixtures.ts'
import { eventsFarm } from './farm.ts'

const DAY = 86_400_000
const HOUR = 3_600_000
const KEEP_DAYS = 180

let ctx: TestContext
let receiver: WebhookReceiver

before(async () => {
  receiver = await startWebhookReceiver()
  ctx = await createTestApp({
    env: {
      ...LOCAL_DELIVERY_ENV,
      EVENTS_RETENTION_DAYS: String(KEEP_DAYS),
      RETENTION_BATCH_ROWS: '1',
    },
  })
})
after(async () => {
  receiver?.close()
  await ctx?.close()
})

/** A farm for the events, with its integrator's webhook subscription to the receiver. */
async function subscribedFarm() {
  const farm = await eventsFarm(ctx)
  const created = await ctx.app.inject({
    method: 'POST',
    url: '/api/v1/webhooks/subscriptions',
    headers: farm.writer,
    payload: { url: receiver.url },
  })
  assert.equal(created.statusCode, 201, created.body)
  const deliveries = async () =>
    (
      await sql<{ event_id: string; status: string }>`
        SELECT event_id::text, status FROM deliveries WHERE uid = ${farm.user.uid} ORDER BY event_id`.execute(
        ctx.database.db,
      )
    ).rows.map((r) => [r.event_id, r.status])
  const ids = async (query = '?after=0') => (await farm.list(query)).data.map((e) => String(e.ID))
  const patch = async (id: string, status: 'acknowledged' | 'resolved') => {
    const res = await farm.request('PATCH', `/events/${id}`, { status })
    assert.equal(res.statusCode, 200, res.body)
  }
  return { ...farm, deliveries, ids, patch }
}

/** Sets an event's creation and settlement `days` ago (null: leaves the column). */
async function age(uid: string, id: string, created: number, resolved: number | null = null) {
  await sql`UPDATE events SET created_at = ${Date.now() - created * DAY},
      resolved_at = ${resolved === null ? sql`resolved_at` : Date.now() - resolved * DAY}
    WHERE uid = ${uid} AND id = ${Number(id)}`.execute(ctx.database.db)
}

describe('events retention', () => {
  it('deletes settled events older than EVENTS_RETENTION_DAYS, keeps young, open, acknowledged and pending ones (jobs maintenance)', async () => {
    const farm = await subscribedFarm()
    const sow = await farm.animal(null)
    const event = async (
      type: 'heat-alarm' | 'lameness-alarm' | 'tag-battery-low' | 'temperature-normal' | 'tag-heard',
    ) =>
      String(
        (
          await announceEvent(ctx, {
            uid: farm.user.uid,
            type,
            mac: sow.MAC,
            animalId: Number(sow.ID),
            group: 'Farrowing 2',
            value: 1,
            evidence: {},
          })
        ).id,
      )
    const oldResolved = await event('heat-alarm')
    const lateResolved = await event('heat-alarm')
    const oldOpen = await event('lameness-alarm')
    const oldAcknowledged = await event('tag-battery-low')
    const oldAllClear = await event('temperature-normal')
    const youngAllClear = await event('tag-heard')
    await eventually(
      farm.deliveries,
      (rows) => rows.length === 6 && rows.every(([, status]) => status === 'delivered'),
      'six delivered',
    )
    // One more, answered 503 and left pending, its retry put off for a day.
    receiver.answers.push([503])
    const oldPending = await event('heat-alarm')
    const retry = sql<{ n: number }>`SELECT count(*)::int AS n FROM deliveries
      WHERE uid = ${farm.user.uid} AND event_id = ${Number(oldPending)} AND status = 'pending' AND last_status = 503`
    await eventually(
      async () => (await retry.execute(ctx.database.db)).rows[0]!.n,
      (n) => n === 1,
      'the retry',
    )
    await sql`UPDATE deliveries SET next_attempt_at = ${Date.now() + DAY}
      WHERE uid = ${farm.user.uid} AND event_id = ${Number(oldPending)}`.execute(ctx.database.db)
    for (const id of [oldResolved, lateResolved, oldPending]) await farm.patch(id, 'resolved')
    await farm.patch(oldAcknowledged, 'acknowledged')
    for (const id of [oldResolved, oldPending]) await age(farm.user.uid, id, KEEP_DAYS + 20, KEEP_DAYS + 1)
    await age(farm.user.uid, lateResolved, KEEP_DAYS + 20, KEEP_DAYS - 1)
    for (const id of [oldOpen, oldAcknowledged]) await age(farm.user.uid, id, KEEP_DAYS + 1)
    // An all-clear is resolved when it is created.
    await age(farm.user.uid, oldAllClear, KEEP_DAYS + 1, KEEP_DAYS + 1)

    const run = await cliInProcess(ctx, ['jobs', 'maintenance'])
    assert.equal(run.code, 0, run.stderr)
    assert.equal(run.json().deleted.events, 2)

    const kept = [lateResolved, oldOpen, oldAcknowledged, youngAllClear, oldPending]
    assert.deepEqual(await farm.ids(), kept)
    assert.deepEqual(await farm.ids(`?after=${oldResolved}`), kept)
    assert.deepEqual(await farm.ids('?status=resolved&sortBy=ID&sortOrder=asc'), [
      lateResolved,
      youngAllClear,
      oldPending,
    ])
    assertError(await farm.request('GET', `/events/${oldResolved}`), 404, 'Event not found')
    assertError(await farm.request('PATCH', `/events/${oldAllClear}`, { status: 'resolved' }), 404, 'Event not found')
    const ofSow = await farm.request('GET', `/animals/${sow.MAC}/events?sortBy=ID&sortOrder=asc`)
    assert.equal(ofSow.statusCode, 200, ofSow.body)
    assert.deepEqual(
      ofSow.json().data.map((e: { ID: string }) => e.ID),
      kept,
    )
    // The feed's IDs go on from the account's counter, whatever was pruned.
    const newest = await event('tag-heard')
    assert.equal(Number(newest), Number(oldPending) + 1)
    // Who may not read the feed still may not.
    const stranger = await createIntegrator(ctx, { tier: 'pro' })
    const denied = await ctx.app.inject({
      method: 'GET',
      url: `${farm.base}/events`,
      headers: bearer((await integratorToken(ctx, stranger.uid)).accessToken),
    })
    assert.equal(denied.statusCode, 403, denied.body)

    // Once its delivery has finished (here: failed), the pending one's event goes at the next run.
    await sql`UPDATE deliveries SET status = 'failed'
      WHERE uid = ${farm.user.uid} AND event_id = ${Number(oldPending)}`.execute(ctx.database.db)
    assert.equal((await cliInProcess(ctx, ['jobs', 'maintenance'])).json().deleted.events, 1)
    assert.equal((await cliInProcess(ctx, ['jobs', 'maintenance'])).json().deleted.events, 0)
    assert.deepEqual(await farm.ids(), [lateResolved, oldOpen, oldAcknowledged, youngAllClear, newest])
  })

  it('does not derive or deliver a pruned event again while its cause still stands', async () => {
    const farm = await subscribedFarm()
    const db = ctx.database.db
    const uid = farm.user.uid
    const now = Date.now()
    const served = dateOf(dayOfInstant(now) - 115)
    const sow = await farm.animal(null)
    const gilt = await farm.animal(null)
    for (const animal of [sow, gilt]) {
      const res = await farm.request('POST', `/animals/${animal.MAC}/inseminations`, {
        Boar: 'Duroc',
        StartDate: served,
      })
      assert.equal(res.statusCode, 201, res.body)
    }
    // A tag silent for two hours, a heat alarm raised and cleared.
    const tagged = await farm.animal(null)
    await farm.readings(tagged.MAC, [38.0], now - 2 * HOUR)
    await deriveScheduledEvents(db, { now, uid, activity: false })
    const rules = await alertRulesOf(db, uid)
    const scores = [0.9, 0.01].map((probability, i) => ({
      animalId: Number(sow.ID),
      mac: sow.MAC,
      group: 'Farrowing 2',
      classificationType: 'heat' as const,
      predictedAt: now - (3 - i) * HOUR,
      probability,
    }))
    assert.equal((await derivePredictionEvents(db, uid, rules, scores, now)).length, 1)
    const events = (await farm.list('?after=0')).data
    assert.deepEqual(
      events.map((e) => [e.EventType, e.MAC, e.status]),
      [
        ['farrowing-due', sow.MAC, 'open'],
        ['farrowing-due', gilt.MAC, 'open'],
        ['tag-silent', tagged.MAC, 'open'],
        ['heat-alarm', sow.MAC, 'resolved'],
      ],
    )
    await eventually(
      farm.deliveries,
      (rows) => rows.length === 4 && rows.every(([, status]) => status === 'delivered'),
      'four delivered',
    )
    // Someone settles the three open ones by hand, though no farrowing is recorded and the tag is still silent.
    for (const e of events.slice(0, 3)) await farm.patch(String(e.ID), 'resolved')

    // Why the bound: were the gilt's event gone ten days on, her service, still unsettled, would open it again.
    await sql`DELETE FROM events WHERE uid = ${uid} AND id = ${Number(events[1]!.ID)}`.execute(db)
    const again = await deriveDueEvents(db, uid, rules, now + 10 * DAY, Number(gilt.ID))
    assert.deepEqual(
      again.map((e) => [e.event_type, e.episode_key]),
      [['farrowing-due', `farrowing-due:insemination:${events[1]!.evidence.recordId}`]],
    )
    assert.equal((await farm.deliveries()).length, 5, 'and deliver it again')

    // The retention's bound and a day on: the sow's, the tag's and the alarm's events are pruned by the job.
    const later = now + (KEEP_DAYS + 1) * DAY
    const { deleted } = await runMaintenance(db, ctx.config, later)
    assert.ok(deleted.events! >= 3)
    assert.deepEqual(await farm.ids(), [String(again[0]!.id)])
    const deliveries = await farm.deliveries()
    const heard = receiver.received.length

    // The events job, the record path (one animal's run) and the predictions job derive nothing again.
    assert.deepEqual(await deriveScheduledEvents(db, { now: later, uid, activity: true }), [])
    assert.deepEqual(await deriveDueEvents(db, uid, rules, later, Number(sow.ID)), [])
    assert.deepEqual(await derivePredictionEvents(db, uid, rules, scores, later), [])
    assert.deepEqual(await farm.ids(), [String(again[0]!.id)])
    assert.deepEqual(await farm.deliveries(), deliveries)
    await new Promise((resolve) => setTimeout(resolve, 200))
    assert.equal(receiver.received.length, heard)
  })

  it('cancels a pending delivery whose event is gone all the same, sending nothing', async () => {
    const farm = await subscribedFarm()
    receiver.answers.push([503])
    const { id } = await announceEvent(ctx, {
      uid: farm.user.uid,
      type: 'birth-alarm',
      mac: 'A4:C1:38:5F:2B:91',
      value: 0.9,
      evidence: {},
    })
    const row = sql<{ status: string; last_status: number | null; last_error: string | null }>`
      SELECT status, last_status, last_error FROM deliveries WHERE uid = ${farm.user.uid} AND event_id = ${id}`
    await eventually(
      async () => (await row.execute(ctx.database.db)).rows[0]!,
      (r) => r.last_status === 503,
      'a retry',
    )
    const heard = receiver.received.length
    // As if the maintenance had deleted it in the instant a redelivery queued it.
    await sql`DELETE FROM events WHERE uid = ${farm.user.uid} AND id = ${id}`.execute(ctx.database.db)
    await sql`UPDATE deliveries SET next_attempt_at = ${Date.now()}
      WHERE uid = ${farm.user.uid} AND event_id = ${id}`.execute(ctx.database.db)
    const settled = await eventually(
      async () => (await row.execute(ctx.database.db)).rows[0]!,
      (r) => r.status !== 'pending',
      'the cancellation',
    )
    assert.deepEqual([settled.status, settled.last_error], ['cancelled', 'event gone'])
    assert.equal(receiver.received.length, heard)
  })

  it('walks the index of migration 0110 from the oldest resolved event, reading no whole table', async () => {
    // With a handful of rows a whole-table read is cheaper; forbidding it shows whether the statement can walk the index.
    const plan = await ctx.database.db.transaction().execute(async (trx) => {
      await sql`SET LOCAL enable_seqscan = off`.execute(trx)
      await sql`SET LOCAL enable_bitmapscan = off`.execute(trx)
      const { rows } = await sql<{
        'QUERY PLAN': string
      }>`EXPLAIN (COSTS OFF) ${pruneEventsStatement(Date.now(), 1000)}`.execute(trx)
      return rows.map((r) => r['QUERY PLAN']).join('\n')
    })
    assert.match(plan, /Index Scan using events_settled_idx on events x/, plan)
    assert.doesNotMatch(plan, /Seq Scan on events|Sort/, plan)
  })
})
