// Ajv's validation errors as the `details` of a 400: one entry per field, with the field as a caller
// writes it (readings[3].c, query:limit, params:animalId) and a message a person can act on.
import type { FieldProblem } from './errors.ts'
import { patternInWords } from './input-patterns.ts'

const MAX_DETAILS = 50

/** The string formats in words, as the patterns. */
const FORMAT_WORDS: ReadonlyMap<string, string> = new Map([
  ['date', 'must be a date, YYYY-MM-DD'],
  ['date-time', 'must be an ISO 8601 date-time with seconds and an offset, YYYY-MM-DDTHH:mm:ss[.sss] and Z or ±HH:mm'],
  ['email', 'must be an e-mail address'],
  ['uuid', 'must be a UUID'],
])

export interface AjvIssue {
  instancePath: string
  keyword: string
  message?: string
  params: Record<string, unknown>
}

/** `part` is Fastify's validation context: body, querystring, params or headers. */
export function validationDetails(issues: readonly AjvIssue[], part: string): FieldProblem[] {
  return uniqueByField(issues.map((issue) => describeIssue(issue, part))).slice(0, MAX_DETAILS)
}

function describeIssue(issue: AjvIssue, part: string): FieldProblem {
  let path = jsonPointerToPath(issue.instancePath)
  let message = issue.message ?? 'is invalid'
  if (issue.keyword === 'required' && typeof issue.params.missingProperty === 'string') {
    path = joinPath(path, issue.params.missingProperty)
    message = 'is required'
  } else if (issue.keyword === 'additionalProperties' && typeof issue.params.additionalProperty === 'string') {
    path = joinPath(path, issue.params.additionalProperty)
    message = part === 'querystring' ? 'is not a parameter of this endpoint' : 'is not an allowed field'
  } else if (issue.keyword === 'const' || issue.keyword === 'enum') {
    const allowed = issue.params.allowedValues ?? issue.params.allowedValue
    message = `must be ${Array.isArray(allowed) ? `one of ${allowed.map((v) => JSON.stringify(v)).join(', ')}` : JSON.stringify(allowed)}`
  } else if (issue.keyword === 'pattern' && typeof issue.params.pattern === 'string') {
    message = patternInWords(issue.params.pattern) ?? message
  } else if (issue.keyword === 'type' && part === 'body' && path === '' && issue.params.type === 'object') {
    // Most often no body at all: a POST sent bare, to a route whose fields are all optional.
    message = 'the body must be a JSON object ({} when every field is optional), sent as application/json'
  } else if (issue.keyword === 'format' && typeof issue.params.format === 'string') {
    message = FORMAT_WORDS.get(issue.params.format) ?? message
  }
  const where = part === 'body' ? '' : `${part === 'querystring' ? 'query' : part}:`
  return { field: `${where}${path || '(root)'}`, message }
}

/** A failed union reports each branch at the same field; one line per field is what a caller can act on. */
export function uniqueByField(problems: FieldProblem[]): FieldProblem[] {
  const seen = new Set<string>()
  return problems.filter((p) => !seen.has(p.field) && seen.add(p.field))
}

function jsonPointerToPath(pointer: string): string {
  if (!pointer) return ''
  return pointer
    .slice(1)
    .split('/')
    .map((seg) => seg.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((acc, seg) => (/^\d+$/.test(seg) ? `${acc}[${seg}]` : joinPath(acc, seg)), '')
}

function joinPath(base: string, key: string): string {
  return base ? `${base}.${key}` : key
}
