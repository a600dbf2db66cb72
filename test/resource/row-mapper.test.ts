// Store-independent: runs in the embedded pass of npm test only (test/run.ts).
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { field } from '../../src/resource/field.ts'
import { compileRowMapper } from '../../src/resource/row-mapper.ts'
import { defineResource } from '../../src/resource/resource.ts'

describe("row mapper (a resource's toApi)", () => {
  const fields = {
    ID: field.id('id'),
    Name: field.string({ maxLength: 10 }),
    Score: field.number({ nullable: 'null', readOnly: true }),
    Group: field.string({ column: 'group_name', maxLength: 10 }),
    Flags: field.string({ maxLength: 10, virtual: true }),
  }
  const thing = defineResource({ name: 'Thing', table: 'things', description: 'x', fields })
  const toApi = (row: Record<string, unknown>) => thing.toApi(row)

  it('writes the fields in declaration order, converts, leaves out empty columns and writes null where the field says so', () => {
    const out = toApi({ id: 42, name: 'Sow "1"', score: null, group_name: 'pen 2', flags: 'ignored' })
    assert.deepEqual(out, { ID: '42', Name: 'Sow "1"', Score: null, Group: 'pen 2' })
    assert.deepEqual(Object.keys(out), ['ID', 'Name', 'Score', 'Group'])
    assert.deepEqual(toApi({ id: 1, name: null, score: 0, group_name: undefined }), { ID: '1', Score: 0 })
  })

  it('gives every resource its own mapper, and names that need quoting stay names', () => {
    const odd = compileRowMapper([['Odd "name"\n', { ...fields.Name, column: "it's" }]])
    assert.deepEqual(odd({ "it's": 'x' }), { 'Odd "name"\n': 'x' })
    assert.deepEqual(odd({}), {})
  })
})
