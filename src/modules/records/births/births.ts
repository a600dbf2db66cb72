// Births (farrowings): at user level, where the spec's create requires Uid, StartTime and Comment, and
// per animal, where they may be left out. Also the user's birth statistics.
import { field } from '../../../resource/field.ts'
import { defineResource } from '../../../resource/resource.ts'
import { defineRecordCollection } from '../record-collection.ts'
import { animalMac, archived, count, date, ownerUid, text, time } from '../record-fields.ts'
import { birthStatisticsRoute } from './births.statistics.ts'

export const births = defineRecordCollection({
  segment: 'births',
  idParam: 'birthId',
  names: { singular: 'Birth', plural: 'Births', label: 'Birth' },
  description: "Births (farrowings) and the user's birth statistics",
  resource: defineResource({
    name: 'Birth',
    table: 'births',
    description: "A farrowing of one of the user's sows.",
    fields: {
      ID: field.id(),
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
      t: field.createdAt(),
    },
  }),
  userLevel: {
    search: { archived: 'Archived', mac: 'MAC' },
    create: { require: ['Uid', 'StartTime', 'Comment', 'Archived'] },
  },
  animalLevel: { create: { optional: ['MAC'] }, rangeField: 'StartDate' },
  extraRoutes: birthStatisticsRoute,
})
