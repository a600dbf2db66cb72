// Store-independent: runs in the embedded pass of npm test only (test/run.ts).
// Per-farm calibration's pure rules: the map, its fit from labelled hours (limits, shrinkage, too few events), that
// no alarm moves, how hours are labelled from records, and lameness's prior from the farm's own base rate.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  FARM_CALIBRATION,
  FIT_WINDOWS,
  IDENTITY_MAP,
  LAMENESS_PRIOR,
  farmProbability,
  fitFarmCalibration,
  labelHours,
  lamenessPrior,
  phaseRecordsIn,
  poolHours,
  recalibrate,
} from '../../src/modules/predictions/farm-calibration.rules.ts'

const logit = (p: number) => Math.log(p / (1 - p))
const expit = (x: number) => 1 / (1 + Math.exp(-x))

/** 10,000 hours at each probability, of which round(n · truth(p)) in an event's window. */
function hoursAt(truth: (p: number) => number) {
  const out: [number, boolean][] = []
  for (const p of [0.01, 0.05, 0.1, 0.3, 0.6, 0.9]) {
    const k = Math.round(10_000 * truth(p))
    for (let i = 0; i < 10_000; i++) out.push([p, i < k])
  }
  return poolHours(out)
}

describe('per-farm calibration rules', () => {
  it('maps by a rising line in log-odds, the identity leaving probabilities as they are', () => {
    assert.equal(recalibrate(IDENTITY_MAP, 0.0916), 0.0916)
    // logit 0.5 = 0: the farm's probability is expit(-1) = 0.2689.
    assert.equal(Math.round(recalibrate({ intercept: -1, slope: 0.7 }, 0.5) * 10_000) / 10_000, 0.2689)
  })

  it('moves no alarm: a global probability at or above the alarm level maps at or above its image, and only then', () => {
    const map = { intercept: -1.3, slope: 0.6 }
    for (const level of [0.0916, 0.2155, 0.7442]) {
      const farmLevel = recalibrate(map, level)
      for (let p = 0; p <= 1; p += 0.0001) assert.equal(recalibrate(map, p) >= farmLevel, p >= level, `${p} ${level}`)
    }
  })

  it('moves no alarm as stored: a farm probability rounded to 4 decimals stays under the image of the level below it', () => {
    const map = { intercept: -0.713, slope: 0.9462 }
    const round4 = (x: number) => Math.round(x * 10_000) / 10_000
    // Where the map is flatter than the identity, rounding alone lifts a global 0.1200 onto the image of 0.1201.
    assert.equal(round4(recalibrate(map, 0.12)), round4(recalibrate(map, 0.1201)))
    for (const level of [0.1201, 0.239, 0.7673]) {
      const farmLevel = round4(recalibrate(map, level))
      for (let k = 0; k <= 10_000; k++) {
        const p = k / 10_000
        assert.equal(farmProbability(map, p, level) >= farmLevel, p >= level, `${p} ${level}`)
      }
    }
  })

  it('keeps the global calibration with fewer events than the minimum', () => {
    const fit = fitFarmCalibration(
      'birth',
      hoursAt((p) => p / 4),
      FARM_CALIBRATION.minEvents - 1,
    )
    assert.deepEqual([fit.map, fit.fitted], [IDENTITY_MAP, null])
    assert.equal(fit.reason, '4 birth events recorded in the period, fewer than 5: the global calibration')
  })

  it('finds no change where the global calibration holds on the farm', () => {
    const fit = fitFarmCalibration(
      'heat',
      hoursAt((p) => p),
      40,
    )
    assert.ok(Math.abs(fit.fitted!.intercept) < 0.01 && Math.abs(fit.fitted!.slope - 1) < 0.01, JSON.stringify(fit))
  })

  it("fits the farm's lower odds and shrinks the line toward the identity by the number of events", () => {
    // On this farm the odds are e^-1 of the global: logit q = -1 + logit p.
    const hours = hoursAt((p) => expit(-1 + logit(p)))
    const many = fitFarmCalibration('birth', hours, 95)
    assert.ok(Math.abs(many.fitted!.intercept + 1) < 0.01 && Math.abs(many.fitted!.slope - 1) < 0.01)
    // 95 events: 95 / 100 of the way.
    assert.ok(Math.abs(many.map.intercept + 0.95) < 0.01, JSON.stringify(many.map))
    // 5 events: half of the way.
    const few = fitFarmCalibration('birth', hours, 5)
    assert.ok(Math.abs(few.map.intercept + 0.5) < 0.01, JSON.stringify(few.map))
    assert.match(
      few.reason,
      /^5 birth events: .* its line moved 50 % of the way from the global calibration \(5 events\)$/,
    )
    assert.equal(few.hours, 60_000)
    assert.deepEqual(hours[0], {
      probability: 0.01,
      hours: 10_000,
      inWindow: Math.round(10_000 * expit(-1 + logit(0.01))),
    })
  })

  it('keeps the line within its limits however far the records pull', () => {
    // Flat: the event as likely at 0.01 as at 0.9 (slope 0), and far rarer than said.
    const fit = fitFarmCalibration(
      'heat',
      hoursAt(() => 0.001),
      10_000,
    )
    assert.equal(fit.map.slope, FARM_CALIBRATION.minSlope)
    assert.ok(fit.map.intercept >= -FARM_CALIBRATION.maxIntercept)
    const steep = fitFarmCalibration(
      'heat',
      hoursAt((p) => expit(4 + 3 * logit(p))),
      10_000,
    )
    assert.deepEqual([steep.map.intercept, steep.map.slope], [FARM_CALIBRATION.maxIntercept, FARM_CALIBRATION.maxSlope])
  })

  it("labels a birth's hours by its record: the 48 h before it in the event, the day after it left out", () => {
    const H = 3_600_000
    const t = Date.parse('2026-03-20T09:00:00Z')
    const hours = [
      { animalId: 1, at: t - 50 * H, probability: 0.01 },
      { animalId: 1, at: t - 48 * H, probability: 0.02 },
      { animalId: 1, at: t - 10 * H, probability: 0.5 },
      { animalId: 1, at: t, probability: 0.9 },
      { animalId: 1, at: t + 5 * H, probability: 0.3 },
      { animalId: 1, at: t + 25 * H, probability: 0.04 },
      { animalId: 2, at: t - 10 * H, probability: 0.2 },
    ]
    assert.deepEqual(labelHours(hours, [{ animalId: 1, at: t }], FIT_WINDOWS.birth!), [
      [0.01, false],
      [0.02, true],
      [0.5, true],
      [0.9, true],
      [0.04, false],
      [0.2, false],
    ])
  })

  it("labels a heat's hours by the service done in it: 36 h before to 24 h after in the heat, the next day left out", () => {
    const H = 3_600_000
    const service = Date.parse('2026-03-20T09:00:00Z')
    const hours = [-37, -36, -12, 0, 12, 24, 25, 48, 49].map((h, k) => ({
      animalId: 1,
      at: service + h * H,
      probability: k / 10,
    }))
    assert.deepEqual(labelHours(hours, [{ animalId: 1, at: service }], FIT_WINDOWS.heat!), [
      [0, false],
      [0.1, true],
      [0.2, true],
      [0.3, true],
      [0.4, true],
      [0.5, true],
      [0.8, false],
    ])
  })

  it('labels every service of a heat on its own: the hours after the first one stay in the heat while the second holds them', () => {
    const H = 3_600_000
    const first = Date.parse('2026-03-20T09:00:00Z')
    const hours = [-37, 12, 30, 48, 49, 72, 73].map((h, k) => ({ animalId: 1, at: first + h * H, probability: k / 10 }))
    const services = [
      { animalId: 1, at: first },
      { animalId: 1, at: first + 24 * H },
    ]
    // 30 h and 48 h lie in the first service's left-out day, and in the second's heat; 49-72 h are its left-out day.
    assert.deepEqual(labelHours(hours, services, FIT_WINDOWS.heat!), [
      [0, false],
      [0.1, true],
      [0.2, true],
      [0.3, true],
      [0.6, false],
    ])
  })
})

describe("lameness's prior: the farm's own base rate", () => {
  const DAY = 86_400_000
  const LEVEL = 0.6423
  const day0 = Date.parse('2026-03-01T00:00:00Z')
  /** Daily peaks of `animals` animals over `days` days: 0.1, or 0.9 on the days alarmed(animal) lists. */
  const peaksOf = (animals: number, days: number, alarmed: (animal: number) => number[] = () => []) =>
    Array.from({ length: animals }, (_, animalId) =>
      Array.from({ length: days }, (_, d) => ({
        animalId,
        day: day0 + d * DAY,
        peak: alarmed(animalId).includes(d) ? 0.9 : 0.1,
      })),
    ).flat()
  const range = (from: number, n: number) => Array.from({ length: n }, (_, i) => from + i)

  it('reads the share of animal-days in an alarm held a week or more, and shifts by its log-odds against the knots', () => {
    // 40 animals, 30 days: four alarmed 10 days running (40 sustained days), five alarmed 3 days (too short), one
    // alarmed 4 + 4 days around a day without a score (two runs of 4: too short). Share 40 / 1199 (one day missing);
    // logit(40 / 1199) - logit(0.0282) = 0.1734, taken 40 / 70 of the way: 0.0991.
    const peaks = peaksOf(40, 30, (a) =>
      a < 4 ? range(5, 10) : a < 9 ? range(12, 3) : a === 9 ? [...range(1, 4), ...range(6, 4)] : [],
    ).filter((p) => !(p.animalId === 9 && p.day === day0 + 5 * DAY))
    const prior = lamenessPrior(peaks, LEVEL, 12)
    assert.deepEqual(
      [prior.animals, prior.days, prior.sustainedDays, prior.phaseRecords, prior.share],
      [40, 1199, 40, 12, 0.0334],
    )
    const logit = (p: number) => Math.log(p / (1 - p))
    const expected = (40 / 70) * (logit(40 / 1199) - logit(LAMENESS_PRIOR.knotsShare))
    assert.equal(prior.shift, Math.round(expected * 10_000) / 10_000)
    assert.equal(prior.shift, 0.0991)
    assert.equal(
      prior.reason,
      "3.34 % of the period's animal-days lay in a lameness alarm held 7 days or more (40 of 1199), 2.82 % on the farms the global calibration was fitted on: lameness's log-odds raised by 0.0991, 57 % of the way (40 animals)",
    )
  })

  it('lowers the odds on a farm with few sustained alarms, within its limit', () => {
    // 150 animals over 60 days, one alarmed for 8 days: 8 / 9000; logit difference -3.60, taken 150 / 180: -3.0, at -1.5.
    const prior = lamenessPrior(
      peaksOf(150, 60, (a) => (a === 0 ? range(20, 8) : [])),
      LEVEL,
      40,
    )
    assert.deepEqual([prior.sustainedDays, prior.shift], [8, -LAMENESS_PRIOR.maxShift])
    assert.match(prior.reason, /lowered by 1.5, 83 % of the way \(150 animals\), at the limit ±1.5$/)
    // Every animal alarmed every day: raised, at the limit.
    assert.equal(
      lamenessPrior(
        peaksOf(150, 60, () => range(0, 60)),
        LEVEL,
        40,
      ).shift,
      LAMENESS_PRIOR.maxShift,
    )
  })

  it('lets a few animals move it little', () => {
    // 3 animals, one lame for 20 of 20 days: share 1/3, logit difference 2.85, taken 3 / 33 of the way.
    const prior = lamenessPrior(
      peaksOf(3, 20, (a) => (a === 0 ? range(0, 20) : [])),
      LEVEL,
      5,
    )
    assert.ok(prior.shift > 0.25 && prior.shift < 0.27, `${prior.shift}`)
  })

  it("counts the farrowings and weanings recorded after the period's start and up to its end, services not", () => {
    const records = [
      { services: [5, 50], births: [10, 100, 200], weanings: [101] },
      { services: [], births: [], weanings: [100, 150, 201] },
    ]
    assert.equal(phaseRecordsIn(records, 100, 200), 3)
    assert.equal(phaseRecordsIn(new Map(records.map((r, k) => [k, r])).values(), 0, 1000), 7)
    assert.equal(phaseRecordsIn([], 0, 1000), 0)
  })

  it('shifts nothing on a farm without the records that give the rule its phases, or with too few days', () => {
    const peaks = peaksOf(40, 30, (a) => (a < 10 ? range(0, 20) : []))
    const unrecorded = lamenessPrior(peaks, LEVEL, LAMENESS_PRIOR.minPhaseRecords - 1)
    assert.deepEqual([unrecorded.shift, unrecorded.share, unrecorded.sustainedDays], [0, null, 200])
    assert.match(unrecorded.reason, /^4 farrowings and weanings recorded in the period, fewer than 5: no shift/)
    const young = lamenessPrior(
      peaks.filter((p) => p.day < day0 + 13 * DAY),
      LEVEL,
      20,
    )
    assert.deepEqual([young.shift, young.reason], [0, '13 days scored in the period, fewer than 14: no shift'])
  })

  it('is the lameness map whatever treatments the farm recorded: they are counted, not fitted', () => {
    const prior = lamenessPrior(
      peaksOf(150, 60, (a) => (a === 0 ? range(20, 8) : [])),
      LEVEL,
      40,
    )
    for (const events of [2, 5, 40]) {
      // Hours that say the global calibration is far too high: a line would follow them; lameness does not.
      const fit = fitFarmCalibration(
        'lameness',
        hoursAt((p) => p / 10),
        events,
        prior,
      )
      assert.deepEqual(
        [fit.map, fit.fitted, fit.prior, fit.events],
        [{ intercept: -1.5, slope: 1 }, null, prior, events],
      )
      assert.equal(
        fit.reason,
        `the farm's base rate (the global calibration's log-odds -1.5: prior); lameness records are counted (${events} in the period), not fitted: a treatment is recorded days into a lameness, and not every lameness is treated`,
      )
    }
    // A shift of 0 leaves the global calibration.
    const none = fitFarmCalibration(
      'lameness',
      hoursAt((p) => p),
      20,
      { ...prior, shift: 0 },
    )
    assert.deepEqual(none.map, IDENTITY_MAP)
    assert.match(none.reason, /^the global calibration; lameness records are counted/)
  })

  it('moves no alarm: the shifted probability reaches the image of the alarm level exactly when the global one does', () => {
    const round4 = (x: number) => Math.round(x * 10_000) / 10_000
    for (const shift of [-1.5, -0.4, 0.3, 1.5]) {
      const map = { intercept: shift, slope: 1 }
      const farmLevel = round4(recalibrate(map, LEVEL))
      for (let k = 0; k <= 10_000; k++) {
        const p = k / 10_000
        assert.equal(farmProbability(map, p, LEVEL) >= farmLevel, p >= LEVEL, `${p} ${shift}`)
      }
    }
  })
})
