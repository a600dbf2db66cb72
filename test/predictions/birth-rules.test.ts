// Store-independent: runs in the embedded pass of npm test only (test/run.ts).
// Birth's rules as pure functions: the CUSUM of activity above the reference, and its threshold by the records.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { SCORER } from '../../src/modules/predictions/scorer-settings.rules.ts'
import { probabilityOf } from '../../src/modules/predictions/calibration.rules.ts'
import { NO_RECORDS } from '../../src/modules/predictions/reproduction.rules.ts'
import {
  birthCusum,
  birthRuledOut,
  birthThreshold,
  lastDayCusum,
  lastDayProbability,
  unrecordedBirthFactor,
  unrecordedBirthState,
} from '../../src/modules/predictions/birth.rules.ts'
import { DAY, T0, recordsBefore } from './scorer-fixtures.ts'

describe('birth: CUSUM of activity above the reference', () => {
  const { reference, cap, threshold } = SCORER.birth

  it('stays at 0 while activity is at or below the reference, and holds over hours without data', () => {
    assert.equal(birthCusum([1, 1.2, reference, 0.5, undefined]), 0)
    const level = birthCusum([3, undefined, 3])
    assert.ok(Math.abs(level - 2 * Math.log(3 / reference)) < 1e-12)
  })

  it('caps each hour, so that one wild hour (a fight, a late feeding) cannot alarm alone', () => {
    const spike = birthCusum([1, 1, 50, 1, 1])
    assert.ok(spike <= Math.log(cap / reference))
    assert.ok(probabilityOf(spike, threshold) < 0.5)
  })

  it('alarms after hours of sustained restlessness, as in nest building', () => {
    const nest = [1, 1, ...Array<number>(8).fill(4)]
    assert.ok(probabilityOf(birthCusum(nest), threshold) >= 0.5)
    assert.ok(probabilityOf(birthCusum(nest.slice(0, 5)), threshold) < 0.5, 'three hours are not enough')
  })

  it('falls back as activity drops back below the reference', () => {
    assert.ok(birthCusum([4, 4, 4, 4, 0.5, 0.5, 0.5]) < birthCusum([4, 4, 4, 4]))
  })
})

describe("birth: the last day's CUSUM, while a due sow's ear is warm", () => {
  const lastDay = SCORER.birth.short.lastDay!
  // A weak nester: 1.5x her usual for 12 hours, under the short CUSUM's reference, over the last day's.
  const weakNest = Array<number>(lastDay.hours).fill(1.5)

  it("alarms on a weak nester's small rise sustained over hours while her ear is warm", () => {
    const level = lastDayCusum(weakNest, lastDay.warmC)
    assert.ok(Math.abs(level - lastDay.hours * Math.log(1.5 / lastDay.reference)) < 1e-12)
    assert.ok(probabilityOf(level, lastDay.threshold) >= 0.5)
    const short = SCORER.birth.short
    const shortLevel = birthCusum(weakNest.slice(-short.hours), {
      ...SCORER,
      birth: { ...SCORER.birth, reference: short.reference },
    })
    assert.ok(probabilityOf(shortLevel, short.threshold) < 0.5, 'the short CUSUM misses it')
  })

  it('counts nothing while the ear is not warm, without ear readings or without the rule', () => {
    assert.equal(lastDayCusum(weakNest, lastDay.warmC - 0.01), 0)
    assert.equal(lastDayCusum(weakNest, undefined), 0)
    const none = { ...SCORER, birth: { ...SCORER.birth, short: { ...SCORER.birth.short, lastDay: null } } }
    assert.equal(lastDayCusum(weakNest, 1, none), 0)
  })

  it("alarms at its threshold times the factor given (a warmer ear, the farm's due bar)", () => {
    assert.ok(lastDayProbability(weakNest, lastDay.warmC, 1) >= 0.5)
    assert.ok(lastDayProbability(weakNest, lastDay.warmC, 2) < 0.5, 'twice the bar')
    assert.equal(lastDayProbability(weakNest, 0, 1), 0, 'the ear not warm')
  })

  it('needs hours of it: a few hours of the same rise, or the usual level, stay under the alarm', () => {
    assert.ok(probabilityOf(lastDayCusum(weakNest.slice(0, 4), 1), lastDay.threshold) < 0.5)
    assert.equal(lastDayCusum(Array<number>(lastDay.hours).fill(1.1), 1), 0)
  })
})

describe("birth: what the farm's records change", () => {
  const t = T0 + 200 * DAY
  const records = recordsBefore(t)

  it('lowers the birth threshold near the expected farrowing and raises it early in pregnancy', () => {
    const base = SCORER.birth.threshold
    assert.equal(birthThreshold(NO_RECORDS, t), base)
    assert.equal(birthThreshold(records({ services: [114] }), t), base * 0.75)
    assert.equal(birthThreshold(records({ services: [60] }), t), base * 2.5)
    assert.equal(birthThreshold(records({ services: [104] }), t), base)
  })

  it('rules a farrowing out until a gestation could have passed since a recorded one, weaning and heat included', () => {
    const { quietAfterBirthDays } = SCORER.birth
    assert.equal(birthRuledOut(NO_RECORDS, t), false)
    assert.equal(birthRuledOut(records({ births: [1] }), t), true)
    assert.equal(birthRuledOut(records({ births: [25], weanings: [1] }), t), true, 'a sow just weaned')
    assert.equal(birthRuledOut(records({ births: [40], weanings: [15], services: [10] }), t), true, 'served since')
    assert.equal(birthRuledOut(records({ births: [quietAfterBirthDays - 1] }), t), true)
    assert.equal(birthRuledOut(records({ births: [quietAfterBirthDays + 1] }), t), false)
    assert.equal(birthRuledOut(records({ births: [150], services: [114] }), t), false, 'due again')
  })
})

describe('birth on a farm that records no service', () => {
  const rule = { dueDays: 10, quietDays: 18 }
  const h = 24
  it('is due from the move read from the data to dueDays after it, farrowed to quietDays after it', () => {
    assert.equal(unrecordedBirthState(undefined, 100 * h, undefined, rule), 'unseen')
    assert.equal(unrecordedBirthState(90 * h, 91 * h, undefined, rule), 'due')
    assert.equal(unrecordedBirthState(90 * h, 100 * h, undefined, rule), 'due')
    assert.equal(unrecordedBirthState(90 * h, 101 * h, undefined, rule), 'farrowed')
    assert.equal(unrecordedBirthState(90 * h, 109 * h, undefined, rule), 'unseen')
  })

  it('has farrowed within quietDays after a weaning read from the data, a move then being none', () => {
    assert.equal(unrecordedBirthState(undefined, 100 * h, 5, rule), 'farrowed')
    assert.equal(unrecordedBirthState(99 * h, 100 * h, 5, rule), 'farrowed')
    assert.equal(unrecordedBirthState(undefined, 100 * h, 19, rule), 'unseen')
  })

  it('has farrowed from when her nursing shows in her due days, to quietDays after the move', () => {
    assert.equal(unrecordedBirthState(90 * h, 95 * h, undefined, rule, 94 * h), 'farrowed')
    assert.equal(unrecordedBirthState(90 * h, 93 * h, undefined, rule, 94 * h), 'due', 'not before it shows')
    assert.equal(unrecordedBirthState(90 * h, 109 * h, undefined, rule, 94 * h), 'unseen')
    assert.equal(unrecordedBirthState(90 * h, 95 * h, undefined, rule, 80 * h), 'due', 'a nursing before the move')
  })

  it('lowers the bar while due, raises it where no move shows, rules a birth out once farrowed', () => {
    const u = SCORER.birth.unrecorded!
    assert.deepEqual(unrecordedBirthFactor('due'), { factor: u.dueFactor, ruledOut: false })
    assert.deepEqual(unrecordedBirthFactor('unseen'), { factor: u.unseenFactor, ruledOut: false })
    assert.equal(unrecordedBirthFactor('farrowed').ruledOut, true)
    assert.deepEqual(unrecordedBirthFactor(undefined), { factor: 1, ruledOut: false }, 'a farm that keeps records')
    const without = { ...SCORER, birth: { ...SCORER.birth, unrecorded: null } }
    assert.deepEqual(unrecordedBirthFactor('farrowed', without), { factor: 1, ruledOut: false })
  })
})
