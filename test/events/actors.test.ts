// Who acknowledged, resolved or wrote the rules, as another integrator of the farm sees it: never that integrator's
// UID (the credential of a --no-secret integrator, and the identity integrators never see of each other), in the
// feed, one event, an animal's events, the live stream, the alert rules and a webhook alike. The owner sees all.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createTestApp, type TestContext } from '../support/app.ts'
import { addAnimal, bearer, createIntegrator, createUser, integratorToken, userToken } from '../support/fixtures.ts'
import { announceEvent } from '../support/events.ts'
import { eventually } from '../support/eventually.ts'
import { LOCAL_DELIVERY_ENV, startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts'
import { OTHER_INTEGRATOR } from '../../src/modules/events/actors.rules.ts'

let ctx: TestContext
let base: string
let receiver: WebhookReceiver
before(async () => {
  receiver = await startWebhookReceiver()
  ctx = await createTestApp({ env: LOCAL_DELIVERY_ENV })
  base = await ctx.app.listen({ port: 0, host: '127.0.0.1' })
})
after(async () => {
  await ctx?.close()
  receiver?.close()
})

/** The first event a stream sends, read over the real port. */
async function firstStreamed(url: string, headers: Record<string, string>): Promise<Record<string, unknown>> {
  const abort = new AbortController()
  const res = await fetch(url, { headers, signal: abort.signal })
  assert.equal(res.status, 200)
  const reader = res.body!.getReader()
  const decoder = new TextDecoder()
  let buffer = ''
  try {
    for (;;) {
      const { value, done } = await reader.read()
      if (done) throw new Error('the stream ended without an event')
      buffer += decoder.decode(value, { stream: true })
      const data = /^data: (.*)$/m.exec(buffer)
      if (data) return JSON.parse(data[1]!) as Record<string, unknown>
    }
  } finally {
    abort.abort()
  }
}

describe("another integrator's actions, as an integrator of the same farm sees them", () => {
  it('show as another integrator, never its UID; the owner and the acting integrator see it', async () => {
    const farm = await createUser(ctx)
    const actor = await createIntegrator(ctx, { linkTo: [farm.uid], canWrite: true })
    const reader = await createIntegrator(ctx, { linkTo: [farm.uid] })
    const owner = bearer((await userToken(ctx, farm.email)).accessToken)
    const actorHeaders = bearer((await integratorToken(ctx, actor.uid)).accessToken)
    const readerHeaders = bearer((await integratorToken(ctx, reader.uid)).accessToken)
    const mac = 'AA:BB:CC:00:00:01'
    const created = await addAnimal(ctx, farm.uid, owner, { MAC: mac, Sex: 'female' })
    const acknowledged = await announceEvent(ctx, {
      uid: farm.uid,
      type: 'temperature-red',
      mac,
      animalId: Number(created.ID),
      value: 0.7,
      evidence: {},
    })
    const resolved = await announceEvent(ctx, { uid: farm.uid, type: 'tag-silent', mac, value: 60, evidence: {} })
    const farmPath = `/api/v1/users/${farm.uid}`
    const change = async (id: string, status: string) => {
      const res = await ctx.app.inject({
        method: 'PATCH',
        url: `${farmPath}/events/${id}`,
        headers: actorHeaders,
        payload: { status },
      })
      assert.equal(res.statusCode, 200, res.body)
    }
    await change(String(acknowledged.id), 'acknowledged')
    await change(String(resolved.id), 'resolved')
    const rules = await ctx.app.inject({
      method: 'PUT',
      url: `${farmPath}/alert-rules`,
      headers: actorHeaders,
      payload: { thresholds: { gestationDays: 116 } },
    })
    assert.equal(rules.statusCode, 200, rules.body)

    const get = async (url: string, headers: Record<string, string>) => {
      const res = await ctx.app.inject({ method: 'GET', url, headers })
      assert.equal(res.statusCode, 200, res.body)
      return res.json().data
    }
    const byId = (list: Record<string, unknown>[], id: unknown) => list.find((e) => e.ID === String(id))!
    for (const [headers, expected] of [
      [readerHeaders, OTHER_INTEGRATOR],
      [owner, actor.uid],
      [actorHeaders, actor.uid],
    ] as const) {
      const feed = await get(`${farmPath}/events`, headers)
      assert.equal(byId(feed, acknowledged.id).acknowledgedBy, expected)
      assert.equal(byId(feed, resolved.id).resolvedBy, expected)
      assert.equal((await get(`${farmPath}/events/${acknowledged.id}`, headers)).acknowledgedBy, expected)
      assert.equal(
        byId(await get(`${farmPath}/animals/${mac}/events`, headers), acknowledged.id).acknowledgedBy,
        expected,
      )
      assert.equal((await get(`${farmPath}/alert-rules`, headers)).updatedBy, expected)
      const streamed = await firstStreamed(`${base}${farmPath}/events/stream?after=0`, headers)
      assert.equal(streamed.ID, String(acknowledged.id))
      assert.equal(streamed.acknowledgedBy, expected)
    }
    // A webhook carries the event as it stands when sent: a redelivery after the acknowledgement.
    const subscribed = await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/webhooks/subscriptions',
      headers: readerHeaders,
      payload: { url: receiver.url, eventTypes: ['temperature-red'] },
    })
    assert.equal(subscribed.statusCode, 201, subscribed.body)
    const redelivered = await ctx.app.inject({
      method: 'POST',
      url: `/api/v1/webhooks/subscriptions/${subscribed.json().data.id}/redeliver`,
      headers: readerHeaders,
      payload: { userId: farm.uid, eventId: String(acknowledged.id) },
    })
    assert.equal(redelivered.statusCode, 200, redelivered.body)
    await eventually(
      () => receiver.received.length,
      (n) => n === 1,
      'the redelivered event',
    )
    const event = (JSON.parse(receiver.received[0]!.body) as { data: { event: Record<string, unknown> } }).data.event
    assert.equal(event.ID, String(acknowledged.id))
    assert.equal(event.acknowledgedBy, OTHER_INTEGRATOR)
  })

  it("names the owner's own actions to its integrators: the account's Uid is in every path they call", async () => {
    const farm = await createUser(ctx)
    const reader = await createIntegrator(ctx, { linkTo: [farm.uid] })
    const owner = bearer((await userToken(ctx, farm.email)).accessToken)
    const readerHeaders = bearer((await integratorToken(ctx, reader.uid)).accessToken)
    const event = await announceEvent(ctx, {
      uid: farm.uid,
      type: 'tag-silent',
      mac: 'AA:BB:CC:00:00:09',
      value: 60,
      evidence: {},
    })
    const url = `/api/v1/users/${farm.uid}/events/${event.id}`
    assert.equal(
      (await ctx.app.inject({ method: 'PATCH', url, headers: owner, payload: { status: 'acknowledged' } })).statusCode,
      200,
    )
    const seen = await ctx.app.inject({ method: 'GET', url, headers: readerHeaders })
    assert.equal(seen.json().data.acknowledgedBy, farm.uid)
  })
})
