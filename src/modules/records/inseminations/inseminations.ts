// /users/:userId/inseminations and /users/:userId/animals/:animalMac/inseminations: services, the spec's
// strict user-level record and the relaxed animal-level one with its optional breeding fields. One store:
// both views read the same records.
import Type from 'typebox'
import { field } from '../../../resource/field.ts'
import { defineRecordCollection, type NullableJsonColumn, type RecordTable } from '../record-collection.ts'
import { animalMac, archived, count, date, ownerUid, text, time } from '../record-fields.ts'

export const SERVICE_TYPES = ['AI', 'natural'] as const

const ScanningResult = (extra: Record<string, unknown>) =>
  Type.Object(
    {
      Confirmed: Type.Boolean({ description: 'Pregnancy confirmed by the scan' }),
      ScanningDate: Type.String({ format: 'date', maxLength: 10, description: 'YYYY-MM-DD', examples: ['2026-08-08'] }),
      Notes: Type.Optional(
        Type.String({ minLength: 1, maxLength: 2000, examples: ['Clear image, 8+ embryos on the left horn'] }),
      ),
    },
    { additionalProperties: false, ...extra },
  )

/** The table, beside the declaration whose fields name its columns (migration 0004). */
export interface InseminationsTable extends RecordTable {
  boar: string
  genetic_line: string | null
  tubes: number | null
  start_date: string
  start_time: string | null
  occupied: boolean
  service_order: number | null
  service_type: string | null
  semen_source: string | null
  semen_batch: string | null
  technician: string | null
  breeding_group: string | null
  heat_detection_date: string | null
  expected_farrowing_date: string | null
  pregnancy_check_date: string | null
  return_to_estrus_date: string | null
  service_number: number | null
  parity: number | null
  scanning_result: NullableJsonColumn
}

export const inseminations = defineRecordCollection<InseminationsTable>()({
  noun: 'insemination',
  description: "Inseminations (services) of the user's sows",
  itemDescription:
    "A service of one of the user's sows. Created at user level it carries the spec's required fields; created per " +
    'animal, only Boar and StartDate are required and the breeding fields are optional.',
  fields: {
    MAC: animalMac(),
    Uid: ownerUid({ required: false }),
    Boar: text('Boar or semen used', 'Landrace DK-4471 "Viking"', {
      required: true,
      maxLength: 200,
      caseInsensitive: true,
    }),
    GeneticLine: text('Genetic line', 'Landrace', { maxLength: 200, caseInsensitive: true }),
    Tubes: count('Semen tubes (doses) used', { example: 2 }),
    StartDate: date('Day of the service', { required: true, example: '2026-07-11' }),
    StartTime: time('Time of the service', { example: '07:15' }),
    Archived: archived(),
    Occupied: field.boolean({ default: false, description: 'The sow is served (occupied)', example: true }),
    serviceOrder: count('Which service of this heat: 1, 2, 3, ...', { example: 1 }),
    serviceType: field.enum(SERVICE_TYPES, { description: 'AI or natural', example: 'AI' }),
    semenSource: text('Where the semen came from', 'Boar station Nord', { maxLength: 200 }),
    SemenBatch: text('Semen batch', 'B-2026-1147', { maxLength: 200 }),
    Technician: text('Who served the sow', 'J. Larsen', { maxLength: 200 }),
    BreedingGroup: text('Breeding group', 'Week 45', { maxLength: 200 }),
    HeatDetectionDate: date('Heat detected', { example: '2026-07-10' }),
    ExpectedFarrowingDate: date('Expected farrowing', { example: '2026-11-02' }),
    PregnancyCheckDate: date('Pregnancy check planned', { example: '2026-08-08' }),
    ReturnToEstrusDate: date('Return to estrus seen', { example: '2026-08-01' }),
    ServiceNumber: count('Services of this sow in all', { example: 7 }),
    Parity: count("The sow's parity", { example: 3 }),
    ScanningResult: field.json(ScanningResult, { description: 'The pregnancy scan' }),
  },
  userLevel: {
    search: { archived: 'Archived', mac: 'MAC', boar: 'Boar', geneticLine: 'GeneticLine' },
    create: { require: ['GeneticLine', 'Tubes', 'StartTime', 'Archived', 'Occupied', 'Uid'] },
  },
  animalLevel: { create: { optional: ['MAC'] }, rangeField: 'StartDate' },
})
