import Type from 'typebox'
import { DETAILS_MAX, ERROR_TEXT_MAX, Timestamp } from '../../http/envelope.ts'
import { Message } from '../../http/schema-types.ts'

export const HealthResponse = Type.Object(
  {
    success: Type.Literal(true),
    message: Message('Liveness text', 'Livestock API is running'),
    version: Type.Literal('v1'),
    timestamp: Timestamp,
  },
  { description: 'The service is up' },
)

const CheckStatus = Type.Union([Type.Literal('ok'), Type.Literal('unreachable'), Type.Literal('not configured')])

export const ReadinessChecks = Type.Object({
  database: CheckStatus,
  databaseKind: Type.Union([Type.Literal('embedded'), Type.Literal('postgres')]),
  redis: CheckStatus,
})

export const ReadyResponse = Type.Object(
  {
    success: Type.Literal(true),
    message: Message('Readiness text', 'Ready'),
    data: ReadinessChecks,
    timestamp: Timestamp,
  },
  { description: 'The database (and Redis, when configured) answer' },
)

export const NotReadyResponse = Type.Object(
  {
    success: Type.Literal(false),
    error: Type.String({ minLength: 1, maxLength: ERROR_TEXT_MAX, examples: ['Not ready'] }),
    details: Type.Array(Type.Ref('ErrorDetail'), { maxItems: DETAILS_MAX }),
    data: ReadinessChecks,
    timestamp: Timestamp,
  },
  { description: 'A backing store does not answer; Retry-After says when to ask again' },
)
