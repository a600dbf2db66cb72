// Every declared resource against its table, on the store under test: the field tables and the migrations
// agree on columns, types and nullability, and the check fails when they do not.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { field } from '../../src/resource/field.ts'
import { defineResource } from '../../src/resource/resource.ts'
import { animals } from '../../src/modules/animals/animals.resource.ts'
import { users } from '../../src/modules/users/users.resource.ts'
import { litterguards } from '../../src/modules/litterguards/litterguards.resource.ts'
import { predictions } from '../../src/modules/predictions/predictions.resource.ts'
import { recordCollections } from '../../src/modules/records/index.ts'
import { columnMismatches } from '../support/declared-columns.ts'
import { createTestApp, type TestContext } from '../support/app.ts'

const EXCEPTIONS = {
  computed: {
    'AIPrediction.animal': "the query builds it from the animal's registry row",
    'Litterguard.Active': "computed when read, from the newest reading's age",
  },
  converted: { 'AIPrediction.timestamp': 'ISO 8601 in the API, ms since epoch in a bigint column' },
}

describe('declared resources and their tables', () => {
  let ctx: TestContext
  before(async () => {
    ctx = await createTestApp()
  })
  after(() => ctx.close())

  it('match on columns, types and nullability: records, animals, users, litter devices, predictions', async () => {
    const resources = [...recordCollections.map((c) => c.resource), animals, users, litterguards, predictions]
    assert.deepEqual(await columnMismatches(ctx.database.db, resources, EXCEPTIONS), [])
  })

  it('fails on a planted mismatch: a missing column, a wrong type, a NOT NULL column of an optional field', async () => {
    const planted = defineResource({
      name: 'Planted',
      table: 'weanings',
      description: 'weanings, declared wrong',
      fields: {
        weaningDate: field.boolean({ required: true }),
        countWeaned: field.number({ nullable: true }),
        litterColour: field.string(),
      },
    })
    assert.deepEqual(await columnMismatches(ctx.database.db, [planted]), [
      'Planted.weaningDate (weanings.weaning_date): a boolean field in a text column',
      'Planted.countWeaned (weanings.count_weaned): the field may be unset but the column is NOT NULL',
      'Planted.litterColour (weanings.litter_colour): no such column',
    ])
  })
})
