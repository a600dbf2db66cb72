import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { sql } from 'kysely'
import { preparedQuery, preparedStatementName } from '../../src/db/prepared.ts'
import { createIdSource } from '../../src/db/ids.ts'
import { findAnimal, findAnimalByMac, insertAnimal } from '../../src/modules/animals/animals.repository.ts'
import { createTestApp, usingRealServers, type TestContext } from '../support/app.ts'
import { createUser, uniqueId } from '../support/fixtures.ts'

describe('prepared point reads', () => {
  let ctx: TestContext
  before(async () => {
    ctx = await createTestApp({ env: { DB_POOL_MAX: '1' } })
  })
  after(() => ctx.close())

  it('refuses a build whose SQL parameters are not its arguments, in order', async () => {
    const db = ctx.database.db
    const constantBound = preparedQuery(uniqueId('constant'), (d, uid: string) =>
      d.selectFrom('animals').select('id').where('uid', '=', uid).where('active', '=', true),
    )
    await assert.rejects(constantBound(db, 'x'), /parameters must be its arguments/)
    const swapped = preparedQuery(uniqueId('swapped'), (d, mac: string, uid: string) =>
      d.selectFrom('animals').select('id').where('uid', '=', uid).where('mac', '=', mac),
    )
    await assert.rejects(swapped(db, 'AA:BB:CC:DD:EE:FF', 'x'), /parameters must be its arguments/)
    const name = uniqueId('twice')
    preparedQuery(name, (d, uid: string) => d.selectFrom('animals').select('id').where('uid', '=', uid))
    assert.throws(
      () => preparedQuery(name, (d, uid: string) => d.selectFrom('animals').select('id').where('uid', '=', uid)),
      /declared twice/,
    )
  })

  it('finds an animal by MAC (either case) and by ID, and nothing of another user', async () => {
    const owner = await createUser(ctx)
    const other = await createUser(ctx)
    const db = ctx.database.db
    const id = String(
      (await insertAnimal(db, owner.uid, { MAC: 'AA:BB:CC:00:00:01', Sex: 'female' }, createIdSource(Date.now))).id,
    )
    assert.equal((await findAnimalByMac(db, owner.uid, 'aa:bb:cc:00:00:01'))?.id, Number(id))
    assert.equal((await findAnimal(db, owner.uid, id))?.mac, 'AA:BB:CC:00:00:01')
    assert.equal(await findAnimalByMac(db, other.uid, 'AA:BB:CC:00:00:01'), undefined)
    assert.equal(await findAnimal(db, other.uid, id), undefined)
    assert.equal(await findAnimal(db, owner.uid, 'not-an-id'), undefined)
  })

  it(
    'on PostgreSQL runs as a named statement, prepared once per connection, and survives a migration that adds a column',
    { skip: !usingRealServers && 'PostgreSQL only' },
    async () => {
      const owner = await createUser(ctx)
      const db = ctx.database.db
      await insertAnimal(db, owner.uid, { MAC: 'AA:BB:CC:00:00:02', Sex: 'male' }, createIdSource(Date.now))
      await findAnimalByMac(db, owner.uid, 'AA:BB:CC:00:00:02')
      await findAnimalByMac(db, owner.uid, 'AA:BB:CC:00:00:02')
      // One pooled connection (DB_POOL_MAX=1): this session is the one that prepared it.
      const prepared = await sql<{
        name: string
        statement: string
      }>`SELECT name, statement FROM pg_prepared_statements`.execute(db)
      const byMac = prepared.rows.filter((r) => r.name === 'animal_by_mac')
      assert.equal(byMac.length, 1)
      assert.equal(preparedStatementName(byMac[0]!.statement), 'animal_by_mac')
      await sql`ALTER TABLE animals ADD COLUMN prepared_probe text`.execute(db)
      try {
        assert.equal((await findAnimalByMac(db, owner.uid, 'AA:BB:CC:00:00:02'))?.sex, 'male')
      } finally {
        await sql`ALTER TABLE animals DROP COLUMN prepared_probe`.execute(db)
      }
    },
  )
})
