// Store-independent: runs in the embedded pass of npm test only (test/run.ts).
// Per-farm learning's rules on hand-made inputs: how a stored probability maps to another factor, when a
// threshold moves and how far (limits, one step, shrinkage), and what the learning reads from days and events.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  GESTATION_LEARNING,
  LEARNING,
  alarmsAt,
  gestationPairs,
  learnClass,
  learnGestation,
  learnGestationFromRecords,
  learningInput,
  reachOf,
} from '../../src/modules/predictions/farm-learning.rules.ts'
import { SCORER, dueDaysSince, settingsWithFactors } from '../../src/modules/predictions/scorer-settings.rules.ts'
import { birthThreshold } from '../../src/modules/predictions/birth.rules.ts'

const DAY = 86_400_000
const quiet = (n: number, p = 0.1) => Array<number>(n).fill(p)
const events = (...peaks: number[]) => peaks.map((peakBefore) => ({ peakBefore }))

describe('per-farm learning', () => {
  it('reads a stored probability at another factor: p = s / (s + f T) alarms at g when p ≥ g / (g + f)', () => {
    assert.equal(alarmsAt(0.5, 1, 1), true)
    assert.equal(alarmsAt(0.45, 1, 1), false)
    assert.equal(alarmsAt(0.45, 1, 0.8), true)
    assert.equal(alarmsAt(0.6, 1, 1.5), true)
    assert.equal(alarmsAt(0.55, 1, 1.5), false)
    assert.equal(alarmsAt(0, 1, 0.6), false)
  })

  it('changes nothing with fewer than minEvents events, or on target', () => {
    const few = learnClass('birth', {
      currentFactor: 1,
      events: events(0.3, 0.3),
      quietDayPeaks: quiet(50),
      animalMonths: 2,
    })
    assert.equal(few.factor, 1)
    assert.match(few.reason, /fewer than 5: unchanged/)
    const fine = learnClass('birth', {
      currentFactor: 1,
      events: events(0.8, 0.7, 0.9, 0.6, 0.7),
      quietDayPeaks: quiet(50),
      animalMonths: 2,
    })
    assert.equal(fine.factor, 1)
    assert.match(fine.reason, /on target, unchanged/)
  })

  it('lowers a threshold for missed events only as far as one step, the limits and the shrinkage allow', () => {
    const input = {
      currentFactor: 1,
      events: events(...quiet(10, 0.45)),
      quietDayPeaks: quiet(100),
      animalMonths: 3,
    }
    const once = learnClass('birth', input)
    // 0.45 needs 0.8x (0.45 ≥ 0.8 / 1.8), one step's reach (1 / 1.25); ten events move it half of the way.
    assert.equal(once.factor, 0.9)
    const far = learnClass('birth', { ...input, events: events(...quiet(10, 0.2)) })
    assert.equal(far.factor, 1, 'out of one step: nothing gained, unchanged')
    const atLimit = learnClass('birth', { ...input, currentFactor: 0.62, events: events(...quiet(10, 0.495)) })
    assert.ok(atLimit.factor >= LEARNING.minFactor && atLimit.factor < 0.62, String(atLimit.factor))
  })

  it('does not lower a threshold when its false alarms would grow more than the events it gains', () => {
    const r = learnClass('birth', {
      currentFactor: 1,
      events: events(0.45, 0.45, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9),
      quietDayPeaks: [...quiet(50), ...quiet(5, 0.46)],
      animalMonths: 2,
    })
    assert.equal(r.factor, 1)
    assert.match(r.reason, /raise the false alarms more than the events caught: unchanged/)
  })

  it('raises a threshold when false alarms are many and a higher one still catches enough', () => {
    const r = learnClass('lameness', {
      currentFactor: 1,
      events: events(0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9),
      quietDayPeaks: [...quiet(40), ...quiet(10, 0.52)],
      animalMonths: 2,
    })
    assert.ok(r.factor > 1 && r.factor <= LEARNING.maxStep, String(r.factor))
    assert.ok(r.falseAlarmsAtFactor! < r.falseAlarmsPerAnimalMonth!)
  })

  it("raises a threshold for false alarms only with a margin under the lowest caught event's peak", () => {
    const input = {
      currentFactor: 1,
      events: events(0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.56),
      quietDayPeaks: [...quiet(40), ...quiet(10, 0.52)],
      animalMonths: 2,
    }
    // 0.56 still alarms at 1.25x (0.56 ≥ 1.25 / 2.25), so keeping every caught event allowed a raise to the edge: the
    // event at 0.56 would be caught just above the bar, and the next period's like it just under. Its score is 1.27x
    // the default threshold (reachOf), so a raise keeping 1.25x under it may go to 1.02x at most: none of one step.
    assert.ok(Math.abs(reachOf(0.56, 1) - 1.273) < 0.001)
    const edge = learnClass('birth', input)
    assert.equal(edge.factor, 1)
    assert.match(edge.reason, /within 1.25x of the lowest caught event's peak: unchanged/)
    // With the lowest caught peak at 0.6 (1.5x the default threshold) a raise goes to 1.2x, 1.25x under it; ten events
    // move it half of the way.
    const margin = learnClass('birth', { ...input, events: events(...quiet(9, 0.9), 0.6) })
    assert.equal(margin.factor, 1.1)
    assert.equal(margin.detectedAtFactor, 10)
    assert.equal(margin.falseAlarmsAtFactor, 0)
    assert.ok(reachOf(0.6, 1) / 1.2 >= LEARNING.raiseMargin - 1e-9)
    // The margin is on the score, whatever factor the probabilities were stored at: the same events at 1.1x.
    const scoredHigher = learnClass('birth', {
      ...input,
      currentFactor: 1.1,
      events: events(...quiet(9, 0.9), 1.5 / 2.6),
    })
    assert.ok(scoredHigher.factor > 1.1 && scoredHigher.factor <= 1.2 + 1e-9, String(scoredHigher.factor))
  })

  it("takes each event's peak over the days its lead window touches, and the other days as quiet", () => {
    const t0 = Date.UTC(2026, 2, 1)
    const days = [0, 1, 2, 3, 4, 5].map((d) => ({ animalId: 1, day: t0 + d * DAY, peak: d === 3 ? 0.4 : 0.1 }))
    const input = learningInput(
      days,
      [{ animalId: 1, at: t0 + 4 * DAY + 9 * 3_600_000 }],
      { leadMs: 2 * DAY, lateMs: DAY },
      1,
    )
    assert.deepEqual(input.events, [{ peakBefore: 0.4 }])
    assert.deepEqual(input.quietDayPeaks, [0.1, 0.1], 'days 0 and 1: day 2 touches the lead window, day 5 the late one')
    assert.ok(Math.abs(input.animalMonths - 6 / 30.44) < 1e-9)
  })
})

describe("per-farm learning: the farm's gestation", () => {
  const t0 = Date.UTC(2026, 2, 1)

  it('pairs each farrowing of the period with the latest service before it, within 105-127 days', () => {
    const pairs = gestationPairs(
      [
        // A return: the farrowing counts from the second service.
        { services: [t0, t0 + 21 * DAY], births: [t0 + (21 + 119) * DAY] },
        // No service recorded within 127 days: no pair; a farrowing outside the period: none either.
        { services: [t0], births: [t0 + 140 * DAY] },
        { services: [t0], births: [t0 + 116 * DAY] },
      ],
      t0 + 120 * DAY,
      t0 + 200 * DAY,
    )
    assert.deepEqual(pairs, [119])
    const records = [{ services: [t0], births: [t0 + 119 * DAY] }]
    assert.deepEqual(learnGestationFromRecords(records, t0, t0 + 200 * DAY), learnGestation([119]))
  })

  it('keeps the default below minPairs pairs, and moves pairs / (pairs + shrinkPairs) of the way to their median', () => {
    const few = learnGestation([119, 120, 118, 119])
    assert.equal(few.days, GESTATION_LEARNING.defaultDays)
    assert.equal(few.medianDays, 119)
    assert.match(few.reason, /fewer than 5: the default gestation/)
    const none = learnGestation([])
    assert.equal(none.days, GESTATION_LEARNING.defaultDays)
    assert.equal(none.medianDays, null)
    // Five pairs, median 119: half of the way from 115.
    const five = learnGestation([118, 119, 119, 120, 120])
    assert.equal(five.days, 117)
    assert.deepEqual(five.range, [118, 120])
    // Twenty: 80 %; an odd pair (a wrong record within the limits) moves the median little.
    const twenty = learnGestation([...Array<number>(19).fill(119), 106])
    assert.equal(twenty.days, 118.2)
  })

  it('stays within maxShiftDays of the default however far the records lie', () => {
    assert.equal(learnGestation(Array<number>(100).fill(126)).days, 120)
    assert.equal(learnGestation(Array<number>(100).fill(106)).days, 110)
    assert.match(learnGestation(Array<number>(100).fill(126)).reason, /held within 5 days/)
  })

  it('moves the birth windows after a service by the farm gestation less the default', () => {
    const farm = settingsWithFactors({ birth: 1, heat: 1, lameness: 1 }, SCORER, 119)
    assert.equal(dueDaysSince(120, farm), 116)
    assert.equal(dueDaysSince(120), 120)
    const records = { services: [t0], weanings: [], births: [] }
    // The lower threshold runs 108-122 days after the service by default, 112-126 on a farm whose sows farrow at 119.
    const at = (day: number) => t0 + day * DAY
    assert.equal(birthThreshold(records, at(124)), SCORER.birth.threshold)
    assert.equal(birthThreshold(records, at(124), farm), SCORER.birth.threshold * 0.75)
    assert.equal(birthThreshold(records, at(110)), SCORER.birth.threshold * 0.75)
    assert.equal(birthThreshold(records, at(110), farm), SCORER.birth.threshold)
  })
})
