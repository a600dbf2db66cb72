// /users/:userId/animals/:animalMac/general-events: sickness, death, lameness, recovery, notes.
import { EXAMPLE } from '../../../http/schema-types.ts'
import { field } from '../../../resource/field.ts'
import { defineRecordCollection, type RecordTable } from '../record-collection.ts'
import { animalMac, archived, text } from '../record-fields.ts'
import { UID_PATTERN } from '../../users/users.rules.ts'

export const GENERAL_EVENT_DIAGNOSES = ['Sickness', 'Death', 'Lameness', 'Other', 'Note', 'Recovered'] as const

/** The table, beside the declaration whose fields name its columns (migration 0004). */
export interface GeneralEventsTable extends RecordTable {
  diagnose: string
  description: string
  comment: string | null
  token: string | null
}

export const generalEvents = defineRecordCollection<GeneralEventsTable>()({
  noun: 'general event',
  idParam: 'eventId',
  description: 'General events of an animal: sickness, death, lameness, recovery, notes',
  itemDescription: "Something that happened to one of the user's animals.",
  fields: {
    MAC: animalMac(),
    Uid: field.string({
      readOnly: true,
      pattern: UID_PATTERN,
      maxLength: 128,
      description: "The owner's user id",
      example: EXAMPLE.uid,
    }),
    Diagnose: field.enum(GENERAL_EVENT_DIAGNOSES, {
      required: true,
      description: GENERAL_EVENT_DIAGNOSES.join(', '),
      example: 'Lameness',
    }),
    Description: text('What happened', 'Lame on the left hind leg after regrouping', { required: true }),
    Archived: archived(),
    Comment: text('Comment (an alternative description)', 'Checked again the next morning'),
    Token: text("An identifier of the client's own", 'evt-0042', { maxLength: 200 }),
  },
  animalLevel: { create: { optional: ['MAC'] } },
})
