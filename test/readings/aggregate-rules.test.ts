// Store-independent: runs in the embedded pass of npm test only (test/run.ts).
// The pure rules of the aggregate routes: buckets aligned to the epoch, the span and its defaults, the bound.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  AGGREGATE_EXPENSIVE_HOURS,
  AGGREGATE_MAX_BUCKETS,
  aggregateIsExpensive,
  aggregateSpan,
  bucketOf,
  fromRollups,
} from '../../src/modules/readings/readings.rules.ts'

const HOUR = 3_600_000
const DAY = 24 * HOUR
const NOW_MS = Date.UTC(2026, 5, 1, 12, 0, 0, 750)

describe('aggregate rules', () => {
  it('puts a reading in the bucket that starts at the last multiple of the interval', () => {
    assert.equal(bucketOf(Date.UTC(2026, 5, 1, 12, 59, 59, 999), HOUR), Date.UTC(2026, 5, 1, 12))
    assert.equal(bucketOf(Date.UTC(2026, 5, 1, 12), HOUR), Date.UTC(2026, 5, 1, 12))
    assert.equal(bucketOf(Date.UTC(2026, 5, 1, 17, 3), 6 * HOUR), Date.UTC(2026, 5, 1, 12))
    assert.equal(bucketOf(1_780_000_123, 900), 1_780_000_200 - 900)
  })

  it('takes the span as given, or ends it now and starts it a day earlier, in the series unit', () => {
    assert.deepEqual(aggregateSpan({ interval: '5m', startTime: 1000, endTime: 2000 }, NOW_MS), {
      interval: '5m',
      start: 1000,
      end: 2000,
      size: 300_000,
    })
    assert.deepEqual(aggregateSpan({ interval: '1h' }, NOW_MS), {
      interval: '1h',
      start: NOW_MS - DAY,
      end: NOW_MS,
      size: HOUR,
    })
    const nowS = Math.floor(NOW_MS / 1000)
    assert.deepEqual(aggregateSpan({ interval: '1d', endTime: nowS }, NOW_MS, 1000), {
      interval: '1d',
      start: nowS - 86_400,
      end: nowS,
      size: 86_400,
    })
  })

  it('refuses a start after the end, and a span of more than the bound of buckets (edges counted whole)', () => {
    assert.deepEqual(aggregateSpan({ interval: '1h', startTime: 2, endTime: 1 }, NOW_MS), {
      problem: { field: 'query:startTime', message: 'must not be after endTime' },
    })
    assert.equal(
      'problem' in aggregateSpan({ interval: '1h', startTime: NOW_MS + 1 }, NOW_MS) ? 'problem' : 'span',
      'problem',
    )
    const start = Date.UTC(2026, 0, 1)
    const fits = aggregateSpan(
      { interval: '1h', startTime: start, endTime: start + AGGREGATE_MAX_BUCKETS * HOUR - 1 },
      NOW_MS,
    )
    assert.ok(!('problem' in fits))
    // One ms later the span touches one more bucket; so does a start one ms before an hour.
    for (const [s, e] of [
      [start, start + AGGREGATE_MAX_BUCKETS * HOUR],
      [start - 1, start + AGGREGATE_MAX_BUCKETS * HOUR - 1],
    ]) {
      const tooMany = aggregateSpan({ interval: '1h', startTime: s, endTime: e }, NOW_MS)
      assert.ok('problem' in tooMany && tooMany.problem.field === 'query:interval')
    }
  })

  it('sums whole hours from the rollups, and calls expensive what reads the readings or many rollup rows', () => {
    assert.deepEqual(
      (['5m', '15m', '1h', '6h', '1d'] as const).map((i) => fromRollups(i)),
      [false, false, true, true, true],
    )
    assert.equal(aggregateIsExpensive({ interval: '5m' }, NOW_MS), true)
    assert.equal(aggregateIsExpensive({ interval: '15m', startTime: NOW_MS - HOUR }, NOW_MS), true)
    assert.equal(aggregateIsExpensive({ interval: '1h' }, NOW_MS), false)
    const longest = { startTime: NOW_MS - AGGREGATE_EXPENSIVE_HOURS * HOUR, endTime: NOW_MS }
    assert.equal(aggregateIsExpensive({ interval: '1d', ...longest }, NOW_MS), false)
    assert.equal(aggregateIsExpensive({ interval: '1d', ...longest, startTime: longest.startTime - 1 }, NOW_MS), true)
    // In seconds, the same hours.
    const s = Math.floor(NOW_MS / 1000)
    assert.equal(aggregateIsExpensive({ interval: '6h', startTime: s - 30 * 86_400 }, NOW_MS, 1000), false)
    assert.equal(aggregateIsExpensive({ interval: '6h', startTime: s - 60 * 86_400 }, NOW_MS, 1000), true)
    // A refused span never reaches the store.
    assert.equal(aggregateIsExpensive({ interval: '5m', startTime: 2, endTime: 1 }, NOW_MS), false)
  })
})
