// Store-independent: runs in the embedded pass of npm test only (test/run.ts).
// isoTimestamp (src/http/timestamp.ts): Date#toISOString's string, formatted once per millisecond.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { isoTimestamp } from '../../src/http/timestamp.ts'

describe('isoTimestamp', () => {
  it('is the ISO string of the millisecond it is given, repeated or not', () => {
    for (const ms of [
      0, 1, 1, 1_764_000_000_123, 1_764_000_000_123, 1_764_000_000_124, 1_764_000_000_123, -1, 253_402_300_799_999,
    ]) {
      assert.equal(isoTimestamp(ms), new Date(ms).toISOString())
    }
  })

  it('is the current time when given none', () => {
    const before = Date.now()
    const at = Date.parse(isoTimestamp())
    assert.ok(at >= before && at <= Date.now())
  })
})
