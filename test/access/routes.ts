// Every route of the service with the access rule it must enforce. The matrix test fails when a
// route exists that this table does not name, so each new route joins the matrix here.
//
// Path placeholders: :userId is the owning user's Uid; :integratorUid an integrator's UID. Later
// resources add theirs to `fillPath` in matrix.test.ts.

export type Rule =
  | 'public' // anyone, any header
  | 'bearer' // any valid access token
  | 'userToken' // a user token (acting on its own account)
  | 'own' // owner of :userId, or an integrator linked to it (write/delete permission for writes/deletes)
  | 'sensorData' // integrator token on Pro/Enterprise, linked to :userId; user tokens never
  | 'admin' // user token with Admin
  | 'bdUser' // user token with BDUser
  | 'metrics' // public unless METRICS_TOKEN is set

export interface RouteCase {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'
  url: string
  rule: Rule
  /** Body sent with the request, when the route takes one. */
  body?: (ids: { integratorUid: string }) => unknown
}

export const routes: RouteCase[] = [
  { method: 'GET', url: '/api/v1/health', rule: 'public' },
  { method: 'GET', url: '/api/v1/health/ready', rule: 'public' },
  { method: 'GET', url: '/api/v1/openapi.json', rule: 'public' },
  { method: 'GET', url: '/api/v1/docs', rule: 'public' },
  { method: 'GET', url: '/api/v1/docs/', rule: 'public' },
  { method: 'GET', url: '/api/v1/docs/openapi.json', rule: 'public' },
  { method: 'GET', url: '/api/v1/docs/openapi.yaml', rule: 'public' },
  { method: 'GET', url: '/api/v1/docs/js/scalar.js', rule: 'public' },
  { method: 'GET', url: '/metrics', rule: 'metrics' },

  { method: 'GET', url: '/api/v1/tokens', rule: 'public' },
  { method: 'POST', url: '/api/v1/tokens', rule: 'public', body: ({ integratorUid }) => ({ integratorUID: integratorUid }) },
  { method: 'POST', url: '/api/v1/tokens/refresh', rule: 'public', body: () => ({ refreshToken: 'x.y.z' }) },
  { method: 'POST', url: '/api/v1/tokens/login', rule: 'public', body: () => ({ email: 'nobody@farm.example', password: 'whatever1' }) },
  { method: 'POST', url: '/api/v1/tokens/verify-id-token', rule: 'public', body: () => ({ idToken: 'x.y.z' }) },
  { method: 'GET', url: '/api/v1/tokens/validate', rule: 'bearer' },
  { method: 'GET', url: '/api/v1/tokens/info', rule: 'bearer' },
  { method: 'POST', url: '/api/v1/tokens/revoke', rule: 'bearer' },
  { method: 'POST', url: '/api/v1/tokens/logout', rule: 'userToken' },

  { method: 'POST', url: '/api/v1/partners/link', rule: 'userToken', body: ({ integratorUid }) => ({ integratorUID: integratorUid }) },
  { method: 'DELETE', url: '/api/v1/partners/link/:integratorUid', rule: 'userToken' },
]
