import Type, { type TSchema } from 'typebox'
import type { Limits } from '../../config.ts'
import { listQueryOptions, listQueryProperties, type ListFields } from '../../http/list-params.ts'
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from './passwords.ts'
import type { PushTokenRow, UserRow } from './users.repository.ts'
import { INTEGRATION_FLAG, LANGUAGE_PATTERN, MAX_INTEGRATION_FLAGS, PHONE_PATTERN, UID_PATTERN } from './users.rules.ts'

export { INTEGRATION_FLAG }

export const UserPhone = Type.Object({
  Token: Type.String(),
  CustomName: Type.String(),
  Name: Type.String(),
  Email: Type.String(),
  t: Type.Integer({ description: 'ms since epoch the token was added' }),
  Rank: Type.Optional(Type.Integer({ minimum: 1, maximum: 3, description: '1=Admin, 2=Manager, 3=Worker' })),
}, { $id: 'UserPhone', additionalProperties: false })

export const User = Type.Object({
  Uid: Type.String(),
  Email: Type.String(),
  Name: Type.String(),
  Phone: Type.Optional(Type.String()),
  Language: Type.Optional(Type.String()),
  Flagged: Type.Boolean(),
  Inactive: Type.Boolean(),
  BDUser: Type.Boolean(),
  Admin: Type.Boolean({ description: 'Set only by the operator CLI' }),
  RequestDeletion: Type.Optional(Type.Boolean()),
  betaUser: Type.Optional(Type.Boolean()),
  FCMTokens: Type.Optional(Type.Array(Type.Ref('UserPhone'), { description: 'Push tokens; in the single-user views only' })),
  integrators: Type.Optional(Type.Array(Type.String(), {
    description: 'integratorUIDs allowed to read this account, in the single-user views only (an integrator sees only itself)',
  })),
}, {
  $id: 'User',
  additionalProperties: false,
  patternProperties: { [INTEGRATION_FLAG]: Type.Boolean() },
  description: 'A farm account. Fields matching ^[A-Z][A-Za-z0-9]*Integration$ are vendor integration flags.',
})

export const UserProfile = Type.Object({
  Uid: Type.String(),
  Name: Type.String(),
  Language: Type.Optional(Type.String()),
}, { additionalProperties: false, description: 'Public profile view of a user' })

// Field formats of the bodies. The response schemas above stay loose: rows written by the operator
// CLI before a format existed must still be readable.
const Uid = Type.String({ pattern: UID_PATTERN, description: 'Letters, digits and _ . : @ - (1-128 characters); "search" is reserved' })
const Email = Type.String({ format: 'email', maxLength: 320, description: 'E-mail address; unique across accounts, case-insensitively' })
const Name = Type.String({ minLength: 1, maxLength: 200, pattern: '\\S', description: 'Display name: 1-200 characters, not only blanks' })
const Phone = Type.String({ pattern: PHONE_PATTERN, description: 'E.164: + and 7-15 digits, no separators, e.g. +4915112345678' })
const Language = Type.String({ pattern: LANGUAGE_PATTERN, maxLength: 35, description: 'BCP 47 language tag, e.g. en, de-AT' })
const Password = Type.String({
  minLength: PASSWORD_MIN_LENGTH, maxLength: PASSWORD_MAX_LENGTH, writeOnly: true,
  description: `${PASSWORD_MIN_LENGTH}-${PASSWORD_MAX_LENGTH} characters; stored as an scrypt hash, never returned or logged`,
})
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()])

/** Strict bodies: known fields and `<Vendor>Integration` booleans only, bounded in number and name length. */
function userBodyOptions(flag: TSchema, extra: { description: string; minProperties?: number }) {
  return {
    additionalProperties: false,
    patternProperties: { [INTEGRATION_FLAG]: flag },
    propertyNames: Type.String({ maxLength: 64 }),
    maxProperties: 64,
    ...extra,
    description: `${extra.description} Vendor flags: boolean fields matching ${INTEGRATION_FLAG}, at most ${MAX_INTEGRATION_FLAGS}.`,
  }
}

export const CreateUserBody = Type.Object({
  Uid,
  Email,
  Name,
  Phone: Type.Optional(Phone),
  Language: Type.Optional(Language),
  Flagged: Type.Optional(Type.Boolean({ default: false })),
  Inactive: Type.Optional(Type.Boolean({ default: false })),
  BDUser: Type.Optional(Type.Boolean({ default: false, description: 'Lets the new user create and search users' })),
  betaUser: Type.Optional(Type.Boolean()),
  Password: Type.Optional(Password),
}, userBodyOptions(Type.Boolean(), {
  description: 'A new account. Admin cannot be set here (operator CLI only); any other field than those listed and ' +
    '`<Vendor>Integration` booleans is refused with 400.',
}))

export const ReplaceUserBody = Type.Object({
  Uid: Type.Optional(Type.String({ description: 'May be sent, but must equal the path\'s user id: a Uid never changes' })),
  Email,
  Name,
  Phone: Type.Optional(Phone),
  Language: Type.Optional(Language),
  betaUser: Type.Optional(Type.Boolean()),
}, userBodyOptions(Type.Boolean(), {
  description: 'The editable profile fields. Phone, Language, betaUser and `<Vendor>Integration` flags left out are cleared.',
}))

export const PatchUserBody = Type.Object({
  Email: Type.Optional(Email),
  Name: Type.Optional(Name),
  Phone: Type.Optional(Nullable(Phone)),
  Language: Type.Optional(Nullable(Language)),
  betaUser: Type.Optional(Nullable(Type.Boolean())),
}, userBodyOptions(Nullable(Type.Boolean()), {
  minProperties: 1,
  description: 'Fields to change; null clears Phone, Language, betaUser or removes a `<Vendor>Integration` flag.',
}))

export const UserStatusBody = Type.Object({
  flagged: Type.Optional(Type.Boolean()),
  inactive: Type.Optional(Type.Boolean({ description: 'true: the account can no longer log in and its tokens stop working at once' })),
  requestDeletion: Type.Optional(Type.Boolean({ description: 'Marks a deletion request; deletes nothing' })),
}, { additionalProperties: false, minProperties: 1 })

export const PushTokenBody = Type.Object({
  token: Type.String({ minLength: 1, maxLength: 4096, description: 'Push token (FCM registration token)' }),
  customName: Type.String({ maxLength: 200, description: 'Custom device name; may be empty' }),
  name: Type.String({ minLength: 1, maxLength: 200, description: 'Device name' }),
  email: Type.String({ format: 'email', maxLength: 320, description: 'E-mail of the person using the device' }),
  rank: Type.Optional(Type.Integer({ minimum: 1, maximum: 3, description: '1=Admin, 2=Manager, 3=Worker' })),
}, { additionalProperties: false })

export const ChangePasswordBody = Type.Object({
  currentPassword: Type.String({ minLength: 1, maxLength: 1024, writeOnly: true }),
  newPassword: Password,
}, { additionalProperties: false })

export const UserIdParams = Type.Object({ userId: Uid })

/** Sortable fields of user lists: t orders by the account's creation time (users carry no t field). */
export const USER_SORT_FIELDS: ListFields = { t: 'integer', Uid: 'string', Email: 'string', Name: 'string', Language: 'string' }

/** filter[Field] of GET /users. */
export const USER_FILTER_FIELDS: ListFields = {
  Uid: 'string', Email: 'string', Name: 'string', Language: 'string', Flagged: 'boolean', Inactive: 'boolean',
  BDUser: 'boolean', Admin: 'boolean', RequestDeletion: 'boolean', betaUser: 'boolean',
}

export function UserListQuery(limits: Limits) {
  return Type.Object({ ...listQueryProperties(limits, USER_SORT_FIELDS, 't') }, { ...listQueryOptions, additionalProperties: false })
}

export function UserSearchQuery(limits: Limits) {
  return Type.Object({
    ...listQueryProperties(limits, USER_SORT_FIELDS, 't'),
    email: Type.Optional(Type.String({ minLength: 1, maxLength: 320, description: 'Exact e-mail, case-insensitive' })),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Part of the name, case-insensitive; % and _ match themselves' })),
    flagged: Type.Optional(Type.Boolean()),
    inactive: Type.Optional(Type.Boolean()),
    language: Type.Optional(Type.String({ minLength: 1, maxLength: 35, description: 'Language tag, case-insensitive' })),
  }, { additionalProperties: false })
}

export interface ApiUser {
  Uid: string
  Email: string
  Name: string
  Phone?: string
  Language?: string
  Flagged: boolean
  Inactive: boolean
  BDUser: boolean
  Admin: boolean
  RequestDeletion?: boolean
  betaUser?: boolean
  FCMTokens?: ApiPushToken[]
  integrators?: string[]
  [integrationFlag: string]: unknown
}

export interface ApiPushToken { Token: string; CustomName: string; Name: string; Email: string; t: number; Rank?: number }

/**
 * Maps a stored user to the spec's User fields. `integrators` is what this caller may see; left out
 * (list views) the field is absent.
 */
export function toApiUser(row: UserRow, integrators?: string[]): ApiUser {
  return {
    Uid: row.uid,
    Email: row.email,
    Name: row.name,
    ...(row.phone !== null ? { Phone: row.phone } : {}),
    ...(row.language !== null ? { Language: row.language } : {}),
    Flagged: row.flagged,
    Inactive: row.inactive,
    BDUser: row.bd_user,
    Admin: row.admin,
    RequestDeletion: row.request_deletion,
    ...(row.beta_user !== null ? { betaUser: row.beta_user } : {}),
    ...row.integration_flags,
    ...(integrators ? { integrators } : {}),
  }
}

export function toApiPushToken(row: PushTokenRow): ApiPushToken {
  return {
    Token: row.token,
    CustomName: row.custom_name,
    Name: row.name,
    Email: row.email,
    t: row.t,
    ...(row.rank !== null ? { Rank: row.rank } : {}),
  }
}

export function toProfile(row: UserRow) {
  return { Uid: row.uid, Name: row.name, ...(row.language !== null ? { Language: row.language } : {}) }
}
