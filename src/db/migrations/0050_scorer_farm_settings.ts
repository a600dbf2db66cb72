// Per-farm learning (src/modules/predictions/farm-learning.rules.ts): one row per account with the factor of each
// class's default alarm threshold that the farm's own records led to, when it was learned, and why (`basis`: the
// period read and each class's counts and reason, as GET /users/<user_id>/predictions/settings shows them).
// No row: the defaults. It goes with its account.
import { sql, type Kysely } from 'kysely'
import { ONE_ROW_PER_ACCOUNT } from './building-blocks.ts'

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE scorer_farm_settings (
      ${ONE_ROW_PER_ACCOUNT},
      birth_factor double precision NOT NULL CHECK (birth_factor > 0),
      heat_factor double precision NOT NULL CHECK (heat_factor > 0),
      lameness_factor double precision NOT NULL CHECK (lameness_factor > 0),
      learned_at bigint NOT NULL,
      basis jsonb NOT NULL
    )`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE IF EXISTS scorer_farm_settings`.execute(db)
}
