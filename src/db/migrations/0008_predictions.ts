// AI predictions (the spec's AIPrediction): one row per prediction of one animal, from our own scorer
// (src/jobs/predictions.ts) or posted by an external model. A prediction belongs to its animal by id, so a
// new tag MAC changes nothing here; it is derived data, so it goes with its animal (ON DELETE CASCADE) and
// with its account (uid). `results` holds the [{timestamp, probability}] series as the API shows it;
// `peak_probability` is its highest probability, the value minProbability/maxProbability filter on.
import { sql, type Kysely } from 'kysely'
import { accountTable } from './building-blocks.ts'

export async function up(db: Kysely<unknown>): Promise<void> {
  await accountTable(db, 'predictions')
    .addColumn('id', 'bigserial', (c) => c.notNull())
    .addColumn('animal_id', 'bigint', (c) => c.notNull())
    .addColumn('classification_type', 'text', (c) =>
      c.notNull().check(sql`classification_type IN ('heat', 'birth', 'lameness')`),
    )
    // When predicted, ms since epoch (the API's `timestamp`).
    .addColumn('predicted_at', 'bigint', (c) => c.notNull())
    .addColumn('results', 'jsonb', (c) => c.notNull())
    .addColumn('peak_probability', 'double precision', (c) => c.notNull().check(sql`peak_probability BETWEEN 0 AND 1`))
    // 'scorer' (this service's rules) or 'external' (POST by an owner or integrator); created_by names that caller.
    .addColumn('source', 'text', (c) => c.notNull().check(sql`source IN ('scorer', 'external')`))
    .addColumn('created_by', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('predictions_pkey', ['uid', 'id'])
    .addForeignKeyConstraint('predictions_animal_fkey', ['uid', 'animal_id'], 'animals', ['uid', 'id'], (fk) =>
      fk.onDelete('cascade'),
    )
    .execute()
  await sql`CREATE INDEX predictions_animal_time_idx ON predictions (uid, animal_id, predicted_at DESC, id DESC)`.execute(
    db,
  )
  // The scorer predicts each hour once per animal and class: a second run for the same hour stores nothing.
  await sql`CREATE UNIQUE INDEX predictions_scorer_hour_key ON predictions (uid, animal_id, classification_type, predicted_at) WHERE source = 'scorer'`.execute(
    db,
  )
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('predictions').ifExists().execute()
}
