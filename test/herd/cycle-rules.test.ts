// Store-independent: runs in the embedded pass of npm test only (test/run.ts).
// The sow-cycle rules on hand-built histories: every state with its day count, repeated services of one heat,
// returns and negative checks, culls, and the due lists each state puts a sow on (docs/herd-performance.md).
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  CYCLE,
  cycleState,
  dateOf,
  dayOf,
  dueEntries,
  expectedFarrowingOf,
  pregnancyCheckDueOf,
  returnWindowOf,
  weanedNotServedDueOf,
  type CycleEvent,
} from '../../src/modules/cycle/cycle.rules.ts'

const d = (date: string) => dayOf(date)!
const TODAY = d('2026-06-01')
const at = (events: CycleEvent[], today = TODAY, registered?: number) => cycleState(events, today, registered)

describe('days', () => {
  it('reads YYYY-MM-DD dates as UTC days and refuses what is not a real date', () => {
    assert.equal(dayOf('1970-01-02'), 1)
    assert.equal(dateOf(d('2026-03-01') - 1), '2026-02-28')
    assert.equal(dayOf('2026-02-30'), undefined)
    assert.equal(dayOf('2026-2-3'), undefined)
    assert.equal(dayOf('2026-02-03T10:00'), undefined)
  })

  it('gives the due dates of a service and a weaning', () => {
    const service = d('2026-01-10')
    assert.equal(dateOf(expectedFarrowingOf(service)), '2026-05-05') // 115 days
    assert.equal(dateOf(pregnancyCheckDueOf(service)), '2026-02-07') // 28 days
    assert.deepEqual(returnWindowOf(service), { from: d('2026-01-28'), to: d('2026-02-03') })
    assert.equal(dateOf(weanedNotServedDueOf(d('2026-05-01'), 10)), '2026-05-11')
  })
})

describe('cycle state', () => {
  it('is gilt without records, counting days from her registration when known', () => {
    assert.deepEqual(at([]), {
      state: 'gilt',
      since: undefined,
      days: undefined,
      service: undefined,
      expectedFarrowing: undefined,
      parity: 0,
    })
    assert.equal(at([], TODAY, TODAY - 40).days, 40)
  })

  it('is served from the first service of a heat; services up to 4 days later repeat it', () => {
    const s = at([
      { kind: 'service', day: TODAY - 10 },
      { kind: 'service', day: TODAY - 9 },
    ])
    assert.equal(s.state, 'served')
    assert.equal(s.days, 10)
    assert.equal(s.service, TODAY - 10)
    assert.equal(s.expectedFarrowing, TODAY - 10 + 115)
  })

  it('is pregnant from a positive check, and due to farrow from 7 days before the expected farrowing', () => {
    const events: CycleEvent[] = [
      { kind: 'service', day: TODAY - 40 },
      { kind: 'check', day: TODAY - 10, result: 'pregnant' },
    ]
    assert.deepEqual([at(events).state, at(events).days], ['pregnant', 10])
    const late = at(events, TODAY + 70) // 110 days after the service
    assert.deepEqual([late.state, late.days, late.since], ['due-to-farrow', 2, TODAY - 40 + 108])
    // A served sow nobody checked is due to farrow just the same.
    assert.equal(at([{ kind: 'service', day: TODAY - 109 }]).state, 'due-to-farrow')
  })

  it('is open after a return or a negative check, and served again from the next service', () => {
    const returned: CycleEvent[] = [
      { kind: 'service', day: TODAY - 30 },
      { kind: 'return', day: TODAY - 9 },
    ]
    assert.deepEqual([at(returned).state, at(returned).days, at(returned).service], ['open', 9, TODAY - 30])
    assert.equal(at(returned).expectedFarrowing, undefined)
    const negative: CycleEvent[] = [
      { kind: 'service', day: TODAY - 35 },
      { kind: 'check', day: TODAY - 5, result: 'open' },
    ]
    assert.deepEqual([at(negative).state, at(negative).days], ['open', 5])
    // A recheck changes nothing; a service 2 days after the return is a new mating (not the same heat's).
    const again = at([
      ...returned,
      { kind: 'check', day: TODAY - 8, result: 'recheck' },
      { kind: 'service', day: TODAY - 7 },
    ])
    assert.deepEqual([again.state, again.days, again.service], ['served', 7, TODAY - 7])
  })

  it('is lactating from a farrowing, weaned from the weaning, and counts the litters', () => {
    const events: CycleEvent[] = [
      { kind: 'service', day: TODAY - 150 },
      { kind: 'farrowing', day: TODAY - 35, bornAlive: 13, stillborn: 1 },
    ]
    assert.deepEqual([at(events).state, at(events).days, at(events).parity], ['lactating', 35, 1])
    assert.equal(at(events).service, undefined)
    const weaned = at([...events, { kind: 'weaning', day: TODAY - 8, weaned: 12, fosterIn: 0, fosterOut: 0 }])
    assert.deepEqual([weaned.state, weaned.days], ['weaned', 8])
    // A second weaning record (a split weaning) keeps the first day.
    const split = at([
      ...events,
      { kind: 'weaning', day: TODAY - 8, weaned: 6, fosterIn: 0, fosterOut: 0 },
      { kind: 'weaning', day: TODAY - 3, weaned: 6, fosterIn: 0, fosterOut: 0 },
    ])
    assert.equal(split.days, 8)
  })

  it('is culled for good from a cull, and ignores records dated after today', () => {
    const culled = at([
      { kind: 'service', day: TODAY - 20 },
      { kind: 'cull', day: TODAY - 2 },
      { kind: 'service', day: TODAY - 1 },
    ])
    assert.deepEqual([culled.state, culled.days, culled.service], ['culled', 2, undefined])
    assert.equal(at([{ kind: 'service', day: TODAY + 1 }]).state, 'gilt')
  })
})

describe('due lists', () => {
  const lists = (events: CycleEvent[], today = TODAY, weanedDays?: number) =>
    dueEntries(at(events, today), today, weanedDays).map((e) => [e.list, e.daysFromDue])

  it('lists a sow due to farrow within the week or overdue by up to 14 days', () => {
    const service = (ahead: number) => [{ kind: 'service', day: TODAY + ahead - 115 } as CycleEvent]
    assert.deepEqual(lists(service(6)), [['dueToFarrow', -6]])
    assert.deepEqual(lists(service(7)), [])
    assert.deepEqual(lists(service(-14)), [['dueToFarrow', 14]])
    assert.deepEqual(lists(service(-15)), [])
  })

  it('lists a served sow for her pregnancy check 28-42 days after the service, until checked', () => {
    const served = (days: number) => [{ kind: 'service', day: TODAY - days } as CycleEvent]
    assert.deepEqual(lists(served(27)), [])
    assert.deepEqual(lists(served(28)), [['pregnancyCheck', 0]])
    assert.deepEqual(lists(served(42)), [['pregnancyCheck', 14]])
    assert.deepEqual(lists(served(43)), [])
    assert.deepEqual(lists([...served(30), { kind: 'check', day: TODAY - 1, result: 'pregnant' }]), [])
  })

  it('lists returns to watch 18-24 days after a service', () => {
    assert.deepEqual(lists([{ kind: 'service', day: TODAY - 18 }]), [['returnsToWatch', 0]])
    assert.deepEqual(lists([{ kind: 'service', day: TODAY - 24 }]), [['returnsToWatch', 6]])
    assert.deepEqual(lists([{ kind: 'service', day: TODAY - 25 }]), [])
  })

  it('lists a weaned sow not served after N days (7 unless asked)', () => {
    const weaned: CycleEvent[] = [{ kind: 'weaning', day: TODAY - 7, weaned: 11, fosterIn: 0, fosterOut: 0 }]
    assert.deepEqual(lists(weaned), [['weanedNotServed', 0]])
    assert.deepEqual(lists(weaned, TODAY, 8), [])
    assert.deepEqual(lists([...weaned, { kind: 'service', day: TODAY - 1 }]), [])
    assert.equal(CYCLE.weanedNotServedDays, 7)
  })
})
