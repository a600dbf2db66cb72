// Store-independent: runs in the embedded pass of npm test only (test/run.ts).
// A record collection is one noun and one file: its names derive from the noun, and its file opens with
// its paths (so searching for a path finds the declaration that builds it).
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { describe, it } from 'node:test'
import { recordCollections } from '../../src/modules/records/index.ts'
import { namesOfNoun } from '../../src/modules/records/record-collection.ts'

describe('record declarations', () => {
  it('derive the names, segment, path parameter and table from the noun', () => {
    assert.deepEqual(namesOfNoun({ noun: 'general event', idParam: 'eventId' }), {
      singular: 'GeneralEvent',
      plural: 'GeneralEvents',
      label: 'General event',
      segment: 'general-events',
      table: 'general_events',
      idParam: 'eventId',
      schemaName: 'GeneralEvent',
    })
    assert.deepEqual(namesOfNoun({ noun: 'weaning' }), {
      singular: 'Weaning',
      plural: 'Weanings',
      label: 'Weaning',
      segment: 'weanings',
      table: 'weanings',
      idParam: 'weaningId',
      schemaName: 'Weaning',
    })
  })

  it('each live in the folder of their segment, whose file opens with the paths it serves', () => {
    for (const c of recordCollections) {
      const file = resolve(import.meta.dirname, `../../src/modules/records/${c.segment}/${c.segment}.ts`)
      const opening = readFileSync(file, 'utf8')
        .split('\n')
        .filter((line) => line.startsWith('//'))
        .join('\n')
      if (c.userLevel) assert.match(opening, new RegExp(`/users/:userId/${c.segment}\\b`), file)
      if (c.animalLevel) assert.match(opening, new RegExp(`/users/:userId/animals/:animalMac/${c.segment}\\b`), file)
    }
  })
})
