// The events that come from time passing (the events job), from farm records, and from predictions.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { deriveScheduledEvents } from '../../src/jobs/events.ts'
import { withDefaults } from '../../src/modules/events/alert-rules.rules.ts'
import { dateOf, dayOf as dayOfDate, dayOfInstant } from '../../src/modules/cycle/cycle.rules.ts'
import { derivePredictionEvents } from '../../src/modules/events/prediction-events.ts'
import { createTestApp, type TestContext } from '../support/app.ts'
import { eventsFarm, nextMac } from './farm.ts'

let ctx: TestContext
before(async () => {
  ctx = await createTestApp()
})
after(() => ctx.close())

/** YYYY-MM-DD of an instant, and the date `days` after a date. */
const dayOf = (ms: number) => dateOf(dayOfInstant(ms))
const addDays = (date: string, days: number) => dateOf(dayOfDate(date)! + days)

const MINUTE = 60_000
const HOUR = 60 * MINUTE

const run = (uid: string, now = Date.now()) => deriveScheduledEvents(ctx.database.db, { now, uid, activity: true })

describe('ear tags', () => {
  it('opens one tag-silent event after the silent minutes, and resolves it with tag-heard when readings return', async () => {
    const farm = await eventsFarm(ctx)
    const sow = await farm.animal(null)
    const lastHeard = Date.now() - 2 * HOUR
    await farm.readings(sow.MAC, [38.0], lastHeard)
    assert.equal((await run(farm.user.uid, lastHeard + 59 * MINUTE)).length, 0)
    const [silent] = await run(farm.user.uid)
    assert.equal(silent?.event_type, 'tag-silent')
    assert.equal((await run(farm.user.uid)).length, 0, 'once per silence')
    await farm.readings(sow.MAC, [38.1], Date.now() - MINUTE)
    const { data } = await farm.list('?after=0')
    assert.deepEqual(
      data.map((e) => [e.EventType, e.status]),
      [
        ['tag-silent', 'resolved'],
        ['tag-heard', 'resolved'],
      ],
    )
    assert.deepEqual([data[1]!.resolvedBy, data[1]!.resolvedAt], ['service', data[1]!.createdAt])
    assert.equal(data[0]!.Value, 120)
    assert.equal(data[0]!.evidence.lastHeard, lastHeard)
    assert.equal(data[0]!.t, lastHeard + 60 * MINUTE)
    assert.equal(data[1]!.Scale, 'minutes')
  })

  it('opens one battery event below the battery threshold, resolved when the battery is back', async () => {
    const farm = await eventsFarm(ctx)
    const sow = await farm.animal(null)
    const patch = (Battery: number) => farm.request('PATCH', `/animals/${sow.ID}`, { Battery }, farm.writer)
    assert.equal((await patch(15)).statusCode, 200)
    assert.deepEqual(
      (await run(farm.user.uid)).map((e) => e.event_type),
      ['tag-battery-low'],
    )
    assert.equal((await run(farm.user.uid)).length, 0)
    await patch(95)
    await run(farm.user.uid)
    const [event] = (await farm.list()).data
    assert.equal(event!.status, 'resolved')
    assert.equal(event!.Value, 15)
    assert.equal(event!.Scale, '%')
  })
})

describe('litter devices', () => {
  it('opens litter-offline after the offline minutes and litter-online when data comes back', async () => {
    const farm = await eventsFarm(ctx)
    const mac = nextMac()
    const created = await farm.request('POST', '/litterguards', { MAC: mac, Name: 'Pen 3' }, farm.writer)
    assert.equal(created.statusCode, 201, created.body)
    const send = async (seconds: number) => {
      const res = await farm.request(
        'POST',
        `/litterguards/${mac}/sensordata`,
        { readings: [{ t: seconds, c: 31, x: 0, y: 0, z: 1 }] },
        farm.writer,
      )
      assert.equal(res.statusCode, 200, res.body)
    }
    await send(Math.floor((Date.now() - HOUR) / 1000))
    assert.deepEqual(
      (await run(farm.user.uid)).map((e) => e.event_type),
      ['litter-offline'],
    )
    assert.equal((await run(farm.user.uid)).length, 0)
    await send(Math.floor(Date.now() / 1000) - 5)
    const { data } = await farm.list('?after=0')
    assert.deepEqual(
      data.map((e) => [e.EventType, e.status, e.MAC, e.Group]),
      [
        ['litter-offline', 'resolved', mac, null],
        ['litter-online', 'resolved', mac, null],
      ],
    )
    assert.deepEqual([data[1]!.resolvedBy, data[1]!.resolvedAt], ['service', data[1]!.createdAt])
  })
})

describe('due dates from the farm records', () => {
  it('opens farrowing due when a service is 115 days old and resolves it when the birth is recorded', async () => {
    const farm = await eventsFarm(ctx)
    const sow = await farm.animal(null)
    const today = dayOf(Date.now())
    const served = await farm.request('POST', `/animals/${sow.MAC}/inseminations`, {
      Boar: 'Duroc',
      StartDate: addDays(today, -115),
    })
    assert.equal(served.statusCode, 201, served.body)
    // The record itself opened it (the pregnancy check, 87 days late, is past its window).
    let { data } = await farm.list()
    assert.deepEqual(
      data.map((e) => [e.EventType, e.status]),
      [['farrowing-due', 'open']],
    )
    assert.equal(data[0]!.Value, 115)
    assert.equal(data[0]!.evidence.recordId, served.json().data.ID)
    assert.equal(data[0]!.evidence.expectedFarrowingDate, today)
    assert.equal(data[0]!.t, Date.parse(`${today}T00:00:00Z`))
    assert.equal((await run(farm.user.uid)).length, 0, 'once')
    const born = await farm.request('POST', `/animals/${sow.MAC}/births`, { Living: 12, Dead: 0, StartDate: today })
    assert.equal(born.statusCode, 201, born.body)
    ;({ data } = await farm.list())
    assert.equal(data[0]!.status, 'resolved')
    assert.equal(data[0]!.resolvedBy, 'service')
  })

  it("uses the account's gestation length, and opens the pregnancy check when it is due", async () => {
    const farm = await eventsFarm(ctx)
    await farm.request('PUT', '/alert-rules', { thresholds: { gestationDays: 117 } })
    const sow = await farm.animal(null)
    const today = dayOf(Date.now())
    await farm.request('POST', `/animals/${sow.MAC}/inseminations`, { Boar: 'Duroc', StartDate: addDays(today, -116) })
    assert.equal((await farm.list()).data.length, 0, 'due tomorrow under 117 days')
    const gilt = await farm.animal(null)
    await farm.request('POST', `/animals/${gilt.MAC}/inseminations`, { Boar: 'Duroc', StartDate: addDays(today, -30) })
    const { data } = await farm.list()
    assert.deepEqual(
      data.map((e) => [e.EventType, e.MAC]),
      [['pregnancy-check-due', gilt.MAC]],
    )
    await farm.request('POST', `/animals/${gilt.MAC}/pregnancy-checks`, { checkDate: today, result: 'pregnant' })
    assert.equal((await farm.list()).data[0]!.status, 'resolved')
  })

  it('opens weaned-not-served N days after a weaning and resolves it with the next service', async () => {
    const farm = await eventsFarm(ctx)
    const sow = await farm.animal(null)
    const today = dayOf(Date.now())
    await farm.request('POST', `/animals/${sow.MAC}/weanings`, { weaningDate: addDays(today, -8), countWeaned: 11 })
    assert.deepEqual(
      (await farm.list()).data.map((e) => e.EventType),
      ['weaned-not-served'],
    )
    await farm.request('POST', `/animals/${sow.MAC}/inseminations`, { Boar: 'Duroc', StartDate: today })
    assert.equal((await farm.list()).data[0]!.status, 'resolved')
  })
})

describe('prediction alarms', () => {
  it('raises one event per episode: rising edge, hysteresis, cooldown', async () => {
    const farm = await eventsFarm(ctx)
    const sow = await farm.animal(null)
    const rules = withDefaults({ thresholds: { birthProbability: 0.7, probabilityHysteresis: 0.1 } })
    const start = Date.UTC(2026, 10, 1)
    const probabilities = [
      0.2, 0.75, 0.9, 0.65, 0.8, 0.5, 0.9, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.85,
    ]
    const scores = probabilities.map((probability, i) => ({
      animalId: Number(sow.ID),
      mac: sow.MAC,
      group: 'Farrowing 2',
      classificationType: 'birth' as const,
      predictedAt: start + i * HOUR,
      probability,
    }))
    const raised = await derivePredictionEvents(ctx.database.db, farm.user.uid, rules, scores, Date.now())
    // Raised at hour 1; cleared at hour 5 (0.5 < 0.7 − 0.1); 0.9 at hour 6 is within the 12 h cooldown; raised again at hour 20.
    assert.deepEqual(
      raised.map((e) => [e.event_type, Number(e.t)]),
      [
        ['birth-alarm', start + HOUR],
        ['birth-alarm', start + 20 * HOUR],
      ],
    )
    assert.equal((await derivePredictionEvents(ctx.database.db, farm.user.uid, rules, scores, Date.now())).length, 0)
    const { data } = await farm.list('?after=0')
    assert.deepEqual(
      data.map((e) => [e.status, e.Value, e.Scale]),
      [
        ['resolved', 0.75, 'probability'],
        ['open', 0.85, 'probability'],
      ],
    )
    assert.equal(data[0]!.evidence.threshold, 0.7)
  })
})
