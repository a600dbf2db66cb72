// Store-independent: runs in the embedded pass of npm test only (test/run.ts).
// A new tag's first days (SCORER.newTag): heat's usual from what the animal has before its own baseline days exist.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { hasData, type HourSummary } from '../../src/modules/predictions/hour-summaries.rules.ts'
import { SCORER, type ScorerSettings } from '../../src/modules/predictions/scorer-settings.rules.ts'
import { alarmLevel } from '../../src/modules/predictions/calibration.rules.ts'
import { firstDataIndex, newTagUsual } from '../../src/modules/predictions/baselines.rules.ts'
import { NO_RECORDS } from '../../src/modules/predictions/reproduction.rules.ts'
import { type AnimalHours, scoreHerd } from '../../src/modules/predictions/scorer.rules.ts'
import { series, steady } from './scorer-fixtures.ts'

const group: ScorerSettings = { ...SCORER, newTag: { levelHours: 12, days: 1 } }
const none: ScorerSettings = { ...SCORER, newTag: null }
/** Hours from `first` on with data, none before (a tag put on at that hour). */
const taggedFrom = (hours: HourSummary[], first: number) => hours.map((h, i) => (i < first ? { ...h, samples: 0 } : h))

describe("a new tag's first hour", () => {
  it('is the first hour with data', () => {
    assert.equal(firstDataIndex(taggedFrom(series(2, steady), 5)), 5)
    assert.equal(firstDataIndex(series(1, steady)), 0)
    assert.equal(firstDataIndex(taggedFrom(series(1, steady), 24)), undefined)
  })
})

describe("a new tag's usual for heat (newTagUsual)", () => {
  const hours = series(5, (i) => 1.5 * steady(i))
  const groupActivity = Array.from({ length: 5 * 24 }, (_, i) => steady(i))
  const floor = SCORER.activityFloor

  it("is the group's median at the hour times her level against it over her hours a day or more earlier", () => {
    const at = 24 + 12 + 10
    const u = newTagUsual(hours, at, 0, -Infinity, groupActivity, group)!
    assert.equal(u.days, 1)
    // Her level: 1.5x the group's over hours 0-22 (floors on both sides), applied to the group's hour.
    const own = hours.slice(0, at - 24 + 1).reduce((a, h) => a + h.activity, 0)
    const theirs = groupActivity.slice(0, at - 24 + 1).reduce((a, g) => a + g, 0)
    const n = at - 24 + 1
    const expected = (steady(at) + floor) * ((own + n * floor) / (theirs + n * floor)) - floor
    assert.ok(Math.abs(u.usual - expected) < 1e-12)
    assert.ok(Math.abs(u.usual - 1.5 * steady(at)) < 0.02, 'near her own level at that hour')
  })

  it('needs levelHours of her hours a day before, and the group at the hour', () => {
    assert.equal(newTagUsual(hours, 24 + 10, 0, -Infinity, groupActivity, group), undefined, '11 hours')
    assert.notEqual(newTagUsual(hours, 24 + 11, 0, -Infinity, groupActivity, group), undefined, '12 hours')
    const gap = groupActivity.map((g, i) => (i === 40 ? undefined : g))
    assert.equal(newTagUsual(hours, 40, 0, -Infinity, gap, group), undefined)
  })

  it('only while her own baseline days cannot exist: up to fromDay + 1 days after her first hour', () => {
    const first = 10
    const tagged = taggedFrom(
      series(5, (i) => 1.5 * steady(i)),
      first,
    )
    const last = first + (SCORER.baseline.fromDay + 1) * 24 - 1
    assert.notEqual(newTagUsual(tagged, last, first, -Infinity, groupActivity, group), undefined)
    assert.equal(newTagUsual(tagged, last + 1, first, -Infinity, groupActivity, group), undefined)
    assert.equal(newTagUsual(tagged, 60, undefined, -Infinity, groupActivity, group), undefined, 'no data at all')
    assert.equal(newTagUsual(tagged, 60, first, -Infinity, groupActivity, none), undefined, 'newTag null')
  })

  it('counts only her hours in the current phase (after a weaning, say)', () => {
    const start = hours[30]!.hour
    assert.equal(newTagUsual(hours, 60, 0, start, groupActivity, group), undefined, 'hours 30-36: 7 of them')
    assert.notEqual(newTagUsual(hours, 66, 0, start, groupActivity, group), undefined, 'hours 30-42: 13')
  })
})

describe('the herd scorer on a new farm', () => {
  const animals = 8
  // A farm whose tags went on at hour 0; animal 0 comes on heat (1.8x) from hour 44 for 36 hours.
  const herdOf = (days: number, onset: number): AnimalHours<number>[] =>
    Array.from({ length: animals }, (_, k) => ({
      key: k,
      group: 'pen',
      records: NO_RECORDS,
      hours: series(days, (i) => {
        const level = (1 + 0.05 * k) * steady(i)
        return k === 0 && i >= onset && i < onset + 36 ? 1.8 * level : level
      }),
    }))

  it('scores a heat on day 2 from the pen-mates where no baseline exists yet; without newTag it has no score', () => {
    const herd = herdOf(4, 44)
    const at = 44 + 20
    const withGroup = scoreHerd(herd, at, at, group)
    const without = scoreHerd(herd, at, at, none)
    assert.ok(without[0]![0]!.heat < 0.05, 'no rise: the calibrated probability of raw 0')
    assert.ok(withGroup[0]![0]!.heat > alarmLevel('heat'), `heat ${withGroup[0]![0]!.heat}`)
    assert.ok(withGroup[1]![0]!.heat < 0.05, 'a pen-mate at her usual level is no heat')
  })

  it('changes nothing once her own baseline exists (a farm with weeks of history)', () => {
    const herd = herdOf(14, 12 * 24)
    const from = 10 * 24
    const to = 14 * 24 - 1
    assert.deepEqual(scoreHerd(herd, from, to, group), scoreHerd(herd, from, to, none))
    assert.ok(herd[0]!.hours.every(hasData))
  })
})
