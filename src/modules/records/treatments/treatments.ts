// /users/:userId/treatments: medicine given to an animal, with its course and who gave it (user level only).
import Type from 'typebox'
import { field } from '../../../resource/field.ts'
import { defineRecordCollection, type JsonColumn, type RecordTable } from '../record-collection.ts'
import { animalMac, archived, count, date, text, timestamp } from '../record-fields.ts'

/** The table, beside the declaration whose fields name its columns (migration 0004). */
export interface TreatmentsTable extends RecordTable {
  medicine: string
  diagnose: string
  custom_name: string
  comment: string
  treatment_amount: number
  treatment_count: number
  treatment_interval: number
  start_date: string
  start_date_seconds: number
  phone_history: JsonColumn
  dosis: number | null
  group_name: string | null
  validated: boolean | null
}

export const treatments = defineRecordCollection<TreatmentsTable>()({
  noun: 'treatment',
  macField: 'Mac',
  description: 'Treatments: medicine given to an animal, its course and who gave it',
  itemDescription: "A treatment of one of the user's animals. TreatmentCount never exceeds TreatmentAmount.",
  fields: {
    Mac: animalMac(),
    Medicine: text('Medicine given', 'Amoxicillin 15% LA', { required: true, caseInsensitive: true }),
    Diagnose: text('What is treated', 'Respiratory infection', { required: true, caseInsensitive: true }),
    CustomName: text('Veterinarian or technician', 'Dr. Hansen', { required: true }),
    Comment: text('Comment', 'Second course after a relapse', { required: true }),
    TreatmentAmount: count('Treatments planned in all', { required: true, example: 3 }),
    TreatmentCount: count('Treatments given so far', { required: true, example: 1 }),
    TreatmentInterval: count('Hours between treatments', { required: true, example: 24 }),
    StartDate: date('First treatment', { required: true, example: '2026-11-02' }),
    StartDateSeconds: timestamp('StartDate as Unix seconds', { required: true, example: 1793577600 }),
    Archived: archived({ required: true }),
    PhoneHistory: field.json((extra) => Type.Array(Type.Ref('UserPhone'), { maxItems: 100, ...extra }), {
      required: true,
      description: 'The devices (UserPhone entries) that recorded or were notified of the treatment; may be empty',
    }),
    Dosis: count('Dosage', { example: 10 }),
    Group: field.string({
      column: 'group_name',
      maxLength: 200,
      description: 'Group (pen, batch)',
      example: 'Farrowing 2',
    }),
    Validated: field.boolean({ description: 'Checked by a veterinarian', example: true }),
  },
  userLevel: { search: { archived: 'Archived', mac: 'Mac', medicine: 'Medicine', diagnose: 'Diagnose' } },
  rules: [
    {
      fields: ['TreatmentCount', 'TreatmentAmount'],
      check: (record) =>
        typeof record.TreatmentCount === 'number' &&
        typeof record.TreatmentAmount === 'number' &&
        record.TreatmentCount > record.TreatmentAmount
          ? [{ field: 'TreatmentCount', message: `must not exceed TreatmentAmount (${record.TreatmentAmount})` }]
          : [],
    },
  ],
})
