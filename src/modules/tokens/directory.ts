// The token-endpoint directory (GET /tokens): a map of "METHOD path" to what the endpoint does.
import Type from 'typebox'
import type { Limits } from '../../config.ts'
import { Timestamp } from '../../http/envelope.ts'
import { isoTimestamp } from '../../http/timestamp.ts'
import { Message } from '../../http/schema-types.ts'
import type { App } from '../../types.ts'

/** A short text of the directory: a field's type and bounds, a header's form. */
const Note = Type.String({ maxLength: 200 })
const Notes = Type.Record(Type.String({ maxLength: 40 }), Note, { maxProperties: 10 })

const EndpointInfo = Type.Object({
  description: Type.String({ maxLength: 200 }),
  body: Type.Optional(Notes),
  headers: Type.Optional(Notes),
})

export function TokenDirectoryResponse(limits: Limits) {
  return Type.Object(
    {
      success: Type.Literal(true),
      message: Message('What this is', 'Token endpoints of the Livestock API'),
      endpoints: Type.Record(Type.String({ maxLength: 60 }), EndpointInfo, {
        maxProperties: 20,
        description: '"METHOD path" → what the endpoint does, its body fields and its headers',
        examples: [tokenDirectory(limits)],
      }),
      documentation: Type.String({
        format: 'uri-reference',
        maxLength: 100,
        description: 'The interactive reference',
        examples: ['/api/v1/docs'],
      }),
      timestamp: Timestamp,
    },
    { description: 'Token endpoints of this service' },
  )
}

const BEARER = { Authorization: 'Bearer <accessToken>' }

export function tokenDirectory(limits: Limits) {
  return {
    'POST /api/v1/tokens': {
      description: 'Issue an integrator access token (and a refresh token when refreshToken is true).',
      body: {
        integratorUID: 'string, required',
        clientSecret: 'string, required (only integrators the operator created with --no-secret leave it out)',
        expiresIn: `integer seconds, ${limits.tokenExpiresInMin}-${limits.tokenExpiresInMax}, default ${limits.tokenExpiresInDefault}`,
        refreshToken: 'boolean, default false',
      },
    },
    'POST /api/v1/tokens/refresh': {
      description:
        'Exchange a refresh token for a new access token and a new refresh token. Each refresh token works once.',
      body: { refreshToken: 'string, required' },
    },
    'GET /api/v1/tokens/validate': { description: 'Check the presented access token.', headers: BEARER },
    'POST /api/v1/tokens/revoke': {
      description: 'Revoke the presented access token and the refresh token issued with it.',
      headers: BEARER,
    },
    'GET /api/v1/tokens/info': {
      description: 'Details of the presented token and the token lifetimes.',
      headers: BEARER,
    },
    'GET /api/v1/tokens/usage': {
      description:
        "Integrator tokens: the integrator's requests per endpoint on a UTC day (?date=YYYY-MM-DD, default today), " +
        'each with its daily quota today.',
      headers: BEARER,
    },
    'POST /api/v1/tokens/login': {
      description: 'Issue a user token for an account.',
      body: { email: 'string, required', password: 'string, required' },
    },
    'POST /api/v1/tokens/logout': {
      description: 'Revoke the presented user token and its refresh family.',
      headers: BEARER,
    },
    'POST /api/v1/tokens/verify-id-token': {
      description: 'Verify an identity-provider ID token and return the matching user.',
      body: { idToken: 'string, required' },
    },
  }
}

export async function tokenDirectoryRoutes(app: App) {
  const endpoints = tokenDirectory(app.config.limits)
  app.get(
    '/tokens',
    {
      schema: {
        operationId: 'getTokenDirectory',
        summary: 'Token-endpoint directory',
        description: 'Public. Lists the token endpoints with their bodies and headers.',
        response: { 200: TokenDirectoryResponse(app.config.limits) },
      },
      config: { access: 'public' },
    },
    async () => ({
      success: true as const,
      message: 'Token endpoints of the Livestock API',
      endpoints,
      documentation: '/api/v1/docs',
      timestamp: isoTimestamp(),
    }),
  )
}
