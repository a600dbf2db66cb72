// Store-independent: runs in the embedded pass of npm test only (test/run.ts).
// The pure rules of the litter devices: windows in seconds, Active, the sensordata range, activity.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  MIN_BASELINE_BUCKETS,
  activeSince,
  activityLevel,
  baselineWindow,
  deviceWindow,
  dynamicAcceleration,
  isActive,
  readingsRange,
  unusualActivity,
} from '../../src/modules/litterguards/litterguards.rules.ts'
import { firstFutureRow } from '../../src/modules/readings/readings.rules.ts'

const NOW_MS = Date.UTC(2026, 5, 1, 12, 0, 0, 750)
const NOW_S = Math.floor(NOW_MS / 1000)

describe('device windows (Unix seconds)', () => {
  it('ends at the current second and reaches back the range', () => {
    assert.deepEqual(deviceWindow('1h', NOW_MS), { start: NOW_S - 3600, end: NOW_S })
    assert.deepEqual(deviceWindow('24h', NOW_MS), { start: NOW_S - 86_400, end: NOW_S })
    assert.deepEqual(deviceWindow('30d', NOW_MS), { start: NOW_S - 30 * 86_400, end: NOW_S })
  })

  it('takes the baseline from the 7 days before the window', () => {
    assert.deepEqual(baselineWindow({ start: 1_000_000, end: 1_086_400 }), {
      start: 1_000_000 - 7 * 86_400,
      endBefore: 1_000_000,
    })
  })
})

describe('Active', () => {
  it('holds while the newest reading is at most the window old, to the second', () => {
    const since = activeSince(NOW_MS, 15)
    assert.equal(since, Math.ceil((NOW_MS - 900_000) / 1000))
    assert.equal(isActive(since, NOW_MS, 15), true)
    assert.equal(isActive(since - 1, NOW_MS, 15), false)
    assert.equal(isActive(NOW_S + 60, NOW_MS, 15), true, 'a reading stamped slightly ahead')
    assert.equal(isActive(null, NOW_MS, 15), false, 'never heard from')
    // NOW_MS is 750 ms into its second: a reading of NOW_S - 300 is 300.75 s old.
    assert.equal(isActive(NOW_S - 299, NOW_MS, 5), true)
    assert.equal(isActive(NOW_S - 300, NOW_MS, 5), false)
  })
})

describe('the sensordata range', () => {
  it('is timeRange ending now, or startTime/endTime (either open), never both forms', () => {
    assert.deepEqual(readingsRange({ timeRange: '6h' }, NOW_MS), { start: NOW_S - 6 * 3600, end: NOW_S })
    assert.deepEqual(readingsRange({ startTime: 100, endTime: 200 }, NOW_MS), { start: 100, end: 200 })
    assert.deepEqual(readingsRange({ startTime: 100 }, NOW_MS), { start: 100 })
    assert.deepEqual(readingsRange({ endTime: 200 }, NOW_MS), { end: 200 })
    assert.deepEqual(readingsRange({}, NOW_MS), {})
    assert.deepEqual(readingsRange({ startTime: 200, endTime: 200 }, NOW_MS), { start: 200, end: 200 })
    assert.deepEqual(readingsRange({ startTime: 201, endTime: 200 }, NOW_MS), {
      problem: { field: 'query:startTime', message: 'must not be after endTime' },
    })
    assert.equal('problem' in readingsRange({ timeRange: '1h', startTime: 1 }, NOW_MS), true)
    assert.equal('problem' in readingsRange({ timeRange: '1h', endTime: 1 }, NOW_MS), true)
  })

  it('judges the future skew of readings in their own unit', () => {
    const ahead = [{ t: NOW_S }, { t: NOW_S + 900 }, { t: NOW_S + 901 }]
    assert.equal(firstFutureRow(ahead, NOW_MS, 1000), 2)
    assert.equal(firstFutureRow([{ t: NOW_MS + 900_000 }, { t: NOW_MS + 900_001 }], NOW_MS), 1)
  })
})

describe('activity', () => {
  it('is the acceleration beyond gravity', () => {
    assert.equal(dynamicAcceleration(0, 0, 1), 0)
    assert.equal(dynamicAcceleration(0, 0.6, 0.8), 0)
    assert.equal(dynamicAcceleration(0, 3, 4), 4)
    assert.equal(dynamicAcceleration(0, 0, 0), 1, 'free fall')
  })

  it('level: below 0.8x the baseline low, above 1.2x high, else normal; normal without a baseline or data', () => {
    assert.equal(activityLevel(0.079, 0.1), 'low')
    assert.equal(activityLevel(0.0801, 0.1), 'normal')
    assert.equal(activityLevel(0.1, 0.1), 'normal')
    assert.equal(activityLevel(0.1199, 0.1), 'normal')
    assert.equal(activityLevel(0.121, 0.1), 'high')
    assert.equal(activityLevel(0.5, null), 'normal')
    assert.equal(activityLevel(null, 0.1), 'normal')
    assert.equal(activityLevel(null, null), 'normal')
  })

  it('level: means below the 0.01 g noise floor count as the floor', () => {
    assert.equal(activityLevel(0.002, 0.008), 'normal', 'both still: sensor noise, whatever its ratio')
    assert.equal(activityLevel(0.05, 0), 'high')
    assert.equal(activityLevel(0, 0.05), 'low')
    assert.equal(activityLevel(0.0119, 0.002), 'normal')
    assert.equal(activityLevel(0.0121, 0.002), 'high')
  })

  // Baseline buckets: mean 0.2, standard deviation 0.1, so the limit is 0.2 ± 0.3.
  const baseline = { baselineBuckets: 1008, baselineMean: 0.2, baselineSd: 0.1 }
  const buckets = (...activities: number[]) => activities.map((activity, bucket) => ({ bucket, activity }))

  it("unusual: two consecutive window buckets more than 3 standard deviations from the baseline buckets' mean, either way", () => {
    assert.equal(unusualActivity({ ...baseline, windowBuckets: buckets(0.2, 0.3, 0.49, 0.49, 0.1) }), false)
    assert.equal(
      unusualActivity({ ...baseline, windowBuckets: buckets(0.2, 0.51, 0.2, 0.51, 0.2) }),
      false,
      'single buckets apart',
    )
    assert.equal(unusualActivity({ ...baseline, windowBuckets: buckets(0.2, 0.51, 0.52, 0.2) }), true)
    const low = { ...baseline, baselineMean: 0.5 }
    assert.equal(unusualActivity({ ...low, windowBuckets: buckets(0.21, 0.19) }), false)
    assert.equal(unusualActivity({ ...low, windowBuckets: buckets(0.19, 0.18) }), true)
    assert.equal(unusualActivity({ ...baseline, windowBuckets: buckets(0.9, 0.2, 0.9) }), false)
  })

  it('unusual: a bucket without readings breaks a run', () => {
    assert.equal(
      unusualActivity({
        ...baseline,
        windowBuckets: [
          { bucket: 4, activity: 0.9 },
          { bucket: 6, activity: 0.9 },
        ],
      }),
      false,
    )
    assert.equal(
      unusualActivity({
        ...baseline,
        windowBuckets: [
          { bucket: 5, activity: 0.9 },
          { bucket: 6, activity: 0.9 },
        ],
      }),
      true,
    )
  })

  it('unusual: the spread counts at least the noise floor; never without enough baseline or any window data', () => {
    const flat = { ...baseline, baselineMean: 0.05, baselineSd: 0 }
    assert.equal(unusualActivity({ ...flat, windowBuckets: buckets(0.079, 0.079) }), false)
    assert.equal(unusualActivity({ ...flat, windowBuckets: buckets(0.081, 0.081) }), true)
    assert.equal(
      unusualActivity({ ...baseline, baselineBuckets: MIN_BASELINE_BUCKETS - 1, windowBuckets: buckets(5, 5) }),
      false,
    )
    assert.equal(
      unusualActivity({ ...baseline, baselineBuckets: MIN_BASELINE_BUCKETS, windowBuckets: buckets(5, 5) }),
      true,
    )
    assert.equal(unusualActivity({ ...baseline, windowBuckets: [] }), false)
    assert.equal(
      unusualActivity({ baselineBuckets: 0, baselineMean: null, baselineSd: null, windowBuckets: buckets(5, 5) }),
      false,
    )
  })
})
