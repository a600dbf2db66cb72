// Operator commands for integrators and account links.
import type { Kysely } from 'kysely'
import { UsageError, type Command } from '../../cli.ts'
import type { DB } from '../../db/schema.ts'
import { isEmail, isUid } from '../users/users.rules.ts'
import { findUserByUid, linkedIntegratorUids } from '../users/users.repository.ts'
import { generateClientSecret, generateIntegratorUid, hashClientSecret } from './client-secrets.ts'
import { findIntegrator, insertIntegrator, link, listIntegrators, unlink, updateIntegrator, type IntegratorRow } from './integrators.repository.ts'
import { TIER_NAMES, parseTier, type Tier } from './tiers.ts'
import { revokeSubjectFamilies } from './token-store.ts'

type Values = Record<string, string | boolean | undefined>

function toOutput(row: IntegratorRow, clientSecret?: string) {
  return {
    uid: row.uid,
    email: row.email,
    name: row.name,
    tier: row.tier,
    isActive: row.is_active,
    permissions: { canRead: row.can_read, canWrite: row.can_write, canDelete: row.can_delete },
    hasClientSecret: row.client_secret_hash !== null,
    ...(clientSecret ? { clientSecret } : {}),
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  }
}

function requireString(values: Values, name: string): string {
  const value = values[name]
  if (typeof value !== 'string' || value.trim() === '') throw new UsageError(`--${name} is required`)
  return value.trim()
}

function optionalBool(values: Values, name: string): boolean | undefined {
  const value = values[name]
  if (value === undefined) return undefined
  if (value === 'true') return true
  if (value === 'false') return false
  throw new UsageError(`--${name} takes true or false`)
}

function tierOf(value: string): Tier {
  const tier = parseTier(value)
  if (!tier) throw new UsageError(`--tier must be one of ${TIER_NAMES}, got "${value}"`)
  return tier
}

async function requireIntegrator(db: Kysely<DB>, uid: string): Promise<IntegratorRow> {
  const row = await findIntegrator(db, uid)
  if (!row) throw new Error(`No integrator with uid ${uid}`)
  return row
}

const integratorCommand: Command = {
  name: 'integrator',
  summary: 'Create, update and list integrators (create | update | list)',
  usage: 'livestock-api integrator <create|update|list> [options]',
  options: {
    uid: { type: 'string' }, name: { type: 'string' }, email: { type: 'string' }, tier: { type: 'string' },
    'can-write': { type: 'string' }, 'can-delete': { type: 'string' }, 'can-read': { type: 'string' },
    active: { type: 'string' }, 'with-secret': { type: 'boolean' }, 'rotate-secret': { type: 'boolean' }, 'clear-secret': { type: 'boolean' },
  },
  help: [
    'create --name N --email E --tier T [--uid U] [--can-write true] [--can-delete true] [--with-secret]',
    '    Without --uid a UID of 128 random bits is generated. The UID is a credential: hand it over privately.',
    '    --with-secret also generates a client secret (printed once) that POST /tokens then requires.',
    'update --uid U [--tier T] [--active true|false] [--name N] [--email E] [--can-read|--can-write|--can-delete true|false]',
    '       [--rotate-secret | --clear-secret]',
    '    Deactivating takes effect on the integrator\'s next request; its refresh tokens are revoked.',
    'list',
    `Tiers: ${TIER_NAMES} (either name). Permissions default to canRead true, canWrite false, canDelete false.`,
  ].join('\n'),
  run: async (values, positionals, ctx) => {
    const [action] = positionals
    if (action === 'list') {
      await ctx.withDatabase(async ({ db }) => ctx.out((await listIntegrators(db)).map((r) => toOutput(r))))
      return
    }
    if (action === 'create') {
      const name = requireString(values, 'name')
      const email = requireString(values, 'email')
      if (!isEmail(email)) throw new UsageError(`--email is not a valid e-mail address: ${email}`)
      const tier = tierOf(requireString(values, 'tier'))
      const uid = typeof values.uid === 'string' ? values.uid.trim() : generateIntegratorUid()
      if (!isUid(uid)) throw new UsageError('--uid may hold letters, digits and _ . : @ - (1-128 characters)')
      const secret = values['with-secret'] ? generateClientSecret() : undefined
      await ctx.withDatabase(async ({ db }) => {
        if (await findIntegrator(db, uid)) throw new Error(`An integrator with uid ${uid} already exists`)
        const row = await insertIntegrator(db, {
          uid, name, email, tier,
          can_read: optionalBool(values, 'can-read') ?? true,
          can_write: optionalBool(values, 'can-write') ?? false,
          can_delete: optionalBool(values, 'can-delete') ?? false,
          client_secret_hash: secret ? hashClientSecret(secret) : null,
        })
        ctx.out(toOutput(row, secret))
      })
      return
    }
    if (action === 'update') {
      const uid = requireString(values, 'uid')
      if (values['rotate-secret'] && values['clear-secret']) throw new UsageError('--rotate-secret and --clear-secret exclude each other')
      const email = typeof values.email === 'string' ? values.email.trim() : undefined
      if (email !== undefined && !isEmail(email)) throw new UsageError(`--email is not a valid e-mail address: ${email}`)
      const secret = values['rotate-secret'] ? generateClientSecret() : undefined
      const active = optionalBool(values, 'active')
      const changes = {
        ...(typeof values.name === 'string' ? { name: values.name.trim() } : {}),
        ...(email !== undefined ? { email } : {}),
        ...(typeof values.tier === 'string' ? { tier: tierOf(values.tier) } : {}),
        ...(active !== undefined ? { is_active: active } : {}),
        ...(optionalBool(values, 'can-read') !== undefined ? { can_read: optionalBool(values, 'can-read') } : {}),
        ...(optionalBool(values, 'can-write') !== undefined ? { can_write: optionalBool(values, 'can-write') } : {}),
        ...(optionalBool(values, 'can-delete') !== undefined ? { can_delete: optionalBool(values, 'can-delete') } : {}),
        ...(secret ? { client_secret_hash: hashClientSecret(secret) } : {}),
        ...(values['clear-secret'] ? { client_secret_hash: null } : {}),
      }
      if (Object.keys(changes).length === 0) throw new UsageError('Nothing to update: name at least one option')
      await ctx.withDatabase(async ({ db }) => {
        await requireIntegrator(db, uid)
        const row = await updateIntegrator(db, uid, changes)
        if (active === false) await revokeSubjectFamilies(db, 'integrator', uid, Date.now(), 'integrator deactivated')
        ctx.out(toOutput(row!, secret))
      })
      return
    }
    throw new UsageError(`Unknown action "${action ?? ''}": use create, update or list`)
  },
}

async function linkAction(values: Values, ctx: Parameters<Command['run']>[2], linking: boolean) {
  const userUid = requireString(values, 'user')
  const integratorUid = requireString(values, 'integrator')
  await ctx.withDatabase(async ({ db }) => {
    if (!(await findUserByUid(db, userUid))) throw new Error(`No user with uid ${userUid}`)
    await requireIntegrator(db, integratorUid)
    if (linking) await link(db, userUid, integratorUid, 'operator')
    else if (!(await unlink(db, userUid, integratorUid))) throw new Error(`Integrator ${integratorUid} is not linked to user ${userUid}`)
    ctx.out({ user: userUid, integrators: await linkedIntegratorUids(db, userUid) })
  })
}

export const integratorCommands: Command[] = [
  integratorCommand,
  {
    name: 'link',
    summary: 'Link an integrator to a user account (operator provisioning)',
    usage: 'livestock-api link --user U --integrator I',
    options: { user: { type: 'string' }, integrator: { type: 'string' } },
    run: (values, _p, ctx) => linkAction(values, ctx, true),
  },
  {
    name: 'unlink',
    summary: 'Remove the link between an integrator and a user account',
    usage: 'livestock-api unlink --user U --integrator I',
    options: { user: { type: 'string' }, integrator: { type: 'string' } },
    run: (values, _p, ctx) => linkAction(values, ctx, false),
  },
]
