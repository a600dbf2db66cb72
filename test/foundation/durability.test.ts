// An acknowledged write on the embedded store is on disk, not only in the page cache: PostgreSQL runs
// with fsync on, and every commit reaches fsync(2) before the API answers (PGlite's own default is
// fsync off, and 20 acknowledged commits made no fsync at all).
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import { sql } from 'kysely'
import { buildApp } from '../../src/app.ts'
import { loadConfig } from '../../src/config.ts'
import { embeddedSyncCount, openDatabase } from '../../src/db/database.ts'
import { migrateToLatest } from '../../src/db/migrate.ts'
import { migratedDataDir, testEnv } from '../support/app.ts'
import { addAnimal, bearer, createUser, userToken } from '../support/fixtures.ts'

const dirs: string[] = []
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

async function storeIn(env: Record<string, string>) {
  const dir = mkdtempSync(join(tmpdir(), 'lsapi-durable-'))
  dirs.push(dir)
  // Migrated already: what is tested comes after, and migrating it all with fsync on is slow.
  migratedDataDir(dir)
  const config = loadConfig({ ...testEnv({ DATA_DIR: dir, ...env }), DATABASE_URL: '', REDIS_URL: '' })
  const database = await openDatabase(config)
  await migrateToLatest(database.db)
  return { config, database }
}

describe(
  'durability of the embedded store',
  { skip: process.env.DATABASE_URL ? 'the embedded store only' : false },
  () => {
    it('runs PostgreSQL with fsync on and syncs every acknowledged write to disk', async () => {
      const { config, database } = await storeIn({})
      const app = await buildApp({ config, database, logger: false })
      try {
        const settings = await sql<{
          name: string
          setting: string
        }>`select name, setting from pg_settings where name in ('fsync', 'wal_sync_method')`.execute(database.db)
        assert.deepEqual(Object.fromEntries(settings.rows.map((r) => [r.name, r.setting])), {
          fsync: 'on',
          wal_sync_method: 'fsync',
        })
        const ctx = { app, config, database, redis: undefined, close: async () => {} }
        const user = await createUser(ctx)
        const headers = bearer((await userToken(ctx, user.email)).accessToken)
        for (let i = 0; i < 20; i++) {
          const before = embeddedSyncCount(database)!
          await addAnimal(ctx, user.uid, headers, { MAC: `AA:BB:CC:DD:EE:${String(10 + i)}`, Sex: 'female' })
          assert.ok(embeddedSyncCount(database)! > before, `write ${i} was acknowledged before an fsync`)
        }
      } finally {
        await app.close()
        await database.close()
      }
    })

    it('can be told not to sync (EMBEDDED_FSYNC=off), trading durability for speed', async () => {
      const { database } = await storeIn({ EMBEDDED_FSYNC: 'off' })
      try {
        assert.equal(embeddedSyncCount(database), undefined)
        const fsync = await sql<{ setting: string }>`select setting from pg_settings where name = 'fsync'`.execute(
          database.db,
        )
        assert.equal(fsync.rows[0]!.setting, 'off')
      } finally {
        await database.close()
      }
    })
  },
)
