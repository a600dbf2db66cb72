import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { createIdSource, isMac, nextTimeId, normalizeMac } from '../../src/modules/animals/animals.rules.ts'

describe('animal rules', () => {
  it('accepts MACs as six colon-separated hex pairs in either case, and stores them upper case', () => {
    for (const good of ['AA:BB:CC:DD:EE:FF', 'aa:bb:cc:dd:ee:ff', '00:1a:2B:3c:4D:5e']) assert.equal(isMac(good), true, good)
    for (const bad of ['AA:BB:CC:DD:EE', 'AA:BB:CC:DD:EE:FF:00', 'AA-BB-CC-DD-EE-FF', 'AABBCCDDEEFF', 'GG:BB:CC:DD:EE:FF', ' AA:BB:CC:DD:EE:FF', 'A:BB:CC:DD:EE:FF']) {
      assert.equal(isMac(bad), false, bad)
    }
    assert.equal(normalizeMac('aa:bb:cc:0d:ee:ff'), 'AA:BB:CC:0D:EE:FF')
  })

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
})
