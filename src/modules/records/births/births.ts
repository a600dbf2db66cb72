// /users/:userId/births and /users/:userId/animals/:animalMac/births: births (farrowings), at user level,
// where the spec's create requires Uid, StartTime and Comment, and per animal, where they may be left out.
// Also the user's birth statistics.
import { field } from '../../../resource/field.ts'
import { defineRecordCollection, type RecordTable } from '../record-collection.ts'
import { animalMac, archived, count, date, ownerUid, text, time } from '../record-fields.ts'
import { birthStatisticsRoute } from './births.statistics.ts'

/** The table, beside the declaration whose fields name its columns (migration 0004). */
export interface BirthsTable extends RecordTable {
  living: number
  dead: number
  start_date: string
  start_time: string | null
  comment: string | null
  mummified: number | null
  weaned: number | null
  parity: number | null
  assisted: boolean | null
  farrowing_duration: number | null
  complications: string | null
  average_litter_weight: number | null
}

export const births = defineRecordCollection<BirthsTable>()({
  noun: 'birth',
  description: "Births (farrowings) and the user's birth statistics",
  itemDescription: "A farrowing of one of the user's sows.",
  fields: {
    MAC: animalMac(),
    Uid: ownerUid({ required: false }),
    Living: count('Piglets born alive', { required: true, example: 12 }),
    Dead: count('Piglets born dead', { required: true, example: 1 }),
    StartDate: date('Day of the farrowing', { required: true, example: '2026-11-02' }),
    StartTime: time('Start of the farrowing', { example: '03:20' }),
    Comment: text('Comment', 'Calm farrowing, all teats used'),
    Archived: archived(),
    Mummified: count('Mummified piglets', { example: 0 }),
    Weaned: count('Piglets weaned from the litter', { example: 11 }),
    Parity: count("The sow's parity (litter number)", { example: 3 }),
    Assisted: field.boolean({ description: 'Farrowing assistance was needed', example: false }),
    FarrowingDuration: count('Duration of the farrowing, minutes', { example: 240 }),
    Complications: text('Complications; null when there were none', 'Retained piglet', { nullable: 'null' }),
    AverageLitterWeight: count('Average piglet weight at birth, kg', { example: 1.4 }),
  },
  userLevel: {
    search: { archived: 'Archived', mac: 'MAC' },
    create: { require: ['Uid', 'StartTime', 'Comment', 'Archived'] },
  },
  animalLevel: { create: { optional: ['MAC'] }, rangeField: 'StartDate' },
  extraRoutes: birthStatisticsRoute,
})
