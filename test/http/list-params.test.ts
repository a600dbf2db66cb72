// Store-independent: runs in the embedded pass of npm test only (test/run.ts).
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { offsetOf, parseFilters } from '../../src/http/list-params.ts'

const fields = { Group: 'string', Active: 'boolean', Battery: 'number', t: 'integer' } as const

describe('parseFilters', () => {
  it('reads filter[Field]=value pairs typed by field kind', () => {
    assert.deepEqual(
      parseFilters(
        { 'filter[Group]': 'A1', 'filter[Active]': 'true', 'filter[Battery]': '55.5', 'filter[t]': '17', page: 2 },
        fields,
      ),
      { Group: 'A1', Active: true, Battery: 55.5, t: 17 },
    )
  })

  it('takes the last of repeated values', () => {
    assert.deepEqual(parseFilters({ 'filter[Group]': ['A', 'B'] }, fields), { Group: 'B' })
  })

  it('refuses unknown fields and bad values, listing each', () => {
    assert.throws(
      () => parseFilters({ 'filter[Secret]': 'x', 'filter[Active]': 'yes', 'filter[t]': '1.5' }, fields),
      (err: any) => {
        assert.equal(err.statusCode, 400)
        assert.equal(err.message, 'Validation failed')
        assert.deepEqual(
          err.details.map((d: { field: string }) => d.field),
          ['query:filter[Secret]', 'query:filter[Active]', 'query:filter[t]'],
        )
        return true
      },
    )
  })

  it('computes page offsets', () => {
    assert.equal(offsetOf({ page: 1, limit: 10 }), 0)
    assert.equal(offsetOf({ page: 3, limit: 25 }), 50)
  })
})
