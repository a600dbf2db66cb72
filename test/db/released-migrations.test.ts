// Store-independent: runs in the embedded pass of npm test only (test/run.ts).
// A released migration ran on farms: the statements it runs never change, even where it is built from shared blocks
// (src/db/migrations/building-blocks.ts). Each one's statements are compiled without a store and fingerprinted.
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { describe, it } from 'node:test'
import { compileOnlyDb } from '../support/compile-only-db.ts'
import { migrations } from '../../src/db/migrations/index.ts'

/** SHA-256 (first 16 hex digits) of each released migration's statements, SQL and parameters, in order. */
const RELEASED: Record<string, string> = {
  '0001_accounts': '7865d076a4f70738',
  '0002_user_push_tokens': '69e2c61604e00258',
  '0003_animals_and_readings': '190b72f22a75969b',
  '0004_farm_records': '1cb666f284c560a7',
  '0005_idempotency_keys': '95afa93cdcc043b3',
  '0006_access_log': '9ec85467a0fc1f5a',
  '0007_litterguards': '0c09feae7df1a577',
  '0008_predictions': '6d82b1959f83f849',
  '0009_access_change_notifications': '9114a7376cfa8e7e',
  '0010_token_families': '94577c48db9a72a2',
  '0011_prediction_animal': '918be3ccd17b66fe',
  '0020_events': '7f2c04f99864dd30',
  '0030_packed_readings': '3c0e26a405219668',
  '0050_scorer_farm_settings': 'ac38f4c92270b9e3',
  '0055_deliveries': 'e194ac45448fcf30',
  '0060_hourly_rollups': 'b2a103390f4fd9a4',
  '0065_litterguard_activity': '61722fb17a79c1a5',
  '0070_email_changes': '9afbd1dfe778dd63',
  '0075_calibrated_predictions': '16108ef0f68af082',
  '0085_farm_calibration': '6e344d3f52cb0159',
  '0090_recalibrated_global_probabilities': '0d31c6b915a3a29d',
  '0095_recalibrated_across_harder_farms': '7c3ea3a07021f120',
}

/** The statements a migration's `up` runs, each compiled as PostgreSQL receives it. */
async function statementsOf(name: string): Promise<string[]> {
  const statements: string[] = []
  const db = compileOnlyDb<unknown>((event) => {
    statements.push(`${event.query.sql}\n${JSON.stringify(event.query.parameters)}`)
  })
  await migrations[name]!.up(db)
  return statements
}

const fingerprint = (statements: string[]) =>
  createHash('sha256').update(statements.join('\n;\n')).digest('hex').slice(0, 16)

describe('released migrations', () => {
  it('run the statements they ran on farms', async () => {
    const changed: string[] = []
    for (const [name, expected] of Object.entries(RELEASED)) {
      const actual = fingerprint(await statementsOf(name))
      if (actual !== expected) changed.push(`${name}: ${actual}, was ${expected}`)
    }
    assert.deepEqual(changed, [], 'a released migration never changes: write a new one (0100 and up)')
  })

  it('every migration up to 0095 is fingerprinted', () => {
    const released = Object.keys(migrations).filter((name) => name <= '0095_~')
    assert.deepEqual(Object.keys(RELEASED), released)
  })
})
