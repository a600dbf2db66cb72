// Store-independent: runs in the embedded pass of npm test only (test/run.ts).
// A rule's score as a probability, and the calibration that maps it, as pure functions.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { SCORER } from '../../src/modules/predictions/scorer-settings.rules.ts'
import { probabilityOf, calibrate, uncalibrate, alarmLevel } from '../../src/modules/predictions/calibration.rules.ts'

describe('scores and probabilities', () => {
  it('a score becomes a probability of 0.5 at its threshold, rising towards 1, and 0 at or below 0', () => {
    assert.equal(probabilityOf(4, 4), 0.5)
    assert.equal(probabilityOf(0, 4), 0)
    assert.equal(probabilityOf(-1, 4), 0)
    assert.ok(probabilityOf(12, 4) > 0.7 && probabilityOf(12, 4) < 1)
    assert.ok(probabilityOf(2, 4) < probabilityOf(3, 4))
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
