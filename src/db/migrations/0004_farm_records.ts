// Farm records: the ten record collections, one table each. Every record belongs to an animal by its
// id, not its tag (animal_id, with (uid, animal_id) referencing animals), so a new MAC changes nothing
// here and the records follow the animal. The reference has no ON DELETE action: an animal with
// records cannot be deleted by accident (the API asks for deleteRecords=true). Deleting the user
// deletes them (uid ON DELETE CASCADE), in the same statement as the animals.
// Text columns hold the spec's strings as sent (dates YYYY-MM-DD, times HH:mm); numbers are double.
import { sql, type Kysely } from 'kysely'
import { accountTable, rowTimestamps } from './building-blocks.ts'

type Column = [name: string, type: string]

const text = (name: string): Column => [name, 'text']
const num = (name: string): Column => [name, 'double precision']
const bool = (name: string): Column => [name, 'boolean']
const json = (name: string): Column => [name, 'jsonb']

/** Columns of each table besides the common ones; NOT NULL where the field is required at every level. */
const tables: Record<string, { columns: Column[]; notNull: string[] }> = {
  treatments: {
    columns: [
      text('medicine'),
      text('diagnose'),
      text('custom_name'),
      text('comment'),
      num('treatment_amount'),
      num('treatment_count'),
      num('treatment_interval'),
      text('start_date'),
      num('start_date_seconds'),
      json('phone_history'),
      num('dosis'),
      text('group_name'),
      bool('validated'),
    ],
    notNull: [
      'medicine',
      'diagnose',
      'custom_name',
      'comment',
      'treatment_amount',
      'treatment_count',
      'treatment_interval',
      'start_date',
      'start_date_seconds',
      'phone_history',
    ],
  },
  births: {
    columns: [
      num('living'),
      num('dead'),
      text('start_date'),
      text('start_time'),
      text('comment'),
      num('mummified'),
      num('weaned'),
      num('parity'),
      bool('assisted'),
      num('farrowing_duration'),
      text('complications'),
      num('average_litter_weight'),
    ],
    notNull: ['living', 'dead', 'start_date'],
  },
  inseminations: {
    columns: [
      text('boar'),
      text('genetic_line'),
      num('tubes'),
      text('start_date'),
      text('start_time'),
      bool('occupied'),
      num('service_order'),
      text('service_type'),
      text('semen_source'),
      text('semen_batch'),
      text('technician'),
      text('breeding_group'),
      text('heat_detection_date'),
      text('expected_farrowing_date'),
      text('pregnancy_check_date'),
      text('return_to_estrus_date'),
      num('service_number'),
      num('parity'),
      json('scanning_result'),
    ],
    notNull: ['boar', 'start_date', 'occupied'],
  },
  general_events: {
    columns: [text('diagnose'), text('description'), text('comment'), text('token')],
    notNull: ['diagnose', 'description'],
  },
  pregnancy_checks: {
    columns: [
      text('check_date'),
      num('check_number'),
      text('result'),
      text('method'),
      num('service_timestamp'),
      text('notes'),
      text('technician'),
    ],
    notNull: ['check_date', 'check_number', 'result', 'method'],
  },
  return_to_estrus: {
    columns: [
      text('return_date'),
      text('return_type'),
      num('days_since_service'),
      num('previous_service_timestamp'),
      text('reason_code'),
    ],
    notNull: ['return_date', 'return_type', 'days_since_service'],
  },
  weanings: {
    columns: [
      text('weaning_date'),
      num('count_weaned'),
      num('birth_timestamp'),
      num('weaning_age'),
      num('foster_in'),
      num('foster_out'),
      num('weaning_weight'),
    ],
    notNull: ['weaning_date', 'count_weaned'],
  },
  movements: {
    columns: [text('movement_date'), text('from_stage'), text('to_stage'), text('from_location'), text('to_location')],
    notNull: ['movement_date', 'from_stage', 'to_stage'],
  },
}

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const [table, { columns, notNull }] of Object.entries(tables)) {
    let builder = accountTable(db, table)
      // Creation time in ms (the API's ID, as a decimal string), unique per user and collection.
      .addColumn('id', 'bigint', (c) => c.notNull())
      .addColumn('animal_id', 'bigint', (c) => c.notNull())
      .addColumn('t', 'bigint', (c) => c.notNull())
      .addColumn('archived', 'boolean', (c) => c.notNull().defaultTo(false))
    for (const [name, type] of columns) {
      builder = builder.addColumn(name, sql.raw(type), (c) => (notNull.includes(name) ? c.notNull() : c))
    }
    await builder
      .$call(rowTimestamps)
      .addPrimaryKeyConstraint(`${table}_pkey`, ['uid', 'id'])
      .addForeignKeyConstraint(`${table}_animal_fkey`, ['uid', 'animal_id'], 'animals', ['uid', 'id'])
      .execute()
    await db.schema.createIndex(`${table}_animal_idx`).on(table).columns(['uid', 'animal_id', 't']).execute()
  }
  await sql`ALTER TABLE treatments ADD CONSTRAINT treatments_count_within_amount CHECK (treatment_count <= treatment_amount)`.execute(
    db,
  )
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of Object.keys(tables).reverse()) await db.schema.dropTable(table).ifExists().execute()
}
