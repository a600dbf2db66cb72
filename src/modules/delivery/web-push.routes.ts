// Web Push (docs/delivery.md#web-push-to-the-farm-app): the service's public VAPID key, and the browsers an
// account registered to get its alerts while the farm app is closed. The delivery worker pushes each event to
// them as it does to the account's phones (FCM), by role and the alert rules.
import { createECDH } from 'node:crypto'
import Type from 'typebox'
import type { App } from '../../types.ts'
import { defineModule } from '../../http/api-module.ts'
import { created } from '../../http/created.ts'
import { Envelope, ok } from '../../http/envelope.ts'
import { ApiError, conflict, notFound, orNotFound, validationFailed } from '../../http/errors.ts'
import { describedPattern } from '../../http/input-patterns.ts'
import { MAX_PATH_SEGMENT } from '../../http/route-policy.ts'
import { DateTime, Integer } from '../../http/schema-types.ts'
import { UserIdParams } from '../users/users.resource.ts'
import { webPushPublicKey } from '../../web-push-key.ts'
import { refusedUrl } from './outbound.ts'
import {
  deleteWebPushSubscription,
  findWebPushSubscription,
  listWebPushSubscriptions,
  MAX_WEB_PUSH_SUBSCRIPTIONS,
  registerWebPushSubscription,
  type WebPushSubscriptionRow,
} from './web-push.repository.ts'

const ENDPOINT_EXAMPLE = 'https://fcm.googleapis.com/fcm/send/eYp3Kq8vT0A:APA91bH4xZ'
const P256DH_EXAMPLE = 'BNoZbNfyqMsG4wrw7xXc8_yLRkYNEYou9jWzrpOfXmHnxvNKynP_zUOvDOTo9vS8E6wSpFmoSVxbWHpVr3TSTdk'
const AUTH_EXAMPLE = '-IcyBjgD54PiDQnADDFQMA'
const NOT_CONFIGURED = 'Web push is not configured on this service'
const notConfigured = () => new ApiError(404, NOT_CONFIGURED)

const Rank = Integer({
  minimum: 1,
  maximum: 3,
  description: "The role whose alerts this browser gets, by the account's alert rules: 1=Admin, 2=Manager, 3=Worker",
  examples: [3],
})

const WebPushKey = Type.Object(
  {
    publicKey: Type.String({
      maxLength: 100,
      description:
        "The service's VAPID public key (65-byte uncompressed P-256 point, base64url): `applicationServerKey`",
      examples: [P256DH_EXAMPLE],
    }),
  },
  { additionalProperties: false },
)

const WebPushSubscription = Type.Object(
  {
    id: Type.String({ maxLength: 64, examples: ['wps_Yc3q9LmT2vXa8KpR'] }),
    endpoint: Type.String({
      maxLength: 2048,
      description: "The browser's push service URL",
      examples: [ENDPOINT_EXAMPLE],
    }),
    pushService: Type.String({ maxLength: 253, description: "The endpoint's host", examples: ['fcm.googleapis.com'] }),
    rank: Type.Union([Rank, Type.Null()], { description: 'The role whose alerts it gets; null: none' }),
    name: Type.Union([Type.String({ maxLength: 100, examples: ['Chrome on Android'] }), Type.Null()]),
    createdAt: DateTime('When it was registered'),
    lastDeliveredAt: Type.Union([DateTime('When its push service last accepted an alert for it'), Type.Null()]),
  },
  { additionalProperties: false, $id: 'WebPushSubscription', title: 'WebPushSubscription' },
)

const WebPushSubscriptionBody = Type.Object(
  {
    endpoint: Type.String({
      minLength: 1,
      maxLength: 2048,
      description:
        "`PushSubscription.endpoint`: an https URL of the browser's push service (http and private addresses only " +
        'where the operator set WEBHOOK_ALLOW_INSECURE)',
      examples: [ENDPOINT_EXAMPLE],
    }),
    keys: Type.Object(
      {
        p256dh: Type.String({
          pattern: describedPattern('^[A-Za-z0-9_-]{87}=?$', 'the base64url of a 65-byte P-256 public key'),
          maxLength: 88,
          description: "The browser's P-256 public key, base64url (65 bytes)",
          examples: [P256DH_EXAMPLE],
        }),
        auth: Type.String({
          pattern: describedPattern('^[A-Za-z0-9_-]{22}(==)?$', 'the base64url of 16 bytes'),
          maxLength: 24,
          description: 'The authentication secret, base64url (16 bytes)',
          examples: [AUTH_EXAMPLE],
        }),
      },
      { additionalProperties: false, description: '`PushSubscription.toJSON().keys`' },
    ),
    rank: Type.Optional(Rank),
    name: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description: 'What the account calls this browser',
        examples: ['Chrome on Android'],
      }),
    ),
  },
  { additionalProperties: false },
)

const SubscriptionPath = Type.Object({
  ...UserIdParams.properties,
  subscriptionId: Type.String({
    minLength: 1,
    maxLength: MAX_PATH_SEGMENT,
    description: "The subscription's id, as its registration answered",
    examples: ['wps_Yc3q9LmT2vXa8KpR'],
  }),
})

const toApi = (row: WebPushSubscriptionRow) => ({
  id: row.id,
  endpoint: row.endpoint,
  pushService: new URL(row.endpoint).host,
  rank: row.rank,
  name: row.name,
  createdAt: new Date(Number(row.created_at)).toISOString(),
  lastDeliveredAt: row.last_delivered_at === null ? null : new Date(Number(row.last_delivered_at)).toISOString(),
})

/** Whether `p256dh` is a point on P-256 (a browser's key; a made-up one would fail every encryption). */
function isP256Point(p256dh: string): boolean {
  try {
    const ecdh = createECDH('prime256v1')
    ecdh.generateKeys()
    ecdh.computeSecret(Buffer.from(p256dh, 'base64url'))
    return true
  } catch {
    return false
  }
}

export const webPushModule = defineModule({
  tag: 'web-push',
  description: "Web Push to the farm's browsers: the farm app's alerts while it is closed",
  schemas: [WebPushSubscription],
  routes: webPushRoutes,
})

async function webPushRoutes(app: App) {
  const db = app.database.db
  const { delivery } = app.config
  const publicKey = delivery.webPushPrivateKey ? webPushPublicKey(delivery.webPushPrivateKey) : undefined
  const OWN = "Access: the account owner's user token, or an integrator linked to the account"

  app.get(
    '/web-push/key',
    {
      schema: {
        operationId: 'getWebPushKey',
        summary: "The service's Web Push public key",
        description:
          'No token needed: the key a browser subscribes with (`pushManager.subscribe({ applicationServerKey })`) ' +
          `before registering the subscription. 404 \`${NOT_CONFIGURED}\` when the operator has no Web Push key ` +
          '(WEB_PUSH_PRIVATE_KEY unset with DATABASE_URL).',
        response: { 200: Envelope(WebPushKey, 'The public key') },
      },
      config: { access: 'public' },
    },
    async () => {
      if (!publicKey) throw notConfigured()
      return ok({ publicKey })
    },
  )

  app.get(
    '/users/:userId/web-push-subscriptions',
    {
      schema: {
        operationId: 'listWebPushSubscriptions',
        summary: 'The browsers registered for Web Push',
        description: `${OWN}. Every browser the account registered (at most ${MAX_WEB_PUSH_SUBSCRIPTIONS}), oldest first.`,
        params: UserIdParams,
        response: {
          200: Envelope(Type.Array(Type.Ref('WebPushSubscription'), { maxItems: MAX_WEB_PUSH_SUBSCRIPTIONS })),
        },
      },
      config: { access: 'own' },
    },
    async (req) => ok((await listWebPushSubscriptions(db, req.params.userId)).map(toApi)),
  )

  app.post(
    '/users/:userId/web-push-subscriptions',
    {
      schema: {
        operationId: 'registerWebPushSubscription',
        summary: 'Register a browser for Web Push',
        description:
          `${OWN} (integrators need write permission). Body: the browser's \`PushSubscription.toJSON()\` ` +
          "(`endpoint`, `keys`), the role whose alerts it gets (`rank`, as a phone's; without it, none) and a name. " +
          'Each event is then pushed to it as to the phones of that role, by the alert rules and their quiet hours, ' +
          'encrypted for the browser (RFC 8291) and signed with the service key (RFC 8292). Registering an endpoint ' +
          `the account already has updates it and answers 200; a new one answers 201. At most ${MAX_WEB_PUSH_SUBSCRIPTIONS} ` +
          `(409 beyond). 404 \`${NOT_CONFIGURED}\` without a Web Push key. A subscription its push service ends ` +
          '(404 or 410) is removed.',
        params: UserIdParams,
        body: WebPushSubscriptionBody,
        response: {
          201: Envelope(Type.Ref('WebPushSubscription'), 'Registered', 'Web push subscription registered'),
          200: Envelope(
            Type.Ref('WebPushSubscription'),
            'Already registered; updated',
            'Web push subscription updated',
          ),
          409: Type.Ref('ErrorEnvelope', { description: 'The account holds the most browsers allowed' }),
        },
      },
      config: { access: 'own', idempotent: true },
    },
    async (req, reply) => {
      if (!publicKey) throw notConfigured()
      const { endpoint, keys, rank, name } = req.body
      const problems = [
        ...[refusedUrl(endpoint, delivery.allowInsecure)].flatMap((m) =>
          m ? [{ field: 'endpoint', message: m }] : [],
        ),
        ...(isP256Point(keys.p256dh) ? [] : [{ field: 'keys.p256dh', message: 'is not a P-256 public key' }]),
      ]
      if (problems.length > 0) throw validationFailed(problems)
      const result = await registerWebPushSubscription(db, {
        uid: req.params.userId,
        endpoint,
        p256dh: keys.p256dh.replace(/=+$/, ''),
        auth: keys.auth.replace(/=+$/, ''),
        rank: rank ?? null,
        name: name ?? null,
        created_at: app.clock(),
      })
      if ('missingUser' in result) throw notFound('User')
      if ('full' in result)
        throw conflict(
          `An account holds at most ${MAX_WEB_PUSH_SUBSCRIPTIONS} web push subscriptions: remove one first`,
        )
      if (!result.created) return ok(toApi(result.row), 'Web push subscription updated')
      const path = `/users/${req.params.userId}/web-push-subscriptions/${result.row.id}`
      return created(reply, path, ok(toApi(result.row), 'Web push subscription registered'))
    },
  )

  app.get(
    '/users/:userId/web-push-subscriptions/:subscriptionId',
    {
      schema: {
        operationId: 'getWebPushSubscription',
        summary: 'A browser registered for Web Push',
        description: `${OWN}. One browser of the account, as its registration's \`Location\` names it.`,
        params: SubscriptionPath,
        response: {
          200: Envelope(Type.Ref('WebPushSubscription')),
          404: Type.Ref('ErrorEnvelope', { description: 'The account has no such subscription' }),
        },
      },
      config: { access: 'own' },
    },
    async (req) =>
      ok(
        toApi(
          orNotFound(
            await findWebPushSubscription(db, req.params.userId, req.params.subscriptionId),
            'Web push subscription',
          ),
        ),
      ),
  )

  app.delete(
    '/users/:userId/web-push-subscriptions/:subscriptionId',
    {
      schema: {
        operationId: 'deleteWebPushSubscription',
        summary: 'Remove a browser from Web Push',
        description: `${OWN} (integrators need delete permission). The browser gets no more alerts.`,
        params: SubscriptionPath,
        response: {
          200: Envelope(
            Type.Object(
              { id: Type.String({ maxLength: 64, examples: ['wps_Yc3q9LmT2vXa8KpR'] }) },
              { additionalProperties: false },
            ),
            'Removed',
            'Web push subscription removed',
          ),
          404: Type.Ref('ErrorEnvelope', { description: 'The account has no such subscription' }),
        },
      },
      config: { access: 'own' },
    },
    async (req) => {
      if (!(await deleteWebPushSubscription(db, req.params.userId, req.params.subscriptionId)))
        throw notFound('Web push subscription')
      return ok({ id: req.params.subscriptionId }, 'Web push subscription removed')
    },
  )
}
