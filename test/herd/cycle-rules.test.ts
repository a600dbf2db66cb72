// Store-independent: runs in the embedded pass of npm test only (test/run.ts).
// The sow-cycle rules on hand-built histories: every state with its day count, repeated services of one heat,
// returns and negative checks, culls, and the due lists each state puts a sow on (docs/herd-performance.md).
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  CYCLE,
  cycleSettingsOf,
  cycleState,
  dateOf,
  dayOf,
  dueEntries,
  dueItems,
  expectedFarrowingOf,
  expectedHeatOf,
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
      serviceId: undefined,
      checkPending: false,
      weaningId: undefined,
      openedBy: undefined,
    })
    assert.equal(at([], TODAY, TODAY - 40).days, 40)
    assert.equal(at([], TODAY, TODAY).days, 0)
  })

  it('has no since nor days for a gilt on a day before she was registered (she was not in the herd)', () => {
    const before = at([], TODAY - 1, TODAY)
    assert.deepEqual([before.state, before.since, before.days], ['gilt', undefined, undefined])
    // A sow registered with her history: the records before her registration still give her state.
    const bought = at([{ kind: 'service', day: TODAY - 30 }], TODAY - 10, TODAY)
    assert.deepEqual([bought.state, bought.since, bought.days], ['served', TODAY - 30, 20])
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

describe('expected heat', () => {
  const heat = (events: CycleEvent[], today = TODAY) => {
    const window = expectedHeatOf(at(events, today), today)
    return window && [window.from - today, window.to - today]
  }
  const weaning = (day: number): CycleEvent => ({ kind: 'weaning', day, weaned: 11, fosterIn: 0, fosterOut: 0 })

  it("expects a weaned sow's heat 3-8 days after her weaning, then one regular return later, once", () => {
    assert.deepEqual(heat([weaning(TODAY)]), [3, 8])
    assert.deepEqual(heat([weaning(TODAY - 8)]), [-5, 0], 'to its last day')
    assert.deepEqual(heat([weaning(TODAY - 9)]), [21 - 9, 32 - 9], 'that heat may have passed unseen')
    assert.equal(heat([weaning(TODAY - 33)]), undefined)
  })

  it("expects a served sow's return 18-24 days after the service, until its window ends", () => {
    assert.deepEqual(heat([{ kind: 'service', day: TODAY - 10 }]), [8, 14])
    assert.deepEqual(heat([{ kind: 'service', day: TODAY - 24 }]), [-6, 0])
    assert.equal(heat([{ kind: 'service', day: TODAY - 25 }]), undefined, 'likely pregnant: no window moves on')
  })

  it('expects an open sow one regular return after the return seen, two after a service a check found failed', () => {
    const service: CycleEvent = { kind: 'service', day: TODAY - 30 }
    assert.deepEqual(heat([service, { kind: 'return', day: TODAY - 9 }]), [9, 15])
    assert.deepEqual(heat([service, { kind: 'return', day: TODAY - 25 }]), [36 - 25, 48 - 25], 'moved on once')
    assert.deepEqual(heat([service, { kind: 'check', day: TODAY - 2, result: 'open' }]), [6, 18], '36-48 days')
    // A later scan of a sow found pregnant at first: two regular returns after the service all the same.
    const rescanned: CycleEvent[] = [
      service,
      { kind: 'check', day: TODAY - 5, result: 'pregnant' },
      { kind: 'check', day: TODAY - 1, result: 'open' },
    ]
    assert.deepEqual(heat(rescanned), [6, 18])
    assert.equal(
      heat([
        { kind: 'service', day: TODAY - 80 },
        { kind: 'check', day: TODAY - 50, result: 'open' },
      ]),
      undefined,
    )
  })

  it('expects nothing of a gilt, a pregnant, due, lactating or culled sow', () => {
    const service: CycleEvent = { kind: 'service', day: TODAY - 40 }
    assert.equal(heat([]), undefined)
    assert.equal(heat([service, { kind: 'check', day: TODAY - 10, result: 'pregnant' }]), undefined)
    assert.equal(heat([{ kind: 'service', day: TODAY - 110 }]), undefined)
    assert.equal(heat([{ kind: 'farrowing', day: TODAY - 10, bornAlive: 12, stillborn: 0 }]), undefined)
    assert.equal(heat([weaning(TODAY - 5), { kind: 'cull', day: TODAY - 1 }]), undefined)
  })
})

describe('due lists', () => {
  const lists = (events: CycleEvent[], today = TODAY, weanedDays?: number) =>
    dueEntries(at(events, today), today, cycleSettingsOf({ weanedNotServedDays: weanedDays })).map((e) => [
      e.list,
      e.daysFromDue,
    ])

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

describe('due items (the due lists and the due events both read them)', () => {
  const d2 = (date: string) => d(date)
  const items = (events: CycleEvent[], today = TODAY, settings = CYCLE) =>
    dueItems(cycleState(events, today, undefined, settings), settings).map((i) => [
      i.kind,
      dateOf(i.dueDate),
      i.causeId,
    ])
  const service = (id: number, date: string): CycleEvent => ({ kind: 'service', day: d2(date), id })

  it('adds days across months, years and leap days', () => {
    assert.equal(dateOf(expectedFarrowingOf(d2('2026-07-11'))), '2026-11-03')
    assert.equal(dateOf(expectedFarrowingOf(d2('2026-07-11'), cycleSettingsOf({ gestationDays: 116 }))), '2026-11-04')
    assert.equal(dateOf(d2('2027-12-20') + 15), '2028-01-04')
    assert.equal(dateOf(d2('2028-02-28') + 1), '2028-02-29')
    assert.equal(dateOf(d2('2026-03-01') - 1), '2026-02-28')
    assert.equal(dateOf(pregnancyCheckDueOf(d2('2026-07-11'))), '2026-08-08')
    assert.equal(dateOf(weanedNotServedDueOf(d2('2026-11-30'))), '2026-12-07')
  })

  it("takes the farm's figures over the defaults; the check's window keeps its length", () => {
    assert.deepEqual(cycleSettingsOf({}), CYCLE)
    const farm = cycleSettingsOf({ gestationDays: 117, pregnancyCheckDays: 35, weanedNotServedDays: 5 })
    assert.deepEqual(
      [farm.gestationDays, farm.pregnancyCheckFromDays, farm.pregnancyCheckToDays, farm.weanedNotServedDays],
      [117, 35, 49, 5],
    )
    assert.equal(farm.sameHeatDays, CYCLE.sameHeatDays)
  })

  it('makes a service due for a check and a farrowing, settled by a check, a birth, a return, a new mating or a cull', () => {
    const today = d2('2026-09-01')
    const sow = [service(1, '2026-07-11')]
    assert.deepEqual(items(sow, today), [
      ['farrowing', '2026-11-03', 1],
      ['pregnancyCheck', '2026-08-08', 1],
    ])
    const check = (result: 'pregnant' | 'open' | 'recheck'): CycleEvent => ({
      kind: 'check',
      day: d2('2026-08-06'),
      result,
      id: 2,
    })
    assert.deepEqual(items([...sow, check('pregnant')], today), [['farrowing', '2026-11-03', 1]])
    assert.deepEqual(items([...sow, check('open')], today), [], 'an open check settles both')
    assert.deepEqual(items([...sow, check('recheck')], today), items(sow, today), 'a recheck settles nothing')
    assert.deepEqual(items([...sow, { kind: 'return', day: d2('2026-08-01'), id: 4 }], today), [])
    assert.deepEqual(items([...sow, { kind: 'cull', day: d2('2026-08-20'), id: 6 }], today), [])
    const born: CycleEvent = { kind: 'farrowing', day: d2('2026-11-02'), bornAlive: 12, stillborn: 0, id: 3 }
    assert.deepEqual(items([...sow, born], d2('2026-11-05')), [])
    // A later service (past the same heat) is a new mating, due in its turn.
    assert.deepEqual(items([...sow, service(5, '2026-08-02')], today), [
      ['farrowing', '2026-11-25', 5],
      ['pregnancyCheck', '2026-08-30', 5],
    ])
  })

  it("keeps a heat's first service as the mating that is due, whatever the repeats", () => {
    const repeats = [service(10, '2026-07-11'), service(11, '2026-07-11'), service(12, '2026-07-13')]
    assert.deepEqual(items(repeats, d2('2026-09-01')), [
      ['farrowing', '2026-11-03', 10],
      ['pregnancyCheck', '2026-08-08', 10],
    ])
  })

  it('keeps the check due while no check has settled it, also once she is due to farrow', () => {
    const late = items([service(1, '2026-07-11')], d2('2026-10-30'))
    assert.deepEqual(late, [
      ['farrowing', '2026-11-03', 1],
      ['pregnancyCheck', '2026-08-08', 1],
    ])
  })

  it('makes a weaned sow due for service, settled by a service after the weaning; a split weaning keeps the first', () => {
    const weaning = (id: number, date: string): CycleEvent => ({
      kind: 'weaning',
      day: d2(date),
      weaned: 6,
      fosterIn: 0,
      fosterOut: 0,
      id,
    })
    const today = d2('2026-12-10')
    assert.deepEqual(items([weaning(1, '2026-11-30')], today), [['weanedNotServed', '2026-12-07', 1]])
    assert.deepEqual(items([weaning(1, '2026-11-30'), weaning(2, '2026-12-03')], today), [
      ['weanedNotServed', '2026-12-07', 1],
    ])
    assert.deepEqual(
      items([weaning(1, '2026-11-30'), service(2, '2026-12-05')], today).map((i) => i[0]),
      ['farrowing', 'pregnancyCheck'],
    )
    assert.deepEqual(items([service(2, '2026-06-05'), weaning(1, '2026-11-30')], today), [
      ['weanedNotServed', '2026-12-07', 1],
    ])
    const farm = cycleSettingsOf({ weanedNotServedDays: 5 })
    assert.deepEqual(items([weaning(1, '2026-11-30')], today, farm), [['weanedNotServed', '2026-12-05', 1]])
  })
})
