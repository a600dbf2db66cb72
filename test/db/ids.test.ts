// Store-independent: runs in the embedded pass of npm test only (test/run.ts).
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { createIdSource, insertWithTimeId, nextTimeId } from '../../src/db/ids.ts'

describe('time ids', () => {
  it('takes the clock for an id, or the next millisecond after the last one issued', () => {
    assert.equal(nextTimeId(1000, 0), 1000)
    assert.equal(nextTimeId(1000, 1000), 1001)
    assert.equal(nextTimeId(999, 1005), 1006, 'a clock stepping back never repeats an id')
    assert.equal(nextTimeId(1000.7, 0), 1000)
    const ids = createIdSource(() => 5000)
    assert.deepEqual([ids.next(), ids.next(), ids.next()], [5000, 5001, 5002])
    ids.bump(6000)
    assert.equal(ids.next(), 6001)
  })

  it('moves past ids another process took until an insert lands', async () => {
    const taken = new Set([7000, 7001, 7003])
    const ids = createIdSource(() => 7000)
    const tried: number[] = []
    const id = await insertWithTimeId(ids, async (candidate) => {
      tried.push(candidate)
      return taken.has(candidate) ? undefined : candidate
    })
    assert.equal(id, 7002)
    assert.deepEqual(tried, [7000, 7001, 7002])
    assert.equal(ids.next(), 7003, 'the source never hands out an id before the last it tried')
  })
})
