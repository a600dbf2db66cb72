import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createTestApp, type TestContext } from '../support/app.ts'
import { assertError, assertInvalid } from '../support/assertions.ts'
import { bearer, createIntegrator, createUser, integratorToken, userToken } from '../support/fixtures.ts'
import { eventsFarm } from './farm.ts'

let ctx: TestContext
before(async () => {
  ctx = await createTestApp()
})
after(() => ctx.close())

const MINUTE = 60_000

describe('temperature band events at ingestion', () => {
  it('derives yellow, red and back to green from the delta to the reference, each once, resolving what they supersede', async () => {
    const farm = await eventsFarm(ctx)
    const sow = await farm.animal(38.0)
    const start = Date.now() - 60 * MINUTE
    await farm.readings(sow.MAC, [38.1, 38.2], start)
    assert.equal((await farm.list()).data.length, 0, 'green: no event')
    await farm.readings(sow.MAC, [38.45], start + 10 * MINUTE)
    await farm.readings(sow.MAC, [38.5], start + 11 * MINUTE)
    await farm.readings(sow.MAC, [38.9], start + 12 * MINUTE)
    await farm.readings(sow.MAC, [38.0], start + 13 * MINUTE)
    const { data } = await farm.list('?after=0')
    assert.deepEqual(
      data.map((e) => e.EventType),
      ['temperature-yellow', 'temperature-red', 'temperature-normal'],
    )
    const [yellow, red, normal] = data
    assert.equal(yellow!.MAC, sow.MAC)
    assert.equal(yellow!.Group, 'Farrowing 2')
    assert.equal(yellow!.Scale, 'delta °C')
    assert.equal(yellow!.Value, 0.45)
    assert.equal(yellow!.t, start + 10 * MINUTE)
    assert.equal(yellow!.severity, 'warning')
    assert.equal(red!.severity, 'critical')
    assert.equal(normal!.severity, 'info')
    assert.deepEqual(yellow!.evidence.referenceTemperature, 38)
    assert.equal(yellow!.evidence.band, 'yellow')
    // Each newer band resolved the one before it; the normal event, an all-clear, is stored resolved.
    assert.equal(yellow!.status, 'resolved')
    assert.equal(yellow!.resolvedBy, 'service')
    assert.equal(red!.status, 'resolved')
    assert.deepEqual(
      [normal!.status, normal!.resolvedBy, normal!.resolvedAt, normal!.acknowledgedBy],
      ['resolved', 'service', normal!.createdAt, null],
    )
    assert.ok(Number(yellow!.ID) < Number(red!.ID) && Number(red!.ID) < Number(normal!.ID))
  })

  it('raises nothing for history (readings over a day old when they arrive), and a live reading still raises its own', async () => {
    const farm = await eventsFarm(ctx)
    const sow = await farm.animal(38.0)
    const threeDaysAgo = Date.now() - 3 * 24 * 60 * MINUTE
    await farm.readings(sow.MAC, [39.2, 39.3], threeDaysAgo)
    assert.equal((await farm.list('?after=0')).data.length, 0, 'a fever three days back: no event now')
    const start = Date.now() - 10 * MINUTE
    await farm.readings(sow.MAC, [39.2], start)
    const { data } = await farm.list('?after=0')
    assert.deepEqual(
      data.map((e) => [e.EventType, e.t]),
      [['temperature-red', start]],
    )
  })

  it('derives nothing for an animal without a reference temperature, nor for a re-sent batch', async () => {
    const farm = await eventsFarm(ctx)
    const gilt = await farm.animal(null)
    const start = Date.now() - 30 * MINUTE
    await farm.readings(gilt.MAC, [40.5], start)
    assert.equal((await farm.list()).data.length, 0)
    const sow = await farm.animal(38.0)
    await farm.readings(sow.MAC, [39.0], start)
    await farm.readings(sow.MAC, [39.0], start)
    assert.equal((await farm.list()).data.length, 1)
  })

  it('holds a band while the delta hovers on its boundary (hysteresis)', async () => {
    const farm = await eventsFarm(ctx)
    const sow = await farm.animal(38.0)
    const start = Date.now() - 30 * MINUTE
    for (const [i, c] of [38.32, 38.28, 38.31, 38.27, 38.3].entries())
      await farm.readings(sow.MAC, [c], start + i * MINUTE)
    assert.deepEqual(
      (await farm.list('?after=0')).data.map((e) => e.EventType),
      ['temperature-yellow'],
    )
  })

  it("uses the account's thresholds, and derives no event of a kind that is off", async () => {
    const farm = await eventsFarm(ctx)
    const put = await farm.request('PUT', '/alert-rules', {
      thresholds: { temperatureYellowDelta: 0.5, temperatureRedDelta: 1.0 },
      kinds: { 'temperature-normal': { enabled: false, notifyRanks: [] } },
    })
    assert.equal(put.statusCode, 200, put.body)
    const sow = await farm.animal(38.0)
    const start = Date.now() - 30 * MINUTE
    await farm.readings(sow.MAC, [38.45], start)
    assert.equal((await farm.list()).data.length, 0, '0.45 is green under these rules')
    await farm.readings(sow.MAC, [38.8], start + MINUTE)
    await farm.readings(sow.MAC, [38.0], start + 2 * MINUTE)
    const { data } = await farm.list('?after=0')
    assert.deepEqual(
      data.map((e) => [e.EventType, e.status]),
      [['temperature-yellow', 'resolved']],
    )
  })
})

describe('the feed', () => {
  it('pages by cursor in creation order: nothing missed and nothing twice', async () => {
    const farm = await eventsFarm(ctx)
    const start = Date.now() - 60 * MINUTE
    for (let i = 0; i < 5; i++) {
      const sow = await farm.animal(38.0)
      await farm.readings(sow.MAC, [39.0], start + i * MINUTE)
    }
    const seen: string[] = []
    let cursor = '0'
    for (;;) {
      const { data } = await farm.list(`?after=${cursor}&limit=2`)
      seen.push(...data.map((e) => e.ID as string))
      if (data.length < 2) break
      cursor = data.at(-1)!.ID
    }
    assert.equal(seen.length, 5)
    assert.deepEqual(
      seen,
      [...seen].sort((a, b) => Number(a) - Number(b)),
    )
    assert.equal(new Set(seen).size, 5)
  })

  it("links the cursor's next page by after=<last ID> while more remain, and refuses a page beside the cursor", async () => {
    const farm = await eventsFarm(ctx)
    const start = Date.now() - 60 * MINUTE
    for (let i = 0; i < 3; i++) {
      const sow = await farm.animal(38.0)
      await farm.readings(sow.MAC, [39.0], start + i * MINUTE)
    }
    const first = await farm.request('GET', '/events?after=0&limit=2&EventType=temperature-red')
    assert.equal(first.statusCode, 200, first.body)
    const ids = first.json<{ data: { ID: string }[] }>().data.map((e) => e.ID)
    assert.equal(ids.length, 2)
    assert.equal(
      first.headers.link,
      `<${farm.base}/events?after=${ids[1]}&limit=2&EventType=temperature-red>; rel="next"`,
    )
    const next = await farm.request('GET', first.headers.link.slice(farm.base.length + 1).split('>')[0]!)
    assert.equal(next.statusCode, 200, next.body)
    const rest = next.json<{ data: { ID: string }[] }>().data.map((e) => e.ID)
    assert.equal(rest.length, 1)
    assert.ok(Number(rest[0]) > Number(ids[1]), 'the next link reads on, not the same page again')
    assert.equal(next.headers.link, undefined, 'the last page links nowhere')
    const animal = await farm.request('GET', `/animals/${first.json().data[0].MAC}/events?after=0&limit=1`)
    assert.equal(animal.statusCode, 200, animal.body)
    assert.equal(animal.headers.link, undefined, "one animal's single event: no next")
    assertInvalid(await farm.request('GET', '/events?after=0&page=2'), ['query:page'])
    assertInvalid(await farm.request('GET', `/animals/${first.json().data[0].MAC}/events?after=0&page=2`), [
      'query:page',
    ])
    assert.equal((await farm.request('GET', '/events?after=0&page=1')).statusCode, 200)
    const paged = await farm.request('GET', '/events?limit=2')
    assert.match(paged.headers.link as string, /page=2>; rel="next"/, 'without the cursor, pages as every list')
  })

  it('filters by EventType, MAC, severity, status and time, and reads one event and one animal', async () => {
    const farm = await eventsFarm(ctx)
    const a = await farm.animal(38.0)
    const b = await farm.animal(38.0)
    const start = Date.now() - 60 * MINUTE
    await farm.readings(a.MAC, [38.4], start)
    await farm.readings(b.MAC, [38.9], start + 5 * MINUTE)
    assert.equal((await farm.list('?EventType=temperature-red')).data.length, 1)
    assert.equal((await farm.list(`?MAC=${a.MAC.toLowerCase()}`)).data[0]!.EventType, 'temperature-yellow')
    assert.equal((await farm.list('?severity=critical')).data[0]!.MAC, b.MAC)
    assert.equal((await farm.list('?status=open')).pagination.total, 2)
    assert.equal((await farm.list(`?since=${start + MINUTE}`)).data.length, 1)
    assert.equal((await farm.list(`?until=${start + MINUTE}`)).data.length, 1)
    assert.equal((await farm.list('?filter[EventType]=temperature-red')).data.length, 1)
    const { data } = await farm.list('?sortBy=t&sortOrder=asc')
    assert.deepEqual(
      data.map((e) => e.MAC),
      [a.MAC, b.MAC],
    )
    const one = await farm.request('GET', `/events/${data[0]!.ID}`)
    assert.equal(one.statusCode, 200)
    assert.deepEqual(one.json().data, data[0])
    const ofB = await farm.request('GET', `/animals/${b.MAC}/events`)
    assert.equal(ofB.statusCode, 200)
    assert.deepEqual(
      ofB.json().data.map((e: { MAC: string }) => e.MAC),
      [b.MAC],
    )
  })

  it('refuses bad parameters with 400 and unknown ids with 404', async () => {
    const farm = await eventsFarm(ctx)
    assertInvalid(await farm.request('GET', '/events?EventType=fire'), ['query:EventType'])
    assertInvalid(await farm.request('GET', '/events?after=-1'), ['query:after'])
    assertInvalid(await farm.request('GET', '/events?after=abc'), ['query:after'])
    assertInvalid(await farm.request('GET', '/events?since=5&until=4'), ['query:since'])
    assertInvalid(await farm.request('GET', '/events?MAC=nope'), ['query:MAC'])
    assertInvalid(await farm.request('GET', '/events?limit=101'), ['query:limit'])
    assertInvalid(await farm.request('GET', '/events?sortBy=evidence'), ['query:sortBy'])
    assertInvalid(await farm.request('GET', '/events?color=red'), ['query:color'])
    assertError(await farm.request('GET', '/events/12345'), 404, 'Event not found')
    assertError(await farm.request('GET', '/events/not-a-number'), 404, 'Event not found')
    assertError(await farm.request('GET', '/events/99999999999999999999999'), 404, 'Event not found')
    assertError(await farm.request('GET', '/animals/AA:AA:AA:AA:AA:AA/events'), 404, 'Animal not found')
    assertError(await farm.request('GET', '/animals/not-a-mac/events'), 404, 'Animal not found')
    assertInvalid(await farm.request('GET', '/animals/AA:AA:AA:AA:AA:AA/events?limit=0'), ['query:limit'])
    assertError(await farm.request('PATCH', '/events/77', { status: 'resolved' }), 404, 'Event not found')
  })
})

describe('acknowledging and resolving', () => {
  it('records who and when with the note; a resolved event cannot be acknowledged again', async () => {
    const farm = await eventsFarm(ctx)
    const sow = await farm.animal(38.0)
    await farm.readings(sow.MAC, [39.0], Date.now() - 10 * MINUTE)
    const [event] = (await farm.list()).data
    const ack = await farm.request('PATCH', `/events/${event!.ID}`, { status: 'acknowledged', note: 'Vet called' })
    assert.equal(ack.statusCode, 200, ack.body)
    assert.equal(ack.json().message, 'Event acknowledged')
    assert.equal(ack.json().data.status, 'acknowledged')
    assert.equal(ack.json().data.acknowledgedBy, farm.user.uid)
    assert.equal(ack.json().data.note, 'Vet called')
    assert.ok(ack.json().data.acknowledgedAt > 0)
    const resolved = await farm.request('PATCH', `/events/${event!.ID}`, { status: 'resolved' }, farm.writer)
    assert.equal(resolved.statusCode, 200, resolved.body)
    assert.equal(resolved.json().data.resolvedBy, farm.integrator.uid)
    assert.equal(resolved.json().data.note, 'Vet called')
    assertError(
      await farm.request('PATCH', `/events/${event!.ID}`, { status: 'acknowledged' }),
      409,
      'Event is resolved already',
    )
    assertInvalid(await farm.request('PATCH', `/events/${event!.ID}`, { status: 'open' }), ['status'])
    assertInvalid(await farm.request('PATCH', `/events/${event!.ID}`, { status: 'resolved', by: 'me' }), ['by'])
    assertInvalid(await farm.request('PATCH', `/events/${event!.ID}`, { status: 'resolved', note: '' }), ['note'])
  })
})

describe('all-clears', () => {
  it('stores an all-clear resolved by the service, out of status=open; acknowledging it is a 409, as for any resolved event', async () => {
    const farm = await eventsFarm(ctx)
    const sow = await farm.animal(38.0)
    const start = Date.now() - 30 * MINUTE
    await farm.readings(sow.MAC, [39.0], start)
    await farm.readings(sow.MAC, [38.0], start + MINUTE)
    const [red, normal] = (await farm.list('?after=0')).data
    assert.deepEqual([red!.EventType, normal!.EventType], ['temperature-red', 'temperature-normal'])
    assert.equal((await farm.list('?status=open')).pagination.total, 0, 'nothing needs attention')
    assert.equal((await farm.list('?status=acknowledged')).pagination.total, 0)
    assert.deepEqual(
      (await farm.list('?status=resolved&sortBy=ID&sortOrder=asc')).data.map((e) => e.ID),
      [red!.ID, normal!.ID],
    )
    // One event, one animal's events, and an integrator's view alike: resolved by the service when created.
    for (const [path, headers] of [
      [`/events/${normal!.ID}`, farm.owner],
      [`/events/${normal!.ID}`, farm.writer],
      [`/animals/${sow.MAC}/events?EventType=temperature-normal`, farm.writer],
    ] as const) {
      const res = await farm.request('GET', path, undefined, headers)
      assert.equal(res.statusCode, 200, res.body)
      const body = res.json().data
      const event = Array.isArray(body) ? body[0] : body
      assert.deepEqual(
        [event.ID, event.status, event.resolvedBy, event.resolvedAt],
        [normal!.ID, 'resolved', 'service', normal!.createdAt],
        path,
      )
    }

    for (const headers of [farm.owner, farm.writer])
      assertError(
        await farm.request('PATCH', `/events/${normal!.ID}`, { status: 'acknowledged', note: 'seen' }, headers),
        409,
        'Event is resolved already',
      )
    const unchanged = (await farm.request('GET', `/events/${normal!.ID}`)).json().data
    assert.deepEqual(unchanged, normal, 'a refused acknowledgement changes nothing')
    // Resolving a resolved event again keeps the latest, all-clears as any other.
    const resolved = await farm.request('PATCH', `/events/${normal!.ID}`, { status: 'resolved', note: 'checked' })
    assert.equal(resolved.statusCode, 200, resolved.body)
    assert.equal(resolved.json().message, 'Event resolved')
    const again = resolved.json().data
    assert.deepEqual([again.status, again.resolvedBy, again.note], ['resolved', farm.user.uid, 'checked'])
    assert.ok(again.resolvedAt >= normal!.resolvedAt)
    assertInvalid(await farm.request('PATCH', `/events/${normal!.ID}`, { status: 'open' }), ['status'])
    assert.equal((await farm.list('?status=open')).pagination.total, 0)
  })
})

describe('access', () => {
  it("shows an account's events to its owner and linked integrators only; writes need canWrite", async () => {
    const farm = await eventsFarm(ctx)
    const sow = await farm.animal(38.0)
    await farm.readings(sow.MAC, [39.0], Date.now() - 10 * MINUTE)
    const [event] = (await farm.list()).data
    const other = await createUser(ctx)
    const otherToken = bearer((await userToken(ctx, other.email)).accessToken)
    const stranger = await createIntegrator(ctx, { tier: 'enterprise', canWrite: true })
    const strangerToken = bearer((await integratorToken(ctx, stranger.uid)).accessToken)
    const reader = await createIntegrator(ctx, { tier: 'free', linkTo: [farm.user.uid] })
    const readerToken = bearer((await integratorToken(ctx, reader.uid)).accessToken)
    for (const path of ['/events', `/events/${event!.ID}`, `/animals/${sow.MAC}/events`, '/alert-rules']) {
      assertError(
        await farm.request('GET', path, undefined, otherToken),
        403,
        "You do not have access to this user's data",
      )
      assertError(
        await farm.request('GET', path, undefined, strangerToken),
        403,
        "Integrator does not have access to this user's data",
      )
      assert.equal((await farm.request('GET', path, undefined, readerToken)).statusCode, 200)
    }
    const denied = await farm.request('PUT', '/alert-rules', {}, readerToken)
    assert.equal(denied.statusCode, 403)
    assert.equal(
      (await farm.request('PATCH', `/events/${event!.ID}`, { status: 'resolved' }, readerToken)).statusCode,
      403,
    )
    // The other account's feed does not show this account's events.
    const own = await ctx.app.inject({ method: 'GET', url: `/api/v1/users/${other.uid}/events`, headers: otherToken })
    assert.equal(own.json().data.length, 0)
  })
})

describe('alert rules', () => {
  it('answers the defaults with no setup, and keeps what PUT left out at its default', async () => {
    const farm = await eventsFarm(ctx)
    const res = await farm.request('GET', '/alert-rules')
    assert.equal(res.statusCode, 200, res.body)
    const rules = res.json().data
    assert.equal(rules.thresholds.temperatureYellowDelta, 0.3)
    assert.equal(rules.thresholds.gestationDays, 115)
    assert.deepEqual(rules.kinds['heat-alarm'], { enabled: true, notifyRanks: [3] })
    assert.equal(rules.updatedAt, null)
    const put = await farm.request('PUT', '/alert-rules', {
      thresholds: { gestationDays: 116 },
      kinds: { 'heat-alarm': { enabled: true, notifyRanks: [2, 3] } },
      quietHours: { '3': null },
      timeZone: 'Europe/Copenhagen',
    })
    assert.equal(put.statusCode, 200, put.body)
    assert.equal(put.json().message, 'Alert rules saved')
    const saved = put.json().data
    assert.equal(saved.thresholds.gestationDays, 116)
    assert.equal(saved.thresholds.pregnancyCheckDays, 28)
    assert.deepEqual(saved.kinds['heat-alarm'].notifyRanks, [2, 3])
    assert.deepEqual(saved.kinds['birth-alarm'].notifyRanks, [3])
    assert.equal(saved.quietHours['3'], null)
    assert.deepEqual(saved.quietHours['2'], { start: '22:00', end: '06:00' })
    assert.equal(saved.updatedBy, farm.user.uid)
    assert.deepEqual((await farm.request('GET', '/alert-rules')).json().data, saved)
    const reset = await farm.request('PUT', '/alert-rules', {})
    assert.equal(reset.json().data.thresholds.gestationDays, 115)
  })

  it('takes back the document GET gave, and refuses it with 409 once someone else wrote the rules since its updatedAt', async () => {
    const farm = await eventsFarm(ctx)
    const fresh = (await farm.request('GET', '/alert-rules')).json().data
    fresh.thresholds.gestationDays = 117
    const first = await farm.request('PUT', '/alert-rules', fresh)
    assert.equal(first.statusCode, 200, first.body)
    const read = first.json().data
    assert.equal(read.thresholds.gestationDays, 117)
    // null said "never written": that no longer holds.
    const again = await farm.request('PUT', '/alert-rules', { ...fresh, thresholds: { gestationDays: 118 } })
    assertError(again, 409, 'The alert rules changed since updatedAt: read them again and apply the change to them')
    const second = await farm.request('PUT', '/alert-rules', { ...read, timeZone: 'Europe/Berlin' })
    assert.equal(second.statusCode, 200, second.body)
    assert.equal(second.json().data.thresholds.gestationDays, 117)
    assert.ok(second.json().data.updatedAt > read.updatedAt, 'each write moves updatedAt, within a millisecond too')
    const stale = await farm.request('PUT', '/alert-rules', { ...read, thresholds: { gestationDays: 120 } })
    assertError(stale, 409, 'The alert rules changed since updatedAt: read them again and apply the change to them')
    const now = (await farm.request('GET', '/alert-rules')).json().data
    assert.equal(now.thresholds.gestationDays, 117)
    assert.equal(now.timeZone, 'Europe/Berlin')
    // Without updatedAt a PUT replaces whatever is there, as before.
    assert.equal((await farm.request('PUT', '/alert-rules', { updatedBy: 'someone' })).statusCode, 200)
    assertInvalid(await farm.request('PUT', '/alert-rules', { updatedAt: 'yesterday' }), ['updatedAt'])
    assertInvalid(await farm.request('PUT', '/alert-rules', { updatedAt: -1 }), ['updatedAt'])
  })

  it('refuses rules that are out of bounds, inconsistent or unknown', async () => {
    const farm = await eventsFarm(ctx)
    const put = (body: unknown) => farm.request('PUT', '/alert-rules', body)
    assertInvalid(await put({ thresholds: { temperatureYellowDelta: 0.7, temperatureRedDelta: 0.6 } }), [
      'thresholds.temperatureRedDelta',
    ])
    assertInvalid(await put({ thresholds: { gestationDays: 99 } }), ['thresholds.gestationDays'])
    assertInvalid(await put({ thresholds: { gestationDays: 131 } }), ['thresholds.gestationDays'])
    assertInvalid(await put({ thresholds: { heatProbability: 1.5 } }), ['thresholds.heatProbability'])
    assertInvalid(await put({ thresholds: { heatProbability: '0.5' } }), ['thresholds.heatProbability'])
    assertInvalid(await put({ thresholds: { probabilityHysteresis: 0.05, lamenessProbability: 0.04 } }), [
      'thresholds.probabilityHysteresis',
    ])
    assertInvalid(await put({ thresholds: { loudness: 3 } }), ['thresholds.loudness'])
    assertInvalid(await put({ kinds: { 'fire-alarm': { enabled: true, notifyRanks: [] } } }), ['kinds.fire-alarm'])
    assertInvalid(await put({ kinds: { 'heat-alarm': { enabled: true, notifyRanks: [4] } } }), [
      'kinds.heat-alarm.notifyRanks[0]',
    ])
    assertInvalid(await put({ quietHours: { '2': { start: '25:00', end: '06:00' } } }), [
      'quietHours[2]',
      'quietHours[2].start',
    ])
    assertInvalid(await put({ quietHours: { '2': { start: '06:00', end: '06:00' } } }), ['quietHours[2]'])
    assertInvalid(await put({ timeZone: 'Mars/Olympus' }), ['timeZone'])
    assertInvalid(await put({ color: 'red' }), ['color'])
  })
})
