// /users/:userId/animals/:animalMac/movements: moves between production stages and locations.
import { field } from '../../../resource/field.ts'
import { defineRecordCollection, type RecordTable } from '../record-collection.ts'
import { animalMac, archived, date, text } from '../record-fields.ts'

export const STAGES = ['gilt-pool', 'bred', 'gestation', 'farrowing', 'lactation', 'weaned', 'cull'] as const

/** The table, beside the declaration whose fields name its columns (migration 0004). */
export interface MovementsTable extends RecordTable {
  movement_date: string
  from_stage: string
  to_stage: string
  from_location: string | null
  to_location: string | null
}

export const movements = defineRecordCollection<MovementsTable>()({
  noun: 'movement',
  schemaName: 'AnimalMovement',
  description: 'Movements of an animal between production stages and locations',
  itemDescription: "One of the user's animals moved from one stage (and location) to another.",
  fields: {
    MAC: animalMac(),
    movementDate: date('Day of the move', { required: true, example: '2026-10-27' }),
    fromStage: field.enum(STAGES, { required: true, description: STAGES.join(', '), example: 'gestation' }),
    toStage: field.enum(STAGES, { required: true, description: STAGES.join(', '), example: 'farrowing' }),
    fromLocation: text('Where from', 'Gestation barn, pen 4', { maxLength: 200 }),
    toLocation: text('Where to', 'Farrowing room 2, crate 11', { maxLength: 200 }),
    Archived: archived(),
  },
  animalLevel: { create: { optional: ['MAC'] } },
})
