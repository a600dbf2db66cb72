// The record collections. A new one is a folder with its declaration, a migration and a line here; `DB`
// (db/schema.ts) takes the collections' tables from this list.
import type { RecordCollection } from './record-collection.ts'
import { births } from './births/births.ts'
import { generalEvents } from './general-events/general-events.ts'
import { inseminations } from './inseminations/inseminations.ts'
import { movements } from './movements/movements.ts'
import { pregnancyChecks } from './pregnancy-checks/pregnancy-checks.ts'
import { returnToEstrus } from './return-to-estrus/return-to-estrus.ts'
import { treatments } from './treatments/treatments.ts'
import { weanings } from './weanings/weanings.ts'

export const recordCollections = [
  treatments,
  births,
  inseminations,
  generalEvents,
  pregnancyChecks,
  returnToEstrus,
  weanings,
  movements,
] as const satisfies readonly RecordCollection[]

type Declared = (typeof recordCollections)[number]

/** Each collection's table under its name, for `DB`. */
export type RecordTables = {
  [C in Declared as C['table']]: C extends RecordCollection<string, infer Columns> ? Columns : never
}

/** The name of a record table. */
export type RecordTableName = keyof RecordTables
