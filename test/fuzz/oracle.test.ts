// Store-independent: runs in the embedded pass of npm test only (test/run.ts).
// The fuzz suite's oracle (it runs with `npm run test:fuzz`, not here): each kind of breach it must report.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { responseProblems, type FuzzResponse } from './oracle.ts'
import type { Operation } from './operations.ts'

const operation = (documented: number[]): Operation => ({
  id: 'GET /api/v1/probe',
  method: 'GET',
  path: '/api/v1/probe',
  pathParameters: [],
  queryParameters: [],
  headerParameters: [],
  body: undefined,
  documentedStatuses: new Set(documented),
  access: 'public',
  isPublic: true,
})
const json = { 'content-type': 'application/json; charset=utf-8' }
const envelope = (error: string, extra: object = {}) =>
  JSON.stringify({ success: false, error, ...extra, timestamp: '2026-11-23T10:00:00.000Z' })
const response = (statusCode: number, body: string, headers: FuzzResponse['headers'] = json): FuzzResponse => ({
  statusCode,
  headers,
  body,
})

describe('fuzz oracle', () => {
  it('accepts a well-formed error and a success', () => {
    assert.deepEqual(
      responseProblems(
        operation([]),
        response(400, envelope('Validation failed', { details: [{ field: 'a', message: 'is required' }] })),
        '',
      ),
      [],
    )
    assert.deepEqual(responseProblems(operation([]), response(200, '{"success":true,"data":{}}'), ''), [])
    assert.deepEqual(
      responseProblems(operation([]), response(200, '# HELP x', { 'content-type': 'text/plain' }), ''),
      [],
    )
  })

  it('reports a 5xx, unless it is a 501 the operation documents', () => {
    assert.deepEqual(responseProblems(operation([]), response(500, envelope('Internal server error')), ''), [
      'status 500',
    ])
    assert.deepEqual(responseProblems(operation([]), response(503, envelope('Unavailable')), ''), ['status 503'])
    assert.deepEqual(responseProblems(operation([501]), response(501, envelope('Not configured')), ''), [])
  })

  it('reports an error outside the envelope', () => {
    assert.deepEqual(
      responseProblems(operation([]), response(400, '<html>bad</html>', { 'content-type': 'text/html' }), ''),
      ['error body with content-type "text/html"', 'error body is not JSON'],
    )
    assert.deepEqual(
      responseProblems(operation([]), response(404, '{"statusCode":404,"error":"Not Found","message":"x"}'), ''),
      [
        'error body without success: false',
        'error body without an ISO timestamp',
        'error body with keys outside the envelope: statusCode',
      ],
    )
    assert.deepEqual(responseProblems(operation([]), response(400, envelope('x', { details: 'a' })), ''), [
      'error details are not [{field, message}]',
    ])
    assert.deepEqual(responseProblems(operation([]), response(200, '{"success":false}'), ''), [
      'success body with success: false',
    ])
  })

  it('reports internals in an error body, unless the request sent that text', () => {
    const leak = envelope('select failed: SELECT * FROM users at query (/app/src/db/x.ts:12:3)')
    const problems = responseProblems(operation([]), response(400, leak), '')
    assert.ok(
      problems.some((p) => p.includes('SELECT')) && problems.some((p) => p.includes('x.ts:12')),
      problems.join('; '),
    )
    assert.deepEqual(
      responseProblems(
        operation([]),
        response(404, envelope("Route GET /api/v1/'; SELECT 1 not found")),
        "/api/v1/'; SELECT 1",
      ),
      [],
    )
  })
})
