// Store-independent: runs in the embedded pass of npm test only (test/run.ts).
// The piecewise-linear map that the calibration and migration 0090 read, forwards and backwards.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { interpolate } from '../../src/math/piecewise-linear.ts'

describe('piecewise-linear interpolation', () => {
  const knots = [
    [0.1, 0.01],
    [0.5, 0.2],
    [0.7, 0.6],
  ] as const

  it('is linear between knots and takes the end knots’ values beyond them', () => {
    assert.equal(interpolate(knots, 0, 0, 1), 0.01)
    assert.equal(interpolate(knots, 0.1, 0, 1), 0.01)
    assert.ok(Math.abs(interpolate(knots, 0.5, 0, 1) - 0.2) < 1e-12)
    assert.ok(Math.abs(interpolate(knots, 0.6, 0, 1) - 0.4) < 1e-12)
    assert.equal(interpolate(knots, 0.9, 0, 1), 0.6)
  })

  it('reads the map backwards with from and to swapped', () => {
    assert.ok(Math.abs(interpolate(knots, 0.4, 1, 0) - 0.6) < 1e-12)
    assert.equal(interpolate(knots, 0, 1, 0), 0.1)
    assert.equal(interpolate(knots, 1, 1, 0), 0.7)
  })

  it('a single knot maps everything to its value', () => {
    assert.equal(interpolate([[0.3, 0.4]], 0.1, 0, 1), 0.4)
    assert.equal(interpolate([[0.3, 0.4]], 0.9, 0, 1), 0.4)
  })
})
