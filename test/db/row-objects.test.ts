import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { sql } from 'kysely'
import pg from 'pg'
import { rowObjects } from '../../src/db/row-objects.ts'
import { createTestApp, usingRealServers, type TestContext } from '../support/app.ts'

const fields = (...names: string[]) => names.map((name) => ({ name }))

describe('row objects (pg rows as arrays, made objects)', () => {
  it('keys each value by its column, in order, with one shape per column list', () => {
    const rows = rowObjects(fields('uid', 'id', 'note'), [
      ['u1', 1, null],
      ['u2', 2, 'x'],
    ])
    assert.deepEqual(rows, [
      { uid: 'u1', id: 1, note: null },
      { uid: 'u2', id: 2, note: 'x' },
    ])
    assert.deepEqual(Object.keys(rows[0]!), ['uid', 'id', 'note'])
    assert.equal(Object.getPrototypeOf(rows[0]), Object.prototype)
    assert.deepEqual(rowObjects(fields('a'), []), [])
  })

  it('quotes any name, and keeps the last of two columns of one name as pg does', () => {
    const odd = ['he said "hi"', 'back\\slash', 'new\nline', '}; throw 1; //', '\u2028', 'constructor']
    const [row] = rowObjects(fields(...odd), [odd.map((_, i) => i)])
    assert.deepEqual(
      Object.entries(row!),
      odd.map((name, i) => [name, i]),
    )
    assert.deepEqual(rowObjects(fields('id', 'id'), [[1, 2]]), [{ id: 2 }])
  })

  it('makes a column named __proto__ an own property, never the prototype', () => {
    const [row] = rowObjects(fields('__proto__', 'x'), [[{ polluted: true }, 1]])
    assert.equal(Object.getPrototypeOf(row), Object.prototype)
    assert.ok(Object.hasOwn(row!, '__proto__'))
    assert.equal((row as { polluted?: boolean }).polluted, undefined)
  })

  it('serves any number of column lists', () => {
    for (let n = 0; n < 1200; n++) assert.deepEqual(rowObjects(fields(`c${n}`), [[n]]), [{ [`c${n}`]: n }])
  })
})

describe(
  'row objects on PostgreSQL: the same rows as pg builds',
  { skip: usingRealServers ? false : 'needs DATABASE_URL' },
  () => {
    let ctx: TestContext
    before(async () => {
      ctx = await createTestApp()
    })
    after(() => ctx.close())

    it('gives Kysely what pg alone gives for the same statement (types, nulls, names)', async () => {
      const statement = sql<
        Record<string, unknown>
      >`SELECT 1::int AS a, 9007199254740991::int8 AS b, 1.5::numeric AS c, 'x' AS d, NULL::text AS e,
      now() AS f, '{1,2}'::int[] AS g, '{"k":1}'::jsonb AS h, true AS i, 2 AS a`
      const viaPool = (await statement.execute(ctx.database.db)).rows
      const compiled = statement.compile(ctx.database.db)
      const client = new pg.Client({ connectionString: ctx.config.databaseUrl })
      await client.connect()
      try {
        const direct = (await client.query(compiled.sql, [...compiled.parameters])).rows as Record<string, unknown>[]
        assert.deepEqual(Object.keys(viaPool[0]!), Object.keys(direct[0]!))
        // int8 and numeric: the pool's own parsers (numbers, database.ts), where a bare pg client gives strings.
        assert.deepEqual({ ...viaPool[0], f: 'now', b: 'b', c: 'c' }, { ...direct[0], f: 'now', b: 'b', c: 'c' })
        assert.equal(viaPool[0]!.b, 9007199254740991)
        assert.equal(viaPool[0]!.c, 1.5)
        assert.equal(viaPool[0]!.a, 2)
        assert.equal(viaPool[0]!.e, null)
        assert.deepEqual(viaPool[0]!.g, [1, 2])
        assert.deepEqual(viaPool[0]!.h, { k: 1 })
        assert.ok(viaPool[0]!.f instanceof Date)
      } finally {
        await client.end()
      }
    })

    it('passes on the results of several statements in one text', async () => {
      const result = await ctx.database.db.executeQuery(sql`SELECT 1 AS one; SELECT 2 AS two`.compile(ctx.database.db))
      assert.deepEqual(result.rows, [])
    })
  },
)
