import Type from 'typebox'
import type { UserRow } from './users.repository.ts'

/** `<Vendor>Integration` flags: any boolean field named like AcmeIntegration. */
export const INTEGRATION_FLAG = '^[A-Z][A-Za-z0-9]*Integration$'

export const UserPhone = Type.Object({
  Token: Type.String(),
  CustomName: Type.String(),
  Name: Type.String(),
  Email: Type.String(),
  t: Type.Integer({ description: 'ms since epoch the token was added' }),
  Rank: Type.Optional(Type.Integer({ minimum: 1, maximum: 3, description: '1=Admin, 2=Manager, 3=Worker' })),
}, { $id: 'UserPhone' })

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
  FCMTokens: Type.Optional(Type.Array(Type.Ref('UserPhone'))),
  integrators: Type.Array(Type.String(), { description: 'integratorUIDs allowed to read this account (an integrator sees only itself)' }),
}, {
  $id: 'User',
  additionalProperties: false,
  patternProperties: { [INTEGRATION_FLAG]: Type.Boolean() },
  description: 'A farm account. Fields matching ^[A-Z][A-Za-z0-9]*Integration$ are vendor integration flags.',
})

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
  integrators: string[]
  [integrationFlag: string]: unknown
}

/** Maps a stored user to the spec's User fields. `integrators` is what this caller may see. */
export function toApiUser(row: UserRow, integrators: string[]): ApiUser {
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
    integrators,
  }
}
