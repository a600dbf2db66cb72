// Store-independent: runs in the embedded pass of npm test only (test/run.ts).
// Per-farm calibration's pure rules: the map, its fit from labelled hours (limits, shrinkage, too few events), that
// no alarm moves, and how hours are labelled from records.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  FARM_CALIBRATION,
  IDENTITY_MAP,
  farmProbability,
  fitFarmCalibration,
  labelHours,
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
      'lameness',
      hoursAt(() => 0.001),
      10_000,
    )
    assert.equal(fit.map.slope, FARM_CALIBRATION.minSlope)
    assert.ok(fit.map.intercept >= -FARM_CALIBRATION.maxIntercept)
    const steep = fitFarmCalibration(
      'lameness',
      hoursAt((p) => expit(4 + 3 * logit(p))),
      10_000,
    )
    assert.deepEqual([steep.map.intercept, steep.map.slope], [FARM_CALIBRATION.maxIntercept, FARM_CALIBRATION.maxSlope])
  })

  it("labels hours by records as the accuracy route matches them: in a record's lead window, the hours after it left out", () => {
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
    assert.deepEqual(labelHours(hours, [{ animalId: 1, at: t }], { leadMs: 48 * H, lateMs: 24 * H }), [
      [0.01, false],
      [0.02, true],
      [0.5, true],
      [0.9, true],
      [0.04, false],
      [0.2, false],
    ])
  })
})
