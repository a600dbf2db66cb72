// Pregnancy checks of a sow: scans after a service.
import { field } from '../../../resource/field.ts'
import { defineResource } from '../../../resource/resource.ts'
import { defineRecordCollection } from '../record-collection.ts'
import { animalMac, archived, count, date, text, timestamp } from '../record-fields.ts'

export const PREGNANCY_RESULTS = ['pregnant', 'open', 'recheck'] as const

export const pregnancyChecks = defineRecordCollection({
  segment: 'pregnancy-checks',
  idParam: 'checkId',
  names: { singular: 'PregnancyCheck', plural: 'PregnancyChecks', label: 'Pregnancy check' },
  description: 'Pregnancy checks of a sow',
  resource: defineResource({
    name: 'PregnancyCheck',
    table: 'pregnancy_checks',
    description: "A pregnancy check of one of the user's sows.",
    fields: {
      ID: field.id(),
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
      t: field.createdAt(),
    },
  }),
  animalLevel: { create: { optional: ['MAC'] } },
})
