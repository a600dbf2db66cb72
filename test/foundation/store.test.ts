// Both stores must give the same JSON for the same data: int8 and numeric come back as numbers.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { sql } from 'kysely'
import { createTestApp, type TestContext } from '../support/app.ts'
import { migrationStatus } from '../../src/db/migrate.ts'

let ctx: TestContext
before(async () => {
  ctx = await createTestApp()
})
after(() => ctx.close())

describe('store', () => {
  it('parses int8 and numeric to numbers on either store', async () => {
    const { rows } = await sql<{ big: number; num: number; int: number; dbl: number }>`
      select 1795320290365::int8 as big, 36.75::numeric as num, 7::int4 as int, 1.5::float8 as dbl`.execute(
      ctx.database.db,
    )
    assert.deepEqual(rows[0], { big: 1795320290365, num: 36.75, int: 7, dbl: 1.5 })
  })

  it('has applied every migration', async () => {
    const status = await migrationStatus(ctx.database.db)
    assert.ok(status.every((m) => m.executedAt !== null))
  })
})
