// Store-independent: runs in the embedded pass of npm test only (test/run.ts).
// Lameness's rule as a pure function: the decline of activity and movement over days.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { SCORER } from '../../src/modules/predictions/scorer-settings.rules.ts'
import { lamenessDecline, temperatureShifts } from '../../src/modules/predictions/lameness.rules.ts'

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

  it('temperature shifts: a fever warms the ear, a loose tag reads cooler, against the median of the days read', () => {
    const usual = [0.1, -0.1, 0, 0.2, -0.2, 0.1, 0]
    assert.deepEqual(
      temperatureShifts(usual, 0.5),
      usual.map(() => 'steady'),
      'day-to-day warmth is steady',
    )
    assert.deepEqual(
      temperatureShifts([1.2, 0.9, 0, 0.1, -0.1, 0, 0.1], 0.5),
      ['warm', 'warm', 'steady', 'steady', 'steady', 'steady', 'steady'],
      'a fever',
    )
    assert.deepEqual(
      temperatureShifts([0, 0.1, 0, -1, -1.2, -0.9, 0.1], 0.5),
      ['steady', 'steady', 'steady', 'cool', 'cool', 'cool', 'steady'],
      'a loose tag, whether recent or in the baseline',
    )
    assert.deepEqual(
      temperatureShifts([0.5, undefined, -0.5], 0.5),
      ['steady', 'steady', 'steady'],
      'within the bar, and a day without readings',
    )
    assert.deepEqual(temperatureShifts([undefined, undefined], 0.5), ['steady', 'steady'])
  })
})
