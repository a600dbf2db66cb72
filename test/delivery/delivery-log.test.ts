// The delivery log (docs/delivery.md): read page by page by its cursor, without losing or repeating an attempt
// when several share a millisecond, and filtered by account, event and outcome, bad parameters refused; and its
// retention (docs/operations.md#retention): the maintenance job deletes finished deliveries and logged attempts
// older than DELIVERY_LOG_RETENTION_DAYS, in statements of at most RETENTION_BATCH_ROWS rows, and keeps young ones
// and every delivery still pending, with its attempts.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { sql } from 'kysely'
import { createTestApp, type TestContext } from '../support/app.ts'
import { bearer, createIntegrator, createUser, integratorToken } from '../support/fixtures.ts'
import { assertError, assertInvalid } from '../support/assertions.ts'
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

/** An integrator linked to the accounts, its token's headers, and a subscription of it to the test receiver. */
async function subscribedIntegrator(accounts: string[]) {
  const integrator = await createIntegrator(ctx, { linkTo: accounts })
  const headers = bearer((await integratorToken(ctx, integrator.uid)).accessToken)
  const created = await ctx.app.inject({
    method: 'POST',
    url: '/api/v1/webhooks/subscriptions',
    headers,
    payload: { url: receiver.url },
  })
  assert.equal(created.statusCode, 201, created.body)
  return { integrator, headers, id: (created.json().data as { id: string }).id }
}

describe('delivery log retention', () => {
  it('deletes old finished deliveries and their attempts, keeps young ones and pending ones (jobs maintenance)', async () => {
    const user = await createUser(ctx)
    const { id, headers } = await subscribedIntegrator([user.uid])
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

interface LoggedAttempt {
  userId: string
  eventId: string
  attemptedAt: number
  status: number | null
  error: string | null
}

describe('the delivery log by pages and filters', () => {
  const T = 1_800_000_000_000
  let farmA: string
  let farmB: string
  let headers: Record<string, string>
  let logPath: string
  /** [account, event, attemptedAt, status, error]: three attempts share T + 4, two of one event of A. */
  let stored: [string, number, number, number | null, string | null][]

  before(async () => {
    farmA = (await createUser(ctx)).uid
    farmB = (await createUser(ctx)).uid
    const subscribed = await subscribedIntegrator([farmA, farmB])
    const { id, integrator } = subscribed
    headers = subscribed.headers
    logPath = `/api/v1/webhooks/subscriptions/${id}/deliveries`
    stored = [
      [farmA, 1, T + 5, 200, null],
      [farmA, 2, T + 4, null, 'timed out after 10 s'],
      [farmB, 1, T + 4, 503, 'HTTP 503'],
      [farmA, 3, T + 4, 200, null],
      [farmB, 2, T + 3, 200, null],
      [farmA, 2, T + 2, 500, 'HTTP 500'],
      [farmA, 4, T + 1, 200, null],
    ]
    for (const [uid, eventId, at, status, error] of stored)
      await sql`INSERT INTO delivery_attempts
        (integrator_uid, subscription_id, uid, event_id, message_id, attempted_at, status, error, latency_ms)
        VALUES (${integrator.uid}, ${id}, ${uid}, ${eventId}, ${`msg_${eventId}_x`}, ${at}, ${status}, ${error}, 12)`.execute(
        ctx.database.db,
      )
  })

  const read = (query: string) => ctx.app.inject({ method: 'GET', url: `${logPath}?${query}`, headers })

  /** Every page from `query` on, following each page's Link; the attempts in the order read, and the pages. */
  async function walk(query: string): Promise<{ attempts: LoggedAttempt[]; pages: number }> {
    const attempts: LoggedAttempt[] = []
    let url: string | undefined = `${logPath}?${query}`
    let pages = 0
    while (url) {
      const res: { statusCode: number; body: string; headers: Record<string, unknown>; json: () => any } =
        await ctx.app.inject({ method: 'GET', url, headers })
      assert.equal(res.statusCode, 200, res.body)
      attempts.push(...(res.json().data as LoggedAttempt[]))
      pages += 1
      const link = res.headers.link as string | undefined
      url = link ? /^<([^>]+)>; rel="next"$/.exec(link)?.[1] : undefined
      if (link) assert.ok(url, link)
      assert.ok(pages <= stored.length, 'the walk ends')
    }
    return { attempts, pages }
  }

  const key = (a: LoggedAttempt) => `${a.userId}/${a.eventId}@${a.attemptedAt}`
  const keysOf = (rows: typeof stored) => rows.map(([uid, eventId, at]) => `${uid}/${eventId}@${at}`).sort()

  it('walks every attempt once, newest first, two a page, across attempts that share a millisecond', async () => {
    const { attempts, pages } = await walk('limit=2')
    assert.equal(pages, 4)
    assert.deepEqual(attempts.map(key).sort(), keysOf(stored))
    const times = attempts.map((a) => a.attemptedAt)
    assert.deepEqual(
      times,
      [...times].sort((a, b) => b - a),
    )
    // The next link keeps the query's other parameters.
    const first = await read('limit=2&failed=false')
    assert.match(
      String(first.headers.link),
      /^<\/api\/v1\/webhooks\/subscriptions\/[^?]+\/deliveries\?limit=2&failed=false&cursor=[A-Za-z0-9_-]+>; rel="next"$/,
    )
    // The last item's cursor continues where its page ended, as the Link does (for a client that reads bodies only).
    const firstPage = await read('limit=2')
    const byLink = await ctx.app.inject({
      method: 'GET',
      url: /^<([^>]+)>/.exec(String(firstPage.headers.link))![1]!,
      headers,
    })
    const byItem = await read(`limit=2&cursor=${firstPage.json().data[1].cursor}`)
    assert.deepEqual(byItem.json().data, byLink.json().data)
    // A page with nothing after it has no link.
    assert.equal((await read('limit=7')).headers.link, undefined)
  })

  it('filters by account, by one event of an account and by outcome, and pages through what it filtered', async () => {
    const only = (test: (row: (typeof stored)[number]) => boolean) => keysOf(stored.filter(test))
    const cases: [string, string[]][] = [
      ['failed=true', only(([, , , , error]) => error !== null)],
      ['failed=false', only(([, , , , error]) => error === null)],
      [`userId=${farmA}`, only(([uid]) => uid === farmA)],
      [`userId=${farmA}&eventId=2`, only(([uid, eventId]) => uid === farmA && eventId === 2)],
      [`userId=${farmB}&failed=true`, only(([uid, , , , error]) => uid === farmB && error !== null)],
      [`userId=${farmA}&eventId=99`, []],
    ]
    for (const [query, expected] of cases) {
      const { attempts } = await walk(`${query}&limit=2`)
      assert.deepEqual(attempts.map(key).sort(), expected, query)
    }
    const failed = (await read('failed=true')).json().data as LoggedAttempt[]
    assert.ok(failed.every((a) => a.error !== null))
  })

  it('refuses an event without its account, a cursor it did not write and a bad outcome, in the envelope', async () => {
    assertError(await read('eventId=2'), 400, 'eventId needs userId')
    const forged = Buffer.from(JSON.stringify(['yesterday', farmA, 1])).toString('base64url')
    for (const cursor of [forged, 'bm90LWpzb24', 'W10']) assertInvalid(await read(`cursor=${cursor}`), ['query:cursor'])
    assertInvalid(await read('cursor=not%20base64'), ['query:cursor'])
    assertInvalid(await read('failed=maybe'), ['query:failed'])
    assertInvalid(await read('eventId=two&userId=x'), ['query:eventId'])
  })
})
