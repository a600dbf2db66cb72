// Store-independent: runs in the embedded pass of npm test only (test/run.ts).
// whereGiven: a listing's optional criteria become WHERE conditions, in order, and an undefined one none.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { DB } from '../../src/db/schema.ts'
import { whereGiven } from '../../src/db/paginate.ts'
import { compileOnlyDb } from '../support/compile-only-db.ts'

const db = compileOnlyDb<DB>()

describe('whereGiven', () => {
  it('adds a condition for each criterion with a value, in order, and none for an undefined one', () => {
    const query = whereGiven(db.selectFrom('events').select('id').where('uid', '=', 'u'), [
      ['mac', '=', undefined],
      ['t', '>=', 5],
      ['id', '>', 7],
    ]).compile()
    assert.equal(query.sql, 'select "id" from "events" where "uid" = $1 and "t" >= $2 and "id" > $3')
    assert.deepEqual(query.parameters, ['u', 5, 7])
  })
})
