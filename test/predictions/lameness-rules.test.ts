// Store-independent: runs in the embedded pass of npm test only (test/run.ts).
// Lameness's rule as a pure function: the decline of activity and movement over days.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { SCORER } from '../../src/modules/predictions/scorer-settings.rules.ts'
import { daysWithSteadyTemperature, lamenessDecline } from '../../src/modules/predictions/lameness.rules.ts'

describe('lameness', () => {
  it('lameness decline: recent mean against baseline median, with movement as a geometric mean', () => {
    const activity = { recent: [0.07, 0.07, 0.07], baseline: [0.1, 0.1, 0.1, 0.1, 0.5] }
    const floor = SCORER.activityFloor / 4
    assert.ok(Math.abs(lamenessDecline(activity)! - (1 - (0.07 + floor) / (0.1 + floor))) < 1e-12)
    const still = { recent: [0.2, 0.2, 0.2], baseline: [0.2, 0.2, 0.2, 0.2] }
    assert.ok(
      Math.abs(lamenessDecline(activity, still)! - (1 - Math.sqrt((0.07 + floor) / (0.1 + floor)))) < 1e-12,
      'steady movement halves the evidence',
    )
    assert.equal(
      lamenessDecline({ recent: [0.2, 0.2, 0.2], baseline: [0.1, 0.1, 0.1, 0.1] }),
      0,
      'more active is no decline',
    )
    assert.equal(lamenessDecline({ recent: [0.1, 0.1], baseline: [0.1, 0.1, 0.1, 0.1] }), undefined)
    assert.equal(lamenessDecline({ recent: [0.1, 0.1, 0.1], baseline: [0.1, 0.1, 0.1] }), undefined)
  })

  it('days with a steady ear temperature: a fever, a loose tag or a replaced one leaves its days out', () => {
    const usual = [0.1, -0.1, 0, 0.2, -0.2, 0.1, 0]
    assert.deepEqual(
      daysWithSteadyTemperature(usual, 0.5),
      usual.map(() => true),
      'day-to-day warmth is kept',
    )
    assert.deepEqual(
      daysWithSteadyTemperature([1.2, 0.9, 0, 0.1, -0.1, 0, 0.1], 0.5),
      [false, false, true, true, true, true, true],
      'a fever: the warm days',
    )
    assert.deepEqual(
      daysWithSteadyTemperature([0, 0.1, 0, -1, -1.2, -0.9, 0.1], 0.5),
      [true, true, true, false, false, false, true],
      'a loose tag: the cool days, whether recent or in the baseline',
    )
    assert.deepEqual(
      daysWithSteadyTemperature([0.5, undefined, -0.5], 0.5),
      [true, true, true],
      'within the bar, and a day without readings, are kept',
    )
    assert.deepEqual(daysWithSteadyTemperature([undefined, undefined], 0.5), [true, true])
  })
})
