import Type from 'typebox'
import type { Limits } from '../../config.ts'

export function TokenRequest(limits: Limits) {
  return Type.Object({
    integratorUID: Type.String({ minLength: 1, maxLength: 200, description: 'The integrator\'s identifier, given by the operator' }),
    clientSecret: Type.Optional(Type.String({
      minLength: 1, maxLength: 500, writeOnly: true,
      description: 'The client secret the operator handed over with the UID. Required, except for integrators created with --no-secret',
    })),
    expiresIn: Type.Integer({
      minimum: limits.tokenExpiresInMin, maximum: limits.tokenExpiresInMax, default: limits.tokenExpiresInDefault,
      description: 'Access-token lifetime in seconds',
    }),
    refreshToken: Type.Boolean({ default: false, description: 'Also issue a refresh token' }),
  }, { additionalProperties: false })
}

export const RefreshRequest = Type.Object({
  refreshToken: Type.String({ minLength: 1, maxLength: 4096 }),
}, { additionalProperties: false })

export const LoginRequest = Type.Object({
  email: Type.String({ minLength: 3, maxLength: 320 }),
  password: Type.String({ minLength: 1, maxLength: 1024 }),
}, { additionalProperties: false })

export const IdTokenRequest = Type.Object({
  idToken: Type.String({ minLength: 1, maxLength: 16384 }),
}, { additionalProperties: false })

export const TokenResponse = Type.Object({
  accessToken: Type.String(),
  refreshToken: Type.Optional(Type.String()),
  expiresAt: Type.Integer({ description: 'Access-token expiry, ms since epoch' }),
  tokenType: Type.Literal('Bearer'),
  integratorUID: Type.String(),
}, { description: 'Integrator token' })

export const UserTokenResponse = Type.Object({
  accessToken: Type.String(),
  refreshToken: Type.Optional(Type.String()),
  expiresAt: Type.Integer({ description: 'Access-token expiry, ms since epoch' }),
  tokenType: Type.Literal('Bearer'),
  uid: Type.String({ description: 'The Uid of the account' }),
}, { description: 'User token (TokenResponse with uid in place of integratorUID)' })

const IntegratorSummary = Type.Object({
  email: Type.String(),
  name: Type.String(),
  isActive: Type.Boolean(),
})

const UserSummary = Type.Object({
  uid: Type.String(),
  email: Type.String(),
  name: Type.String(),
})

export const ValidateResponse = Type.Object({
  valid: Type.Literal(true),
  tokenType: Type.Literal('access'),
  expiresAt: Type.String({ format: 'date-time' }),
  integratorUID: Type.Optional(Type.String({ description: 'Integrator tokens' })),
  integrator: Type.Optional(IntegratorSummary),
  uid: Type.Optional(Type.String({ description: 'User tokens' })),
  user: Type.Optional(UserSummary),
})

export const InfoResponse = Type.Object({
  integratorUID: Type.Optional(Type.String({ description: 'Integrator tokens' })),
  integrator: Type.Optional(Type.Object({
    email: Type.String(), name: Type.String(), isActive: Type.Boolean(), createdAt: Type.String({ format: 'date-time' }),
    tier: Type.String(),
    permissions: Type.Object({ canRead: Type.Boolean(), canWrite: Type.Boolean(), canDelete: Type.Boolean() }),
  })),
  uid: Type.Optional(Type.String({ description: 'User tokens' })),
  user: Type.Optional(UserSummary),
  token: Type.Object({
    type: Type.Literal('access'),
    issuedAt: Type.String({ format: 'date-time' }),
    expiresAt: Type.String({ format: 'date-time' }),
    jti: Type.String(),
  }),
  config: Type.Object({
    accessTokenExpiry: Type.Integer({ description: 'Default access-token lifetime, seconds' }),
    refreshTokenExpiry: Type.Integer({ description: 'Refresh-token lifetime, seconds' }),
  }),
})

export const LinkRequest = Type.Object({
  integratorUID: Type.String({ minLength: 1, maxLength: 200 }),
}, { additionalProperties: false })

export const LinkResponse = Type.Object({
  integrators: Type.Array(Type.String(), { description: 'integratorUIDs linked to the account' }),
})

export const UnlinkParams = Type.Object({ integratorUid: Type.String({ minLength: 1, maxLength: 200 }) })
