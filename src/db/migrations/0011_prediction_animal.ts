// What a prediction says of its animal when its poster gave it (POST .../predictions takes the AIPrediction
// shape, animal included): the name, group and weight stored as given. NULL where nothing was given, and
// the reads show the animal's registry fields instead (modules/predictions/predictions.repository.ts).
import type { Kysely } from 'kysely'

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('predictions')
    .addColumn('animal_name', 'text')
    .addColumn('animal_group', 'text')
    .addColumn('animal_weight', 'double precision')
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('predictions')
    .dropColumn('animal_name')
    .dropColumn('animal_group')
    .dropColumn('animal_weight')
    .execute()
}
