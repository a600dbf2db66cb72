// The delivery log's retention (docs/operations.md#retention): the maintenance job deletes finished deliveries
// and logged attempts older than DELIVERY_LOG_RETENTION_DAYS, in statements of at most RETENTION_BATCH_ROWS rows,
// and keeps young ones and every delivery still pending, with its attempts.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { sql } from 'kysely'
import { createTestApp, type TestContext } from '../support/app.ts'
import { bearer, createIntegrator, createUser, integratorToken } from '../support/fixtures.ts'
import { cliInProcess } from '../support/cli.ts'
import { eventually } from '../support/eventually.ts'
import { announceEvent } from '../support/events.ts'
import { LOCAL_DELIVERY_ENV, startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts'

const DAY = 86_400_000
const KEEP_DAYS = 7

let ctx: TestContext
let receiver: WebhookReceiver

before(async () => {
  receiver = await startWebhookReceiver()
  ctx = await createTestApp({
    env: {
      ...LOCAL_DELIVERY_ENV,
      DELIVERY_LOG_RETENTION_DAYS: String(KEEP_DAYS),
      RETENTION_BATCH_ROWS: '1',
    },
  })
})
after(async () => {
  receiver?.close()
  await ctx?.close()
})

/** A birth alarm of the account, stored and announced; its id. */
const derive = async (uid: string) =>
  (
    await announceEvent(ctx, {
      uid,
      type: 'birth-alarm',
      mac: 'A4:C1:38:5F:2B:91',
      group: 'Farrowing 2',
      value: 0.9,
      evidence: { probability: 0.9 },
    })
  ).id

describe('delivery log retention', () => {
  it('deletes old finished deliveries and their attempts, keeps young ones and pending ones (jobs maintenance)', async () => {
    const user = await createUser(ctx)
    const integrator = await createIntegrator(ctx, { linkTo: [user.uid] })
    const headers = bearer((await integratorToken(ctx, integrator.uid)).accessToken)
    const created = await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/webhooks/subscriptions',
      headers,
      payload: { url: receiver.url },
    })
    assert.equal(created.statusCode, 201, created.body)
    const { id } = created.json().data as { id: string }
    const log = async () =>
      (await ctx.app.inject({ method: 'GET', url: `/api/v1/webhooks/subscriptions/${id}/deliveries`, headers })).json()
        .data as { eventId: string; status: number }[]

    // Two delivered at once, a third answered 503 and left pending (its retry put off for a day).
    const oldDelivered = await derive(user.uid)
    const youngDelivered = await derive(user.uid)
    await eventually(log, (rows) => rows.length === 2, 'two deliveries')
    receiver.answers.push([503])
    const oldPending = await derive(user.uid)
    await eventually(log, (rows) => rows.length === 3, 'the failed attempt')
    const db = ctx.database.db
    await sql`UPDATE deliveries SET next_attempt_at = ${Date.now() + DAY}
      WHERE subscription_id = ${id} AND event_id = ${oldPending}`.execute(db)

    // The first and the pending one happened ten days ago.
    const longAgo = Date.now() - 10 * DAY
    for (const eventId of [oldDelivered, oldPending]) {
      await sql`UPDATE delivery_attempts SET attempted_at = ${longAgo}
        WHERE subscription_id = ${id} AND event_id = ${eventId}`.execute(db)
      await sql`UPDATE deliveries SET created_at = ${longAgo}, first_attempt_at = ${longAgo}
        WHERE subscription_id = ${id} AND event_id = ${eventId}`.execute(db)
    }
    await sql`UPDATE deliveries SET next_attempt_at = ${longAgo}, delivered_at = ${longAgo}
      WHERE subscription_id = ${id} AND event_id = ${oldDelivered}`.execute(db)

    const run = await cliInProcess(ctx, ['jobs', 'maintenance'])
    assert.equal(run.code, 0, run.stderr)
    const { deleted } = run.json()
    assert.equal(deleted.deliveries, 1)
    assert.equal(deleted.delivery_attempts, 1)

    assert.deepEqual(
      (await log()).map((a) => [a.eventId, a.status]),
      [
        [String(youngDelivered), 200],
        [String(oldPending), 503],
      ],
    )
    const { rows } = await sql<{ event_id: string; status: string }>`
      SELECT event_id::text, status FROM deliveries WHERE subscription_id = ${id} ORDER BY event_id`.execute(db)
    assert.deepEqual(
      rows.map((r) => [r.event_id, r.status]),
      [
        [String(youngDelivered), 'delivered'],
        [String(oldPending), 'pending'],
      ],
    )

    // Once the pending one has finished (here: failed), its old attempt and its row go at the next run.
    await sql`UPDATE deliveries SET status = 'failed', next_attempt_at = ${longAgo}
      WHERE subscription_id = ${id} AND event_id = ${oldPending}`.execute(db)
    const again = (await cliInProcess(ctx, ['jobs', 'maintenance'])).json().deleted
    assert.equal(again.deliveries, 1)
    assert.equal(again.delivery_attempts, 1)
    assert.deepEqual(
      (await log()).map((a) => a.eventId),
      [String(youngDelivered)],
    )
  })
})
