// What the fuzz cases act on: an owner account (Admin and BDUser too, so that every user rule accepts
// it) with an animal and a record of each collection, an Enterprise integrator linked to it with every
// permission, and a second linked integrator for the partner routes. A case that changes or deletes
// them is followed by restore(), which puts the owner's rows back as they were.
import { sql } from 'kysely'
import type { TestContext } from '../support/app.ts'
import { PASSWORD, createIntegrator, createUser, integratorToken } from '../support/fixtures.ts'
import { MATRIX_MAC, recordFixtures } from '../access/routes.ts'
import type { AccessRule } from '../../src/http/route-policy.ts'
import type { Hints } from './values.ts'

export type CallerKind = 'owner' | 'integrator' | 'none'

export interface World {
  ownerUid: string
  /** Known good values by field and parameter name. */
  hints: Hints
  /** The fixture value for a path parameter of this path template, if the world has one. */
  pathValue: (path: string, name: string) => string | undefined
  /** The callers a route with this rule accepts. */
  callersFor: (rule: AccessRule | undefined, isPublic: boolean) => CallerKind[]
  /** A fresh access token (cases may revoke theirs). */
  token: (caller: Exclude<CallerKind, 'none'>) => Promise<string>
  restore: () => Promise<void>
}

/** Tables restored first, in this order; every other table with the owner's rows follows. */
const RESTORE_FIRST = ['users', 'animals']

export async function createWorld(ctx: TestContext): Promise<World> {
  const owner = await createUser(ctx, { admin: true, bdUser: true })
  const integrator = await createIntegrator(ctx, { tier: 'enterprise', canWrite: true, canDelete: true, linkTo: [owner.uid] })
  const spareIntegrator = await createIntegrator(ctx, { tier: 'pro', linkTo: [owner.uid] })
  const ownerToken = (await ctx.app.tokens.sign({ kind: 'user', id: owner.uid }, 'access', 3600)).token
  const headers = { authorization: `Bearer ${ownerToken}` }

  const animal = await ctx.app.inject({ method: 'POST', url: `/api/v1/users/${owner.uid}/animals`, headers, payload: { MAC: MATRIX_MAC, Sex: 'female' } })
  if (animal.statusCode !== 201) throw new Error(`fuzz fixture animal: ${animal.statusCode} ${animal.body}`)
  const animalId = String(animal.json().data.ID)
  /** "user:treatments", "animal:births", ... → the ID of a record of that collection. */
  const recordIds = new Map<string, string>()
  for (const fixture of recordFixtures) {
    const res = await ctx.app.inject({ method: 'POST', url: `/api/v1/users/${owner.uid}${fixture.path}`, headers, payload: fixture.body(owner.uid) })
    if (res.statusCode !== 201) throw new Error(`fuzz fixture ${fixture.path}: ${res.statusCode} ${res.body}`)
    recordIds.set(`${fixture.level}:${fixture.segment}`, String(res.json().data.ID))
  }
  const refreshToken = (await integratorToken(ctx, integrator.uid, { refreshToken: true })).refreshToken!

  const parameters: Record<string, string> = { userId: owner.uid, integratorUid: spareIntegrator.uid, animalId, animalMac: MATRIX_MAC }
  const hints: Hints = {
    ...parameters,
    Uid: owner.uid, MAC: MATRIX_MAC, Mac: MATRIX_MAC, mac: MATRIX_MAC,
    integratorUID: integrator.uid, email: owner.email, Email: owner.email, password: PASSWORD, currentPassword: PASSWORD, refreshToken,
  }

  const db = ctx.database.db
  const ownerTables = await tablesWithUid(ctx)
  const snapshot = new Map<string, string>()
  for (const table of ownerTables) {
    const { rows } = await sql<{ rows: string }>`SELECT coalesce(json_agg(fixture_row), '[]')::text AS rows FROM ${sql.table(table)} fixture_row WHERE uid = ${owner.uid}`.execute(db)
    if (rows[0] && rows[0].rows !== '[]') snapshot.set(table, rows[0].rows)
  }
  const restoreOrder = [...RESTORE_FIRST.filter((t) => snapshot.has(t)), ...[...snapshot.keys()].filter((t) => !RESTORE_FIRST.includes(t))]

  return {
    ownerUid: owner.uid,
    hints,
    pathValue(path, name) {
      if (parameters[name] !== undefined) return parameters[name]
      // A record item: the segment before {name} names the collection; after {animalMac} it is the per-animal view.
      const segments = path.split('/')
      const at = segments.indexOf(`{${name}}`)
      const level = segments.slice(0, at).includes('{animalMac}') ? 'animal' : 'user'
      return recordIds.get(`${level}:${segments[at - 1]}`)
    },
    callersFor(rule, isPublic) {
      if (isPublic || rule === 'public') return ['none', 'owner']
      switch (rule) {
        case 'own': case 'bearer': return ['owner', 'integrator']
        case 'sensorData': case 'integratorToken': return ['integrator']
        default: return ['owner']
      }
    },
    async token(caller) {
      const subject = caller === 'owner' ? { kind: 'user' as const, id: owner.uid } : { kind: 'integrator' as const, id: integrator.uid }
      return (await ctx.app.tokens.sign(subject, 'access', 600)).token
    },
    async restore() {
      await db.transaction().execute(async (trx) => {
        // Deleting the owner cascades to every row of the account; the snapshot puts the fixtures back.
        await sql`DELETE FROM users WHERE uid = ${owner.uid}`.execute(trx)
        for (const table of restoreOrder) {
          await sql`INSERT INTO ${sql.table(table)} SELECT * FROM json_populate_recordset(NULL::${sql.table(table)}, ${snapshot.get(table)}::text::json)`.execute(trx)
        }
      })
    },
  }
}

/** The tables that hold an account's rows (a `uid` column), users included. */
async function tablesWithUid(ctx: TestContext): Promise<string[]> {
  const { rows } = await sql<{ table_name: string }>`
    SELECT table_name FROM information_schema.columns
    WHERE column_name = 'uid' AND table_schema = current_schema()
    ORDER BY table_name`.execute(ctx.database.db)
  return rows.map((row) => row.table_name)
}
