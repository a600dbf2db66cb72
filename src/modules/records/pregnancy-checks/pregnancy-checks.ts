// /users/:userId/animals/:animalMac/pregnancy-checks: scans of a sow after a service.
import { field } from '../../../resource/field.ts'
import { defineRecordCollection, type RecordTable } from '../record-collection.ts'
import { animalMac, archived, count, date, text, timestamp } from '../record-fields.ts'

export const PREGNANCY_RESULTS = ['pregnant', 'open', 'recheck'] as const

/** The table, beside the declaration whose fields name its columns (migration 0004). */
export interface PregnancyChecksTable extends RecordTable {
  check_date: string
  check_number: number
  result: string
  method: string
  service_timestamp: number | null
  notes: string | null
  technician: string | null
}

export const pregnancyChecks = defineRecordCollection<PregnancyChecksTable>()({
  noun: 'pregnancy check',
  idParam: 'checkId',
  description: 'Pregnancy checks of a sow',
  itemDescription: "A pregnancy check of one of the user's sows.",
  fields: {
    MAC: animalMac(),
    checkDate: date('Day of the check', { required: true, example: '2026-08-08' }),
    checkNumber: count('Which check after the service', { default: 1, example: 1 }),
    result: field.enum(PREGNANCY_RESULTS, {
      required: true,
      description: PREGNANCY_RESULTS.join(', '),
      example: 'pregnant',
    }),
    method: field.string({
      maxLength: 200,
      default: 'ultrasound',
      description: 'How the check was made',
      example: 'ultrasound',
    }),
    ServiceTimestamp: timestamp('The service checked, ms since epoch', { example: 1783754100000 }),
    notes: text('Notes', 'Clear image, 8+ embryos'),
    technician: text('Who checked', 'J. Larsen', { maxLength: 200 }),
    Archived: archived(),
  },
  animalLevel: { create: { optional: ['MAC'] } },
})
