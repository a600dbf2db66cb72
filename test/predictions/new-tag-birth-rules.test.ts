// Store-independent: runs in the embedded pass of npm test only (test/run.ts).
// A farm's first weeks for birth (SCORER.birth.newTag): the move into the crate read before a tag's usual days exist,
// and a sow whose past was not entered read from her data.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { newTagDayBlock } from '../../src/modules/predictions/baselines.rules.ts'
import {
  crateEntryIndex,
  movementUsual,
  unrecordedCrateMoves,
} from '../../src/modules/predictions/reproduction.rules.ts'
import { pregnancyUnrecorded } from '../../src/modules/predictions/birth.rules.ts'
import { DAY, T0 } from './scorer-fixtures.ts'

/** Day blocks (the 24 h ending at each index) of a tag put on at hour 0: 0.4 node changes a detection, 0.1 from `move`. */
const blocks = (move: number, length = 20 * 24): (number | undefined)[] =>
  Array.from({ length }, (_, e) => (e < 23 ? undefined : e >= move ? 0.1 : 0.4))

describe("a new tag's usual day block (newTagDayBlock)", () => {
  it('is the median of its whole blocks 1-8 days before, from its first hour on, at least one', () => {
    const b = blocks(100 * 24)
    assert.equal(newTagDayBlock(b, 46, 0), undefined, 'no whole block of hers a day before')
    assert.equal(newTagDayBlock(b, 47, 0), 0.4)
    const mixed = b.map((v, e) => (v === undefined ? v : e < 40 ? 0.2 : 0.4))
    assert.equal(newTagDayBlock(mixed, 24 * 4 + 23, 0), 0.4, 'the median of the blocks ending at 23, 47, 71 and 95')
    assert.equal(newTagDayBlock(b, 47, 10), undefined, 'the block ending at 23 began before her first hour')
  })

  it('stands in only where the usual of days 2-8 back is missing, and only on a new tag', () => {
    const b = blocks(100 * 24)
    assert.equal(movementUsual(b, 47), undefined, 'not a new tag')
    assert.equal(movementUsual(b, 47, 0), 0.4)
    const changed = b.map((v, e) => (e === 10 * 24 - 24 ? 5 : v))
    assert.equal(movementUsual(changed, 10 * 24, 0), 0.4, 'days 2-8 back exist: the day before is not read')
  })
})

describe('the move into the crate on a new tag', () => {
  it('shows days after the tag went on, before the usual of days 2-8 back exists', () => {
    const b = blocks(3 * 24)
    assert.equal(crateEntryIndex(b, 0, 20 * 24 - 1), undefined, 'the rule without a new tag: none before day 8')
    assert.equal(crateEntryIndex(b, 0, 20 * 24 - 1, 0), 3 * 24 - 11, 'dated half a day before the block that shows it')
    assert.equal(crateEntryIndex(blocks(100 * 24), 0, 20 * 24 - 1, 0), undefined, 'no drop, no move')
  })

  it('reads a move without a service record once held a day, as on a farm that records nothing', () => {
    const rule = { drop: 0.5, heldHours: 24, groupKept: 0.75, earShiftC: 0.5 }
    const b = blocks(3 * 24)
    const kept = b.map(() => undefined)
    assert.deepEqual(unrecordedCrateMoves(b, kept, [], 0, 20 * 24 - 1, rule, 18 * 24), [])
    assert.deepEqual(unrecordedCrateMoves(b, kept, [], 0, 20 * 24 - 1, rule, 18 * 24, 0), [
      { entry: 3 * 24 - 11, shows: 4 * 24 },
    ])
    const quietDay = b.map((v, e) => (e >= 3 * 24 && e < 3 * 24 + 12 ? 0.1 : v === undefined ? v : 0.4))
    assert.deepEqual(unrecordedCrateMoves(quietDay, kept, [], 0, 20 * 24 - 1, rule, 18 * 24, 0), [], 'a quiet day')
  })
})

describe('a sow whose records say nothing of a pregnancy (pregnancyUnrecorded)', () => {
  const t = T0 + 50 * DAY
  it('has no service and no farrowing recorded at or before the hour', () => {
    assert.equal(pregnancyUnrecorded({ services: [], weanings: [], births: [] }, t), true)
    assert.equal(pregnancyUnrecorded({ services: [], weanings: [t - DAY], births: [] }, t), true, 'a weaning alone')
    assert.equal(pregnancyUnrecorded({ services: [t + DAY], weanings: [], births: [] }, t), true, 'a later service')
    assert.equal(pregnancyUnrecorded({ services: [t - 90 * DAY], weanings: [], births: [] }, t), false)
    assert.equal(pregnancyUnrecorded({ services: [], weanings: [], births: [t] }, t), false)
  })
})
