// The due events and the herd's due lists come from the same cycle rules (cycle.rules.ts dueItems) with the
// farm's own figures: on one farm's records, the sows with an open farrowing-due, pregnancy-check-due or
// weaned-not-served event are those on the due-to-farrow, pregnancy-check and weaned-not-served lists, with the
// same due dates. The cases where the two used to disagree are among them: a repeat service of one heat, a
// recheck, a cull, a split weaning.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { deriveScheduledEvents } from '../../src/jobs/events.ts'
import { dateOf, dayOfInstant } from '../../src/modules/cycle/cycle.rules.ts'
import { createTestApp, type TestContext } from '../support/app.ts'
import { eventsFarm } from './farm.ts'

let ctx: TestContext
before(async () => {
  ctx = await createTestApp()
})
after(() => ctx.close())

const at = (days: number) => dateOf(dayOfInstant(Date.now()) + days)

describe('due events and due lists', () => {
  it("agree on one farm's records, with the farm's gestation length and check days", async () => {
    const farm = await eventsFarm(ctx)
    const rules = await farm.request('PUT', '/alert-rules', {
      thresholds: { gestationDays: 114, pregnancyCheckDays: 30, weanedNotServedDays: 5, farrowingLeadDays: 6 },
    })
    assert.equal(rules.statusCode, 200, rules.body)
    const sows: Record<string, string> = {}
    const record = async (name: string, path: string, body: object) => {
      sows[name] ??= (await farm.animal(null)).MAC
      const res = await farm.request('POST', `/animals/${sows[name]}/${path}`, body)
      assert.equal(res.statusCode, 201, `${name} ${path}: ${res.body}`)
      return res.json().data as { ID: string }
    }
    const serve = (name: string, days: number) => record(name, 'inseminations', { Boar: 'Duroc', StartDate: at(days) })
    const check = (name: string, days: number, result: string) =>
      record(name, 'pregnancy-checks', { checkDate: at(days), result })
    const wean = (name: string, days: number) =>
      record(name, 'weanings', { weaningDate: at(days), countWeaned: 6, fosterIn: 0, fosterOut: 0 })

    // Farrowing: expected (service + 114) in 3 days, in 10, 5 days ago, 30 days ago.
    await serve('farrowsIn3', -111)
    await serve('farrowsIn10', -104)
    await serve('farrowed5Ago', -119)
    await serve('farrowed30Ago', -144)
    // A repeat service of the same heat: the first service is the mating.
    const first = await serve('servedTwice', -111)
    await serve('servedTwice', -109)
    // Culled, or farrowed: nothing due.
    await serve('culled', -116)
    await record('culled', 'movements', { movementDate: at(-1), fromStage: 'gestation', toStage: 'cull' })
    await serve('born', -115)
    await record('born', 'births', { StartDate: at(0), Living: 12, Dead: 0 })
    // Pregnancy check (from 30 days after the service for 14 days): due today; a recheck settles nothing.
    await serve('checkDue', -30)
    await serve('rechecked', -35)
    await check('rechecked', -2, 'recheck')
    await serve('checked', -35)
    await check('checked', -2, 'pregnant')
    await serve('checkNotYet', -20)
    // Weaned, not served after 5 days; a split weaning keeps the first day.
    await wean('weaned6Ago', -6)
    await wean('weaned3Ago', -3)
    await wean('servedAgain', -10)
    await serve('servedAgain', -2)
    await wean('splitWeaning', -8)
    await wean('splitWeaning', -2)

    // The records opened and resolved their events as they were written; the events job finds nothing more.
    assert.deepEqual(
      await deriveScheduledEvents(ctx.database.db, { now: Date.now(), uid: farm.user.uid, activity: false }),
      [],
    )

    const lists = await farm.request('GET', '/due-lists')
    assert.equal(lists.statusCode, 200, lists.body)
    const due = lists.json().data as Record<string, { MAC: string; dueDate: string }[]> & { weanedDays: number }
    assert.equal(due.weanedDays, 5, "the farm's weaned-not-served days")
    const open = (await farm.list('?status=open&limit=100')).data
    const name = (mac: string) => Object.keys(sows).find((n) => sows[n] === mac)
    const onList = (list: string) => due[list]!.map((e) => `${name(e.MAC)} ${e.dueDate}`).sort()
    const withEvent = (type: string, date: string) =>
      open
        .filter((e) => e.EventType === type)
        .map((e) => `${name(e.MAC)} ${e.evidence[date]}`)
        .sort()

    assert.deepEqual(onList('dueToFarrow'), [`farrowed5Ago ${at(-5)}`, `farrowsIn3 ${at(3)}`, `servedTwice ${at(3)}`])
    assert.deepEqual(withEvent('farrowing-due', 'expectedFarrowingDate'), onList('dueToFarrow'))
    assert.deepEqual(onList('pregnancyCheck'), [`checkDue ${at(0)}`, `rechecked ${at(-5)}`])
    assert.deepEqual(withEvent('pregnancy-check-due', 'dueDate'), onList('pregnancyCheck'))
    assert.deepEqual(onList('weanedNotServed'), [`splitWeaning ${at(-3)}`, `weaned6Ago ${at(-1)}`])
    assert.deepEqual(withEvent('weaned-not-served', 'dueDate'), onList('weanedNotServed'))

    const twice = open.find((e) => e.MAC === sows.servedTwice)!
    assert.equal(twice.evidence.recordId, first.ID, "the heat's first service")
    assert.equal(twice.evidence.gestationDays, 114)
    const cycle = (await farm.request('GET', `/animals/${sows.farrowsIn3}/cycle`)).json().data
    assert.deepEqual([cycle.state, cycle.expectedFarrowing], ['due-to-farrow', at(3)])
    const culled = (await farm.list(`?MAC=${encodeURIComponent(sows.culled!)}`)).data
    assert.deepEqual(
      culled.map((e) => [e.EventType, e.status]),
      [['farrowing-due', 'resolved']],
      'opened by the service, resolved by the cull',
    )
  })
})
