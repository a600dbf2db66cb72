// The record collections. A new one is a folder with its declaration, a migration and a line here.
import type { RecordCollection } from './record-collection.ts'
import { births } from './births/births.ts'
import { generalEvents } from './general-events/general-events.ts'
import { inseminations } from './inseminations/inseminations.ts'
import { movements } from './movements/movements.ts'
import { pregnancyChecks } from './pregnancy-checks/pregnancy-checks.ts'
import { returnToEstrus } from './return-to-estrus/return-to-estrus.ts'
import { treatments } from './treatments/treatments.ts'
import { weanings } from './weanings/weanings.ts'

export const recordCollections: readonly RecordCollection[] = [
  treatments,
  births,
  inseminations,
  generalEvents,
  pregnancyChecks,
  returnToEstrus,
  weanings,
  movements,
]
