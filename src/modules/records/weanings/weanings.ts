// Weanings: a sow's litter taken off her.
import { field } from '../../../resource/field.ts'
import { defineResource } from '../../../resource/resource.ts'
import { defineRecordCollection } from '../record-collection.ts'
import { animalMac, archived, count, date, timestamp } from '../record-fields.ts'

export const weanings = defineRecordCollection({
  segment: 'weanings',
  idParam: 'weaningId',
  names: { singular: 'Weaning', plural: 'Weanings', label: 'Weaning' },
  description: "Weanings of a sow's litter",
  resource: defineResource({
    name: 'Weaning',
    table: 'weanings',
    description: "The weaning of one of the user's sows' litter.",
    fields: {
      ID: field.id(),
      MAC: animalMac(),
      weaningDate: date('Day of the weaning', { required: true, example: '2026-11-30' }),
      countWeaned: count('Piglets weaned', { required: true, example: 11 }),
      BirthTimestamp: timestamp('The farrowing, ms since epoch', { example: 1793589600000 }),
      weaningAge: count('Age of the litter, days', { example: 28 }),
      fosterIn: count('Piglets fostered onto the sow', { example: 1 }),
      fosterOut: count('Piglets fostered away', { example: 0 }),
      weaningWeight: count('Litter weight at weaning, kg', { example: 82.5 }),
      Archived: archived(),
      t: field.createdAt(),
    },
  }),
  animalLevel: { create: { optional: ['MAC'] } },
})
