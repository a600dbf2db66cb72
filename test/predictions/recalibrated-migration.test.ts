// Migrations 0090 and 0095 map the scorer's stored global probabilities from the last release's knots to their
// release's, through the raw score, so that alarms stay alarms and quiet hours quiet on the new levels; what the API
// shows stays as scored, posted predictions are left alone and the farms' own maps are dropped until refitted.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { sql, type Kysely } from 'kysely'
import { createTestApp, type TestContext } from '../support/app.ts'
import { createUser } from '../support/fixtures.ts'
import { SCORER } from '../../src/modules/predictions/scorer-settings.rules.ts'
import { calibrate } from '../../src/modules/predictions/calibration.rules.ts'
import * as m0090 from '../../src/db/migrations/0090_recalibrated_global_probabilities.ts'
import * as m0095 from '../../src/db/migrations/0095_recalibrated_across_harder_farms.ts'

let ctx: TestContext
before(async () => {
  ctx = await createTestApp()
})
after(() => ctx.close())

const KINDS = ['birth', 'heat', 'lameness'] as const
const round4 = (p: number) => Math.round(p * 10_000) / 10_000
type Migration = typeof m0090
const levelOf = (knots: Migration['OLD_KNOTS'], kind: (typeof KINDS)[number]) => round4(calibrate(knots[kind], 0.5))

/** Old global probabilities: the scale's ends, below the first knot, around each class's old alarm level, on knots. */
function oldProbabilities(migration: Migration, kind: (typeof KINDS)[number]): number[] {
  const level = levelOf(migration.OLD_KNOTS, kind)
  const values = [0, 0.0001, 0.0063, 0.05, round4(level - 0.0001), level, round4(level + 0.0001), 0.5, 0.63, 0.9, 1]
  return [...new Set(values)].sort((a, b) => a - b)
}

let hour = 0
async function insertPrediction(uid: string, kind: string, source: string, peak: number, global: number | null) {
  const results = [{ timestamp: '2026-11-01T00:00:00.000Z', probability: peak }]
  const { rows } = await sql<{ id: number }>`
    INSERT INTO predictions (uid, animal_id, classification_type, predicted_at, results, peak_probability, global_probability, source)
    VALUES (${uid}, 1, ${kind}, ${Date.UTC(2026, 10, 2) + 3_600_000 * hour++}, ${JSON.stringify(results)}::jsonb, ${peak}, ${global}, ${source})
    RETURNING id`.execute(ctx.database.db)
  return rows[0]!.id
}

async function stored(uid: string, id: number) {
  const { rows } = await sql<{ global_probability: number | null; peak_probability: number; results: unknown }>`
    SELECT global_probability, peak_probability, results FROM predictions WHERE uid = ${uid} AND id = ${id}`.execute(
    ctx.database.db,
  )
  return rows[0]!
}

describe('the newest recalibration migration', () => {
  it('is written for the knots in use: a refit of the calibration ships with a migration like this one', () => {
    assert.deepEqual(m0095.NEW_KNOTS, SCORER.calibration)
  })

  it("maps from the knots the migration before it mapped to (the last release's)", () => {
    assert.deepEqual(m0095.OLD_KNOTS, m0090.NEW_KNOTS)
  })
})

for (const [name, migration] of [
  ['0090', m0090],
  ['0095', m0095],
] as const)
  describe(`migration ${name}: stored global probabilities recalibrated`, () => {
    const { OLD_KNOTS, NEW_KNOTS, recalibrateStored, remapped } = migration
    it('maps each old global probability to the new scale as the scorer stores it, alarms staying alarms', () => {
      for (const kind of KINDS) {
        const newLevel = levelOf(NEW_KNOTS, kind)
        for (const old of oldProbabilities(migration, kind)) {
          const p = remapped(kind, old)
          assert.ok(p >= 0 && p <= 1, `${kind} ${old} -> ${p}`)
          assert.equal(p >= newLevel, old >= levelOf(OLD_KNOTS, kind), `${kind} ${old} -> ${p}: alarm kept`)
        }
        // Monotone: a higher old probability never maps lower.
        const mapped = oldProbabilities(migration, kind).map((old) => remapped(kind, old))
        assert.deepEqual(
          mapped,
          [...mapped].sort((a, b) => a - b),
          kind,
        )
      }
    })

    it("rewrites the scorer's global probabilities in SQL as remapped() does, and nothing else", async () => {
      const user = await createUser(ctx)
      await sql`insert into animals (uid, id, mac, sex, t) values (${user.uid}, 1, ${`AA:BB:CC:00:${name.slice(2)}:01`}, 'female', ${Date.now()})`.execute(
        ctx.database.db,
      )
      await sql`INSERT INTO scorer_farm_settings (uid, birth_factor, heat_factor, lameness_factor, learned_at, basis, calibration)
      VALUES (${user.uid}, 1, 1, 1, 0, '{}'::jsonb, '{"birth": {"intercept": 0.1, "slope": 1}}'::jsonb)`.execute(
        ctx.database.db,
      )
      const rows: { kind: (typeof KINDS)[number]; old: number; withGlobal: number; beforeGlobal: number }[] = []
      for (const kind of KINDS)
        for (const old of oldProbabilities(migration, kind))
          rows.push({
            kind,
            old,
            // A farm's map: the shown probability differs from the global one, which alone is rewritten.
            withGlobal: await insertPrediction(user.uid, kind, 'scorer', round4(Math.min(1, old * 1.1)), old),
            // From before migration 0085: the peak was the global probability.
            beforeGlobal: await insertPrediction(user.uid, kind, 'scorer', old, null),
          })
      const external = await insertPrediction(user.uid, 'birth', 'external', 0.2, null)

      await recalibrateStored(ctx.database.db as unknown as Kysely<unknown>, user.uid)

      for (const row of rows) {
        const expected = remapped(row.kind, row.old)
        const farmMapped = await stored(user.uid, row.withGlobal)
        assert.equal(farmMapped.global_probability, expected, `${row.kind} ${row.old}`)
        assert.equal(farmMapped.peak_probability, round4(Math.min(1, row.old * 1.1)), 'shown probability as scored')
        const before0085 = await stored(user.uid, row.beforeGlobal)
        assert.equal(before0085.global_probability, expected, `${row.kind} ${row.old} (no global before)`)
        assert.equal(before0085.peak_probability, row.old)
      }
      const posted = await stored(user.uid, external)
      assert.equal(posted.global_probability, null)
      assert.equal(posted.peak_probability, 0.2)
      const { rows: farm } = await sql<{ calibration: unknown }>`
      SELECT calibration FROM scorer_farm_settings WHERE uid = ${user.uid}`.execute(ctx.database.db)
      assert.equal(farm[0]!.calibration, null)
    })
  })
