// The webhook subscription routes' bodies and answers.
import Type from 'typebox'
import { StringEnum } from '../../http/list-params.ts'
import { MAX_PATH_SEGMENT } from '../../http/route-policy.ts'
import { EVENT_TYPES } from '../events/event-kinds.ts'

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

const Ms = (description: string) => Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { description })

export const Subscription = Type.Object(
  {
    id: Type.String({ examples: ['whs_4kR9zQ2m'] }),
    url: Url,
    eventTypes: EventTypes,
    accounts: Accounts,
    enabled: Type.Boolean(),
    disabledReason: Type.Union([Type.String(), Type.Null()], {
      description: 'Why the service disabled it (410 Gone, or failing for three days)',
    }),
    disabledAt: Ms('ms since epoch'),
    failingSince: Ms('ms since epoch: the first failure since the last success'),
    secretOverlapUntil: Ms('ms since epoch: until then the previous secret signs too (after a rotation)'),
    createdAt: Type.Integer({ minimum: 0 }),
    updatedAt: Type.Integer({ minimum: 0 }),
  },
  { additionalProperties: false, title: 'WebhookSubscription' },
)

export const SubscriptionWithSecret = Type.Object(
  {
    ...Subscription.properties,
    secret: Type.String({
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
        minimum: 0,
        maximum: 604_800,
        default: 86_400,
        description: 'How long the previous secret still signs beside the new one (default a day, at most 7 days)',
      }),
    ),
  },
  { additionalProperties: false },
)

export const TestResult = Type.Object(
  {
    delivered: Type.Boolean(),
    status: Type.Union([Type.Integer(), Type.Null()], { description: "The receiver's HTTP status" }),
    latencyMs: Type.Integer({ minimum: 0 }),
    error: Type.Union([Type.String(), Type.Null()]),
  },
  { additionalProperties: false },
)

export const Attempt = Type.Object(
  {
    userId: Type.String(),
    eventId: Type.String(),
    webhookId: Type.String({ description: 'The webhook-id header sent: the same for every attempt of an event' }),
    attemptedAt: Type.Integer({ minimum: 0 }),
    status: Type.Union([Type.Integer(), Type.Null()]),
    error: Type.Union([Type.String(), Type.Null()]),
    latencyMs: Type.Integer({ minimum: 0 }),
  },
  { additionalProperties: false },
)

export const AttemptsQuery = Type.Object(
  { limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })) },
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
    since: Type.Optional(Type.Integer({ minimum: 0, description: 'Events created at or after, ms since epoch' })),
    until: Type.Optional(Type.Integer({ minimum: 0, description: 'Events created at or before, ms since epoch' })),
  },
  { additionalProperties: false, minProperties: 1 },
)
