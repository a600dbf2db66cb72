// Store-independent: runs in the embedded pass of npm test only (test/run.ts).
// Heat's rules as pure functions: the rise of activity against the baseline days, and what the records change.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { SCORER } from '../../src/modules/predictions/scorer-settings.rules.ts'
import { NO_RECORDS } from '../../src/modules/predictions/reproduction.rules.ts'
import {
  heatExcess,
  heatExpected,
  heatRuledOut,
  heatLikely,
  heatThreshold,
  heatShortFactor,
  heatRatio,
  heatShrunk,
  heatBaselineStart,
  weaningUnsettled,
  cycleUnrecorded,
  latestHeldRise,
  ownHeatDue,
  servedInHeat,
  withoutServiceInHeat,
  heatBars,
  heldShortRise,
  shortHoldHours,
  presumedService,
  HEAT_EXPECTED_DAYS,
  recordlessHeatSummary,
} from '../../src/modules/predictions/heat.rules.ts'
import { unrecordedBirthIndices, unrecordedCycle } from '../../src/modules/predictions/unrecorded-births.rules.ts'
import type { HourSummary } from '../../src/modules/predictions/hour-summaries.rules.ts'
import { DAY, T0, recordsBefore } from './scorer-fixtures.ts'

describe('heat: the rise of activity', () => {
  it('heat excess: the last 24 h against the mean of the baseline days, needing 2 of them', () => {
    assert.ok(
      Math.abs(
        heatExcess(0.145, [0.1, 0.1, 0.1])! - (0.145 + SCORER.activityFloor / 4) / (0.1 + SCORER.activityFloor / 4) + 1,
      ) < 1e-12,
    )
    assert.equal(heatExcess(0.1, [0.1, 0.1]), 0)
    assert.ok(heatExcess(0.08, [0.1, 0.1])! < 0)
    assert.equal(heatExcess(0.2, [0.1]), undefined)
  })

  it('heat ratio: the sums of a window against their usual, shrunk when the usual rests on few days', () => {
    const hour = (activity: number, usualDays = 7) => ({ activity, usual: 0.1, usualDays })
    const floor = (24 * SCORER.activityFloor) / 4
    const full = heatRatio(
      Array.from({ length: 24 }, () => hour(0.13)),
      24,
      7,
    )!
    assert.ok(Math.abs(full - (24 * 0.13 + floor) / (24 * 0.1 + floor)) < 1e-9, `${full}`)
    const few = heatRatio(
      Array.from({ length: 24 }, () => hour(0.13, 2)),
      24,
      7,
    )!
    assert.ok(few > 1 && few < full, `${few} < ${full}`)
    assert.equal(
      heatRatio(
        Array.from({ length: 24 }, () => hour(0.1, 2)),
        24,
        7,
      ),
      1,
    )
    assert.equal(
      heatRatio(
        Array.from({ length: 11 }, () => hour(0.2)),
        24,
        7,
      ),
      undefined,
      'half the window needed',
    )
    assert.equal(heatRatio([], 12, 7), undefined)
  })

  it('heat ratio: a window with data in fewer of its hours is shrunk by that too (partialShrink)', () => {
    const hour = (activity: number) => ({ activity, usual: 0.1, usualDays: 7 })
    const ratio = (n: number, partialShrink: boolean) =>
      heatRatio(
        Array.from({ length: n }, () => hour(0.13)),
        24,
        7,
        { ...SCORER, heat: { ...SCORER.heat, partialShrink } },
      )!
    assert.ok(Math.abs(ratio(24, true) - ratio(24, false)) < 1e-12, 'a full window as before')
    const raw = ratio(12, false)
    assert.ok(Math.abs(ratio(12, true) - (1 + (raw - 1) / Math.SQRT2)) < 1e-12, 'half the hours: a rise over √2')
    assert.ok(ratio(18, true) > ratio(12, true) && ratio(18, true) < ratio(18, false))
  })

  it('heat shrunk: towards 1 by the spread that few baseline days and few hours add', () => {
    assert.equal(heatShrunk(1.3, 7, 7), 1.3)
    assert.ok(Math.abs(heatShrunk(1.3, 1, 7) - (1 + 0.3 / Math.sqrt(2 / (8 / 7)))) < 1e-12)
    assert.ok(Math.abs(heatShrunk(1.3, 7, 7, 2) - (1 + 0.3 / Math.SQRT2)) < 1e-12)
    assert.ok(Math.abs(heatShrunk(0.8, 7, 7, 2) - (1 - 0.2 / Math.SQRT2)) < 1e-12, 'a fall shrunk alike')
  })
})

describe("heat: what the farm's records change", () => {
  const t = T0 + 200 * DAY
  const records = recordsBefore(t)

  it('lowers the heat threshold somewhat after a weaning, raises it where a return is possible, more while pregnant or nursing', () => {
    const { threshold, expectedFactor, returnFactor, unlikelyFactor } = SCORER.heat
    assert.ok(expectedFactor < 1 && returnFactor > 1 && unlikelyFactor > returnFactor)
    assert.equal(heatThreshold(NO_RECORDS, t), threshold)
    assert.equal(heatThreshold(records({ weanings: [5], births: [30] }), t), threshold * expectedFactor)
    assert.equal(heatThreshold(records({ services: [21], weanings: [27] }), t), threshold * returnFactor)
    assert.equal(heatThreshold(records({ services: [60] }), t), threshold * unlikelyFactor)
    assert.equal(heatThreshold(records({ births: [10] }), t), threshold * unlikelyFactor)
    assert.equal(heatThreshold(records({ weanings: [12], births: [37] }), t), threshold)
  })

  it('raises the heat threshold in the days after a service before a return could come (the luteal phase)', () => {
    const { threshold, unlikelyFactor, returnFactor } = SCORER.heat
    assert.equal(heatThreshold(records({ services: [1], weanings: [6] }), t), threshold, 'the heat she was served in')
    assert.equal(heatThreshold(records({ services: [10], weanings: [15] }), t), threshold * unlikelyFactor)
    assert.equal(heatThreshold(records({ services: [16.5], weanings: [21] }), t), threshold * unlikelyFactor)
    assert.equal(heatThreshold(records({ services: [17], weanings: [22] }), t), threshold * returnFactor)
  })

  it('expects a heat 3-8 days after a weaning, before a service; likely also where a return is possible', () => {
    assert.equal(heatExpected(records({ weanings: [5], births: [30] }), t), true)
    assert.equal(heatExpected(records({ weanings: [2], births: [27] }), t), false)
    assert.equal(heatExpected(records({ weanings: [9], births: [34] }), t), false)
    assert.equal(heatExpected(records({ services: [1], weanings: [6] }), t), false, 'served since')
    assert.equal(heatLikely(records({ weanings: [5], births: [30] }), t), true)
    assert.equal(heatLikely(records({ services: [20], weanings: [26] }), t), true)
    assert.equal(heatLikely(records({ services: [40] }), t), false)
    assert.equal(heatLikely(NO_RECORDS, t), false)
  })

  it('gives the shorter heat window a lowered bar after a weaning, a raised one where a return is possible, none elsewhere', () => {
    const { shortFactor, expectedFactor, returnShortFactor, returnFactor } = SCORER.heat
    // Where a return is possible the 12-h window's bar is no lower than the day's (most services hold); its crossing
    // must also hold longer there (shortHoldHours).
    assert.ok(shortFactor < expectedFactor && returnShortFactor >= returnFactor)
    assert.equal(heatShortFactor(records({ weanings: [5], births: [30] }), t), shortFactor)
    assert.equal(heatShortFactor(records({ services: [21], weanings: [27] }), t), returnShortFactor)
    assert.equal(heatShortFactor(records({ services: [16], weanings: [21] }), t), undefined, 'the luteal phase')
    assert.equal(heatShortFactor(records({ services: [40] }), t), undefined)
    assert.equal(heatShortFactor(NO_RECORDS, t), undefined)
  })

  it('rules a heat out through a conventional lactation and while a farrowing is due, not later nor without records', () => {
    const { quietLactationDays } = SCORER.heat
    assert.equal(heatRuledOut(records({ births: [quietLactationDays - 1] }), t), true)
    assert.equal(heatRuledOut(records({ births: [25] }), t), true, 'weaning comes at 21-28 days: anoestrus till then')
    assert.equal(heatRuledOut(records({ births: [25], weanings: [2] }), t), false, 'weaned (recorded or read)')
    assert.equal(heatRuledOut(records({ births: [quietLactationDays + 1] }), t), false, 'a weaning may be unrecorded')
    assert.equal(heatRuledOut(records({ services: [112] }), t), true)
    assert.equal(heatRuledOut(records({ services: [90] }), t), false)
    assert.equal(heatRuledOut(records({ weanings: [5], births: [30] }), t), false)
    assert.equal(heatRuledOut(NO_RECORDS, t), false)
  })
})

describe('heat: a service is done in a heat (servedHours)', () => {
  const t = T0 + 200 * DAY
  const records = recordsBefore(t)
  const hours = SCORER.heat.servedHours!
  const none = { ...SCORER, heat: { ...SCORER.heat, servedHours: null } }

  it('says a heat may still run within servedHours of a service, never without the setting', () => {
    assert.ok(hours >= 12 && hours <= 36, 'a sow is served 12-24 h into a heat of one to three days')
    assert.equal(servedInHeat(undefined), false)
    assert.equal(servedInHeat(0), true)
    assert.equal(servedInHeat((hours - 1) / 24), true)
    assert.equal(servedInHeat(hours / 24), false)
    assert.equal(servedInHeat(-0.1), false, 'a service after the hour')
    assert.equal(servedInHeat(0.1, none), false)
  })

  it('leaves out only a service done in a heat that may still run', () => {
    const served = records({ services: [0.5], weanings: [5], births: [30] })
    assert.deepEqual(withoutServiceInHeat(served, t).services, [])
    assert.deepEqual(withoutServiceInHeat(served, t).weanings, served.weanings)
    const returned = records({ services: [21, 0.5], weanings: [26] })
    assert.deepEqual(withoutServiceInHeat(returned, t).services, [t - 21 * DAY], 'the earlier service stays')
    const old = records({ services: [2], weanings: [7] })
    assert.equal(withoutServiceInHeat(old, t), old, 'past servedHours: the records as they are')
    assert.equal(withoutServiceInHeat(served, t, none), served)
  })

  it("keeps a weaned sow's bars in the heat she was served in, then raises them as before", () => {
    const { threshold, expectedFactor, shortFactor, unlikelyFactor } = SCORER.heat
    const served = records({ services: [0.5], weanings: [5], births: [30] })
    assert.deepEqual(heatBars(served, t), { bar: threshold * expectedFactor, shortFactor })
    assert.deepEqual(heatBars(served, t, none), { bar: threshold, shortFactor: undefined }, 'main: the plain bar')
    assert.deepEqual(heatBars(records({ services: [2], weanings: [7] }), t), { bar: threshold, shortFactor: undefined })
    assert.deepEqual(heatBars(records({ services: [5], weanings: [10] }), t), {
      bar: threshold * unlikelyFactor,
      shortFactor: undefined,
    })
  })

  it('never raises a bar for a service: a return served keeps the lower of the two', () => {
    const { threshold, returnShortFactor } = SCORER.heat
    // Served again in a return: the plain bar (lower than the return window's), the return window's 12-h bar.
    assert.deepEqual(heatBars(records({ services: [21, 0.5], weanings: [26] }), t), {
      bar: threshold,
      shortFactor: returnShortFactor,
    })
    // A gilt served: no bars of a weaning or a return to keep, the plain bar as before.
    assert.deepEqual(heatBars(records({ services: [0.5] }), t), { bar: threshold, shortFactor: undefined })
    // Elsewhere the bars are heatThreshold's and heatShortFactor's.
    const weaned = records({ weanings: [5], births: [30] })
    assert.deepEqual(heatBars(weaned, t), { bar: heatThreshold(weaned, t), shortFactor: heatShortFactor(weaned, t) })
    assert.deepEqual(heatBars(NO_RECORDS, t, SCORER, true), {
      bar: heatThreshold(NO_RECORDS, t, SCORER, true),
      shortFactor: undefined,
    })
  })
})

describe('heat: her own last heat where the records say nothing (a gilt not yet served)', () => {
  const t = T0 + 200 * DAY
  const records = recordsBefore(t)
  const own = SCORER.heat.ownHeat!

  it('says the records say nothing of a cycle without a service, farrowing or weaning before the hour', () => {
    assert.equal(cycleUnrecorded(NO_RECORDS, t), true)
    assert.equal(cycleUnrecorded(records({ services: [-2] }), t), true, 'a service after the hour is not read')
    assert.equal(cycleUnrecorded(records({ services: [40] }), t), false)
    assert.equal(cycleUnrecorded(records({ births: [40] }), t), false)
    assert.equal(cycleUnrecorded(records({ weanings: [40] }), t), false)
  })

  it('finds the latest rise held at the bar for `held` indices in a row, at least `lag` back', () => {
    const rises = [0, 0.5, 0.5, 0.5, 0, 0.5, undefined, 0.5, 0.5, 0, 0, 0]
    // Held for 3: indices 1-3 (latest 3); index 5 alone, 7-8 only two in a row.
    assert.deepEqual(latestHeldRise(rises, 0.4, 3, 2, 4, 11).slice(4), [undefined, 3, 3, 3, 3, 3, 3, 3])
    // Held for 2: from index 2 on, then 7-8 (latest 8, read from index 10 on with a lag of 2).
    assert.deepEqual(latestHeldRise(rises, 0.4, 2, 2, 4, 11).slice(4), [2, 3, 3, 3, 3, 3, 8, 8])
    assert.deepEqual(latestHeldRise(rises, 0.6, 1, 0, 0, 11), new Array(12).fill(undefined))
  })

  it('makes her next heat due more than dueFromDay and at most dueToDay days after her last', () => {
    assert.ok(own.dueFromDay < 18 && own.dueToDay > 24, 'an oestrous cycle lies in it')
    assert.equal(ownHeatDue(undefined), false)
    assert.equal(ownHeatDue(own.dueFromDay), false)
    assert.equal(ownHeatDue(own.dueFromDay + 1 / 24), true)
    assert.equal(ownHeatDue(21), true)
    assert.equal(ownHeatDue(own.dueToDay), true)
    assert.equal(ownHeatDue(own.dueToDay + 1 / 24), false)
    assert.equal(ownHeatDue(21, { ...SCORER, heat: { ...SCORER.heat, ownHeat: null } }), false)
  })

  it('lowers the 24-h bar where her own last heat makes the next due', () => {
    const { threshold } = SCORER.heat
    assert.ok(own.dueFactor < 1)
    assert.equal(heatThreshold(NO_RECORDS, t, SCORER, true), threshold * own.dueFactor)
    assert.equal(heatThreshold(NO_RECORDS, t, SCORER, false), threshold)
    assert.equal(heatThreshold(NO_RECORDS, t, { ...SCORER, heat: { ...SCORER.heat, ownHeat: null } }, true), threshold)
  })
})

describe('heat: the baseline of a weaned sow that had not settled', () => {
  const t = T0 + 200 * DAY
  const records = recordsBefore(t)
  const HOUR = DAY / 24

  it('calls a weaning unsettled when the hours after it were more active than settleRise x the hours since', () => {
    const { settleRise } = SCORER.heat
    const floor = SCORER.activityFloor
    const settled = 0.1
    assert.equal(weaningUnsettled(2 * settled, settled), true, 'fights after mixing')
    assert.equal(weaningUnsettled(settled, settled), false, 'a calm first day')
    const justOver = settleRise * (settled + floor) - floor + 1e-6
    assert.equal(weaningUnsettled(justOver, settled), true)
    assert.equal(weaningUnsettled(justOver - 2e-6, settled), false)
  })

  it("starts the baseline settleHours after a weaning only when she had not settled, else at the phase's start", () => {
    const { settleHours } = SCORER.heat
    const weaned = records({ weanings: [5], births: [30] })
    const weaning = t - 5 * DAY
    let asked: [number, number] | undefined
    const unsettled = (w: number, from: number) => {
      asked = [w, from]
      return true
    }
    assert.deepEqual(heatBaselineStart(weaned, t, unsettled), {
      start: weaning + settleHours * HOUR,
      settledOnly: true,
    })
    assert.deepEqual(asked, [weaning, weaning + settleHours * HOUR])
    assert.deepEqual(
      heatBaselineStart(weaned, t, () => false),
      { start: weaning, settledOnly: false },
    )
    assert.deepEqual(
      heatBaselineStart(records({ weanings: [1], births: [26] }), t, unsettled),
      { start: t - DAY, settledOnly: false },
      'not yet settleHours since',
    )
    assert.deepEqual(
      heatBaselineStart(records({ births: [5] }), t, unsettled),
      { start: t - 5 * DAY, settledOnly: false },
      'a farrowing, not a weaning',
    )
    assert.deepEqual(heatBaselineStart(NO_RECORDS, t, unsettled), { start: -Infinity, settledOnly: false })
  })
})

describe("heat: the shorter window's crossing must hold (shortHold)", () => {
  const bar = 0.2
  const clear = SCORER.heat.shortHold!.clearFactor
  const none = { ...SCORER, heat: { ...SCORER.heat, shortHold: null } }

  it('takes the least of the last hours unless the latest is clearly over the bar', () => {
    assert.ok(clear > 1)
    // An hour at the bar after an hour under it: the crossing has not held.
    assert.equal(heldShortRise([0.1, 0.25], bar), 0.1)
    // Held over both hours: the lesser of them.
    assert.equal(heldShortRise([0.3, 0.22], bar), 0.22)
    assert.equal(heldShortRise([0.22, 0.3, 0.25], bar), 0.22)
    // Clearly over the bar: at once.
    assert.equal(heldShortRise([0, clear * bar], bar), clear * bar)
    assert.equal(heldShortRise([-0.1, clear * bar + 0.1], bar), clear * bar + 0.1)
    // Nothing to read: no rise.
    assert.equal(heldShortRise([], bar), 0)
  })

  it('without a hold reads the latest hour alone', () => {
    assert.equal(heldShortRise([0.1, 0.25], bar, none), 0.25)
    assert.equal(shortHoldHours(SCORER.heat.shortFactor, none), 1)
    assert.equal(shortHoldHours(SCORER.heat.returnShortFactor, none), 1)
  })

  it('holds longer where a return is possible (most sows there are pregnant)', () => {
    const { hours, returnHours } = SCORER.heat.shortHold!
    assert.ok(hours >= 2 && returnHours >= hours)
    assert.equal(shortHoldHours(SCORER.heat.shortFactor), hours)
    assert.equal(shortHoldHours(SCORER.heat.returnShortFactor), returnHours)
  })
})

describe('heat on a farm that records nothing: its cycle read from the data (heatnorec)', () => {
  const weaned = { ...NO_RECORDS, weanings: [T0] }
  it('a weaned sow past the days a heat is expected after it is presumed served servedDay days after the weaning', () => {
    assert.equal(presumedService(weaned, T0 + HEAT_EXPECTED_DAYS.to * DAY, 5), weaned)
    const later = presumedService(weaned, T0 + 9 * DAY, 5)
    assert.deepEqual(later.services, [T0 + 5 * DAY])
    // Then the luteal phase's bar, and the return window's 17-25 days after the presumed service.
    assert.equal(heatThreshold(later, T0 + 9 * DAY), SCORER.heat.threshold * SCORER.heat.unlikelyFactor)
    const returning = presumedService(weaned, T0 + 26 * DAY, 5)
    assert.equal(heatThreshold(returning, T0 + 26 * DAY), SCORER.heat.threshold * SCORER.heat.returnFactor)
    assert.equal(heatShortFactor(returning, T0 + 26 * DAY), SCORER.heat.returnShortFactor)
    // A farrowing due (100-125 days after it) rules a heat out, as after a recorded service.
    assert.equal(heatRuledOut(presumedService(weaned, T0 + 110 * DAY, 5), T0 + 110 * DAY), true)
  })
  it('no service presumed without a weaning, with a service since it, after a farrowing since it, or when null', () => {
    assert.equal(presumedService(NO_RECORDS, T0, 5), NO_RECORDS)
    const served = { ...weaned, services: [T0 + 6 * DAY] }
    assert.equal(presumedService(served, T0 + 20 * DAY, 5), served)
    const farrowed = { ...weaned, births: [T0 + 120 * DAY] }
    assert.equal(presumedService(farrowed, T0 + 121 * DAY, 5), farrowed)
    assert.equal(presumedService(weaned, T0 + 20 * DAY, null), weaned)
    // A service before the weaning (the farrowing's) does not count: a new one is presumed.
    const before = { services: [T0 - 140 * DAY], births: [T0 - 25 * DAY], weanings: [T0] }
    assert.deepEqual(presumedService(before, T0 + 20 * DAY, 5).services, [T0 - 140 * DAY, T0 + 5 * DAY])
  })
  it("a farrowing read from the data: the lactation read after the move, else the due days' end", () => {
    const none = new Array<number | undefined>(100)
    assert.deepEqual(unrecordedBirthIndices(none, none, 10), [])
    // A move at 5, shown from 20; a farrowing read at 30.
    const moveAt = Array.from({ length: 100 }, (_, i) => (i >= 20 ? 5 : undefined))
    const lactationAt = Array.from({ length: 100 }, (_, i) => (i >= 30 ? 30 : undefined))
    assert.deepEqual(unrecordedBirthIndices(moveAt, lactationAt, 40), [30])
    // None read: the hour after the due days (40 h after the move) ended; none before.
    assert.deepEqual(unrecordedBirthIndices(moveAt, none, 40), [46])
    assert.deepEqual(unrecordedBirthIndices(moveAt.slice(0, 46), none, 40), [])
    // A second move: its own farrowing.
    const twoMoves = moveAt.map((m, i) => (i >= 70 ? 65 : m))
    assert.deepEqual(unrecordedBirthIndices(twoMoves, lactationAt, 20), [26, 86])
  })
  it("the scorer summary's sentence: each part as set, none without the rule", () => {
    assert.match(recordlessHeatSummary(), /farrowing read from the data/)
    assert.match(recordlessHeatSummary(), /presumed served 5 days after her weaning once past days 3-8/)
    const off = (rule: typeof SCORER.heat.unrecordedCycle) => ({
      ...SCORER,
      heat: { ...SCORER.heat, unrecordedCycle: rule },
    })
    assert.doesNotMatch(recordlessHeatSummary(off(null)), /records no insemination/)
    assert.match(recordlessHeatSummary(off(null)), /a gilt not yet served/)
    assert.doesNotMatch(recordlessHeatSummary(off({ births: false, servedDay: 5 })), /farrowing/)
    assert.doesNotMatch(recordlessHeatSummary(off({ births: true, servedDay: null })), /presumed/)
  })
  it('unrecordedCycle: her farrowing read as a record, due while the move makes her so, a service presumed; none on a farm that keeps records', () => {
    const HOUR = DAY / 24
    const n = 40 * 24
    const hours = Array.from({ length: n }, (_, i) => ({ hour: T0 + i * HOUR })) as unknown as HourSummary[]
    // A move into the crate at hour 24 shown from hour 48; her farrowing read at hour 96.
    const data = {
      moveAt: [Array.from({ length: n }, (_, i) => (i >= 48 ? 24 : undefined))],
      lactationAt: [Array.from({ length: n }, (_, i) => (i >= 96 ? 96 : undefined))],
    }
    const unrecorded = SCORER.birth.unrecorded!
    const kept = unrecordedCycle(NO_RECORDS, hours, 0, data, null, SCORER)
    assert.equal(kept.records, NO_RECORDS)
    assert.equal(kept.due(60, T0 + 61 * HOUR), false)
    const read = unrecordedCycle(NO_RECORDS, hours, 0, data, unrecorded, SCORER)
    assert.deepEqual(read.records.births, [T0 + 97 * HOUR])
    assert.equal(read.due(60, T0 + 61 * HOUR), true)
    assert.equal(read.due(100, T0 + 101 * HOUR), false)
    // Lactation from the farrowing read: no heat alarm.
    assert.equal(heatRuledOut(read.at(T0 + 10 * DAY), T0 + 10 * DAY), true)
    // Weaned (read from the data) 25 days later: a service presumed 5 days after, from day 9 after the weaning.
    const weaned = { ...NO_RECORDS, weanings: [T0 + 30 * DAY] }
    const cycle = unrecordedCycle(weaned, hours, 0, data, unrecorded, SCORER)
    assert.deepEqual(cycle.at(T0 + 39 * DAY).services, [T0 + 35 * DAY])
    const off = { ...SCORER, heat: { ...SCORER.heat, unrecordedCycle: null } }
    assert.equal(unrecordedCycle(weaned, hours, 0, data, unrecorded, off).at(T0 + 39 * DAY), weaned)
  })
})
