// Store-independent: runs in the embedded pass of npm test only (test/run.ts).
// The global calibration's fit over several farms (farmAveragedKnots), and that the fitted knots move no alarm.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { farmAveragedKnots, isotonicKnots } from '../../src/simulation/statistics.ts'
import { SCORER } from '../../src/modules/predictions/scorer-settings.rules.ts'
import {
  RAW_ALARM,
  alarmLevel,
  calibrate,
  calibratedProbability,
  roundProbability,
} from '../../src/modules/predictions/calibration.rules.ts'

/** hours hours at a score, of which events lay in the event's window. */
function farm(...cells: [score: number, hours: number, events: number][]): [number, boolean][] {
  return cells.flatMap(([score, hours, events]) =>
    Array.from({ length: hours }, (_, h) => [score, h < events] as [number, boolean]),
  )
}

describe('the global calibration fitted over farms', () => {
  it('gives one farm the knots of isotonic regression', () => {
    const pairs = farm([0, 1000, 10], [0.3, 400, 40], [0.5, 400, 20], [0.8, 400, 300])
    assert.deepEqual(farmAveragedKnots([pairs]), isotonicKnots(pairs))
    assert.deepEqual(farmAveragedKnots([pairs]), [
      [0, 0.01],
      [0.4, 0.075],
      [0.8, 0.75],
    ])
  })

  it('counts every farm alike at a score: a farm with ten times the hours there does not outvote the other', () => {
    // At 0.8 one farm has 3000 hours, 90 % of them before the event; the other 300 hours, 10 %. Pooled by hours that
    // reads 2730 / 3300 = 0.83; each farm weighted n / (n + 30): (0.990 · 0.9 + 0.909 · 0.1) / (0.990 + 0.909).
    const sure = farm([0, 1000, 10], [0.8, 3000, 2700])
    const doubtful = farm([0, 1000, 10], [0.8, 300, 30])
    assert.deepEqual(isotonicKnots([...sure, ...doubtful]).at(-1), [0.8, 0.8273])
    const w = [3000 / 3030, 300 / 330]
    const expected = Math.round(((w[0]! * 0.9 + w[1]! * 0.1) / (w[0]! + w[1]!)) * 10_000) / 10_000
    assert.deepEqual(farmAveragedKnots([sure, doubtful]), [
      [0, 0.01],
      [0.8, expected],
    ])
  })

  it("says little from a farm's few hours at a score", () => {
    // 3 hours at 0.8 (none before the event) weigh 3 / 33 against the other farm's 1000 / 1030.
    const knots = farmAveragedKnots([farm([0, 1000, 10], [0.8, 1000, 900]), farm([0, 1000, 10], [0.8, 3, 0])])
    assert.ok(knots.at(-1)![1] > 0.8, JSON.stringify(knots))
  })

  it('counts every kind of farm alike when told the kinds: three herds of one kind do not outvote one of another', () => {
    // At 0.8 three herds of the default kind see 90 % of their hours before the event, one rough herd 10 %. Farms
    // alike that reads (3 · 0.9 + 0.1) / 4 = 0.7; kinds alike (0.9 + 0.1) / 2 = 0.5, every herd with 1000 hours there
    // (weight 1000 / 1030 each, the same for both kinds).
    const sure = () => farm([0, 1000, 10], [0.8, 1000, 900])
    const rough = farm([0, 1000, 10], [0.8, 1000, 100])
    const herds = [sure(), sure(), sure(), rough]
    assert.deepEqual(farmAveragedKnots(herds).at(-1), [0.8, 0.7])
    assert.deepEqual(farmAveragedKnots(herds, { kinds: ['default', 'default', 'default', 'rough'] }).at(-1), [0.8, 0.5])
    // One herd a kind: the same as farms alike.
    assert.deepEqual(farmAveragedKnots(herds, { kinds: ['a', 'b', 'c', 'd'] }), farmAveragedKnots(herds))
  })

  it("moves no alarm: an hour's stored probability reaches its class's alarm level exactly where its raw score reaches the threshold", () => {
    for (const kind of ['birth', 'heat', 'lameness'] as const) {
      const knots = SCORER.calibration![kind]
      const level = alarmLevel(kind)
      assert.equal(level, roundProbability(calibrate(knots, RAW_ALARM)))
      for (let k = 0; k <= 100_000; k++) {
        const raw = k / 100_000
        assert.equal(calibratedProbability(knots, raw) >= level, raw >= RAW_ALARM, `${kind} ${raw}`)
      }
    }
    // Where the map is flat, rounding as stored would lift a raw score just under the threshold onto the level.
    const flat = [
      [0, 0.01],
      [0.45, 0.1],
      [0.55, 0.1002],
    ] as const
    assert.equal(roundProbability(calibrate(flat, RAW_ALARM)), 0.1001)
    assert.equal(roundProbability(calibrate(flat, 0.4999)), 0.1001)
    assert.equal(calibratedProbability(flat, 0.4999), 0.1)
    assert.equal(calibratedProbability(flat, RAW_ALARM), 0.1001)
  })
})
