// /users/:userId/animals/:animalMac/weanings: a sow's litter taken off her.
import { defineRecordCollection, type RecordTable } from '../record-collection.ts'
import { animalMac, archived, count, date, timestamp } from '../record-fields.ts'

/** The table, beside the declaration whose fields name its columns (migration 0004). */
export interface WeaningsTable extends RecordTable {
  weaning_date: string
  count_weaned: number
  birth_timestamp: number | null
  weaning_age: number | null
  foster_in: number | null
  foster_out: number | null
  weaning_weight: number | null
}

export const weanings = defineRecordCollection<WeaningsTable>()({
  noun: 'weaning',
  description: "Weanings of a sow's litter",
  itemDescription: "The weaning of one of the user's sows' litter.",
  fields: {
    MAC: animalMac(),
    weaningDate: date('Day of the weaning', { required: true, example: '2026-11-30' }),
    countWeaned: count('Piglets weaned', { required: true, example: 11 }),
    BirthTimestamp: timestamp('The farrowing, ms since epoch', { example: 1793589600000 }),
    weaningAge: count('Age of the litter, days', { example: 28 }),
    fosterIn: count('Piglets fostered onto the sow', { example: 1 }),
    fosterOut: count('Piglets fostered away', { example: 0 }),
    weaningWeight: count('Litter weight at weaning, kg', { example: 82.5 }),
    Archived: archived(),
  },
  animalLevel: { create: { optional: ['MAC'] } },
})
