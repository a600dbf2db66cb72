// What every fuzz response must be: no 5xx (but a 501 the operation documents), the error envelope
// whenever the status is 400 or more, and no stack trace or SQL in an error body.
import type { Operation } from './operations.ts'

export interface FuzzResponse {
  statusCode: number
  headers: Record<string, string | string[] | number | undefined>
  body: string
}

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/
const ENVELOPE_KEYS = new Set(['success', 'error', 'details', 'message', 'timestamp'])

/** Internals that must never reach a client: stack frames, file paths, SQL and the database's own messages. */
const LEAKS: RegExp[] = [
  /at .*\.[cm]?[jt]s:\d+/,
  /node_modules/,
  /\/work\/|\/src\//,
  /\bSELECT\b/,
  /\bINSERT INTO\b/,
  /\bUPDATE \w+ SET\b/,
  /\bDELETE FROM\b/,
  /relation "/,
  /syntax error/,
  /invalid input syntax/,
  /violates .* constraint/,
  /duplicate key value/,
  /\bPGlite\b/i,
  /\bpg_/,
  /ECONNREFUSED/,
  /TypeError|RangeError|ReferenceError/,
]

/** What is wrong with the response; empty when nothing is. `sent`: the request's URL and body, which a body may echo. */
export function responseProblems(operation: Operation, response: FuzzResponse, sent: string): string[] {
  const status = response.statusCode
  const problems: string[] = []
  if (status >= 500 && !(status === 501 && operation.documentedStatuses.has(501))) problems.push(`status ${status}`)
  const contentType = String(response.headers['content-type'] ?? '')
  if (status < 400) return [...problems, ...successProblems(contentType, response.body)]

  if (!contentType.startsWith('application/json')) problems.push(`error body with content-type "${contentType}"`)
  let body: unknown
  try {
    body = JSON.parse(response.body)
  } catch {
    return [...problems, 'error body is not JSON']
  }
  problems.push(...envelopeProblems(body))
  for (const leak of LEAKS) {
    const found = leak.exec(response.body)
    if (found && !sent.includes(found[0])) problems.push(`error body leaks internals: ${found[0]}`)
  }
  return problems
}

/** A JSON success body parses and never says `success: false` (GET /metrics and the docs answer other types). */
function successProblems(contentType: string, text: string): string[] {
  if (!contentType.startsWith('application/json')) return []
  try {
    const body = JSON.parse(text) as { success?: unknown } | null
    return body?.success === false ? ['success body with success: false'] : []
  } catch {
    return ['success body is not JSON']
  }
}

function envelopeProblems(body: unknown): string[] {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return ['error body is not an object']
  const envelope = body as Record<string, unknown>
  const problems: string[] = []
  if (envelope.success !== false) problems.push('error body without success: false')
  if (typeof envelope.error !== 'string' || envelope.error === '') problems.push('error body without an error text')
  if (typeof envelope.timestamp !== 'string' || !ISO_TIME.test(envelope.timestamp))
    problems.push('error body without an ISO timestamp')
  const unexpected = Object.keys(envelope).filter((key) => !ENVELOPE_KEYS.has(key))
  if (unexpected.length > 0) problems.push(`error body with keys outside the envelope: ${unexpected.join(', ')}`)
  if (envelope.details !== undefined) {
    const details = envelope.details
    const wellFormed =
      Array.isArray(details) &&
      details.every(
        (d: unknown) =>
          d !== null &&
          typeof d === 'object' &&
          typeof (d as Record<string, unknown>).field === 'string' &&
          typeof (d as Record<string, unknown>).message === 'string',
      )
    if (!wellFormed) problems.push('error details are not [{field, message}]')
  }
  return problems
}
