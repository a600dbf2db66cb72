// Store-independent: runs in the embedded pass of npm test only (test/run.ts).
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { isMac, normalizeMac } from '../../src/modules/animals/animals.rules.ts'

describe('animal rules', () => {
  it('accepts MACs as six colon-separated hex pairs in either case, and stores them upper case', () => {
    for (const good of ['AA:BB:CC:DD:EE:FF', 'aa:bb:cc:dd:ee:ff', '00:1a:2B:3c:4D:5e'])
      assert.equal(isMac(good), true, good)
    for (const bad of [
      'AA:BB:CC:DD:EE',
      'AA:BB:CC:DD:EE:FF:00',
      'AA-BB-CC-DD-EE-FF',
      'AABBCCDDEEFF',
      'GG:BB:CC:DD:EE:FF',
      ' AA:BB:CC:DD:EE:FF',
      'A:BB:CC:DD:EE:FF',
    ]) {
      assert.equal(isMac(bad), false, bad)
    }
    assert.equal(normalizeMac('aa:bb:cc:0d:ee:ff'), 'AA:BB:CC:0D:EE:FF')
  })
})
