// Operator commands for user accounts.
import { UsageError, booleanOption, givenBooleans, optionalString, requireString, trueOrFalse } from './command.ts'
import type { CliContext, CliValues, Command } from './command.ts'
import { revokeSubjectFamilies } from '../auth/token-store.ts'
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH, hashPassword } from '../modules/users/passwords.ts'
import {
  deleteUserAndData,
  findUserByEmail,
  findUserByUid,
  insertUser,
  setPasswordHash,
  updateUniqueUser,
} from '../modules/users/users.repository.ts'
import { linkedIntegratorUids } from '../modules/integrators/integrators.repository.ts'
import { checkedEmail, checkedUid } from './account-options.ts'
import { toApiUser } from '../modules/users/users.resource.ts'

async function readPassword(values: CliValues, ctx: CliContext, required: boolean): Promise<string | undefined> {
  let password: string | undefined
  if (values['password-stdin']) {
    password = (await ctx.readStdin()).replace(/\r?\n$/, '')
  } else if (typeof values.password === 'string') {
    password = values.password
  }
  if (password === undefined) {
    if (required) throw new UsageError('--password or --password-stdin is required')
    return undefined
  }
  if (password.length < PASSWORD_MIN_LENGTH || password.length > PASSWORD_MAX_LENGTH) {
    throw new UsageError(`The password must have ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters`)
  }
  return password
}

export const userCommands: Command[] = [
  {
    name: 'user',
    summary: 'Create, update and delete users, set their password and permission flags',
    usage: 'livestock-api user <create|set-password|update|delete> [options]',
    options: {
      uid: {
        type: 'string',
        value: 'U',
        description: "the account's Uid: letters, digits and _ . : @ - (1-128 characters)",
      },
      email: { type: 'string', value: 'E', description: 'the e-mail address the user logs in with' },
      name: { type: 'string', value: 'N', description: 'the name shown for the account' },
      password: {
        type: 'string',
        value: 'P',
        description: 'the password (visible in the process list: prefer --password-stdin)',
      },
      'password-stdin': { type: 'boolean', description: 'read the password from standard input' },
      bduser: trueOrFalse('the BDUser flag'),
      admin: trueOrFalse('the Admin flag'),
      inactive: trueOrFalse('true locks the user out at once and revokes every token; false lets them in again'),
      language: { type: 'string', value: 'L', description: 'preferred language, e.g. da or en' },
      phone: { type: 'string', value: 'P', description: 'phone number' },
    },
    help: [
      'create --uid U --email E --name N [--password P | --password-stdin] [--bduser true] [--admin true] [--language L] [--phone P]',
      "set-password --uid U (--password P | --password-stdin)     revokes the user's refresh tokens",
      'update --uid U [--email E] [--bduser true|false] [--admin true|false] [--inactive true|false]',
      'delete --uid U     deletes the account and all its data (what DELETE /users/<user_id> does for its owner)',
      `Passwords: ${PASSWORD_MIN_LENGTH}-${PASSWORD_MAX_LENGTH} characters, hashed with scrypt. Prefer --password-stdin: a --password shows in the process list.`,
      'Admin and BDUser can be set only here, never through the API by the user.',
    ].join('\n'),
    run: async (values, positionals, ctx) => {
      const [action] = positionals
      const config = ctx.config()
      if (action === 'create') {
        const uid = checkedUid(requireString(values, 'uid'))
        const email = checkedEmail(requireString(values, 'email'))
        const name = requireString(values, 'name')
        const password = await readPassword(values, ctx, false)
        const passwordHash = password ? await hashPassword(password, config.passwordScryptLogN) : null
        await ctx.withDatabase(async ({ db }) => {
          if (await findUserByUid(db, uid)) throw new Error(`A user with uid ${uid} already exists`)
          if (await findUserByEmail(db, email)) throw new Error(`A user with e-mail ${email} already exists`)
          const row = await insertUser(db, {
            uid,
            email,
            name,
            language: optionalString(values, 'language') ?? null,
            phone: optionalString(values, 'phone') ?? null,
            bd_user: booleanOption(values, 'bduser') ?? false,
            admin: booleanOption(values, 'admin') ?? false,
            password_hash: passwordHash,
            password_changed_at: passwordHash ? new Date() : null,
          })
          ctx.out({ ...toApiUser(row, []), hasPassword: passwordHash !== null })
        })
        return
      }
      if (action === 'set-password') {
        const uid = requireString(values, 'uid')
        const password = (await readPassword(values, ctx, true))!
        const passwordHash = await hashPassword(password, config.passwordScryptLogN)
        await ctx.withDatabase(async ({ db }) => {
          if (!(await setPasswordHash(db, uid, passwordHash, new Date()))) throw new Error(`No user with uid ${uid}`)
          await revokeSubjectFamilies(db, 'user', uid, Date.now(), 'password set by operator')
          ctx.out({ uid, passwordChanged: true })
        })
        return
      }
      if (action === 'update') {
        const uid = requireString(values, 'uid')
        const email = checkedEmail(optionalString(values, 'email'))
        const changes = {
          ...(email !== undefined ? { email } : {}),
          ...givenBooleans(values, { bduser: 'bd_user', admin: 'admin', inactive: 'inactive' }),
        }
        if (Object.keys(changes).length === 0)
          throw new UsageError('Nothing to update: name --email, --bduser, --admin or --inactive')
        await ctx.withDatabase(async ({ db }) => {
          const result = await updateUniqueUser(db, uid, changes)
          if (!result) throw new Error(`No user with uid ${uid}`)
          if (result.duplicate) throw new Error(`A user with e-mail ${email} already exists`)
          const { row } = result
          if (changes.inactive === true) await revokeSubjectFamilies(db, 'user', uid, Date.now(), 'user deactivated')
          ctx.out(toApiUser(row, await linkedIntegratorUids(db, uid)))
        })
        return
      }
      if (action === 'delete') {
        const uid = requireString(values, 'uid')
        await ctx.withDatabase(async ({ db }) => {
          if (!(await deleteUserAndData(db, uid, Date.now()))) throw new Error(`No user with uid ${uid}`)
          ctx.out({ uid, deleted: true })
        })
        return
      }
      throw new UsageError(`Unknown action "${action ?? ''}": use create, set-password, update or delete`)
    },
  },
]
