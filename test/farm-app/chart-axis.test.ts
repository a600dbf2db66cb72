// Store-independent: runs in the embedded pass of npm test only (test/run.ts).
// The charts' time axis in the user's language: months, days, or times of day with the day where it changes; the
// monthly chart's legend names its month as the axis does.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { monthText, timeAxisLabels } from '../../web/src/chart-axis.rules.ts'

const at = (year: number, month: number, day: number, hour = 0) => new Date(year, month - 1, day, hour).getTime() / 1000
const DAY = 86_400

describe('the time axis of a chart', () => {
  it('names months a month apart, the year on the first and in January', () => {
    const ticks = [at(2026, 11, 1), at(2026, 12, 1), at(2027, 1, 1), at(2027, 2, 1)]
    assert.deepEqual(timeAxisLabels(ticks, 31 * DAY, 'en'), ['Nov 2026', 'Dec', 'Jan 2027', 'Feb'])
    assert.deepEqual(timeAxisLabels(ticks, 31 * DAY, 'de'), ['Nov. 2026', 'Dez', 'Jan. 2027', 'Feb'])
  })

  it('names days a day or more apart', () => {
    const ticks = [at(2026, 6, 1), at(2026, 6, 10)]
    assert.deepEqual(timeAxisLabels(ticks, 9 * DAY, 'en'), ['Jun 1', 'Jun 10'])
    assert.deepEqual(timeAxisLabels(ticks, 9 * DAY, 'de'), ['1. Juni', '10. Juni'])
    assert.deepEqual(timeAxisLabels(ticks, 9 * DAY, 'es'), ['1 jun', '10 jun'])
  })

  it('gives times of day, with the day under the first and where a new day begins', () => {
    const ticks = [at(2026, 11, 28, 20), at(2026, 11, 28, 22), at(2026, 11, 29, 0), at(2026, 11, 29, 2)]
    assert.deepEqual(timeAxisLabels(ticks, 7200, 'de'), ['20:00\n28. Nov.', '22:00', '0:00\n29. Nov.', '2:00'])
    assert.deepEqual(timeAxisLabels(ticks, 7200, 'en'), ['8:00 PM\nNov 28', '10:00 PM', '12:00 AM\nNov 29', '2:00 AM'])
  })

  it("names the monthly chart's month in its legend as its axis does", () => {
    assert.equal(monthText(at(2026, 11, 1), 'en'), 'Nov 2026')
    assert.equal(monthText(at(2026, 11, 1), 'de'), timeAxisLabels([at(2026, 11, 1)], 31 * DAY, 'de')[0])
  })

  it('has no label without a tick', () => {
    assert.deepEqual(timeAxisLabels([], DAY, 'pt'), [])
  })
})
