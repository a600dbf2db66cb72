// Store-independent: runs in the embedded pass of npm test only (test/run.ts).
// Lameness's rule as a pure function: the decline of activity and movement over days.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { SCORER } from '../../src/modules/predictions/scorer-settings.rules.ts'
import { DAY_MIN_HOURS, dayMeans } from '../../src/modules/predictions/hour-summaries.rules.ts'
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

  it('day means: the mean of the 24 h ending at each hour, none under DAY_MIN_HOURS values', () => {
    const values = Array.from({ length: 72 }, (_, i) => (i < 24 ? 1 : i < 48 ? 3 : i % 2 === 0 ? 5 : undefined))
    const means = dayMeans((i) => values[i], 23, 71)
    assert.equal(means[23], 1)
    assert.equal(means[47], 3)
    assert.equal(means[35], 2, 'half of each day')
    assert.equal(means[71], 5, 'the hours without a value leave the mean')
    const sparse = dayMeans((i) => (i % 24 < DAY_MIN_HOURS - 1 ? 1 : undefined), 23, 47)
    assert.equal(sparse[47], undefined)
    assert.equal(means[22], undefined, 'before from')
  })
})
