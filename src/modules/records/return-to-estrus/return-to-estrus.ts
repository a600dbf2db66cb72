// Returns to estrus: a served sow back in heat.
import { field } from '../../../resource/field.ts'
import { defineResource } from '../../../resource/resource.ts'
import { defineRecordCollection } from '../record-collection.ts'
import { animalMac, archived, count, date, text, timestamp } from '../record-fields.ts'

export const RETURN_TYPES = ['regular', 'irregular'] as const

export const returnToEstrus = defineRecordCollection({
  segment: 'return-to-estrus',
  idParam: 'eventId',
  names: { singular: 'ReturnToEstrus', plural: 'ReturnsToEstrus', label: 'Return to estrus' },
  description: 'Returns to estrus of a served sow',
  resource: defineResource({
    name: 'ReturnToEstrus',
    table: 'return_to_estrus',
    description: "One of the user's sows seen in heat again after a service.",
    fields: {
      ID: field.id(),
      MAC: animalMac(),
      returnDate: date('Day the heat was seen', { required: true, example: '2026-08-01' }),
      returnType: field.enum(RETURN_TYPES, {
        required: true,
        description: 'regular (18-24 days after service) or irregular',
        example: 'regular',
      }),
      daysSinceService: count('Days since the service', { required: true, example: 21 }),
      PreviousServiceTimestamp: timestamp('The service before, ms since epoch', { example: 1783754100000 }),
      reasonCode: text('Reason code', 'R2', { maxLength: 200 }),
      Archived: archived(),
      t: field.createdAt(),
    },
  }),
  animalLevel: { create: { optional: ['MAC'] } },
})
