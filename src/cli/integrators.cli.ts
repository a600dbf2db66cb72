// Operator commands for integrators and account links.
import type { Kysely } from 'kysely'
import { UsageError, booleanOption, givenBooleans, optionalString, requireString, trueOrFalse } from './command.ts'
import type { CliContext, CliValues, Command } from './command.ts'
import type { DB } from '../db/schema.ts'
import { checkedEmail, checkedUid } from './account-options.ts'
import { findUserByUid } from '../modules/users/users.repository.ts'
import { generateClientSecret, generateIntegratorUid, hashClientSecret } from '../modules/integrators/client-secrets.ts'
import {
  findIntegrator,
  insertIntegrator,
  link,
  linkedIntegratorUids,
  listIntegrators,
  unlink,
  updateIntegrator,
  type IntegratorRow,
} from '../modules/integrators/integrators.repository.ts'
import { TIER_NAMES, parseTier, type Tier } from '../auth/tiers.ts'
import { revokeSubjectFamilies } from '../auth/token-store.ts'

/** What an integrator without a client secret exposes (integrator list and create --no-secret say it). */
export const BARE_UID_WARNING =
  'No client secret: the integratorUID alone obtains tokens, and every user linked to this ' +
  'integrator sees that UID in its account. Rotate a secret in with: integrator update --uid <uid> --rotate-secret'

const sleepUntil = (at: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, at - Date.now())))

function toOutput(row: IntegratorRow, clientSecret?: string) {
  return {
    uid: row.uid,
    email: row.email,
    name: row.name,
    tier: row.tier,
    isActive: row.is_active,
    permissions: { canRead: row.can_read, canWrite: row.can_write, canDelete: row.can_delete },
    hasClientSecret: row.client_secret_hash !== null,
    ...(row.client_secret_hash === null ? { warning: BARE_UID_WARNING } : {}),
    ...(clientSecret ? { clientSecret } : {}),
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  }
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
    uid: { type: 'string', value: 'U', description: "the integrator's UID (create: default 128 random bits)" },
    name: { type: 'string', value: 'N', description: "the integrator's name, e.g. its product" },
    email: { type: 'string', value: 'E', description: 'its contact address' },
    tier: { type: 'string', value: 'T', description: `its tier: ${TIER_NAMES}` },
    'can-read': trueOrFalse('may read linked accounts (default true)'),
    'can-write': trueOrFalse('may create and change records of linked accounts (default false)'),
    'can-delete': trueOrFalse('may delete records of linked accounts (default false)'),
    active: trueOrFalse('false cuts its access at once and ends every token it holds (true brings none back)'),
    'no-secret': {
      type: 'boolean',
      description: "create it without a client secret (the spec's bare flow; see create below)",
    },
    'rotate-secret': {
      type: 'boolean',
      description: 'issue a new client secret (printed once); the old one, and every token it obtained, stop working',
    },
    'clear-secret': {
      type: 'boolean',
      description: "remove its client secret (the bare flow); the integrator's tokens stop working",
    },
  },
  help: [
    'create --name N --email E --tier T [--uid U] [--can-write true] [--can-delete true] [--no-secret]',
    '    Prints the integrator with its client secret, shown this once and stored only as a hash: POST /tokens',
    '    requires {integratorUID, clientSecret}. Without --uid a UID of 128 random bits is generated.',
    '    --no-secret creates an integrator for the bare {integratorUID} flow of the spec. Its UID is then a bearer',
    '    credential, yet every user who links the integrator sees it in GET /users/<uid> (the spec shows it):',
    "    any such user can obtain the integrator's tokens and read every other account linked to it. Use it only",
    '    for an integrator that is linked to a single account, or none.',
    'update --uid U [--tier T] [--active true|false] [--name N] [--email E] [--can-read|--can-write|--can-delete true|false]',
    '       [--rotate-secret | --clear-secret]',
    "    Deactivating takes effect on the integrator's next request and ends every token it holds, for good (a",
    '    reactivated integrator asks for new ones). A new or cleared secret ends every token issued before it too (access',
    '    and refresh): a leaked secret takes its sessions with it.',
    'list                   every integrator; those without a client secret carry a "warning"',
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
      const email = checkedEmail(requireString(values, 'email'))
      const tier = tierOf(requireString(values, 'tier'))
      const uid = checkedUid(optionalString(values, 'uid') ?? generateIntegratorUid())
      const secret = values['no-secret'] ? undefined : generateClientSecret()
      await ctx.withDatabase(async ({ db }) => {
        if (await findIntegrator(db, uid)) throw new Error(`An integrator with uid ${uid} already exists`)
        const row = await insertIntegrator(db, {
          uid,
          name,
          email,
          tier,
          can_read: booleanOption(values, 'can-read') ?? true,
          can_write: booleanOption(values, 'can-write') ?? false,
          can_delete: booleanOption(values, 'can-delete') ?? false,
          client_secret_hash: secret ? hashClientSecret(secret) : null,
        })
        ctx.out(toOutput(row, secret))
      })
      return
    }
    if (action === 'update') {
      const uid = requireString(values, 'uid')
      if (values['rotate-secret'] && values['clear-secret'])
        throw new UsageError('--rotate-secret and --clear-secret exclude each other')
      const email = checkedEmail(optionalString(values, 'email'))
      const secret = values['rotate-secret'] ? generateClientSecret() : undefined
      const secretChanges = values['rotate-secret'] === true || values['clear-secret'] === true
      const flags = givenBooleans(values, {
        active: 'is_active',
        'can-read': 'can_read',
        'can-write': 'can_write',
        'can-delete': 'can_delete',
      })
      // A new secret, and a deactivation, end every token issued before (a reactivation brings none back). Tokens
      // carry their issue time in whole seconds: from the next whole second, and the command answers only then.
      const endsTokens = secretChanges || flags.is_active === false
      const tokensValidFrom = endsTokens ? Math.ceil(Date.now() / 1000) * 1000 : undefined
      const changes = {
        ...(optionalString(values, 'name') !== undefined ? { name: optionalString(values, 'name') } : {}),
        ...(email !== undefined ? { email } : {}),
        ...(typeof values.tier === 'string' ? { tier: tierOf(values.tier) } : {}),
        ...flags,
        ...(secret ? { client_secret_hash: hashClientSecret(secret) } : {}),
        ...(values['clear-secret'] ? { client_secret_hash: null } : {}),
        ...(tokensValidFrom !== undefined ? { tokens_valid_from: new Date(tokensValidFrom) } : {}),
      }
      if (Object.keys(changes).length === 0) throw new UsageError('Nothing to update: name at least one option')
      await ctx.withDatabase(async ({ db }) => {
        await requireIntegrator(db, uid)
        const row = await db.transaction().execute(async (trx) => {
          const updated = await updateIntegrator(trx, uid, changes)
          if (flags.is_active === false)
            await revokeSubjectFamilies(trx, 'integrator', uid, Date.now(), 'integrator deactivated')
          if (secretChanges) await revokeSubjectFamilies(trx, 'integrator', uid, Date.now(), 'client secret changed')
          return updated
        })
        if (tokensValidFrom !== undefined) await sleepUntil(tokensValidFrom)
        ctx.out(toOutput(row!, secret))
      })
      return
    }
    throw new UsageError(`Unknown action "${action ?? ''}": use create, update or list`)
  },
}

async function linkAction(values: CliValues, ctx: CliContext, linking: boolean) {
  const userUid = requireString(values, 'user')
  const integratorUid = requireString(values, 'integrator')
  await ctx.withDatabase(async ({ db }) => {
    if (!(await findUserByUid(db, userUid))) throw new Error(`No user with uid ${userUid}`)
    await requireIntegrator(db, integratorUid)
    if (linking) await link(db, userUid, integratorUid, 'operator')
    else if (!(await unlink(db, userUid, integratorUid)))
      throw new Error(`Integrator ${integratorUid} is not linked to user ${userUid}`)
    ctx.out({ user: userUid, integrators: await linkedIntegratorUids(db, userUid) })
  })
}

const linkOptions: Command['options'] = {
  user: { type: 'string', value: 'U', description: "the user's Uid" },
  integrator: { type: 'string', value: 'I', description: "the integrator's UID" },
}

export const integratorCommands: Command[] = [
  integratorCommand,
  {
    name: 'link',
    summary: 'Link an integrator to a user account (operator provisioning)',
    usage: 'livestock-api link --user U --integrator I',
    options: linkOptions,
    run: (values, _p, ctx) => linkAction(values, ctx, true),
  },
  {
    name: 'unlink',
    summary: 'Remove the link between an integrator and a user account',
    usage: 'livestock-api unlink --user U --integrator I',
    options: linkOptions,
    run: (values, _p, ctx) => linkAction(values, ctx, false),
  },
]
