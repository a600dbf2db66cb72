// Store-independent: runs in the embedded pass of npm test only (test/run.ts).
// The scorer's rules as pure functions, on short synthetic series: hourly summaries, the animal's own
// baseline, the birth CUSUM, heat excess, lameness decline, probabilities, what the records change, and the
// herd scorer end to end (an animal alone against its group, the group all together).
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  HOUR_MS,
  NO_RECORDS,
  SCORER,
  activityRatio,
  alarmLevel,
  alignHours,
  birthCusum,
  birthThreshold,
  calibrate,
  crateEntryIndex,
  crateMoveIndex,
  expectedActivity,
  groupSharesHeat,
  heatExcess,
  heatExpected,
  heatLikely,
  heatRatio,
  heatRuledOut,
  heatShortFactor,
  heatThreshold,
  isMoving,
  lamenessDecline,
  median,
  phaseStart,
  probabilityOf,
  quantile,
  reproductiveState,
  scoreHerd,
  summarizeHours,
  uncalibrate,
  withInferredWeanings,
  type AnimalHours,
  type AnimalRecords,
  type HourSummary,
} from '../../src/modules/predictions/scorer.rules.ts'
import { hoursToScore, nextRunAt, CATCH_UP_HOURS } from '../../src/jobs/predictions.ts'
import {
  instantOf,
  mismatchesOfPath,
  normalizePosted,
  peakProbability,
  recordInstant,
} from '../../src/modules/predictions/predictions.rules.ts'

const DAY = 86_400_000
const T0 = Date.UTC(2026, 0, 5)

/** `days` of hourly summaries from T0, activity (share moving) from a function of the hour index. */
function series(
  days: number,
  activity: (i: number) => number,
  extra: (i: number) => Partial<HourSummary> = () => ({}),
): HourSummary[] {
  return Array.from({ length: days * 24 }, (_, i) => ({
    hour: T0 + i * HOUR_MS,
    samples: 60,
    activity: activity(i),
    temperature: 37,
    detections: 12,
    nodeChanges: 3,
    ...extra(i),
  }))
}
/** A steady animal: 12 % of its time moving by day (06-18 UTC), 4 % by night. */
const steady = (i: number) => (i % 24 >= 6 && i % 24 < 18 ? 0.12 : 0.04)

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
})

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

describe('heat, lameness and probabilities', () => {
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

  it('a score becomes a probability of 0.5 at its threshold, rising towards 1, and 0 at or below 0', () => {
    assert.equal(probabilityOf(4, 4), 0.5)
    assert.equal(probabilityOf(0, 4), 0)
    assert.equal(probabilityOf(-1, 4), 0)
    assert.ok(probabilityOf(12, 4) > 0.7 && probabilityOf(12, 4) < 1)
    assert.ok(probabilityOf(2, 4) < probabilityOf(3, 4))
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

  it('maps a raw score to a probability through its knots (linear between, flat beyond), and back', () => {
    const knots = [
      [0.1, 0.01],
      [0.5, 0.2],
      [0.7, 0.6],
    ] as const
    assert.equal(calibrate(knots, 0), 0.01)
    assert.equal(calibrate(knots, 0.1), 0.01)
    assert.ok(Math.abs(calibrate(knots, 0.6) - 0.4) < 1e-12)
    assert.equal(calibrate(knots, 0.9), 0.6)
    assert.ok(Math.abs(uncalibrate(knots, 0.4) - 0.6) < 1e-12)
    assert.equal(calibrate(undefined, 0.42), 0.42)
    for (const kind of ['birth', 'heat', 'lameness'] as const) {
      const table = SCORER.calibration![kind]
      for (let k = 1; k < table.length; k++)
        assert.ok(table[k]![0] > table[k - 1]![0] && table[k]![1] > table[k - 1]![1], `${kind} rises`)
      assert.equal(alarmLevel(kind), Math.round(calibrate(table, 0.5) * 10_000) / 10_000)
      assert.ok(Math.abs(uncalibrate(table, calibrate(table, 0.5)) - 0.5) < 1e-9)
    }
  })
})

describe("what the farm's records change", () => {
  const t = T0 + 200 * DAY
  const records = (days: Partial<Record<keyof AnimalRecords, number[]>>): AnimalRecords => ({
    services: (days.services ?? []).map((d) => t - d * DAY),
    weanings: (days.weanings ?? []).map((d) => t - d * DAY),
    births: (days.births ?? []).map((d) => t - d * DAY),
  })

  it('reads the reproductive state: an open service, days since weaning and birth, lactation', () => {
    assert.deepEqual(reproductiveState(records({ services: [20], weanings: [25], births: [50] }), t), {
      sinceService: 20,
      sinceWeaning: 25,
      sinceBirth: 50,
      lactatingDays: undefined,
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

  it('lowers the birth threshold near the expected farrowing and raises it early in pregnancy', () => {
    const base = SCORER.birth.threshold
    assert.equal(birthThreshold(NO_RECORDS, t), base)
    assert.equal(birthThreshold(records({ services: [114] }), t), base * 0.75)
    assert.equal(birthThreshold(records({ services: [60] }), t), base * 2.5)
    assert.equal(birthThreshold(records({ services: [104] }), t), base)
  })

  it('lowers the heat threshold where a heat is due, less where a return is possible, and raises it while pregnant or nursing', () => {
    const { threshold, expectedFactor, returnFactor, unlikelyFactor } = SCORER.heat
    assert.ok(expectedFactor < returnFactor && returnFactor < 1 && unlikelyFactor > 1)
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

  it('gives the shorter heat window a higher bar where a return is possible than after a weaning, none elsewhere', () => {
    const { shortFactor, returnShortFactor } = SCORER.heat
    assert.ok(returnShortFactor > shortFactor)
    assert.equal(heatShortFactor(records({ weanings: [5], births: [30] }), t), shortFactor)
    assert.equal(heatShortFactor(records({ services: [21], weanings: [27] }), t), returnShortFactor)
    assert.equal(heatShortFactor(records({ services: [16], weanings: [21] }), t), undefined, 'the luteal phase')
    assert.equal(heatShortFactor(records({ services: [40] }), t), undefined)
    assert.equal(heatShortFactor(NO_RECORDS, t), undefined)
  })

  it('rules a heat out early in lactation and while a farrowing is due, not later in lactation nor without records', () => {
    const { quietLactationDays } = SCORER.heat
    assert.equal(heatRuledOut(records({ births: [quietLactationDays - 1] }), t), true)
    assert.equal(heatRuledOut(records({ births: [quietLactationDays + 1] }), t), false, 'a weaning may be unrecorded')
    assert.equal(heatRuledOut(records({ services: [112] }), t), true)
    assert.equal(heatRuledOut(records({ services: [90] }), t), false)
    assert.equal(heatRuledOut(records({ weanings: [5], births: [30] }), t), false)
    assert.equal(heatRuledOut(NO_RECORDS, t), false)
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

  it('says a group shares a heat when at least half of its animals with data expect one', () => {
    assert.equal(groupSharesHeat([true, true, false, false]), true)
    assert.equal(groupSharesHeat([true, false, false]), false)
    assert.equal(groupSharesHeat([]), false)
  })

  it('starts a new phase at a weaning or a farrowing; the crate is not assumed from the service date', () => {
    assert.equal(phaseStart(NO_RECORDS, t), undefined)
    assert.equal(phaseStart(records({ weanings: [4], births: [30] }), t), t - 4 * DAY)
    assert.equal(phaseStart(records({ services: [110], weanings: [135] }), t), t - 135 * DAY)
    assert.equal(phaseStart(records({ services: [50], weanings: [55] }), t), t - 55 * DAY)
  })

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
    const restless = (k: number, i: number) => (k === 0 && i > last - 3 ? 0.3 : steady(i))
    const cool = final(herdOf(restless))[0]!.birth
    const warm = final(herdOf(restless, (k, i) => ({ temperature: k === 0 && i > last - 8 ? 37.5 : 37 })))[0]!.birth
    assert.ok(warm > cool && warm >= level.birth && cool < level.birth, `${cool} -> ${warm}`)
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
    // The whole pen (weaned together) 1.25x as active for the last day, none of it more than another.
    const herd = herdOf((_, i) => steady(i) * (i > last - 24 ? 1.25 : 1))
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

  it('alarms heat sooner where it is expected: 1.35x for the last 12 hours alarms then (the shorter window), not without the record', () => {
    const weaned = T0 + (days - 5) * DAY
    const herd = herdOf((k, i) => steady(i) * (k === 0 && i > last - 12 ? 1.35 : 1))
    assert.ok(final(herd)[0]!.heat < level.heat, JSON.stringify(final(herd)[0]))
    herd[0]!.records = { services: [], weanings: [weaned], births: [] }
    assert.ok(final(herd)[0]!.heat >= level.heat, JSON.stringify(final(herd)[0]))
  })

  it('needs 1.72x for the last 12 hours where a return is possible (17-25 days after a service): 1.6x is no alarm there', () => {
    const served = T0 + (days - 20) * DAY
    const { threshold, returnFactor, returnShortFactor, hours } = SCORER.heat
    assert.ok(hours > 12)
    const bar = 1 + threshold * returnFactor * returnShortFactor
    const at = (rise: number) => {
      const herd = herdOf((k, i) => steady(i) * (k === 0 && i > last - 12 ? rise : 1))
      herd[0]!.records = { services: [served], weanings: [served - 5 * DAY], births: [] }
      return final(herd)[0]!.heat
    }
    assert.ok(at(1.6) < level.heat, `${at(1.6)}`)
    assert.ok(at(bar + 0.1) >= level.heat, `${at(bar + 0.1)}`)
  })

  it('gives no heat alarm early in a recorded lactation, however active the sow', () => {
    const herd = herdOf((k, i) => steady(i) * (k === 0 && i > last - 24 ? 2 : 1))
    assert.ok(final(herd)[0]!.heat >= level.heat)
    herd[0]!.records = { services: [], weanings: [], births: [T0 + (days - 10) * DAY] }
    assert.equal(final(herd)[0]!.heat, lowest.heat)
  })

  it('gives no birth alarm in the two weeks after a recorded farrowing', () => {
    const herd = herdOf((k, i) => (k === 0 && i > last - 10 ? 0.45 : steady(i)))
    herd[0]!.records = { services: [], weanings: [], births: [T0 + (days - 2) * DAY] }
    assert.equal(final(herd)[0]!.birth, lowest.birth)
  })
})

describe('job scheduling and record times', () => {
  it('scores the hours completed since the last run, at most 24 back', () => {
    const now = Date.UTC(2026, 2, 1, 10, 20)
    const hour = Date.UTC(2026, 2, 1, 10)
    assert.deepEqual(hoursToScore(now, hour), [])
    assert.deepEqual(hoursToScore(now, hour - 2 * HOUR_MS), [hour - HOUR_MS, hour])
    assert.equal(hoursToScore(now, undefined).length, CATCH_UP_HOURS)
    assert.equal(hoursToScore(now, hour - 100 * HOUR_MS).length, CATCH_UP_HOURS)
    assert.equal(hoursToScore(now, undefined).at(-1), hour)
  })

  it('runs at 5 minutes past each hour', () => {
    assert.equal(nextRunAt(Date.UTC(2026, 2, 1, 10, 2)), Date.UTC(2026, 2, 1, 10, 5))
    assert.equal(nextRunAt(Date.UTC(2026, 2, 1, 10, 5)), Date.UTC(2026, 2, 1, 11, 5))
    assert.equal(nextRunAt(Date.UTC(2026, 2, 1, 23, 59)), Date.UTC(2026, 2, 2, 0, 5))
  })

  it("reads a record's date and time as a UTC instant, noon without a time", () => {
    assert.equal(recordInstant('2026-03-01', '06:40'), Date.UTC(2026, 2, 1, 6, 40))
    assert.equal(recordInstant('2026-03-01', '06:40:30'), Date.UTC(2026, 2, 1, 6, 40, 30))
    assert.equal(recordInstant('2026-03-01'), Date.UTC(2026, 2, 1, 12))
    assert.equal(recordInstant('2026-03-01', 'morning'), Date.UTC(2026, 2, 1, 12))
    assert.equal(recordInstant('2026-02-30'), undefined)
    assert.equal(recordInstant('01.03.2026'), undefined)
  })
})

describe('prediction endpoint rules', () => {
  it('reads ISO 8601 instants: a bare date as its whole UTC day, offsets honoured, impossible dates refused', () => {
    assert.equal(instantOf('2026-03-01', 'start'), Date.UTC(2026, 2, 1))
    assert.equal(instantOf('2026-03-01', 'end'), Date.UTC(2026, 2, 2) - 1)
    assert.equal(instantOf('2026-03-01T10:00', 'end'), Date.UTC(2026, 2, 1, 10))
    assert.equal(instantOf('2026-03-01T10:00:00+02:00', 'start'), Date.UTC(2026, 2, 1, 8))
    assert.equal(instantOf('2026-03-01T10:00:00.123456Z', 'start'), Date.UTC(2026, 2, 1, 10, 0, 0, 123))
    for (const bad of ['2026-02-29', '2026-00-10', '2026-03-01T24:00', '2026-03-01T10:60', '20260301', 'now'])
      assert.equal(instantOf(bad, 'start'), undefined, bad)
  })

  it("takes a prediction's highest result probability as its own", () => {
    assert.equal(peakProbability([{ probability: 0.2 }, { probability: 0.9 }, { probability: 0.4 }]), 0.9)
    assert.equal(peakProbability([{ probability: 0 }]), 0)
  })

  it('normalizes a posted prediction to UTC, defaults its timestamp to now, and refuses the future and other centuries', () => {
    const now = Date.UTC(2026, 2, 10, 12)
    const results = [{ timestamp: '2026-03-10T13:00:00+01:00', probability: 0.3 }]
    assert.deepEqual(normalizePosted({ classificationType: 'heat', results }, now).value, {
      predictedAt: now,
      results: [{ timestamp: '2026-03-10T12:00:00.000Z', probability: 0.3 }],
    })
    assert.equal(
      normalizePosted({ timestamp: '2026-03-10T12:15:00Z', classificationType: 'heat', results }, now).problems.length,
      0,
      '15 minutes of clock skew',
    )
    assert.deepEqual(
      normalizePosted({ timestamp: '2026-03-10T12:16:00Z', classificationType: 'heat', results }, now).problems.map(
        (p) => p.field,
      ),
      ['timestamp'],
    )
    assert.deepEqual(
      normalizePosted(
        { classificationType: 'heat', results: [{ timestamp: '1999-01-01T00:00:00Z', probability: 0 }] },
        now,
      ).problems.map((p) => p.field),
      ['results[0].timestamp'],
    )
  })

  it("names the posted userId and animal fields that are not the path's user and animal", () => {
    const path = { uid: 'farm-1', animalId: '1700000000000', mac: 'AA:BB:CC:00:00:01' }
    assert.deepEqual(mismatchesOfPath({}, path), [])
    assert.deepEqual(
      mismatchesOfPath(
        { userId: 'farm-1', animal: { id: '1700000000000', mac: 'aa:bb:cc:00:00:01', userId: 'farm-1', weight: 3 } },
        path,
      ),
      [],
    )
    assert.deepEqual(
      mismatchesOfPath({ userId: 'farm-2', animal: { id: '1', mac: 'AA:BB:CC:00:00:02', userId: 'farm-2' } }, path).map(
        (p) => p.field,
      ),
      ['userId', 'animal.userId', 'animal.id', 'animal.mac'],
    )
  })
})
