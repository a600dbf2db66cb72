// User accounts: the field table, the bodies of the user routes, and the push-token entries (UserPhone).
import Type, { type TSchema } from 'typebox'
import type { Limits } from '../../config.ts'
import { listQueryOptions, listQueryProperties, type ListFields } from '../../http/list-params.ts'
import { field } from '../../resource/field.ts'
import { defineResource, type ApiObject } from '../../resource/resource.ts'
import { BoundedString, EXAMPLE, EpochMs, Integer } from '../../http/schema-types.ts'
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from './passwords.ts'
import type { Selectable } from 'kysely'
import type { UserPushTokensTable, UsersTable } from '../../db/schema.ts'
import { INTEGRATION_FLAG, LANGUAGE_PATTERN, MAX_INTEGRATION_FLAGS, PHONE_PATTERN, UID_PATTERN } from './users.rules.ts'
import { describedPattern } from '../../http/input-patterns.ts'

const PUSH_TOKEN_EXAMPLE = 'dQw4w9WgXcQ:APA91bHun4MxP5egoKMwt2KZFBaFUH-1RYqx1VQZ3Sv4g7Jb8Xk2mN5pR9tL0wE3yU6iO'
const Rank = Integer({ minimum: 1, maximum: 3, description: '1=Admin, 2=Manager, 3=Worker', examples: [3] })

export const UserPhone = Type.Object(
  {
    Token: Type.String({ maxLength: 4096, description: 'Push token', examples: [PUSH_TOKEN_EXAMPLE] }),
    CustomName: Type.String({
      maxLength: 200,
      description: 'Custom device name',
      examples: ['Farrowing house tablet'],
    }),
    Name: Type.String({ maxLength: 200, description: 'Device name', examples: ['Samsung Galaxy Tab Active4 Pro'] }),
    Email: Type.String({
      format: 'email',
      maxLength: 320,
      description: 'E-mail of the person using the device',
      examples: ['stockman@hillside-farm.example'],
    }),
    t: EpochMs('ms since epoch the token was added'),
    Rank: Type.Optional(Rank),
  },
  { $id: 'UserPhone', additionalProperties: false, description: 'A device registered for push notifications' },
)

const flagSchema = (schema: TSchema) => ({ patternProperties: { [INTEGRATION_FLAG]: schema } })

export const users = defineResource({
  name: 'User',
  table: 'users',
  description: 'A farm account. Fields matching ^[A-Z][A-Za-z0-9]*Integration$ are vendor integration flags.',
  objectOptions: flagSchema(Type.Boolean()),
  fields: {
    Uid: field.string({
      required: true,
      createOnly: true,
      pattern: UID_PATTERN,
      maxLength: 128,
      example: EXAMPLE.uid,
      description: 'Letters, digits and _ . : @ - (1-128 characters); "search" is reserved',
    }),
    Email: field.string({
      required: true,
      format: 'email',
      maxLength: 320,
      caseInsensitive: true,
      example: EXAMPLE.email,
      description: 'E-mail address; unique across accounts, case-insensitively',
    }),
    Name: field.string({
      required: true,
      pattern: describedPattern('\\S', 'must not be blank'),
      description: 'Display name: 1-200 characters, not only blanks',
      example: 'Hillside Pig Farm',
    }),
    Phone: field.string({
      pattern: PHONE_PATTERN,
      maxLength: 16,
      sortable: false,
      description: 'E.164: + and 7-15 digits, no separators',
      example: '+4915112345678',
    }),
    Language: field.string({
      pattern: LANGUAGE_PATTERN,
      maxLength: 35,
      caseInsensitive: true,
      description: 'BCP 47 language tag',
      example: 'de-AT',
    }),
    Flagged: field.boolean({
      createOnly: true,
      default: false,
      sortable: false,
      description: 'Changed through PATCH .../status',
    }),
    Inactive: field.boolean({
      createOnly: true,
      default: false,
      sortable: false,
      description: 'Changed through PATCH .../status',
    }),
    BDUser: field.boolean({
      column: 'bd_user',
      createOnly: true,
      default: false,
      sortable: false,
      description: 'Lets the user create and search users',
    }),
    Admin: field.boolean({ readOnly: true, sortable: false, description: 'Set only by the operator CLI' }),
    RequestDeletion: field.boolean({
      readOnly: true,
      nullable: true,
      sortable: false,
      description: 'Account deletion requested (PATCH .../status)',
    }),
    betaUser: field.boolean({ column: 'beta_user', sortable: false, nullAs: false }),
    FCMTokens: field.json((extra) => Type.Array(Type.Ref('UserPhone'), { maxItems: 100, ...extra }), {
      virtual: true,
      description: 'Push tokens; in the single-user views only',
    }),
    integrators: field.json(
      (extra) =>
        Type.Array(Type.String({ maxLength: 200, examples: [EXAMPLE.integratorUid] }), { maxItems: 1000, ...extra }),
      {
        virtual: true,
        description:
          'integratorUIDs allowed to read this account, in the single-user views only (an integrator sees only itself)',
      },
    ),
  },
})

const Password = Type.String({
  minLength: PASSWORD_MIN_LENGTH,
  maxLength: PASSWORD_MAX_LENGTH,
  writeOnly: true,
  examples: ['grey barn at dawn, 42 sows'],
  description: `${PASSWORD_MIN_LENGTH}-${PASSWORD_MAX_LENGTH} characters; stored as an scrypt hash, never returned or logged`,
})

/** Strict bodies: known fields and `<Vendor>Integration` booleans only, bounded in number and name length. */
function bodyOptions(flag: TSchema) {
  return { ...flagSchema(flag), propertyNames: Type.String({ maxLength: 64 }), maxProperties: 64 }
}
const flagsNote = ` Vendor flags: boolean fields matching ${INTEGRATION_FLAG}, at most ${MAX_INTEGRATION_FLAGS}.`

export const CreateUserBody = users.createBody({
  extra: { Password: Type.Optional(Password) },
  objectOptions: bodyOptions(Type.Boolean()),
  description:
    'A new account. Uid, Email and Name are required. Admin cannot be set here (operator CLI only); any other ' +
    `field than those listed and \`<Vendor>Integration\` booleans is refused with 400.${flagsNote}`,
})

export const ReplaceUserBody = users.createBody({
  optional: ['Uid'],
  omit: ['Flagged', 'Inactive', 'BDUser'],
  objectOptions: bodyOptions(Type.Boolean()),
  description:
    "The editable profile fields; Uid may be sent but must equal the path's. Phone, Language, betaUser and " +
    `\`<Vendor>Integration\` flags left out are cleared.${flagsNote}`,
})

export const PatchUserBody = users.patchBody({
  objectOptions: bodyOptions(Type.Union([Type.Boolean(), Type.Null()])),
  description: `Fields to change; null clears Phone, Language, betaUser or removes a \`<Vendor>Integration\` flag.${flagsNote}`,
})

export const UserProfile = Type.Object(
  {
    Uid: Type.String({ pattern: UID_PATTERN, maxLength: 128, examples: [EXAMPLE.uid] }),
    Name: Type.String({ maxLength: 200, examples: ['Hillside Pig Farm'] }),
    Language: Type.Optional(Type.String({ pattern: LANGUAGE_PATTERN, maxLength: 35, examples: ['de-AT'] })),
  },
  { additionalProperties: false, description: 'Public profile view of a user' },
)

export const UserStatusBody = Type.Object(
  {
    flagged: Type.Optional(Type.Boolean()),
    inactive: Type.Optional(
      Type.Boolean({ description: 'true: the account can no longer log in and its tokens stop working at once' }),
    ),
    requestDeletion: Type.Optional(Type.Boolean({ description: 'Marks a deletion request; deletes nothing' })),
  },
  { additionalProperties: false, minProperties: 1 },
)

export const PushTokenBody = Type.Object(
  {
    token: BoundedString(4096, 'Push token (FCM registration token)', PUSH_TOKEN_EXAMPLE),
    customName: Type.String({
      maxLength: 200,
      description: 'Custom device name; may be empty',
      examples: ['Farrowing house tablet'],
    }),
    name: BoundedString(200, 'Device name', 'Samsung Galaxy Tab Active4 Pro'),
    email: Type.String({
      format: 'email',
      maxLength: 320,
      description: 'E-mail of the person using the device',
      examples: ['stockman@hillside-farm.example'],
    }),
    rank: Type.Optional(Rank),
  },
  { additionalProperties: false },
)

export const ChangePasswordBody = Type.Object(
  {
    currentPassword: Type.String({
      minLength: 1,
      maxLength: 1024,
      writeOnly: true,
      examples: ['grey barn at dawn, 42 sows'],
    }),
    newPassword: Password,
  },
  { additionalProperties: false },
)

export const EmailConfirmationBody = Type.Object(
  {
    code: BoundedString(64, 'The code mailed to the new address', 'q3V9Xh2cYk7mZ1tWbP0sLA'),
  },
  { additionalProperties: false },
)

export const UserIdParams = Type.Object({
  userId: Type.String({
    pattern: UID_PATTERN,
    maxLength: 128,
    description: "The account's Uid",
    examples: [EXAMPLE.uid],
  }),
})

/** sortBy of user lists: the sortable fields, and t for the account's creation time (users carry no t field). */
export const USER_SORT_FIELDS: ListFields = { t: 'integer', ...users.sortFields }
export const userListColumns = { ...users.columns(), t: { column: 'created_at' } }

export function UserListQuery(limits: Limits) {
  return Type.Object(
    { ...listQueryProperties(limits, USER_SORT_FIELDS, 't', users.filterFields, users.filterSchemas) },
    { ...listQueryOptions, additionalProperties: false },
  )
}

export function UserSearchQuery(limits: Limits) {
  return Type.Object(
    {
      ...listQueryProperties(limits, USER_SORT_FIELDS, 't', users.filterFields, users.filterSchemas),
      email: Type.Optional(BoundedString(320, 'Exact e-mail, case-insensitive', EXAMPLE.email)),
      name: Type.Optional(
        BoundedString(200, 'Part of the name, case-insensitive; % and _ match themselves', 'Hillside'),
      ),
      flagged: Type.Optional(Type.Boolean()),
      inactive: Type.Optional(Type.Boolean()),
      language: Type.Optional(BoundedString(35, 'Language tag, case-insensitive', 'de-AT')),
    },
    { additionalProperties: false },
  )
}

export interface ApiPushToken {
  Token: string
  CustomName: string
  Name: string
  Email: string
  t: number
  Rank?: number
}

/** A stored user as the spec's User. `integrators` is what this caller may see; left out (list views) the field is absent. */
export function toApiUser(row: Selectable<UsersTable>, integrators?: string[]): ApiObject {
  return { ...users.toApi(row), ...row.integration_flags, ...(integrators ? { integrators } : {}) }
}

export function toApiPushToken(row: Selectable<UserPushTokensTable>): ApiPushToken {
  return {
    Token: row.token,
    CustomName: row.custom_name,
    Name: row.name,
    Email: row.email,
    t: row.t,
    ...(row.rank !== null ? { Rank: row.rank } : {}),
  }
}

export function toProfile(row: Selectable<UsersTable>) {
  return { Uid: row.uid, Name: row.name, ...(row.language !== null ? { Language: row.language } : {}) }
}
