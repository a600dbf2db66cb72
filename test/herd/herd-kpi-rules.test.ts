// Store-independent: runs in the embedded pass of npm test only (test/run.ts).
// The KPI rules on the hand-computed fixture herd (herd-fixture.ts gives each sow's share of every figure),
// and the reading of matings: repeated services, returns, negative checks, culls.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { cycleState, dateOf, dayOf, dueEntries, type CycleEvent } from '../../src/modules/cycle/cycle.rules.ts'
import { femaleDays, herdKpis, inHerdDuring, matingsOf } from '../../src/modules/herd/kpi.rules.ts'
import {
  DAY0,
  FIXTURE_DUE,
  FIXTURE_HERD,
  FIXTURE_KPIS,
  FIXTURE_STATES,
  PERIOD,
  TODAY,
  cycleEventsOf,
} from './herd-fixture.ts'

const period = { from: dayOf(PERIOD.from)!, to: dayOf(PERIOD.to)! }

describe('the fixture herd', () => {
  it('has every KPI as computed by hand', () => {
    // Registered on TODAY, as through HTTP (herd-routes.test.ts).
    const registered = dayOf(TODAY)!
    const report = herdKpis(
      Object.values(FIXTURE_HERD).map((events) => ({ events: cycleEventsOf(events), registered })),
      period,
    )
    const { farrowingRate, ...rest } = report
    assert.deepEqual(
      {
        ...rest,
        farrowingRate: {
          ...farrowingRate,
          servedFrom: dateOf(farrowingRate.servedFrom),
          servedTo: dateOf(farrowingRate.servedTo),
        },
      },
      FIXTURE_KPIS,
    )
  })

  it('has each female in the state computed by hand, and on the due lists computed by hand', () => {
    const today = dayOf(TODAY)!
    const due: Record<string, [string, string, number][]> = {}
    for (const [name, events] of Object.entries(FIXTURE_HERD)) {
      const cycle = cycleState(cycleEventsOf(events), today)
      assert.deepEqual({ state: cycle.state, days: cycle.days ?? null }, FIXTURE_STATES[name], name)
      for (const e of dueEntries(cycle, today)) (due[e.list] ??= []).push([name, dateOf(e.dueDate), e.daysFromDue])
    }
    assert.deepEqual(due, FIXTURE_DUE)
  })
})

describe('matings', () => {
  const day = (offset: number) => DAY0 + offset
  it('reads services of one heat as one mating and a service after a return as a new one', () => {
    const events: CycleEvent[] = [
      { kind: 'service', day: day(0) },
      { kind: 'service', day: day(1) },
      { kind: 'service', day: day(21) },
      { kind: 'check', day: day(50), result: 'pregnant' },
      { kind: 'farrowing', day: day(136), bornAlive: 12, stillborn: 0 },
    ]
    assert.deepEqual(matingsOf(events), [
      { day: day(0), failed: true, returned: day(21) },
      { day: day(21), failed: false, farrowing: day(136) },
    ])
  })

  it('fails a mating on a negative check or a cull, and a later positive check or farrowing undoes the check', () => {
    const checked: CycleEvent[] = [
      { kind: 'service', day: day(0) },
      { kind: 'check', day: day(30), result: 'open' },
    ]
    assert.deepEqual(matingsOf(checked), [{ day: day(0), failed: true }])
    assert.deepEqual(matingsOf([...checked, { kind: 'check', day: day(40), result: 'pregnant' }]), [
      { day: day(0), failed: false },
    ])
    assert.deepEqual(
      matingsOf([
        { kind: 'service', day: day(0) },
        { kind: 'cull', day: day(9) },
      ]),
      [{ day: day(0), failed: true }],
    )
  })

  it('counts no mated days before her first service or after her cull', () => {
    const events: CycleEvent[] = [
      { kind: 'service', day: day(10) },
      { kind: 'cull', day: day(20) },
    ]
    assert.deepEqual(femaleDays(events, { from: day(0), to: day(89) }), { mated: 10, productive: 0 })
    assert.deepEqual(femaleDays([], { from: day(0), to: day(89) }), { mated: 0, productive: 0 })
  })

  it('counts the females in the herd during the period: there by its last day, not culled before its first', () => {
    const p = { from: day(0), to: day(89) }
    const gilt = (registered: number) => ({ events: [], registered })
    assert.equal(inHerdDuring(gilt(day(89)), p), true)
    assert.equal(inHerdDuring(gilt(day(90)), p), false)
    assert.equal(inHerdDuring(gilt(day(-400)), p), true)
    const culled = (cull: number) => ({ events: [{ kind: 'cull' as const, day: day(cull) }], registered: day(-400) })
    assert.equal(inHerdDuring(culled(-1), p), false)
    assert.equal(inHerdDuring(culled(0), p), true)
    // Registered after the period with her history: her records say she was there.
    const bought = {
      events: [{ kind: 'farrowing' as const, day: day(50), bornAlive: 11, stillborn: 1 }],
      registered: day(200),
    }
    assert.equal(inHerdDuring(bought, p), true)
    assert.equal(inHerdDuring(bought, { from: day(0), to: day(49) }), false)
    assert.equal(herdKpis([gilt(day(10)), gilt(day(90)), culled(-1), culled(40), bought], p).females, 3)
  })

  it('gives no figure (null) where nothing was counted', () => {
    const report = herdKpis([], period)
    assert.equal(report.farrowingRate.value, null)
    assert.equal(report.nonProductiveDays.value, null)
    assert.equal(report.preWeaningMortality.value, null)
  })
})
