// What the fuzz cases act on: an owner account (Admin and BDUser too, so that every user rule accepts
// it) with an animal and an item of each of its collections, an Enterprise integrator linked to it with
// every permission, and a second linked integrator for the partner routes. A case that changes or
// deletes them is followed by restore(), which puts the owner's rows back as they were.
import { sql } from 'kysely'
import type { TestContext } from '../support/app.ts'
import { PASSWORD, addAnimal, createIntegrator, createUser, integratorToken } from '../support/fixtures.ts'
import type { AccessRule } from '../../src/http/route-policy.ts'
import type { Operation } from './operations.ts'
import { SchemaValues, toJsonText, type Hints, type JsonSchema } from './values.ts'

export type CallerKind = 'owner' | 'integrator' | 'none'

export interface World {
  ownerUid: string
  /** Known good values by field and parameter name. */
  hints: Hints
  /** The fixture value for a path parameter of this path template, if the world has one. */
  pathValue: (path: string, name: string) => string | undefined
  /** Collections of the account whose create did not succeed with an example body: their item routes get no fixture. */
  collectionsWithoutFixture: string[]
  /** The callers a route with this rule accepts. */
  callersFor: (rule: AccessRule | undefined, isPublic: boolean) => CallerKind[]
  /** A fresh access token (cases may revoke theirs). */
  token: (caller: Exclude<CallerKind, 'none'>) => Promise<string>
  restore: () => Promise<void>
}

const FIXTURE_MAC = 'AA:BB:CC:00:00:01'

export async function createWorld(
  ctx: TestContext,
  operations: Operation[],
  components: Record<string, JsonSchema>,
): Promise<World> {
  const owner = await createUser(ctx, { admin: true, bdUser: true })
  const integrator = await createIntegrator(ctx, {
    tier: 'enterprise',
    canWrite: true,
    canDelete: true,
    linkTo: [owner.uid],
  })
  const spareIntegrator = await createIntegrator(ctx, { tier: 'pro', linkTo: [owner.uid] })
  const ownerToken = (await ctx.app.tokens.sign({ kind: 'user', id: owner.uid }, 'access', 3600)).token
  const headers = { authorization: `Bearer ${ownerToken}` }

  const animalId = (await addAnimal(ctx, owner.uid, headers, { MAC: FIXTURE_MAC, Sex: 'female' })).ID
  const refreshToken = (await integratorToken(ctx, integrator.uid, { refreshToken: true })).refreshToken!

  const parameters: Record<string, string> = {
    userId: owner.uid,
    integratorUid: spareIntegrator.uid,
    animalId,
    animalMac: FIXTURE_MAC,
  }
  const hints: Hints = {
    ...parameters,
    Uid: owner.uid,
    MAC: FIXTURE_MAC,
    Mac: FIXTURE_MAC,
    mac: FIXTURE_MAC,
    integratorUID: integrator.uid,
    email: owner.email,
    Email: owner.email,
    password: PASSWORD,
    currentPassword: PASSWORD,
    refreshToken,
  }
  /** Item path template ("/api/v1/users/{userId}/treatments/{treatmentId}") → the id of the fixture item. */
  const items = new Map<string, string>()
  const pathValue = (path: string, name: string): string | undefined => {
    if (parameters[name] !== undefined) return parameters[name]
    const template = path.slice(0, path.indexOf(`{${name}}`) + name.length + 2)
    return items.get(template)
  }

  // An item of every collection of the account, created with the body a client would most likely send
  // (hints and the schema's examples), so that item routes, new ones too, get a path that names something.
  const values = new SchemaValues(components, hints)
  const collectionsWithoutFixture: string[] = []
  for (const create of operations.filter(
    (o) => o.method === 'POST' && o.body && o.path.startsWith('/api/v1/users/{userId}/'),
  )) {
    const itemRoute = operations.find(
      (o) => o.path.startsWith(`${create.path}/{`) && !o.path.slice(create.path.length + 1).includes('/'),
    )
    const itemParameter = itemRoute?.path.slice(create.path.length + 2, -1)
    if (!itemRoute || itemParameter === undefined || parameters[itemParameter] !== undefined) continue
    const url = create.pathParameters.reduce(
      (u, p) => u.replace(`{${p.name}}`, encodeURIComponent(pathValue(create.path, p.name) ?? '')),
      create.path,
    )
    const res = await ctx.app.inject({
      method: 'POST',
      url,
      headers: { ...headers, 'content-type': 'application/json' },
      payload: toJsonText(values.example(create.body!)),
    })
    if (res.statusCode >= 500) throw new Error(`fuzz fixture ${create.id}: ${res.statusCode} ${res.body}`)
    const location = res.headers.location
    if (res.statusCode === 201 && typeof location === 'string') {
      items.set(itemRoute.path, decodeURIComponent(location.split('/').pop()!))
    } else {
      collectionsWithoutFixture.push(`${create.path}: ${res.statusCode} ${res.body.slice(0, 200)}`)
    }
  }

  const db = ctx.database.db
  const ownerTables = await tablesWithUid(ctx)
  const snapshot = new Map<string, string>()
  for (const table of ownerTables) {
    const { rows } = await sql<{
      rows: string
    }>`SELECT coalesce(json_agg(fixture_row), '[]')::text AS rows FROM ${sql.table(table)} fixture_row WHERE uid = ${owner.uid}`.execute(
      db,
    )
    if (rows[0] && rows[0].rows !== '[]') snapshot.set(table, rows[0].rows)
  }
  const restoreOrder = await referencedFirst(ctx, [...snapshot.keys()])

  return {
    ownerUid: owner.uid,
    hints,
    pathValue,
    collectionsWithoutFixture,
    callersFor(rule, isPublic) {
      if (isPublic || rule === 'public') return ['none', 'owner']
      switch (rule) {
        case 'own':
        case 'bearer':
          return ['owner', 'integrator']
        case 'sensorData':
        case 'integratorToken':
          return ['integrator']
        default:
          return ['owner']
      }
    },
    async token(caller) {
      const subject =
        caller === 'owner'
          ? { kind: 'user' as const, id: owner.uid }
          : { kind: 'integrator' as const, id: integrator.uid }
      return (await ctx.app.tokens.sign(subject, 'access', 600)).token
    },
    async restore() {
      await db.transaction().execute(async (trx) => {
        // Deleting the owner cascades to every row of the account; the snapshot puts the fixtures back.
        await sql`DELETE FROM users WHERE uid = ${owner.uid}`.execute(trx)
        for (const table of restoreOrder) {
          await sql`INSERT INTO ${sql.table(table)} SELECT * FROM json_populate_recordset(NULL::${sql.table(table)}, ${snapshot.get(table)}::text::json)`.execute(
            trx,
          )
        }
      })
    },
  }
}

/** The tables in an order that inserts every table after those its foreign keys reference. */
async function referencedFirst(ctx: TestContext, tables: string[]): Promise<string[]> {
  const { rows } = await sql<{ child: string; parent: string }>`
    SELECT conrelid::regclass::text AS child, confrelid::regclass::text AS parent FROM pg_constraint WHERE contype = 'f'`.execute(
    ctx.database.db,
  )
  const ordered: string[] = []
  const visit = (table: string) => {
    if (ordered.includes(table)) return
    for (const { parent } of rows.filter((r) => r.child === table && r.parent !== table && tables.includes(r.parent)))
      visit(parent)
    ordered.push(table)
  }
  for (const table of tables) visit(table)
  return ordered
}

/** The tables that hold an account's rows (a `uid` column), users included. */
async function tablesWithUid(ctx: TestContext): Promise<string[]> {
  const { rows } = await sql<{ table_name: string }>`
    SELECT table_name FROM information_schema.columns
    WHERE column_name = 'uid' AND table_schema = current_schema()
    ORDER BY table_name`.execute(ctx.database.db)
  return rows.map((row) => row.table_name)
}
