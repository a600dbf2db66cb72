import Type from 'typebox'
import type { Limits } from '../../config.ts'
import { TIERS } from '../../auth/tiers.ts'
import { StringEnum } from '../../http/list-params.ts'
import { BoundedString, Count, DateTime, EXAMPLE, EpochMs, Integer } from '../../http/schema-types.ts'
import { UID_PATTERN } from '../users/users.rules.ts'
import { IntegratorUid } from '../integrators/integrators.schemas.ts'

/** A JWT as this service signs it: three base64url segments. */
const Jwt = (description: string, example: string = EXAMPLE.jwt) =>
  Type.String({
    pattern: '^[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$',
    maxLength: 4096,
    description,
    examples: [example],
  })
const REFRESH_EXAMPLE =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6InJ0K2p3dCJ9.eyJzdWIiOiJoaWxsc2lkZS1mYXJtIn0.RmVlZCB0aGUgc293cyBhdCBzaXg'
const AccountUid = (description: string) =>
  Type.String({ pattern: UID_PATTERN, maxLength: 128, description, examples: [EXAMPLE.uid] })
const Email = Type.String({ format: 'email', maxLength: 320, examples: [EXAMPLE.email] })
const DisplayName = (example: string) => Type.String({ minLength: 1, maxLength: 200, examples: [example] })

export function TokenRequest(limits: Limits) {
  return Type.Object(
    {
      integratorUID: IntegratorUid("The integrator's identifier, given by the operator"),
      clientSecret: Type.Optional(
        Type.String({
          minLength: 1,
          maxLength: 500,
          writeOnly: true,
          examples: ['Zk3pQ9vX2mR7tW4yB8nC1dF6gH0jK5lM3qS8uV2xY4z'],
          description:
            'The client secret the operator handed over with the UID. Required, except for integrators created with --no-secret',
        }),
      ),
      expiresIn: Integer({
        minimum: limits.tokenExpiresInMin,
        maximum: limits.tokenExpiresInMax,
        default: limits.tokenExpiresInDefault,
        description: 'Access-token lifetime in seconds',
        examples: [Math.min(Math.max(3600, limits.tokenExpiresInMin), limits.tokenExpiresInMax)],
      }),
      refreshToken: Type.Boolean({ default: false, description: 'Also issue a refresh token' }),
    },
    { additionalProperties: false },
  )
}

export const RefreshRequest = Type.Object(
  {
    refreshToken: BoundedString(4096, 'The refresh token of the last issue; each works once', REFRESH_EXAMPLE),
  },
  { additionalProperties: false },
)

export const LoginRequest = Type.Object(
  {
    email: Type.String({ minLength: 3, maxLength: 320, examples: [EXAMPLE.email] }),
    password: Type.String({ minLength: 1, maxLength: 1024, writeOnly: true, examples: ['grey barn at dawn, 42 sows'] }),
  },
  { additionalProperties: false },
)

export const IdTokenRequest = Type.Object(
  {
    idToken: BoundedString(16384, 'An OpenID Connect ID token of the configured issuer', EXAMPLE.jwt),
  },
  { additionalProperties: false },
)

export const TokenResponse = Type.Object(
  {
    accessToken: Jwt('The access token: send it as Authorization: Bearer <accessToken>'),
    refreshToken: Type.Optional(
      Jwt('Present when refreshToken was true: exchange it at POST /tokens/refresh', REFRESH_EXAMPLE),
    ),
    expiresAt: EpochMs('Access-token expiry, ms since epoch', EXAMPLE.ms + 3_600_000),
    tokenType: Type.Literal('Bearer'),
    integratorUID: IntegratorUid('The integrator the token is for'),
  },
  { description: 'Integrator token' },
)

export const UserTokenResponse = Type.Object(
  {
    accessToken: Jwt('The access token: send it as Authorization: Bearer <accessToken>'),
    refreshToken: Type.Optional(Jwt('Exchange it at POST /tokens/refresh', REFRESH_EXAMPLE)),
    expiresAt: EpochMs('Access-token expiry, ms since epoch', EXAMPLE.ms + 3_600_000),
    tokenType: Type.Literal('Bearer'),
    uid: AccountUid('The Uid of the account'),
  },
  { description: 'User token (TokenResponse with uid in place of integratorUID)' },
)

const IntegratorSummary = Type.Object({
  email: Email,
  name: DisplayName('FarmSoft Herd Manager'),
  isActive: Type.Boolean(),
})

const UserSummary = Type.Object({
  uid: AccountUid('The Uid of the account'),
  email: Email,
  name: DisplayName('Hillside Pig Farm'),
})

export const ValidateResponse = Type.Object({
  valid: Type.Literal(true),
  tokenType: Type.Literal('access'),
  expiresAt: DateTime('When the token expires', '2026-11-02T07:40:00.000Z'),
  integratorUID: Type.Optional(IntegratorUid('Integrator tokens')),
  integrator: Type.Optional(IntegratorSummary),
  uid: Type.Optional(AccountUid('User tokens')),
  user: Type.Optional(UserSummary),
})

export const InfoResponse = Type.Object({
  integratorUID: Type.Optional(IntegratorUid('Integrator tokens')),
  integrator: Type.Optional(
    Type.Object({
      email: Email,
      name: DisplayName('FarmSoft Herd Manager'),
      isActive: Type.Boolean(),
      createdAt: DateTime('When the operator created the integrator', '2026-03-14T09:12:00.000Z'),
      tier: StringEnum(TIERS, { description: 'API tier', examples: ['pro'] }),
      permissions: Type.Object({ canRead: Type.Boolean(), canWrite: Type.Boolean(), canDelete: Type.Boolean() }),
    }),
  ),
  uid: Type.Optional(AccountUid('User tokens')),
  user: Type.Optional(UserSummary),
  token: Type.Object({
    type: Type.Literal('access'),
    issuedAt: DateTime('When the token was issued'),
    expiresAt: DateTime('When the token expires', '2026-11-02T07:40:00.000Z'),
    jti: Type.String({
      format: 'uuid',
      maxLength: 36,
      description: "The token's id",
      examples: ['b7e4c2a1-5d3f-4e8a-9c0b-2f6d1e8a4c37'],
    }),
  }),
  config: Type.Object({
    accessTokenExpiry: Count('Default access-token lifetime, seconds', 3600),
    refreshTokenExpiry: Count('Refresh-token lifetime, seconds', 604_800),
  }),
})
