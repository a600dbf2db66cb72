// Store-independent: runs in the embedded pass of npm test only (test/run.ts).
// The herd scorer as pure functions, on short synthetic series: hourly summaries, the animal's own baseline, and
// the herd scorer end to end (an animal alone against its group, the group all together). Each class's rules,
// the records and the calibration have their own files (birth-, heat-, lameness-, reproduction-, calibration-rules).
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  HOUR_MS,
  type HourSummary,
  isMoving,
  summarizeHours,
  alignHours,
} from '../../src/modules/predictions/hour-summaries.rules.ts'
import { SCORER, type ScorerSettings } from '../../src/modules/predictions/scorer-settings.rules.ts'
import { calibrate, alarmLevel } from '../../src/modules/predictions/calibration.rules.ts'
import { median, quantile, expectedActivity, activityRatio } from '../../src/modules/predictions/baselines.rules.ts'
import { NO_RECORDS } from '../../src/modules/predictions/reproduction.rules.ts'
import { type AnimalHours, scoreHerd } from '../../src/modules/predictions/scorer.rules.ts'
import { DAY, T0, series, steady } from './scorer-fixtures.ts'

describe('hourly summaries', () => {
  it('counts a sample as moving when its magnitude is more than 0.1 g away from gravity', () => {
    assert.equal(isMoving(0, 0, 1), false)
    assert.equal(isMoving(0.05, 0.1, 0.98), false)
    assert.equal(isMoving(0, 0, 1.09), false)
    assert.equal(isMoving(0, 0, 1.11), true)
    assert.equal(isMoving(0, 0, 0.85), true)
    assert.equal(isMoving(0.5, 0.2, 1), true)
  })

  it('sums readings per UTC hour: samples, share moving, mean valid temperature, detections and node changes in time order', () => {
    const h = T0 + 5 * HOUR_MS
    const sensor = [
      { t: h + 60_000, c: 38, x: 0, y: 0, z: 1 },
      { t: h + 120_000, c: 39, x: 0.5, y: 0, z: 1 },
      { t: h + 180_000, c: 0, x: 0, y: 0, z: 1 },
      { t: h + 240_000, c: 44, x: 0, y: 0, z: 1.3 },
      { t: h + HOUR_MS, c: 37, x: 0, y: 0, z: 1 },
    ]
    const locations = [
      { t: h + HOUR_MS + 5, nodeuid: 'b' },
      { t: h, nodeuid: 'a' },
      { t: h + 10, nodeuid: 'a' },
      { t: h + 20, nodeuid: 'b' },
      { t: h + 30, nodeuid: 'a' },
    ]
    assert.deepEqual(summarizeHours(sensor, locations), [
      { hour: h, samples: 4, activity: 0.5, temperature: 38.5, detections: 4, nodeChanges: 2 },
      { hour: h + HOUR_MS, samples: 1, activity: 0, temperature: 37, detections: 1, nodeChanges: 1 },
    ])
  })

  it('lays summaries out hour by hour, hours without readings empty', () => {
    const one = { hour: T0 + HOUR_MS, samples: 60, activity: 0.1, temperature: 37, detections: 12, nodeChanges: 1 }
    const aligned = alignHours([one], T0, T0 + 2 * HOUR_MS)
    assert.deepEqual(
      aligned.map((h) => h.samples),
      [0, 60, 0],
    )
    assert.deepEqual(aligned[1], one)
  })
})

describe("the animal's own baseline", () => {
  it('is the median of the same hour of day (±1 h) on days 2-8 back, and needs 8 such hours with data', () => {
    const hours = series(10, (i) => (Math.floor(i / 24) === 5 ? 0.9 : steady(i)))
    const i = 9 * 24 + 10
    assert.equal(expectedActivity(hours, i), 0.12, 'one odd day does not move the median')
    assert.equal(expectedActivity(hours, 9 * 24 + 2), 0.04)
    assert.equal(expectedActivity(hours, 3 * 24 + 10), undefined, 'under 8 hours of baseline')
    const silent = hours.map((h, j) => (j < 8 * 24 ? { ...h, samples: 3 } : h))
    assert.equal(expectedActivity(silent, i), undefined, 'hours under 6 samples are missing')
  })

  it("gives the hour's ratio to it, with a floor so that a quiet night does not divide by ~0", () => {
    const hours = series(10, (i) => (i === 9 * 24 + 10 ? 0.36 : steady(i)))
    assert.equal(activityRatio(hours, 9 * 24 + 10), (0.36 + SCORER.activityFloor) / (0.12 + SCORER.activityFloor))
    const quiet = series(10, (i) => (i === 9 * 24 + 2 ? 0.02 : 0))
    assert.equal(activityRatio(quiet, 9 * 24 + 2), (0.02 + SCORER.activityFloor) / SCORER.activityFloor)
  })

  it('median of odd and even counts', () => {
    assert.equal(median([3, 1, 2]), 2)
    assert.equal(median([4, 1, 3, 2]), 2.5)
    assert.equal(median([]), undefined)
  })

  it('takes a quantile by interpolation', () => {
    assert.equal(quantile([4, 1, 3, 2], 0.5), 2.5)
    assert.equal(quantile([1, 2, 3, 4, 5], 0.25), 2)
    assert.equal(quantile([], 0.3), undefined)
  })
})

describe('the herd scorer', () => {
  // Scores are calibrated probabilities: an alarm from its class's level; a score of 0 is the calibration's lowest.
  const level = { birth: alarmLevel('birth'), heat: alarmLevel('heat'), lameness: alarmLevel('lameness') }
  const lowest = {
    birth: calibrate(SCORER.calibration?.birth, 0),
    heat: calibrate(SCORER.calibration?.heat, 0),
    lameness: calibrate(SCORER.calibration?.lameness, 0),
  }
  const days = 30
  const last = days * 24 - 1
  const herdOf = (
    activity: (k: number, i: number) => number,
    extra: (k: number, i: number) => Partial<HourSummary> = () => ({}),
  ): AnimalHours<number>[] =>
    Array.from({ length: 6 }, (_, k) => ({
      key: k,
      group: 'Pen 1',
      hours: series(
        days,
        (i) => activity(k, i),
        (i) => extra(k, i),
      ),
      records: NO_RECORDS,
    }))
  const final = (herd: AnimalHours<number>[]) => scoreHerd(herd, last, last).map((s) => s[0]!)

  it('scores a steady herd near 0 for every class', () => {
    for (const s of final(herdOf((_, i) => steady(i)))) assert.deepEqual(s, lowest)
  })

  it('alarms birth for the one sow restless for the last 10 hours, not for her pen mates', () => {
    const scores = final(herdOf((k, i) => (k === 0 && i > last - 10 ? 0.45 : steady(i))))
    assert.ok(scores[0]!.birth >= level.birth, JSON.stringify(scores[0]))
    assert.ok(scores.slice(1).every((s) => s.birth === lowest.birth))
  })

  it('does not alarm when the whole pen is restless together (a late feeding, a disturbance)', () => {
    for (const s of final(herdOf((_, i) => (i > last - 10 ? 0.45 : steady(i)))))
      assert.ok(s.birth < level.birth && s.heat < level.heat, JSON.stringify(s))
  })

  it("lowers the birth threshold while the sow's ear is warmer than usual (and her pen's is not)", () => {
    // The plain bar: this herd has no records, and no move into the crate read from its data raises it (below).
    const plain: ScorerSettings = { ...SCORER, birth: { ...SCORER.birth, unrecorded: null } }
    const finalAt = (herd: AnimalHours<number>[], settings = plain) =>
      scoreHerd(herd, last, last, settings).map((s) => s[0]!)
    const restless = (k: number, i: number) => (k === 0 && i > last - 3 ? 0.3 : steady(i))
    const warmEar = (k: number, i: number) => ({ temperature: k === 0 && i > last - 8 ? 37.5 : 37 })
    const cool = finalAt(herdOf(restless))[0]!.birth
    const warm = finalAt(herdOf(restless, warmEar))[0]!.birth
    assert.ok(warm > cool && warm >= level.birth && cool < level.birth, `${cool} -> ${warm}`)
    const unseen = finalAt(herdOf(restless, warmEar), SCORER)[0]!.birth
    assert.ok(unseen < level.birth, `recording nothing, no move seen: ${unseen}`)
  })

  it('recording nothing, makes a sow due once her move into the crate shows in her movement between nodes', () => {
    const crateFrom = (days - 5) * 24
    // In the crate for the last 5 days at half her pen's activity, 4x that over the last 8 hours (a weak nest builder).
    const activity = (k: number, i: number) =>
      k !== 0 || i < crateFrom ? steady(i) : steady(i) * 0.5 * (i > last - 8 ? 4 : 1)
    const moved = final(herdOf(activity, (k, i) => ({ nodeChanges: k === 0 && i >= crateFrom ? 0.3 : 3 })))[0]!
    const unseen = final(herdOf(activity))[0]!
    assert.ok(moved.birth >= level.birth, `the move read: ${moved.birth}`)
    assert.ok(unseen.birth < level.birth, `no move seen: ${unseen.birth}`)
  })

  it('alarms heat for an animal 1.6x as active for the last day, not at 1.2x', () => {
    const scores = final(
      herdOf((k, i) => (i > last - 24 ? steady(i) * (k === 0 ? 1.6 : k === 1 ? 1.2 : 1) : steady(i))),
    )
    assert.ok(scores[0]!.heat >= level.heat, JSON.stringify(scores[0]))
    assert.ok(scores[1]!.heat < level.heat, JSON.stringify(scores[1]))
    assert.ok(scores.slice(2).every((s) => s.heat === lowest.heat))
  })

  it('alarms lameness for an animal whose activity and movement declined by 40 % over two weeks', () => {
    const declined = (i: number) => Math.max(0.6, 1 - (Math.max(0, i - (days - 14) * 24) / (14 * 24)) * 0.4)
    const scores = final(
      herdOf(
        (k, i) => steady(i) * (k === 0 ? declined(i) : 1),
        (k, i) => ({ nodeChanges: k === 0 ? 3 * declined(i) : 3 }),
      ),
    )
    assert.ok(scores[0]!.lameness >= level.lameness, JSON.stringify(scores[0]))
    assert.ok(scores.slice(1).every((s) => s.lameness === lowest.lameness))
  })

  it("does not call a recorded weaning's jump in activity a heat: baselines stay in the current phase", () => {
    const weaned = T0 + (days - 3) * DAY
    const herd = herdOf((k, i) => steady(i) * (k === 0 && T0 + i * HOUR_MS < weaned ? 0.5 : 1))
    assert.ok(final(herd)[0]!.heat >= level.heat, 'without the record it looks like a heat')
    herd[0]!.records = { services: [], weanings: [weaned], births: [] }
    assert.ok(final(herd)[0]!.heat < level.heat, JSON.stringify(final(herd)[0]))
  })

  it('alarms a weak nest builder (6 h at about 2.7x) only while a recorded service makes her farrowing due', () => {
    const weak = (k: number, i: number) => (k === 0 && i > last - 6 ? steady(i) + 0.12 : steady(i))
    const herd = herdOf(weak)
    assert.ok(final(herd)[0]!.birth < level.birth, 'without a service record it is no nest building')
    const t = T0 + (last + 1) * HOUR_MS
    herd[0]!.records = { services: [t - 115 * DAY], weanings: [], births: [] }
    assert.ok(final(herd)[0]!.birth >= level.birth, JSON.stringify(final(herd)[0]))
    herd[0]!.records = { services: [t - 90 * DAY], weanings: [], births: [] }
    assert.ok(final(herd)[0]!.birth < level.birth, 'day 90 after a service: not due')
  })

  it("measures a due sow's short rise against her last days (in the crate), not against the pen's days before the move", () => {
    // Twice as active in the pen until 4.5 days ago, then in the crate; the last 6 h a little restless there.
    const crated = (k: number, i: number) =>
      k !== 0 ? steady(i) : i > last - 6 ? steady(i) + 0.08 : i > last - 108 ? steady(i) : 2 * steady(i)
    const herd = herdOf(crated)
    const t = T0 + (last + 1) * HOUR_MS
    herd[0]!.records = { services: [t - 115 * DAY], weanings: [], births: [] }
    assert.ok(final(herd)[0]!.birth >= level.birth, JSON.stringify(final(herd)[0]))
    const penDays = { ...SCORER, birth: { ...SCORER.birth, short: { ...SCORER.birth.short, recentToDay: 8 } } }
    assert.ok(scoreHerd(herd, last, last, penDays)[0]![0]!.birth < level.birth, 'against days 2-8 it hides')
  })

  it("measures a due sow moved into the crate 2 days ago against her crate's day, not the pen's days 2-4 back", () => {
    // Twice as active in the pen until 48 h ago, then in the crate (fewer node changes); the last 6 h restless there.
    const move = last - 48
    const crated = (k: number, i: number) =>
      k !== 0 ? steady(i) : i > last - 6 ? steady(i) + 0.08 : i > move ? steady(i) : 2 * steady(i)
    const herd = herdOf(crated, (k, i) => ({ nodeChanges: k === 0 && i > move ? 0.5 : 3 }))
    const t = T0 + (last + 1) * HOUR_MS
    herd[0]!.records = { services: [t - 115 * DAY], weanings: [], births: [] }
    assert.ok(final(herd)[0]!.birth >= level.birth, JSON.stringify(final(herd)[0]))
    const penDays = { ...SCORER, birth: { ...SCORER.birth, short: { ...SCORER.birth.short, crate: null } } }
    assert.ok(scoreHerd(herd, last, last, penDays)[0]![0]!.birth < level.birth, 'against days 2-4 (the pen) it hides')
    herd[0]!.records = { services: [t - 90 * DAY], weanings: [], births: [] }
    assert.ok(final(herd)[0]!.birth < level.birth, 'not due: no short CUSUM')
  })

  it("counts a due sow's meal hours in the short CUSUM, each against the same meal of her last days", () => {
    // The pen is fed at 20-22 UTC (its busiest hours); the sow nest-builds through the last 6 h, meals included.
    const meal = (i: number) => i % 24 >= 20 && i % 24 <= 22
    const usual = (i: number) => (meal(i) ? 0.4 : steady(i))
    const herd = herdOf((k, i) => (k === 0 && i > last - 6 ? (meal(i) ? 0.8 : usual(i) + 0.08) : usual(i)))
    const t = T0 + (last + 1) * HOUR_MS
    herd[0]!.records = { services: [t - 115 * DAY], weanings: [], births: [] }
    assert.ok(final(herd)[0]!.birth >= level.birth, JSON.stringify(final(herd)[0]))
    const mealsOut = { ...SCORER, birth: { ...SCORER.birth, short: { ...SCORER.birth.short, meals: false } } }
    assert.ok(
      scoreHerd(herd, last, last, mealsOut)[0]![0]!.birth < level.birth,
      'without the meals, 3 hours are too few',
    )
  })

  it("keeps a due sow's rise when most of her group is due and nest-builds with her (a batch), not an undue pen's", () => {
    const batch = (k: number, i: number) => (k <= 3 && i > last - 6 ? steady(i) + 0.08 : steady(i))
    const herd = herdOf(batch)
    const t = T0 + (last + 1) * HOUR_MS
    for (const sow of herd.slice(0, 4))
      assert.ok(final(herd)[sow.key]!.birth < level.birth, 'no records: the pen together')
    for (const sow of herd.slice(0, 4)) sow.records = { services: [t - 114 * DAY], weanings: [], births: [] }
    const scores = final(herd)
    assert.ok(
      scores.slice(0, 4).every((s) => s.birth >= level.birth),
      JSON.stringify(scores),
    )
    const noBatch = { ...SCORER, birth: { ...SCORER.birth, short: { ...SCORER.birth.short, batchShare: 2 } } }
    assert.ok(scoreHerd(herd, last, last, noBatch)[0]![0]!.birth < level.birth, 'the group correction took it')
  })

  it('keeps birth alarms for a sow when a share of her pen (not most of it) nest-builds at the same time', () => {
    const scores = final(herdOf((k, i) => (k <= 1 && i > last - 10 ? 0.45 : steady(i))))
    assert.ok(scores[0]!.birth >= level.birth && scores[1]!.birth >= level.birth, JSON.stringify(scores.slice(0, 2)))
  })

  it('gives no birth alarm for a rise that has lasted more than a day (a loose tag), nor for a tag reading cool', () => {
    const long = final(herdOf((k, i) => (k === 0 && i > last - 40 ? 0.45 : steady(i))))
    assert.equal(long[0]!.birth, lowest.birth)
    const restless = (k: number, i: number) => (k === 0 && i > last - 10 ? 0.45 : steady(i))
    const cool = final(herdOf(restless, (k, i) => ({ temperature: k === 0 && i > last - 8 ? 36 : 37 })))
    assert.equal(cool[0]!.birth, lowest.birth)
  })

  it('leaves hours without data out of both sides of the heat comparison (a night-time dropout)', () => {
    const night = (i: number) => i % 24 < 6
    const scores = final(
      herdOf(
        (_, i) => steady(i),
        (k, i) => (k === 0 && i > last - 72 && night(i) ? { samples: 0 } : {}),
      ),
    )
    assert.ok(scores[0]!.heat < level.heat, JSON.stringify(scores[0]))
  })

  it('alarms heat for a weaned sow of a batch weaned together: a rise most of her group shares is the heat the records expect', () => {
    const weaned = T0 + (days - 5) * DAY
    // The whole pen (weaned together) 1.3x as active for the last day, none of it more than another.
    const herd = herdOf((_, i) => steady(i) * (i > last - 24 ? 1.3 : 1))
    assert.ok(
      final(herd).every((s) => s.heat < level.heat),
      'without records a rise the pen shares is no heat',
    )
    for (const a of herd) a.records = { services: [], weanings: [weaned], births: [] }
    assert.ok(
      final(herd).every((s) => s.heat >= level.heat),
      JSON.stringify(final(herd)),
    )
  })

  it("keeps the heat of a sow her records expect on heat when her pen rises with her, though no pen-mate's records expect one", () => {
    const weaned = T0 + (days - 5) * DAY
    // The pen stirs with her: all 1.3x for the last day (her batch-mates' heats, unrecorded here).
    const herd = herdOf((_, i) => steady(i) * (i > last - 24 ? 1.3 : 1))
    herd[0]!.records = { services: [], weanings: [weaned], births: [] }
    const scores = final(herd)
    assert.ok(scores[0]!.heat >= level.heat, JSON.stringify(scores[0]))
    assert.ok(
      scores.slice(1).every((s) => s.heat < level.heat),
      'a pen-mate no record expects on heat: the group correction takes the shared rise',
    )
  })

  it('alarms heat sooner where it is expected: 1.35x for the last 12 hours alarms then (the shorter window), not without the record', () => {
    const weaned = T0 + (days - 5) * DAY
    const herd = herdOf((k, i) => steady(i) * (k === 0 && i > last - 12 ? 1.35 : 1))
    assert.ok(final(herd)[0]!.heat < level.heat, JSON.stringify(final(herd)[0]))
    herd[0]!.records = { services: [], weanings: [weaned], births: [] }
    assert.ok(final(herd)[0]!.heat >= level.heat, JSON.stringify(final(herd)[0]))
  })

  it("after a weaning, a day 1.2x as active is no alarm: the day-long window's bar and the 12-h window's are both above it", () => {
    const weaned = T0 + (days - 5) * DAY
    const herd = herdOf((k, i) => steady(i) * (k === 0 && i > last - 24 ? 1.2 : 1))
    herd[0]!.records = { services: [], weanings: [weaned], births: [] }
    const { threshold, shortFactor, expectedFactor } = SCORER.heat
    assert.ok(1 + threshold * shortFactor > 1.2 && 1 + threshold * expectedFactor > 1.2)
    assert.ok(final(herd)[0]!.heat < level.heat, JSON.stringify(final(herd)[0]))
  })

  it('needs 1.6x for the last 12 hours where a return is possible (17-25 days after a service), held 3 h: 1.5x is no alarm there', () => {
    const served = T0 + (days - 20) * DAY
    const { threshold, returnShortFactor, hours, shortHold } = SCORER.heat
    assert.ok(hours > 12 + shortHold!.returnHours)
    const bar = 1 + threshold * returnShortFactor
    // Raised for the last 12 h and the hold's hours before them: the 12-h window full at each held hour.
    const at = (rise: number, raised = 12 + shortHold!.returnHours - 1) => {
      const herd = herdOf((k, i) => steady(i) * (k === 0 && i > last - raised ? rise : 1))
      herd[0]!.records = { services: [served], weanings: [served - 5 * DAY], births: [] }
      return final(herd)[0]!.heat
    }
    assert.ok(at(1.5) < level.heat, `${at(1.5)}`)
    assert.ok(at(bar + 0.1) >= level.heat, `${at(bar + 0.1)}`)
    // The same rise for the last 12 h alone has not held: the window was not full in the hours before.
    assert.ok(at(bar + 0.1, 12) < level.heat, `${at(bar + 0.1, 12)}`)
  })

  it('gives no heat alarm early in a recorded lactation, however active the sow', () => {
    const herd = herdOf((k, i) => steady(i) * (k === 0 && i > last - 24 ? 2 : 1))
    assert.ok(final(herd)[0]!.heat >= level.heat)
    herd[0]!.records = { services: [], weanings: [], births: [T0 + (days - 10) * DAY] }
    assert.equal(final(herd)[0]!.heat, lowest.heat)
  })

  it('gives no birth alarm so soon after a recorded farrowing, nor for a sow weaned since', () => {
    const herd = herdOf((k, i) => (k === 0 && i > last - 10 ? 0.45 : steady(i)))
    herd[0]!.records = { services: [], weanings: [], births: [T0 + (days - 2) * DAY] }
    assert.equal(final(herd)[0]!.birth, lowest.birth)
    herd[0]!.records = { services: [], weanings: [T0 + (days - 5) * DAY], births: [T0 - 10 * DAY] }
    assert.equal(final(herd)[0]!.birth, lowest.birth, 'weaned 35 days after her farrowing, not served yet')
    herd[0]!.records = { services: [], weanings: [], births: [] }
    assert.ok(final(herd)[0]!.birth >= alarmLevel('birth'), 'the same rise alarms without the records')
  })
})
