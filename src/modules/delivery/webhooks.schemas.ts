// The webhook subscription routes' bodies and answers.
import Type, { type TSchema } from 'typebox'
import { StringEnum } from '../../http/list-params.ts'
import { MAX_PATH_SEGMENT } from '../../http/route-policy.ts'
import { BoundedString, EXAMPLE } from '../../http/schema-types.ts'
import { UID_PATTERN } from '../users/users.rules.ts'
import { EVENT_TYPES } from '../events/event-kinds.ts'
import { ID_PATTERN, describedPattern } from '../../http/input-patterns.ts'

const Int = (
  example: number,
  options: { minimum?: number; maximum?: number; default?: number; description?: string } = {},
) => Type.Integer({ format: 'int64', minimum: 0, maximum: Number.MAX_SAFE_INTEGER, examples: [example], ...options })
const Text = (maxLength: number, example: string, options: { description?: string } = {}) =>
  Type.String({ maxLength, examples: [example], ...options })
const Uid = (description: string) =>
  Type.String({ pattern: UID_PATTERN, maxLength: 128, description, examples: [EXAMPLE.uid] })
const MS_EXAMPLE = 1_793_491_200_000
/** attemptCursor({attemptedAt: MS_EXAMPLE, uid: 'hillside-farm', eventId: 1288}) */
const CURSOR_EXAMPLE = 'WzE3OTM0OTEyMDAwMDAsImhpbGxzaWRlLWZhcm0iLDEyODhd'

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
  [Type.Array(Uid('A linked account'), { minItems: 1, maxItems: 1000, uniqueItems: true }), Type.Null()],
  {
    description: 'Uids of linked accounts whose events are delivered; null or absent: every linked account',
    examples: [['hillside-farm']],
  },
)
const Url = BoundedString(
  2000,
  'Where events are POSTed: https, a public address (docs/delivery.md)',
  'https://fms.example/hooks/livestock',
  8,
)

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
  subscriptionId: Type.String({
    minLength: 1,
    maxLength: MAX_PATH_SEGMENT,
    description: "The subscription's id, as its creation answered",
    examples: ['whs_4kR9zQ2m'],
  }),
})

const Ms = (description: string) => Type.Union([Int(MS_EXAMPLE), Type.Null()], { description })

export const Subscription = Type.Object(
  {
    id: Text(64, 'whs_4kR9zQ2m'),
    url: Url,
    eventTypes: EventTypes,
    accounts: Accounts,
    enabled: Type.Boolean(),
    disabledReason: Type.Union([Text(500, 'the receiver answered 410 Gone'), Type.Null()], {
      description: 'Why the service disabled it (410 Gone, or failing for three days)',
    }),
    disabledAt: Ms('ms since epoch'),
    failingSince: Ms('ms since epoch: the first failure since the last success'),
    secretOverlapUntil: Ms('ms since epoch: until then the previous secret signs too (after a rotation)'),
    createdAt: Int(MS_EXAMPLE, { description: 'ms since epoch' }),
    updatedAt: Int(MS_EXAMPLE, { description: 'ms since epoch' }),
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
        examples: [86_400],
        default: 86_400,
        description: 'How long the previous secret still signs beside the new one (default a day, at most 7 days)',
      }),
    ),
  },
  { additionalProperties: false },
)

export const Queued = Type.Object({ queued: Int(12) }, { additionalProperties: false })
export const Deleted = Type.Object({ id: Text(200, 'whs_4kR9zQ2m') }, { additionalProperties: false })

export const TestResult = Type.Object(
  {
    delivered: Type.Boolean(),
    status: Type.Union([Int(204, { maximum: 999 }), Type.Null()], { description: "The receiver's HTTP status" }),
    latencyMs: Int(38, { description: 'Milliseconds from the request to the answer' }),
    error: Type.Union([Text(500, 'no answer within 10000 ms'), Type.Null()]),
  },
  { additionalProperties: false },
)

export const Attempt = Type.Object(
  {
    userId: Uid('The account of the event'),
    eventId: Text(16, '1288', { description: "The event's ID in the account's feed" }),
    webhookId: Text(64, 'msg_1288_5d41402abc', {
      description: 'The webhook-id header sent: the same for every attempt of an event',
    }),
    attemptedAt: Int(MS_EXAMPLE, { description: 'ms since epoch' }),
    status: Type.Union([Int(200, { maximum: 999 }), Type.Null()], {
      description: "The receiver's HTTP status; null when it gave none (a timeout, a refused connection)",
    }),
    error: Type.Union([Text(500, 'HTTP 503'), Type.Null()], {
      description: 'Why the attempt failed; null when delivered',
    }),
    latencyMs: Int(38, { description: 'Milliseconds from the request to the answer' }),
    cursor: Type.String({
      maxLength: 400,
      description:
        "Send it as `?cursor=` (the other parameters as they were) to list the attempts after this one: the last item's " +
        'continues where the page ended, as its `Link: rel="next"` does',
      examples: [CURSOR_EXAMPLE],
    }),
  },
  { additionalProperties: false },
)

export const AttemptsQuery = Type.Object(
  {
    limit: Type.Optional(
      Int(50, {
        minimum: 1,
        maximum: 100,
        default: 50,
        description: 'How many attempts to list, 1-100 (default 50)',
      }),
    ),
    userId: Type.Optional(Uid("Only this account's attempts (required with eventId)")),
    eventId: Type.Optional(
      Type.String({
        pattern: ID_PATTERN,
        maxLength: 16,
        description: 'Only the attempts of this event of userId',
        examples: ['1288'],
      }),
    ),
    failed: Type.Optional(
      Type.Boolean({
        description: 'true: only the attempts that failed; false: only those delivered',
        examples: [true],
      }),
    ),
    cursor: Type.Optional(
      Type.String({
        pattern: describedPattern('^[A-Za-z0-9_-]{1,400}$', "must be a cursor from a page's Link header"),
        maxLength: 400,
        description:
          'Where the previous page ended: copy it from that page\'s `Link: <...>; rel="next"` (the other parameters stay as they were)',
        examples: [CURSOR_EXAMPLE],
      }),
    ),
  },
  { additionalProperties: false },
)

export const RedeliverBody = Type.Object(
  {
    userId: Type.Optional(Uid('Only this account (required with eventId)')),
    eventId: Type.Optional(
      Type.String({ pattern: ID_PATTERN, maxLength: 16, description: 'One event of userId', examples: ['1288'] }),
    ),
    since: Type.Optional(Int(MS_EXAMPLE, { description: 'Events created at or after, ms since epoch' })),
    until: Type.Optional(Int(MS_EXAMPLE, { description: 'Events created at or before, ms since epoch' })),
  },
  { additionalProperties: false, minProperties: 1 },
)

const signedHeaders = [
  {
    name: 'webhook-id',
    in: 'header',
    required: true,
    description:
      'The message id: the same for every attempt and redelivery of one event to one subscription; deduplicate on it',
    schema: Text(64, 'msg_1288_5d41402abc'),
  },
  {
    name: 'webhook-timestamp',
    in: 'header',
    required: true,
    description: 'When this attempt was signed, Unix seconds; refuse one far from your clock (replays)',
    schema: Type.String({ pattern: '^[0-9]{1,12}$', maxLength: 12, examples: ['1793491200'] }),
  },
  {
    name: 'webhook-signature',
    in: 'header',
    required: true,
    description:
      'v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>"> by the subscription secret; two, space-separated, ' +
      'while a rotation overlaps. Any Standard Webhooks library verifies it: new Webhook(secret).verify(body, headers)',
    schema: Text(200, 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4='),
  },
]

const receiverAnswers = {
  '200': { description: 'Any 2xx: delivered' },
  '410': { description: 'Gone: the subscription is disabled at once' },
  default: {
    description:
      'Anything else, a timeout or a refused connection: tried again with backoff (5 s up to 12 h) for about three days; ' +
      '`Retry-After` asking for a longer wait is honoured',
  },
}

const message = (operationId: string, summary: string, description: string, body: TSchema) => ({
  post: {
    operationId,
    summary,
    description,
    tags: ['webhooks'],
    security: [],
    parameters: signedHeaders,
    requestBody: { required: true, content: { 'application/json': { schema: body } } },
    responses: receiverAnswers,
  },
})

/** What the service POSTs to a subscription's URL (OpenAPI 3.1 `webhooks`): Standard Webhooks 1.0 messages. */
export const WEBHOOK_MESSAGES = {
  event: message(
    'webhookEvent',
    'An event',
    "One event of a linked account, as the account's feed shows it to this integrator, POSTed to the subscription's URL " +
      '(docs/delivery.md).',
    Type.Object(
      {
        type: StringEnum(EVENT_TYPES, { description: "The event's EventType", examples: ['birth-alarm'] }),
        timestamp: Type.String({
          format: 'date-time',
          maxLength: 40,
          description: 'When the service created the event (its createdAt), ISO 8601 UTC; the same in every attempt',
          examples: ['2026-11-26T05:12:00.000Z'],
        }),
        data: Type.Object(
          {
            userId: Uid('The account the event belongs to'),
            event: Type.Unsafe({ $ref: '#/components/schemas/AnimalEvent' }),
          },
          { additionalProperties: false },
        ),
      },
      { additionalProperties: false },
    ),
  ),
  test: message(
    'webhookTest',
    'A test message',
    'Sent by POST /webhooks/subscriptions/{subscriptionId}/test, signed as events are; not retried.',
    Type.Object(
      {
        type: Type.Literal('webhook.test'),
        timestamp: Type.String({
          format: 'date-time',
          maxLength: 40,
          description: 'When the message was made, ISO 8601 UTC',
          examples: ['2026-11-26T05:12:00.000Z'],
        }),
        data: Type.Object(
          { subscriptionId: Text(200, 'whs_4kR9zQ2m', { description: 'The subscription tested' }) },
          { additionalProperties: false },
        ),
      },
      { additionalProperties: false },
    ),
  ),
}
