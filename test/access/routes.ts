// Every route of the service with the access rule it must enforce. The matrix test fails when a
// route exists that this table does not name, so each new route joins the matrix here.
//
// Path placeholders: :userId is the owning user's Uid; :integratorUid an integrator's UID; :animalId and
// :animalMac an animal of that user. Later resources add theirs to `fillPath` in matrix.test.ts.

import { PASSWORD } from '../support/fixtures.ts'

export type Rule =
  | 'public' // anyone, any header
  | 'bearer' // any valid access token
  | 'userToken' // a user token (acting on its own account)
  | 'self' // the user token of :userId itself (other users and integrators never)
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
  body?: (ids: { integratorUid: string; userEmail: string }) => unknown
  /** The request may delete the :userId account: the matrix restores it (with its links) after each caller. */
  deletesUser?: true
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

  { method: 'GET', url: '/api/v1/users', rule: 'admin' },
  { method: 'POST', url: '/api/v1/users', rule: 'bdUser', body: () => ({ Uid: 'matrix-created', Email: 'matrix-created@farm.example', Name: 'Matrix' }) },
  { method: 'GET', url: '/api/v1/users/search', rule: 'bdUser' },
  { method: 'GET', url: '/api/v1/users/:userId', rule: 'own' },
  // The owner's own e-mail: only the owner may change it, and the matrix is about access, not that rule.
  { method: 'PUT', url: '/api/v1/users/:userId', rule: 'own', body: ({ userEmail }) => ({ Email: userEmail, Name: 'Matrix owner' }) },
  { method: 'PATCH', url: '/api/v1/users/:userId', rule: 'own', body: () => ({ Name: 'Matrix owner' }) },
  { method: 'GET', url: '/api/v1/users/:userId/profile', rule: 'own' },
  { method: 'GET', url: '/api/v1/users/:userId/push-tokens', rule: 'own' },
  { method: 'POST', url: '/api/v1/users/:userId/push-tokens', rule: 'own', body: () => ({ token: 'matrix-token', customName: '', name: 'Phone', email: 'owner@farm.example' }) },
  { method: 'PATCH', url: '/api/v1/users/:userId/status', rule: 'own', body: () => ({ flagged: false }) },
  { method: 'POST', url: '/api/v1/users/:userId/password', rule: 'self', body: () => ({ currentPassword: PASSWORD, newPassword: 'a changed password' }) },

  // Animals: the registry is 'own'; every /sensordata* path (ingestion included) is 'sensorData'. Reading
  // /locations is 'own' (the spec's tier rule names /sensordata only); writing it follows ingestion.
  { method: 'GET', url: '/api/v1/users/:userId/animals', rule: 'own' },
  { method: 'GET', url: '/api/v1/users/:userId/animals/search', rule: 'own' },
  { method: 'GET', url: '/api/v1/users/:userId/animals/:animalId', rule: 'own' },
  { method: 'POST', url: '/api/v1/users/:userId/animals', rule: 'own', body: () => ({ MAC: 'AA:BB:CC:00:00:99', Sex: 'female' }) },
  { method: 'PATCH', url: '/api/v1/users/:userId/animals/:animalId', rule: 'own', body: () => ({ Group: 'Matrix' }) },
  { method: 'POST', url: '/api/v1/users/:userId/animals/:animalMac/sensordata', rule: 'sensorData', body: () => ({ readings: [{ t: Date.now() - 60_000, c: 38.2, x: 0, y: 0, z: 1 }] }) },
  { method: 'POST', url: '/api/v1/users/:userId/animals/:animalMac/locations', rule: 'sensorData', body: () => ({ readings: [{ t: Date.now() - 60_000, rssi: -60, nodeuid: 'node-1' }] }) },
  { method: 'GET', url: '/api/v1/users/:userId/animals/:animalMac/locations', rule: 'own' },
  { method: 'GET', url: '/api/v1/users/:userId/animals/:animalMac/sensordata', rule: 'sensorData' },
  { method: 'GET', url: '/api/v1/users/:userId/animals/:animalMac/sensordata/latest', rule: 'sensorData' },
  { method: 'GET', url: '/api/v1/users/:userId/animals/:animalMac/sensordata/analytics', rule: 'sensorData' },
  { method: 'DELETE', url: '/api/v1/users/:userId/animals/:animalId', rule: 'own' },
  // Last: deleting the owner cascades away its animals and readings, which the rows above read.
  { method: 'DELETE', url: '/api/v1/users/:userId', rule: 'own', deletesUser: true },
]
