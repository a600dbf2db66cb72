// Store-independent: runs in the embedded pass of npm test only (test/run.ts).
// The predictions job's schedule and the prediction endpoints' rules as pure functions.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { HOUR_MS } from '../../src/modules/predictions/hour-summaries.rules.ts'
import { hoursToScore, nextRunAt, CATCH_UP_HOURS } from '../../src/jobs/predictions.ts'
import {
  counted,
  instantOf,
  mismatchesOfPath,
  normalizePosted,
  peakProbability,
  recordInstant,
} from '../../src/modules/predictions/predictions.rules.ts'

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

  it('counts in words with the noun in the singular or the plural, as the settings route gives its reasons', () => {
    assert.deepEqual(
      [
        counted(0, 'day'),
        counted(1, 'day'),
        counted(14, 'day'),
        counted(1, 'heat event'),
        counted(2, 'lameness event'),
      ],
      ['0 days', '1 day', '14 days', '1 heat event', '2 lameness events'],
    )
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
