// Store-independent: runs in the embedded pass of npm test only (test/run.ts).
// Which stored encoding of a farm-app file a request accepts, from its Accept-Encoding header.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { chosenEncoding } from '../../src/farm-app/content-encoding.rules.ts'

describe('chosenEncoding', () => {
  it('prefers brotli, then gzip, then the file as it is', () => {
    assert.equal(chosenEncoding('gzip, deflate, br, zstd'), 'br')
    assert.equal(chosenEncoding('gzip'), 'gzip')
    assert.equal(chosenEncoding('deflate'), 'identity')
    assert.equal(chosenEncoding(''), 'identity')
    assert.equal(chosenEncoding(undefined), 'identity')
  })

  it('honours q-values: 0 is not acceptable, the higher weight wins', () => {
    assert.equal(chosenEncoding('br;q=0, gzip'), 'gzip')
    assert.equal(chosenEncoding('br;q=0, gzip;q=0'), 'identity')
    assert.equal(chosenEncoding('br;q=0.5, gzip;q=0.8'), 'gzip')
    assert.equal(chosenEncoding('BR ; Q=0.9 , gzip;q=0.9'), 'br')
    assert.equal(chosenEncoding('br;q=abc, gzip'), 'gzip')
  })

  it('reads * as every encoding not named', () => {
    assert.equal(chosenEncoding('*'), 'br')
    assert.equal(chosenEncoding('br;q=0, *'), 'gzip')
    assert.equal(chosenEncoding('*;q=0'), 'identity')
    assert.equal(chosenEncoding('gzip, *;q=0'), 'gzip')
  })
})
