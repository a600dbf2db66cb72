// Ajv's validation errors as the `details` of a 400: one entry per field, with the field as a caller
// writes it (readings[3].c, query:limit, params:animalId) and a message a person can act on.
import type { FieldProblem } from './errors.ts'

const MAX_DETAILS = 50

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
