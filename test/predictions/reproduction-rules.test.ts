// Store-independent: runs in the embedded pass of npm test only (test/run.ts).
// What the records and the movement between nodes say about a sow's cycle, as pure functions.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { HOUR_MS, alignHours } from '../../src/modules/predictions/hour-summaries.rules.ts'
import { SCORER } from '../../src/modules/predictions/scorer-settings.rules.ts'
import {
  NO_RECORDS,
  reproductiveState,
  phaseStart,
  crateMoveIndex,
  crateEntryIndex,
  unrecordedCrateMoves,
  earShifted,
  lactationIndex,
  withInferredWeanings,
  failedServices,
  RETURN_CLOSES_AFTER_MS,
} from '../../src/modules/predictions/reproduction.rules.ts'
import {
  OPEN_HEAT_DUE_DAYS,
  heatRuledOut,
  heatShortFactor,
  heatThreshold,
  openHeatDue,
} from '../../src/modules/predictions/heat.rules.ts'
import { birthThreshold } from '../../src/modules/predictions/birth.rules.ts'
import { DAY, T0, recordsBefore } from './scorer-fixtures.ts'

describe("what the farm's records say", () => {
  const t = T0 + 200 * DAY
  const records = recordsBefore(t)

  it('reads the reproductive state: an open service, days since weaning and birth, lactation', () => {
    assert.deepEqual(reproductiveState(records({ services: [20], weanings: [25], births: [50] }), t), {
      sinceService: 20,
      sinceWeaning: 25,
      sinceBirth: 50,
      lactatingDays: undefined,
      sinceFoundOpen: undefined,
      sinceFailedService: undefined,
    })
    assert.equal(
      reproductiveState(records({ services: [130], births: [15] }), t).sinceService,
      undefined,
      'a farrowing closes the service',
    )
    assert.equal(reproductiveState(records({ births: [15] }), t).lactatingDays, 15)
    assert.equal(
      reproductiveState(records({ births: [15], services: [-1] }), t).sinceService,
      undefined,
      'records after t do not count',
    )
  })

  it('starts a new phase at a weaning or a farrowing; the crate is not assumed from the service date', () => {
    assert.equal(phaseStart(NO_RECORDS, t), undefined)
    assert.equal(phaseStart(records({ weanings: [4], births: [30] }), t), t - 4 * DAY)
    assert.equal(phaseStart(records({ services: [110], weanings: [135] }), t), t - 135 * DAY)
    assert.equal(phaseStart(records({ services: [50], weanings: [55] }), t), t - 55 * DAY)
  })
})

describe('a sow her records show open', () => {
  const t = T0 + 200 * DAY
  const served = t - 60 * DAY

  it('takes a negative check or a return as the failure of the service before it, a re-service of that heat apart', () => {
    const check = served + 30 * DAY
    const open = { kind: 'check', result: 'open', at: check } as const
    assert.deepEqual(failedServices([open], [served]), [{ service: served, from: check }])
    assert.deepEqual(failedServices([{ ...open, result: 'pregnant' }], [served]), [])
    assert.deepEqual(failedServices([{ ...open, result: 'recheck' }], [served]), [])
    assert.deepEqual(failedServices([open], []), [], 'no service to fail')
    // A return 21 days after the service, served again in that heat a day before or after: the first service
    // failed, from when the return's heat is over; the re-service is not the one the return speaks of.
    const returned = served + 21 * DAY
    for (const again of [returned + DAY, returned - DAY])
      assert.deepEqual(failedServices([{ kind: 'return', at: returned }], [served, again]), [
        { service: served, from: returned + RETURN_CLOSES_AFTER_MS },
      ])
    // A later scan of the same service that finds her pregnant: the first scan was wrong, from then on.
    const rescan = { kind: 'check', result: 'pregnant', at: check + 7 * DAY } as const
    assert.deepEqual(failedServices([rescan, open], [served]), [{ service: served, from: check, until: rescan.at }])
  })

  it('closes the service from when it is known to have failed, until she is served again', () => {
    const found = { service: served, from: served + 30 * DAY }
    const records = { services: [served], weanings: [], births: [], failedServices: [found] }
    const state = reproductiveState(records, t)
    assert.equal(state.sinceService, undefined)
    assert.equal(state.sinceFoundOpen, 30)
    assert.equal(state.sinceFailedService, 60)
    assert.equal(reproductiveState(records, served + 20 * DAY).sinceService, 20, 'before the check: served')
    const rescanned = { ...records, failedServices: [{ ...found, until: served + 40 * DAY }] }
    assert.equal(reproductiveState(rescanned, t).sinceService, 60, 'scanned pregnant after all: served')
    assert.equal(reproductiveState(rescanned, served + 35 * DAY).sinceService, undefined)
    const again = { ...records, services: [served, t - 5 * DAY] }
    assert.equal(reproductiveState(again, t).sinceService, 5)
    assert.equal(reproductiveState(again, t).sinceFoundOpen, undefined)
  })

  it("expects her heat two cycles after that service, not a pregnant sow's, and no farrowing from it", () => {
    const dueAt = served + 112 * DAY
    const records = { services: [served], weanings: [], births: [] }
    const open = { ...records, failedServices: [{ service: served, from: served + 30 * DAY }] }
    const { threshold, unlikelyFactor, expectedFactor, shortFactor, returnShortFactor } = SCORER.heat
    assert.equal(heatThreshold(records, served + 40 * DAY), threshold * unlikelyFactor)
    assert.equal(heatShortFactor(records, served + 40 * DAY), undefined)
    // Her next heat is due 36-48 days after the service (the return at 18-24 passed unseen): the weaning's bar over
    // the day, the return window's over the shorter window (she is out of step with her pen-mates).
    for (const day of [OPEN_HEAT_DUE_DAYS.from, 40, OPEN_HEAT_DUE_DAYS.to]) {
      assert.equal(openHeatDue(open, served + day * DAY), true, `day ${day}`)
      assert.equal(heatThreshold(open, served + day * DAY), threshold * expectedFactor, `day ${day}`)
      assert.equal(heatShortFactor(open, served + day * DAY), returnShortFactor, `day ${day}`)
    }
    assert.notEqual(returnShortFactor, shortFactor)
    // Scanned open before then: that cycle's luteal phase (no oestrus); long after, the plain bar.
    assert.equal(openHeatDue(open, served + 33 * DAY), false)
    assert.equal(heatThreshold(open, served + 33 * DAY), threshold * unlikelyFactor)
    assert.equal(heatShortFactor(open, served + 33 * DAY), undefined)
    assert.equal(heatThreshold(open, served + 55 * DAY), threshold)
    assert.equal(heatShortFactor(open, served + 55 * DAY), undefined)
    // Served again: the new service's bars.
    const again = { ...open, services: [served, served + 41 * DAY] }
    assert.equal(openHeatDue(again, served + 45 * DAY), false)
    assert.equal(heatThreshold(again, served + 45 * DAY), threshold * unlikelyFactor)
    assert.equal(heatRuledOut(records, dueAt), true, 'a farrowing is due')
    assert.equal(heatRuledOut(open, dueAt), false)
    assert.equal(birthThreshold(records, dueAt), SCORER.birth.threshold * 0.75)
    assert.equal(
      birthThreshold(open, dueAt),
      SCORER.birth.threshold * 2.5,
      'as far from a farrowing as early in a gestation',
    )
  })
})

describe('what the movement between nodes says', () => {
  it('finds the move into the crate as the last day whose movement between nodes fell below half its usual', () => {
    const movement: (number | undefined)[] = Array.from({ length: 20 * 24 }, (_, e) => (e >= 15 * 24 ? 0.1 : 0.4))
    assert.equal(crateMoveIndex(movement, 10 * 24, 20 * 24 - 1), 20 * 24 - 1 - 23)
    assert.equal(crateMoveIndex(movement, 10 * 24, 15 * 24 - 1), undefined, 'before the drop')
    const gradual = movement.map((_, e) => 0.4 * (1 - e / (40 * 24)))
    assert.equal(crateMoveIndex(gradual, 10 * 24, 20 * 24 - 1), undefined, 'a slow decline is no move')
  })

  it('dates the move into the crate from the first day whose movement fell below half its usual, half a day before it', () => {
    const movement: (number | undefined)[] = Array.from({ length: 20 * 24 }, (_, e) => (e >= 15 * 24 ? 0.1 : 0.4))
    assert.equal(crateEntryIndex(movement, 10 * 24, 20 * 24 - 1), 15 * 24 - 11)
    assert.equal(crateEntryIndex(movement, 10 * 24, 15 * 24 - 1), undefined, 'before the drop')
    const gradual = movement.map((_, e) => 0.4 * (1 - e / (40 * 24)))
    assert.equal(crateEntryIndex(gradual, 10 * 24, 20 * 24 - 1), undefined, 'a slow decline is no move')
  })

  it('reads an unrecorded weaning from movement between nodes rising to 2.5x its usual, not while a service may hold', () => {
    const days = 20
    const hours = alignHours([], T0, T0 + (days * 24 - 1) * HOUR_MS)
    const movement = hours.map((_, e) => (e < 10 * 24 ? 0.03 : 0.2))
    const rise = SCORER.heat.weaningRise
    const { weanings } = withInferredWeanings(NO_RECORDS, movement, hours, 0, hours.length - 1, rise)
    assert.deepEqual(weanings, [T0 + 10 * DAY + HOUR_MS])
    const pregnant = { services: [T0 - 50 * DAY], weanings: [], births: [] }
    assert.deepEqual(withInferredWeanings(pregnant, movement, hours, 0, hours.length - 1, rise), pregnant)
    const recorded = { services: [], weanings: [T0 + 9 * DAY], births: [] }
    assert.deepEqual(withInferredWeanings(recorded, movement, hours, 0, hours.length - 1, rise), recorded)
    const small = hours.map((_, e) => (e < 10 * 24 ? 0.01 : 0.04))
    assert.deepEqual(withInferredWeanings(NO_RECORDS, small, hours, 0, hours.length - 1, rise).weanings, [])
  })

  it("reads a move into the crate without a service record from a drop of movement held for a day, not the pen's", () => {
    const rule = { drop: 0.5, heldHours: 24, groupKept: 0.75, earShiftC: 0.5 }
    const movement: (number | undefined)[] = Array.from({ length: 30 * 24 }, (_, e) => (e >= 15 * 24 ? 0.1 : 0.4))
    const kept: (number | undefined)[] = movement.map(() => 1)
    assert.deepEqual(unrecordedCrateMoves(movement, kept, [], 10 * 24, 30 * 24 - 1, rule, 100 * 24), [
      { entry: 15 * 24 - 11, shows: 16 * 24 },
    ])
    assert.deepEqual(
      unrecordedCrateMoves(movement, kept, [], 10 * 24, 16 * 24 - 1, rule, 100 * 24),
      [],
      'not before it has held for heldHours',
    )
    const quietDay = movement.map((_, e) => (e >= 15 * 24 && e < 15 * 24 + 12 ? 0.1 : 0.4))
    assert.deepEqual(unrecordedCrateMoves(quietDay, kept, [], 10 * 24, 30 * 24 - 1, rule, 100 * 24), [], 'a quiet day')
    const pen = movement.map((_, e) => (e >= 15 * 24 ? 0.3 : 1))
    assert.deepEqual(
      unrecordedCrateMoves(movement, pen, [], 10 * 24, 30 * 24 - 1, rule, 100 * 24),
      [],
      "the pen's drop",
    )
    const unknown = movement.map(() => undefined)
    assert.equal(unrecordedCrateMoves(movement, unknown, [], 10 * 24, 30 * 24 - 1, rule, 100 * 24).length, 1)
  })

  it('reads an ear far warmer (a fever) or cooler (a tag off the skin) than her usual as shifted', () => {
    // The ear 0.2 °C over the group's for 20 days, then a fever from day 12 (+1 °C), a tag off the skin from day 16.
    const ear: (number | undefined)[] = Array.from({ length: 20 * 24 }, (_, e) =>
      e >= 16 * 24 ? -0.8 : e >= 12 * 24 ? 1.2 : 0.2,
    )
    assert.equal(earShifted(ear, 11 * 24, 0.5), false, 'her usual ear')
    assert.equal(earShifted(ear, 12 * 24, 0.5), true, 'a fever')
    assert.equal(earShifted(ear, 12 * 24, 1.5), false, 'within a wider bar')
    assert.equal(earShifted(ear, 18 * 24, 0.5), true, 'a tag off the skin')
    assert.equal(earShifted([...ear.slice(0, 12 * 24), undefined], 12 * 24, 0.5), false, 'no reading')
    assert.equal(
      earShifted(
        ear.map((t, e) => (e < 9 * 24 ? undefined : t)),
        12 * 24,
        0.5,
      ),
      false,
      'no usual',
    )
  })

  it('reads no move into the crate from a drop while her ear is shifted', () => {
    const rule = { drop: 0.5, heldHours: 24, groupKept: 0.75, earShiftC: 0.5 as number | null }
    const movement: (number | undefined)[] = Array.from({ length: 30 * 24 }, (_, e) => (e >= 15 * 24 ? 0.1 : 0.4))
    const kept: (number | undefined)[] = movement.map(() => 1)
    const steady = movement.map(() => 0.1)
    // A fever from day 14 to day 17 (the ear 1 °C warmer), then steady again: the fall in movement in it is no move.
    const fever = movement.map((_, e) => (e >= 14 * 24 && e < 17 * 24 ? 1.1 : 0.1))
    const entries = (ear: (number | undefined)[], r = rule) =>
      unrecordedCrateMoves(movement, kept, ear, 10 * 24, 30 * 24 - 1, r, 100 * 24).map((m) => m.entry)
    assert.deepEqual(entries(steady), [15 * 24 - 11])
    assert.deepEqual(entries(fever), [17 * 24 - 11], 'read once the ear is back to her usual')
    assert.deepEqual(entries(fever, { ...rule, earShiftC: null }), [15 * 24 - 11], 'not read without the bar')
    // A tag off the skin from day 14 to day 16, then back on; the ear warming the day after a drop is not read
    // (a late move's last day before farrowing).
    const loose = movement.map((_, e) => (e >= 14 * 24 && e < 16 * 24 ? -1 : 0.1))
    assert.deepEqual(entries(loose), [16 * 24 - 11], 'a tag off the skin')
    const warming = movement.map((_, e) => (e >= 16 * 24 ? 0.9 : 0.1))
    assert.deepEqual(entries(warming), [15 * 24 - 11], 'the day after warmer')
  })

  it('reads no second move without a service record within the gap after one', () => {
    const rule = { drop: 0.5, heldHours: 24, groupKept: 0.75, earShiftC: 0.5 }
    // In the crate from day 12 to day 20, back in the pen, in a crate again from day 40.
    const movement = Array.from({ length: 60 * 24 }, (_, e) =>
      (e >= 12 * 24 && e < 20 * 24) || e >= 40 * 24 ? 0.1 : 0.4,
    )
    const kept = movement.map(() => 1)
    const entries = (gapDays: number) =>
      unrecordedCrateMoves(movement, kept, [], 9 * 24, 60 * 24 - 1, rule, gapDays * 24).map((m) => m.entry)
    assert.deepEqual(entries(100), [12 * 24 - 11])
    assert.deepEqual(entries(20), [12 * 24 - 11, 40 * 24 - 11])
  })

  it('reads a farrowing after a move from a day far less active than her nest-building day in the crate', () => {
    // In the crate from hour 0: days at 0.05, a nest-building day at 0.15 ending at day 5, then nursing at 0.02.
    const activity = Array.from({ length: 10 * 24 }, (_, e) => (e < 4 * 24 ? 0.05 : e < 5 * 24 ? 0.15 : 0.02))
    // Day blocks: the series itself stands for the 24 h ending at each hour (as dayBlocks gives).
    const index = lactationIndex(activity, 0, 0, 10 * 24 - 1, 0.35, 0)
    assert.equal(index, 5 * 24)
    const noisy = Array.from({ length: 10 * 24 }, (_, e) => (Math.floor(e / 24) % 2 === 0 ? 0.03 : 0.06))
    assert.equal(lactationIndex(noisy, 0, 0, 10 * 24 - 1, 0.35, 0), undefined, "a crate's day-to-day noise")
    assert.equal(lactationIndex(activity, 0, 0, 5 * 24 - 1, 0.35, 0), undefined, 'not before it shows')
    assert.equal(
      lactationIndex(activity, 4 * 24 + 1, 0, 10 * 24 - 1, 0.35, 0),
      undefined,
      'only days wholly in the crate: the nest-building day began before it',
    )
  })
})
