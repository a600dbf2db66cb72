// Animal movements between production stages and locations.
import { field } from '../../../resource/field.ts'
import { defineResource } from '../../../resource/resource.ts'
import { defineRecordCollection } from '../record-collection.ts'
import { animalMac, archived, date, text } from '../record-fields.ts'

export const STAGES = ['gilt-pool', 'bred', 'gestation', 'farrowing', 'lactation', 'weaned', 'cull'] as const

export const movements = defineRecordCollection({
  segment: 'movements',
  idParam: 'movementId',
  names: { singular: 'Movement', plural: 'Movements', label: 'Movement' },
  description: 'Movements of an animal between production stages and locations',
  resource: defineResource({
    name: 'AnimalMovement',
    table: 'movements',
    description: "One of the user's animals moved from one stage (and location) to another.",
    fields: {
      ID: field.id(),
      MAC: animalMac(),
      movementDate: date('Day of the move', { required: true, example: '2026-10-27' }),
      fromStage: field.enum(STAGES, { required: true, description: STAGES.join(', '), example: 'gestation' }),
      toStage: field.enum(STAGES, { required: true, description: STAGES.join(', '), example: 'farrowing' }),
      fromLocation: text('Where from', 'Gestation barn, pen 4', { maxLength: 200 }),
      toLocation: text('Where to', 'Farrowing room 2, crate 11', { maxLength: 200 }),
      Archived: archived(),
      t: field.createdAt(),
    },
  }),
  animalLevel: { create: { optional: ['MAC'] } },
})
