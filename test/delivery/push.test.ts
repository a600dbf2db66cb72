// Push notifications through a local stand-in that speaks FCM HTTP v1 (an OAuth token endpoint and
// messages:send): the service authorises with a service-account key, sends each event to the phones of the
// ranks its kind notifies, in the user's language, and drops a token FCM calls UNREGISTERED.
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { sql } from 'kysely'
import { createTestApp, type TestContext } from '../support/app.ts'
import { bearer, createUser, userToken } from '../support/fixtures.ts'
import { eventually } from '../support/eventually.ts'
import { startFcmStandIn, type FcmStandIn } from '../support/fcm-stand-in.ts'
import { announceEvent, withoutQuietHours } from '../support/events.ts'
import { createFcmSender } from '../../src/modules/delivery/fcm.ts'

let ctx: TestContext
let standIn: FcmStandIn

/** A birth alarm of the account, stored and announced as the predictions job does. */
function announceBirthAlarm(uid: string, mac: string, group: string) {
  const evidence = { probability: 0.91, threshold: 0.3441 }
  return announceEvent(ctx, { uid, type: 'birth-alarm', mac, group, value: 0.91, evidence })
}

/** The account's push delivery as the outbox holds it (one event a test). */
async function pushDelivery(uid: string) {
  const { rows } = await sql<{ status: string; attempts: number; last_error: string | null }>`
    SELECT status, attempts, last_error FROM deliveries WHERE uid = ${uid}`.execute(ctx.database.db)
  return rows[0]
}

describe('push notifications through FCM HTTP v1', () => {
  before(async () => {
    standIn = await startFcmStandIn({ unregistered: ['dead-phone'], unavailableOnce: ['busy-phone'] })
    ctx = await createTestApp({ env: { ...standIn.env, DELIVERY_POLL_MS: '50' } })
  })
  after(async () => {
    await ctx?.close()
    await standIn?.close()
  })

  it('sends an event to the phones of the notified ranks, in the user language, and drops an unregistered token', async () => {
    const user = await createUser(ctx)
    const { accessToken } = await userToken(ctx, user.email)
    const headers = bearer(accessToken)
    const language = await ctx.app.inject({
      method: 'PATCH',
      url: `/api/v1/users/${user.uid}`,
      headers,
      payload: { Language: 'de-AT' },
    })
    assert.equal(language.statusCode, 200, language.body)
    await withoutQuietHours(ctx, user.uid, headers)
    for (const [token, rank] of [
      ['worker-phone', 3],
      ['manager-phone', 2],
      ['dead-phone', 3],
    ] as const) {
      const added = await ctx.app.inject({
        method: 'POST',
        url: `/api/v1/users/${user.uid}/push-tokens`,
        headers,
        payload: { token, customName: token, name: 'Phone', email: user.email, rank },
      })
      assert.equal(added.statusCode, 201, added.body)
    }
    const row = await announceBirthAlarm(user.uid, 'A4:C1:38:5F:2B:91', 'Abferkelstall 2')

    const [message] = await eventually(
      () => standIn.sent,
      (list) => list.length >= 1,
      'a push message',
    )
    assert.equal(message!.message.token, 'worker-phone')
    assert.equal(message!.message.notification.title, 'Abferkelung erwartet')
    // The tag, its group and why, in the user's language.
    assert.equal(
      message!.message.notification.body,
      'A4:C1:38:5F:2B:91 · Abferkelstall 2 · Wahrscheinlichkeit 91\u00a0%, Alarm ab 34\u00a0%',
    )
    assert.equal(message!.message.data.eventId, String(row.id))
    assert.match(message!.authorization ?? '', /^Bearer ya29\.stand-in-\d+$/)
    const phones = await eventually(
      async () =>
        (await ctx.app.inject({ method: 'GET', url: `/api/v1/users/${user.uid}/push-tokens`, headers })).json()
          .data as {
          Token: string
        }[],
      (list) => !list.some((p) => p.Token === 'dead-phone'),
      'the unregistered token removed',
    )
    assert.deepEqual(phones.map((p) => p.Token).sort(), ['manager-phone', 'worker-phone'])
    await new Promise((resolve) => setTimeout(resolve, 300))
    assert.deepEqual(
      standIn.sent.map((s) => s.message.token),
      ['worker-phone'],
      'the manager is not told of a birth alarm by default, and nothing is sent twice',
    )
  })

  it('sends a retry only to the phone that was not reached', async () => {
    const user = await createUser(ctx)
    const { accessToken } = await userToken(ctx, user.email)
    const headers = bearer(accessToken)
    await withoutQuietHours(ctx, user.uid, headers)
    for (const token of ['calm-phone', 'busy-phone']) {
      const added = await ctx.app.inject({
        method: 'POST',
        url: `/api/v1/users/${user.uid}/push-tokens`,
        headers,
        payload: { token, customName: token, name: 'Phone', email: user.email, rank: 3 },
      })
      assert.equal(added.statusCode, 201, added.body)
    }
    const toThisFarm = () => standIn.sent.filter((s) => ['calm-phone', 'busy-phone'].includes(s.message.token))
    await announceBirthAlarm(user.uid, 'A4:C1:38:5F:2B:93', 'Farrowing 3')
    const pending = await eventually(
      () => pushDelivery(user.uid),
      (d) => d !== undefined && d.attempts === 1 && d.status === 'pending' && d.last_error !== null,
      'the first attempt settled for a retry',
    )
    assert.match(pending?.last_error ?? '', /FCM 503/)
    assert.deepEqual(
      toThisFarm().map((s) => s.message.token),
      ['calm-phone'],
    )
    await sql`UPDATE deliveries SET next_attempt_at = 0 WHERE uid = ${user.uid}`.execute(ctx.database.db)
    ctx.app.deliveries?.wake()
    const delivered = await eventually(
      () => pushDelivery(user.uid),
      (d) => d?.status === 'delivered',
      'the retry delivered',
    )
    assert.equal(delivered?.attempts, 2)
    assert.deepEqual(
      toThisFarm()
        .map((s) => s.message.token)
        .sort(),
      ['busy-phone', 'calm-phone'],
      'the phone reached the first time is not sent the alert again',
    )
  })

  it('sends nothing to the phones of an account its owner deactivated', async () => {
    const user = await createUser(ctx)
    const { accessToken } = await userToken(ctx, user.email)
    const headers = bearer(accessToken)
    await withoutQuietHours(ctx, user.uid, headers)
    const added = await ctx.app.inject({
      method: 'POST',
      url: `/api/v1/users/${user.uid}/push-tokens`,
      headers,
      payload: { token: 'left-farm-phone', customName: 'Phone', name: 'Phone', email: user.email, rank: 3 },
    })
    assert.equal(added.statusCode, 201, added.body)
    const status = await ctx.app.inject({
      method: 'PATCH',
      url: `/api/v1/users/${user.uid}/status`,
      headers,
      payload: { inactive: true },
    })
    assert.equal(status.statusCode, 200, status.body)
    await announceBirthAlarm(user.uid, 'A4:C1:38:5F:2B:92', 'Farrowing 1')
    const delivery = await eventually(
      () => pushDelivery(user.uid),
      (d) => d !== undefined && d.status !== 'pending',
      'the push delivery settled',
    )
    assert.deepEqual(
      { status: delivery?.status, last_error: delivery?.last_error },
      { status: 'cancelled', last_error: 'account inactive' },
    )
    assert.ok(!standIn.sent.some((s) => s.message.token === 'left-farm-phone'))
  })
})

describe('the FCM service-account key', () => {
  it('refuses a file that cannot be read or is not a key, naming FCM_SERVICE_ACCOUNT_FILE', () => {
    const dir = mkdtempSync(join(tmpdir(), 'lsapi-fcm-key-'))
    try {
      const sender = (file: string) => () => createFcmSender({ serviceAccountFile: file, timeoutMs: 1000 })
      assert.throws(
        sender(join(dir, 'missing.json')),
        /^Error: FCM_SERVICE_ACCOUNT_FILE .*missing\.json cannot be read as a service-account key: ENOENT/,
      )
      writeFileSync(join(dir, 'text.json'), 'not json')
      assert.throws(
        sender(join(dir, 'text.json')),
        /FCM_SERVICE_ACCOUNT_FILE .*text\.json cannot be read as a service-account key/,
      )
      writeFileSync(join(dir, 'partial.json'), JSON.stringify({ project_id: 'farm' }))
      assert.throws(
        sender(join(dir, 'partial.json')),
        /is not a service-account key: it lacks client_email, private_key$/,
      )
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
