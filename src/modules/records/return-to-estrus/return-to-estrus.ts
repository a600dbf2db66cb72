// /users/:userId/animals/:animalMac/return-to-estrus: a served sow back in heat.
import { field } from '../../../resource/field.ts'
import { defineRecordCollection, type RecordTable } from '../record-collection.ts'
import { animalMac, archived, count, date, text, timestamp } from '../record-fields.ts'

export const RETURN_TYPES = ['regular', 'irregular'] as const

/** The table, beside the declaration whose fields name its columns (migration 0004). */
export interface ReturnToEstrusTable extends RecordTable {
  return_date: string
  return_type: string
  days_since_service: number
  previous_service_timestamp: number | null
  reason_code: string | null
}

export const returnToEstrus = defineRecordCollection<ReturnToEstrusTable>()({
  noun: 'return to estrus',
  // The spec's path and table keep the singular: /return-to-estrus.
  plural: 'returns to estrus',
  collection: 'return to estrus',
  idParam: 'eventId',
  description: 'Returns to estrus of a served sow',
  itemDescription: "One of the user's sows seen in heat again after a service.",
  fields: {
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
  },
  animalLevel: { create: { optional: ['MAC'] } },
})
