// Every route of the service with the access rule it must enforce. The matrix test fails when a
// route exists that this table does not name, so each new route joins the matrix here.
//
// Path placeholders: :userId is the owning user's Uid; :integratorUid an integrator's UID; :animalId and
// :animalMac an animal of that user. Later resources add theirs to `fillPath` in matrix.test.ts.

import { PASSWORD } from '../support/fixtures.ts'

/** The owner's animal that every animal route and record names. */
export const MATRIX_MAC = 'AA:BB:CC:00:00:01'
/** The owner's litter-monitoring device that every device route names (:macAddress). */
export const MATRIX_DEVICE_MAC = 'DD:EE:FF:00:00:01'

// The spec's "Treatments, births and inseminations at user level" table: collection, item parameter, a valid create body.
const USER_LEVEL: [string, string, (uid: string) => object][] = [
  [
    'treatments',
    'treatmentId',
    () => ({
      Mac: MATRIX_MAC,
      Medicine: 'Amoxicillin',
      Diagnose: 'Cough',
      CustomName: 'Dr. Hansen',
      Comment: 'Matrix',
      TreatmentAmount: 2,
      TreatmentCount: 0,
      TreatmentInterval: 24,
      StartDate: '2026-11-01',
      StartDateSeconds: 1793491200,
      Archived: false,
      PhoneHistory: [],
    }),
  ],
  [
    'births',
    'birthId',
    (uid) => ({
      MAC: MATRIX_MAC,
      Living: 12,
      Dead: 1,
      StartDate: '2026-11-01',
      StartTime: '06:40',
      Comment: 'Matrix',
      Archived: false,
      Uid: uid,
    }),
  ],
  [
    'inseminations',
    'inseminationId',
    (uid) => ({
      MAC: MATRIX_MAC,
      Boar: 'Duroc',
      GeneticLine: 'Landrace',
      Tubes: 2,
      StartDate: '2026-11-01',
      StartTime: '07:15',
      Archived: false,
      Occupied: true,
      Uid: uid,
    }),
  ],
]

// The spec's "Per-animal production records" table: segment, item parameter, has range, a valid create body.
const PER_ANIMAL: [string, string, boolean, object][] = [
  ['births', 'birthId', true, { Living: 10, Dead: 0, StartDate: '2026-10-01' }],
  ['inseminations', 'inseminationId', true, { Boar: 'Duroc', StartDate: '2026-10-01' }],
  ['general-events', 'eventId', false, { Diagnose: 'Note', Description: 'Matrix' }],
  ['pregnancy-checks', 'checkId', false, { checkDate: '2026-10-25', result: 'pregnant' }],
  ['return-to-estrus', 'eventId', false, { returnDate: '2026-10-22', returnType: 'regular', daysSinceService: 21 }],
  ['weanings', 'weaningId', false, { weaningDate: '2026-10-29', countWeaned: 11 }],
  ['movements', 'movementId', false, { movementDate: '2026-10-20', fromStage: 'gestation', toStage: 'farrowing' }],
]

/** A record of each collection and level that the matrix creates first, for the item routes (see matrix.test.ts). */
export const recordFixtures = [
  ...USER_LEVEL.map(([segment, , body]) => ({ path: `/${segment}`, segment, level: 'user' as const, body })),
  ...PER_ANIMAL.map(([segment, , , body]) => ({
    path: `/animals/${MATRIX_MAC}/${segment}`,
    segment,
    level: 'animal' as const,
    body: () => body,
  })),
]

/** Every record route is `own`: reads, then creates and changes, then deletes (the item rows read before they are deleted). */
function recordRoutes(): RouteCase[] {
  const reads: RouteCase[] = []
  const writes: RouteCase[] = []
  const deletes: RouteCase[] = []
  for (const [segment, param, body] of USER_LEVEL) {
    const base = `/api/v1/users/:userId/${segment}`
    for (const view of ['', '/search', '/active', '/archived', `/:${param}`])
      reads.push({ method: 'GET', url: `${base}${view}`, rule: 'own' })
    writes.push({ method: 'POST', url: base, rule: 'own', body: ({ userUid }) => body(userUid) })
    writes.push({ method: 'PATCH', url: `${base}/:${param}`, rule: 'own', body: () => ({ Archived: true }) })
    deletes.push({ method: 'DELETE', url: `${base}/:${param}`, rule: 'own' })
  }
  reads.push({ method: 'GET', url: '/api/v1/users/:userId/births/statistics', rule: 'own' })
  for (const [segment, param, range, body] of PER_ANIMAL) {
    const base = `/api/v1/users/:userId/animals/:animalMac/${segment}`
    for (const view of ['', '/recent', `/:${param}`]) reads.push({ method: 'GET', url: `${base}${view}`, rule: 'own' })
    if (range) reads.push({ method: 'GET', url: `${base}/range?startDate=2026-01-01&endDate=2026-12-31`, rule: 'own' })
    writes.push({ method: 'POST', url: base, rule: 'own', body: () => body })
    writes.push({ method: 'PATCH', url: `${base}/:${param}`, rule: 'own', body: () => ({ Archived: true }) })
    deletes.push({ method: 'DELETE', url: `${base}/:${param}`, rule: 'own' })
  }
  return [...reads, ...writes, ...deletes]
}

/**
 * Litter-monitoring devices: the registry and analytics are 'own'; every /sensordata path (ingestion included)
 * is 'sensorData'. Reads, then writes, then the delete (a later caller's delete meets the documented 404).
 */
function litterguardRoutes(): RouteCase[] {
  const base = '/api/v1/users/:userId/litterguards'
  const item = `${base}/:macAddress`
  return [
    { method: 'GET', url: base, rule: 'own' },
    { method: 'GET', url: `${base}/search`, rule: 'own' },
    { method: 'GET', url: `${base}/summary`, rule: 'own' },
    { method: 'GET', url: item, rule: 'own' },
    { method: 'GET', url: `${item}/sensordata`, rule: 'sensorData' },
    { method: 'GET', url: `${item}/sensordata/latest`, rule: 'sensorData' },
    { method: 'GET', url: `${item}/sensordata/aggregate`, rule: 'sensorData' },
    { method: 'GET', url: `${item}/analytics`, rule: 'own' },
    // A later caller's create of the same MAC meets the documented 409.
    { method: 'POST', url: base, rule: 'own', body: () => ({ MAC: 'DD:EE:FF:00:00:99', Name: 'Matrix created' }) },
    { method: 'PATCH', url: item, rule: 'own', body: () => ({ Name: 'Matrix device' }) },
    {
      method: 'POST',
      url: `${item}/sensordata`,
      rule: 'sensorData',
      body: () => ({ readings: [{ t: Math.floor(Date.now() / 1000) - 60, c: 30.5, x: 0, y: 0, z: 1 }] }),
    },
    { method: 'DELETE', url: item, rule: 'own' },
  ]
}

export type Rule =
  | 'public' // anyone, any header
  | 'bearer' // any valid access token
  | 'userToken' // a user token (acting on its own account)
  | 'integratorToken' // an integrator token (acting on its own behalf)
  | 'self' // the user token of :userId itself (other users and integrators never)
  | 'own' // owner of :userId, or an integrator linked to it (write/delete permission for writes/deletes)
  | 'sensorData' // integrator token on Pro/Enterprise, linked to :userId; user tokens never
  | 'admin' // user token with Admin
  | 'bdUser' // user token with BDUser
  | 'metrics' // closed (404) unless METRICS_TOKEN or METRICS_PUBLIC=on: the same answer to every API caller

export interface RouteCase {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'
  url: string
  rule: Rule
  /** Body sent with the request, when the route takes one. */
  body?: (ids: { integratorUid: string; userEmail: string; userUid: string }) => unknown
  /** The path names an item of the caller's own that the matrix does not create (a webhook subscription): a 404 counts as access. */
  callersOwnItem?: true
  /** The request may delete the :userId account: the matrix restores it (with its links) after each caller. */
  deletesUser?: true
  /** The answer is a stream that does not end (Server-Sent Events): the matrix reads its status over a real port. */
  stream?: true
}

export const routes: RouteCase[] = [
  { method: 'GET', url: '/', rule: 'public' },
  { method: 'GET', url: '/api/v1', rule: 'public' },
  { method: 'GET', url: '/api/v1/health', rule: 'public' },
  { method: 'GET', url: '/api/v1/health/ready', rule: 'public' },
  { method: 'GET', url: '/api/v1/openapi.json', rule: 'public' },
  { method: 'GET', url: '/app', rule: 'public' },
  { method: 'GET', url: '/app/', rule: 'public' },
  { method: 'GET', url: '/app/:file', rule: 'public' },
  { method: 'GET', url: '/api/v1/docs', rule: 'public' },
  { method: 'GET', url: '/api/v1/docs/', rule: 'public' },
  { method: 'GET', url: '/api/v1/docs/openapi.json', rule: 'public' },
  { method: 'GET', url: '/api/v1/docs/openapi.yaml', rule: 'public' },
  { method: 'GET', url: '/api/v1/docs/js/scalar.js', rule: 'public' },
  { method: 'GET', url: '/metrics', rule: 'metrics' },

  { method: 'GET', url: '/api/v1/tokens', rule: 'public' },
  {
    method: 'POST',
    url: '/api/v1/tokens',
    rule: 'public',
    body: ({ integratorUid }) => ({ integratorUID: integratorUid }),
  },
  { method: 'POST', url: '/api/v1/tokens/refresh', rule: 'public', body: () => ({ refreshToken: 'x.y.z' }) },
  {
    method: 'POST',
    url: '/api/v1/tokens/login',
    rule: 'public',
    body: () => ({ email: 'nobody@farm.example', password: 'whatever1' }),
  },
  { method: 'POST', url: '/api/v1/tokens/verify-id-token', rule: 'public', body: () => ({ idToken: 'x.y.z' }) },
  { method: 'GET', url: '/api/v1/tokens/validate', rule: 'bearer' },
  { method: 'GET', url: '/api/v1/tokens/info', rule: 'bearer' },
  { method: 'POST', url: '/api/v1/tokens/revoke', rule: 'bearer' },
  { method: 'POST', url: '/api/v1/tokens/logout', rule: 'userToken' },
  { method: 'GET', url: '/api/v1/tokens/usage', rule: 'integratorToken' },

  // Webhook subscriptions (docs/delivery.md): the integrator's own; :subscriptionId names none of them here.
  {
    method: 'POST',
    url: '/api/v1/webhooks/subscriptions',
    rule: 'integratorToken',
    body: () => ({ url: 'https://fms.example/hooks' }),
  },
  { method: 'GET', url: '/api/v1/webhooks/subscriptions', rule: 'integratorToken' },
  {
    method: 'GET',
    url: '/api/v1/webhooks/subscriptions/:subscriptionId',
    rule: 'integratorToken',
    callersOwnItem: true,
  },
  {
    method: 'PATCH',
    url: '/api/v1/webhooks/subscriptions/:subscriptionId',
    rule: 'integratorToken',
    body: () => ({ enabled: false }),
  },
  { method: 'DELETE', url: '/api/v1/webhooks/subscriptions/:subscriptionId', rule: 'integratorToken' },
  {
    method: 'POST',
    url: '/api/v1/webhooks/subscriptions/:subscriptionId/rotate-secret',
    rule: 'integratorToken',
    body: () => ({}),
  },
  { method: 'POST', url: '/api/v1/webhooks/subscriptions/:subscriptionId/test', rule: 'integratorToken' },
  {
    method: 'GET',
    url: '/api/v1/webhooks/subscriptions/:subscriptionId/deliveries',
    rule: 'integratorToken',
    callersOwnItem: true,
  },
  {
    method: 'POST',
    url: '/api/v1/webhooks/subscriptions/:subscriptionId/redeliver',
    rule: 'integratorToken',
    body: () => ({ since: 0 }),
  },

  {
    method: 'POST',
    url: '/api/v1/partners/link',
    rule: 'userToken',
    body: ({ integratorUid }) => ({ integratorUID: integratorUid }),
  },
  { method: 'DELETE', url: '/api/v1/partners/link/:integratorUid', rule: 'userToken' },

  { method: 'GET', url: '/api/v1/users', rule: 'admin' },
  {
    method: 'POST',
    url: '/api/v1/users',
    rule: 'bdUser',
    body: () => ({ Uid: 'matrix-created', Email: 'matrix-created@farm.example', Name: 'Matrix' }),
  },
  { method: 'GET', url: '/api/v1/users/search', rule: 'bdUser' },
  { method: 'GET', url: '/api/v1/users/:userId', rule: 'own' },
  // The owner's own e-mail: only the owner may change it, and the matrix is about access, not that rule.
  {
    method: 'PUT',
    url: '/api/v1/users/:userId',
    rule: 'own',
    body: ({ userEmail }) => ({ Email: userEmail, Name: 'Matrix owner' }),
  },
  { method: 'PATCH', url: '/api/v1/users/:userId', rule: 'own', body: () => ({ Name: 'Matrix owner' }) },
  { method: 'GET', url: '/api/v1/users/:userId/profile', rule: 'own' },
  { method: 'GET', url: '/api/v1/users/:userId/push-tokens', rule: 'own' },
  {
    method: 'POST',
    url: '/api/v1/users/:userId/push-tokens',
    rule: 'own',
    body: () => ({ token: 'matrix-token', customName: '', name: 'Phone', email: 'owner@farm.example' }),
  },
  { method: 'PATCH', url: '/api/v1/users/:userId/status', rule: 'own', body: () => ({ flagged: false }) },
  // Web Push: the service's public key for anyone; an account's browsers as its phones.
  { method: 'GET', url: '/api/v1/web-push/key', rule: 'public' },
  { method: 'GET', url: '/api/v1/users/:userId/web-push-subscriptions', rule: 'own' },
  {
    method: 'POST',
    url: '/api/v1/users/:userId/web-push-subscriptions',
    rule: 'own',
    body: () => ({
      endpoint: 'https://push.example.net/matrix',
      keys: {
        p256dh: 'BNoZbNfyqMsG4wrw7xXc8_yLRkYNEYou9jWzrpOfXmHnxvNKynP_zUOvDOTo9vS8E6wSpFmoSVxbWHpVr3TSTdk',
        auth: '-IcyBjgD54PiDQnADDFQMA',
      },
      rank: 3,
    }),
  },
  {
    method: 'GET',
    url: '/api/v1/users/:userId/web-push-subscriptions/:subscriptionId',
    rule: 'own',
    callersOwnItem: true,
  },
  { method: 'DELETE', url: '/api/v1/users/:userId/web-push-subscriptions/:subscriptionId', rule: 'own' },
  // The access log: which integrators read the farm's data; integrators never see each other's requests.
  { method: 'GET', url: '/api/v1/users/:userId/access-log', rule: 'self' },
  { method: 'GET', url: '/api/v1/users/:userId/integrators', rule: 'self' },
  {
    method: 'POST',
    url: '/api/v1/users/:userId/password',
    rule: 'self',
    body: () => ({ currentPassword: PASSWORD, newPassword: 'a changed password' }),
  },
  // Confirming a new e-mail address: the owner's own token and the mailed code (a wrong one is a 400).
  {
    method: 'POST',
    url: '/api/v1/users/:userId/email-confirmation',
    rule: 'self',
    body: () => ({ code: 'not-the-code' }),
  },

  // Animals: the registry is 'own'; every /sensordata* path (ingestion included) is 'sensorData'. Reading
  // /locations is 'own' (the spec's tier rule names /sensordata only); writing it follows ingestion.
  { method: 'GET', url: '/api/v1/users/:userId/animals', rule: 'own' },
  { method: 'GET', url: '/api/v1/users/:userId/animals/search', rule: 'own' },
  { method: 'GET', url: '/api/v1/users/:userId/animals/:animalId', rule: 'own' },
  {
    method: 'POST',
    url: '/api/v1/users/:userId/animals',
    rule: 'own',
    body: () => ({ MAC: 'AA:BB:CC:00:00:99', Sex: 'female' }),
  },
  { method: 'PATCH', url: '/api/v1/users/:userId/animals/:animalId', rule: 'own', body: () => ({ Group: 'Matrix' }) },
  {
    method: 'POST',
    url: '/api/v1/users/:userId/animals/:animalMac/sensordata',
    rule: 'sensorData',
    body: () => ({ readings: [{ t: Date.now() - 60_000, c: 38.2, x: 0, y: 0, z: 1 }] }),
  },
  {
    method: 'POST',
    url: '/api/v1/users/:userId/animals/:animalMac/locations',
    rule: 'sensorData',
    body: () => ({ readings: [{ t: Date.now() - 60_000, rssi: -60, nodeuid: 'node-1' }] }),
  },
  { method: 'GET', url: '/api/v1/users/:userId/animals/:animalMac/locations', rule: 'own' },
  { method: 'GET', url: '/api/v1/users/:userId/animals/:animalMac/sensordata', rule: 'sensorData' },
  { method: 'GET', url: '/api/v1/users/:userId/animals/:animalMac/sensordata/latest', rule: 'sensorData' },
  { method: 'GET', url: '/api/v1/users/:userId/animals/:animalMac/sensordata/analytics', rule: 'sensorData' },
  { method: 'GET', url: '/api/v1/users/:userId/animals/:animalMac/sensordata/aggregate', rule: 'sensorData' },
  ...litterguardRoutes(),
  ...recordRoutes(),
  // AI predictions: every route 'own'; POST is the external model's write (integrators need canWrite).
  { method: 'GET', url: '/api/v1/users/:userId/animals/:animalMac/predictions', rule: 'own' },
  { method: 'GET', url: '/api/v1/users/:userId/animals/:animalMac/predictions/recent', rule: 'own' },
  {
    method: 'GET',
    url: '/api/v1/users/:userId/animals/:animalMac/predictions/range?startDate=2026-01-01&endDate=2026-12-31',
    rule: 'own',
  },
  { method: 'GET', url: '/api/v1/users/:userId/animals/:animalMac/predictions/:classificationType', rule: 'own' },
  {
    method: 'POST',
    url: '/api/v1/users/:userId/animals/:animalMac/predictions',
    rule: 'own',
    body: () => ({ classificationType: 'birth', results: [{ timestamp: '2026-11-02T06:00:00Z', probability: 0.82 }] }),
  },
  // The herd's reproduction from its records (docs/herd-performance.md): reads, 'own'.
  { method: 'GET', url: '/api/v1/users/:userId/animals/:animalMac/cycle', rule: 'own' },
  { method: 'GET', url: '/api/v1/users/:userId/due-lists', rule: 'own' },
  { method: 'GET', url: '/api/v1/users/:userId/kpis?from=2026-01-01&to=2026-03-31', rule: 'own' },
  { method: 'GET', url: '/api/v1/users/:userId/predictions/accuracy', rule: 'own' },
  { method: 'GET', url: '/api/v1/users/:userId/predictions/settings', rule: 'own' },
  // Events and alert rules: every route 'own'; PATCH and PUT are writes (integrators need canWrite).
  { method: 'GET', url: '/api/v1/users/:userId/events', rule: 'own' },
  { method: 'GET', url: '/api/v1/users/:userId/events/stream', rule: 'own', stream: true },
  { method: 'GET', url: '/api/v1/users/:userId/events/:eventId', rule: 'own' },
  {
    method: 'PATCH',
    url: '/api/v1/users/:userId/events/:eventId',
    rule: 'own',
    body: () => ({ status: 'acknowledged' }),
  },
  { method: 'GET', url: '/api/v1/users/:userId/animals/:animalMac/events', rule: 'own' },
  { method: 'GET', url: '/api/v1/users/:userId/alert-rules', rule: 'own' },
  {
    method: 'PUT',
    url: '/api/v1/users/:userId/alert-rules',
    rule: 'own',
    body: () => ({ thresholds: { gestationDays: 116 } }),
  },
  // An animal that has records answers 409 (documented): they are never deleted silently.
  { method: 'DELETE', url: '/api/v1/users/:userId/animals/:animalId', rule: 'own' },
  // Last: deleting the owner cascades away its animals, readings and records, which the rows above read.
  { method: 'DELETE', url: '/api/v1/users/:userId', rule: 'self', deletesUser: true },
]
