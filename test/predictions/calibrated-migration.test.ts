// Migration 0075 maps the scorer's predictions stored before calibration (raw scores) through the knots, as the
// scorer now stores them (calibrate, then 4 decimals); posted predictions keep their probabilities.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { sql, type Kysely } from 'kysely'
import { createTestApp, type TestContext } from '../support/app.ts'
import { createUser } from '../support/fixtures.ts'
import { calibrate } from '../../src/modules/predictions/calibration.rules.ts'
import { KNOTS, calibrateStored } from '../../src/db/migrations/0075_calibrated_predictions.ts'

let ctx: TestContext
before(async () => {
  ctx = await createTestApp()
})
after(() => ctx.close())

const round4 = (p: number) => Math.round(p * 10_000) / 10_000
// Below the first knot, on knots, between them, above the last, and the ends of the scale.
const RAW = [0, 0.003, 0.016, 0.1, 0.2345, 0.5, 0.55, 0.7, 0.8, 0.9, 1]

async function insertPrediction(uid: string, kind: string, source: string, scores: number[]): Promise<number> {
  const results = scores.map((probability, i) => ({
    timestamp: new Date(Date.UTC(2026, 10, 1, i)).toISOString(),
    probability,
  }))
  const { rows } = await sql<{ id: number }>`
    INSERT INTO predictions (uid, animal_id, classification_type, predicted_at, results, peak_probability, source)
    VALUES (${uid}, 1, ${kind}, ${Date.UTC(2026, 10, 2)}, ${JSON.stringify(results)}::jsonb, ${Math.max(...scores)}, ${source})
    RETURNING id`.execute(ctx.database.db)
  return rows[0]!.id
}

async function stored(uid: string, id: number) {
  const { rows } = await sql<{ results: { timestamp: string; probability: number }[]; peak_probability: number }>`
    SELECT results, peak_probability FROM predictions WHERE uid = ${uid} AND id = ${id}`.execute(ctx.database.db)
  return rows[0]!
}

describe('migration 0075: stored scorer predictions calibrated', () => {
  it("maps each raw score through its class's knots like the scorer, leaves posted predictions alone", async () => {
    const user = await createUser(ctx)
    await sql`insert into animals (uid, id, mac, sex, t) values (${user.uid}, 1, 'AA:BB:CC:00:75:01', 'female', ${Date.now()})`.execute(
      ctx.database.db,
    )
    const scorer = {
      birth: await insertPrediction(user.uid, 'birth', 'scorer', RAW),
      heat: await insertPrediction(user.uid, 'heat', 'scorer', RAW),
      lameness: await insertPrediction(user.uid, 'lameness', 'scorer', RAW),
    }
    const external = await insertPrediction(user.uid, 'birth', 'external', RAW)

    await calibrateStored(ctx.database.db as unknown as Kysely<unknown>, user.uid)

    for (const kind of ['birth', 'heat', 'lameness'] as const) {
      const row = await stored(user.uid, scorer[kind])
      const expected = RAW.map((raw) => round4(calibrate(KNOTS[kind], raw)))
      assert.deepEqual(
        row.results.map((r) => r.probability),
        expected,
        kind,
      )
      assert.equal(row.peak_probability, Math.max(...expected))
      assert.equal(row.results[3]!.timestamp, '2026-11-01T03:00:00.000Z')
    }
    const untouched = await stored(user.uid, external)
    assert.deepEqual(
      untouched.results.map((r) => r.probability),
      RAW,
    )
    assert.equal(untouched.peak_probability, 1)
  })
})
