// Per-farm calibration (src/modules/predictions/farm-calibration.rules.ts): the scorer's probability re-mapped per
// class from the farm's own records. `predictions.global_probability` keeps what the global calibration said of a
// scorer's hour (the stored probability is the farm's, once its map is fitted), so that alarms, retention, per-farm
// learning and the next fit read the same scale whatever map was in use when the hour was scored; null on posted
// predictions and on the scorer's from before (those were global). `scorer_farm_settings.calibration` holds each
// class's map and the counts it came from; null: the global calibration.
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE predictions ADD COLUMN global_probability double precision`.execute(db)
  await sql`ALTER TABLE scorer_farm_settings ADD COLUMN calibration jsonb`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE scorer_farm_settings DROP COLUMN IF EXISTS calibration`.execute(db)
  await sql`ALTER TABLE predictions DROP COLUMN IF EXISTS global_probability`.execute(db)
}
