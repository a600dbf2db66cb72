// Store-independent: runs in the embedded pass of npm test only (test/run.ts).
// A new farm that did not enter its sows' past (EvaluationOptions.pastRecords): the records the scorer is given.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { asEntered, withoutPastRecords } from '../../src/simulation/past-records.ts'

const HOUR = 3_600_000
const DAY = 24 * HOUR
const start = Date.UTC(2026, 0, 5)
const animal = {
  index: 0,
  records: { services: [start - 100 * DAY, start + 3 * DAY], weanings: [start - 70 * DAY], births: [start + 15 * DAY] },
  treatments: [start - DAY, start],
  heatsSeen: [start - 79 * DAY, start + 24 * DAY],
}

describe('a farm that did not enter its past', () => {
  it('keeps only the records dated from the evaluated days on', () => {
    assert.deepEqual(withoutPastRecords([animal], start), [
      {
        index: 0,
        records: { services: [start + 3 * DAY], weanings: [], births: [start + 15 * DAY] },
        treatments: [start],
        heatsSeen: [start + 24 * DAY],
      },
    ])
  })

  it("drops those before the evaluated days' start (after the history) only when told to", () => {
    assert.deepEqual(asEntered([animal], { start, historyDays: 0 }), [animal])
    assert.deepEqual(asEntered([animal], { start, historyDays: 0, pastRecords: true }), [animal])
    const [later] = asEntered([animal], { start: start - 2 * DAY, historyDays: 2, pastRecords: false })
    assert.deepEqual(later!.records.services, [start + 3 * DAY])
    assert.deepEqual(later!.treatments, [start])
    assert.deepEqual(later!.heatsSeen, [start + 24 * DAY])
  })
})
