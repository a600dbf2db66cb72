// The webhook subscription routes' bodies and answers.
import Type from 'typebox'
import { StringEnum } from '../../http/list-params.ts'
import { MAX_PATH_SEGMENT } from '../../http/route-policy.ts'
import { EVENT_TYPES } from '../events/event-kinds.ts'

const Int = (options: { minimum?: number; maximum?: number; default?: number; description?: string } = {}) =>
  Type.Integer({ format: 'int64', minimum: 0, maximum: Number.MAX_SAFE_INTEGER, ...options })
const Text = (maxLength: number, options: { description?: string; examples?: string[] } = {}) =>
  Type.String({ maxLength, ...options })

const EventTypes = Type.Union(
  [
    Type.Array(StringEnum(EVENT_TYPES), {
      minItems: 1,
      maxItems: EVENT_TYPES.length,
      uniqueItems: true,
    }),
    Type.Null(),
  ],
  {
    description: 'The event kinds delivered (EventType); null or absent: every kind',
    examples: [['birth-alarm', 'temperature-red']],
  },
)
const Accounts = Type.Union(
  [
    Type.Array(Type.String({ minLength: 1, maxLength: 128 }), { minItems: 1, maxItems: 1000, uniqueItems: true }),
    Type.Null(),
  ],
  {
    description: 'Uids of linked accounts whose events are delivered; null or absent: every linked account',
    examples: [['hillside-farm']],
  },
)
const Url = Type.String({
  minLength: 8,
  maxLength: 2000,
  description: 'Where events are POSTed: https, a public address (docs/delivery.md)',
  examples: ['https://fms.example/hooks/livestock'],
})

export const SubscriptionCreate = Type.Object(
  { url: Url, eventTypes: Type.Optional(EventTypes), accounts: Type.Optional(Accounts) },
  { additionalProperties: false },
)

export const SubscriptionPatch = Type.Object(
  {
    url: Type.Optional(Url),
    eventTypes: Type.Optional(EventTypes),
    accounts: Type.Optional(Accounts),
    enabled: Type.Optional(
      Type.Boolean({ description: 'false pauses deliveries; true enables a disabled subscription again' }),
    ),
  },
  { additionalProperties: false, minProperties: 1 },
)

export const SubscriptionPath = Type.Object({
  subscriptionId: Type.String({ minLength: 1, maxLength: MAX_PATH_SEGMENT, examples: ['whs_4kR9zQ2m'] }),
})

const Ms = (description: string) => Type.Union([Int(), Type.Null()], { description })

export const Subscription = Type.Object(
  {
    id: Text(64, { examples: ['whs_4kR9zQ2m'] }),
    url: Url,
    eventTypes: EventTypes,
    accounts: Accounts,
    enabled: Type.Boolean(),
    disabledReason: Type.Union([Text(500), Type.Null()], {
      description: 'Why the service disabled it (410 Gone, or failing for three days)',
    }),
    disabledAt: Ms('ms since epoch'),
    failingSince: Ms('ms since epoch: the first failure since the last success'),
    secretOverlapUntil: Ms('ms since epoch: until then the previous secret signs too (after a rotation)'),
    createdAt: Int({ description: 'ms since epoch' }),
    updatedAt: Int({ description: 'ms since epoch' }),
  },
  { additionalProperties: false, title: 'WebhookSubscription' },
)

export const SubscriptionWithSecret = Type.Object(
  {
    ...Subscription.properties,
    secret: Type.String({
      maxLength: 100,
      description: 'The signing secret (Standard Webhooks, whsec_...): shown this once, never again',
      examples: ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
    }),
  },
  { additionalProperties: false, title: 'WebhookSubscriptionWithSecret' },
)

export const RotateBody = Type.Object(
  {
    overlapSeconds: Type.Optional(
      Type.Integer({
        format: 'int32',
        minimum: 0,
        maximum: 604_800,
        default: 86_400,
        description: 'How long the previous secret still signs beside the new one (default a day, at most 7 days)',
      }),
    ),
  },
  { additionalProperties: false },
)

export const Queued = Type.Object({ queued: Int() }, { additionalProperties: false })
export const Deleted = Type.Object({ id: Text(200) }, { additionalProperties: false })

export const TestResult = Type.Object(
  {
    delivered: Type.Boolean(),
    status: Type.Union([Int({ maximum: 999 }), Type.Null()], { description: "The receiver's HTTP status" }),
    latencyMs: Int(),
    error: Type.Union([Text(500), Type.Null()]),
  },
  { additionalProperties: false },
)

export const Attempt = Type.Object(
  {
    userId: Text(128),
    eventId: Text(16),
    webhookId: Text(64, { description: 'The webhook-id header sent: the same for every attempt of an event' }),
    attemptedAt: Int({ description: 'ms since epoch' }),
    status: Type.Union([Int({ maximum: 999 }), Type.Null()]),
    error: Type.Union([Text(500), Type.Null()]),
    latencyMs: Int(),
  },
  { additionalProperties: false },
)

export const AttemptsQuery = Type.Object(
  { limit: Type.Optional(Int({ minimum: 1, maximum: 100, default: 50 })) },
  { additionalProperties: false },
)

export const RedeliverBody = Type.Object(
  {
    userId: Type.Optional(
      Type.String({ minLength: 1, maxLength: 128, description: 'Only this account (required with eventId)' }),
    ),
    eventId: Type.Optional(
      Type.String({ pattern: '^[0-9]{1,16}$', maxLength: 16, description: 'One event of userId' }),
    ),
    since: Type.Optional(Int({ description: 'Events created at or after, ms since epoch' })),
    until: Type.Optional(Int({ description: 'Events created at or before, ms since epoch' })),
  },
  { additionalProperties: false, minProperties: 1 },
)
