// General events of an animal: sickness, death, lameness, recovery, notes.
import { EXAMPLE } from '../../../http/schema-types.ts'
import { field } from '../../../resource/field.ts'
import { defineResource } from '../../../resource/resource.ts'
import { defineRecordCollection } from '../record-collection.ts'
import { animalMac, archived, text } from '../record-fields.ts'
import { UID_PATTERN } from '../../users/users.rules.ts'

export const GENERAL_EVENT_DIAGNOSES = ['Sickness', 'Death', 'Lameness', 'Other', 'Note', 'Recovered'] as const

export const generalEvents = defineRecordCollection({
  segment: 'general-events',
  idParam: 'eventId',
  names: { singular: 'GeneralEvent', plural: 'GeneralEvents', label: 'General event' },
  description: 'General events of an animal: sickness, death, lameness, recovery, notes',
  resource: defineResource({
    name: 'GeneralEvent',
    table: 'general_events',
    description: "Something that happened to one of the user's animals.",
    fields: {
      ID: field.id(),
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
      t: field.createdAt(),
    },
  }),
  animalLevel: { create: { optional: ['MAC'] } },
})
