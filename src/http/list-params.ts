// The spec's common list query parameters: page, limit, sortBy, sortOrder and filter (deep-object
// form `filter[Field]=value`). One schema builder and one filter parser serve every list endpoint.
import Type, { type TSchema } from 'typebox'
import type { Limits } from '../config.ts'
import { validationFailed } from './errors.ts'
import { HowMany, Integer } from './schema-types.ts'
import { EXPENSIVE_PAGE_OFFSET } from './route-policy.ts'

export type FieldKind = 'string' | 'number' | 'integer' | 'boolean'

/** The fields a list can be sorted and filtered by: API field name → kind. */
export type ListFields = Record<string, FieldKind>

export interface ListParams {
  page: number
  limit: number
  sortBy: string
  sortOrder: 'asc' | 'desc'
}

/** The highest page number: beyond it an offset would leave any list (a bound, so that no number overflows SQL). */
export const PAGE_MAX = 1_000_000

export const SortOrder = Type.Unsafe<'asc' | 'desc'>({
  type: 'string',
  enum: ['asc', 'desc'],
  default: 'desc',
  description: 'asc or desc',
  examples: ['asc'],
})

/** A string enum that validates and documents as `enum` (one error line, not one per branch); the example is the first value unless given. */
export function StringEnum<T extends string>(
  values: readonly T[],
  options: { default?: T; description?: string; examples?: T[] } = {},
) {
  return Type.Unsafe<T>({ type: 'string', enum: [...values], examples: [values[0]], ...options })
}

/** The common `page` parameter, which documents the bound on a page's depth (plugins/pagination-links.ts). */
export function pageParameter(limits: Limits) {
  return Integer({
    minimum: 1,
    maximum: PAGE_MAX,
    default: 1,
    description:
      `Page number, 1-${PAGE_MAX}. A page may skip at most ${limits.pageOffsetMax} items: (page - 1) × limit ≤ ` +
      `${limits.pageOffsetMax}, else 400 naming the deepest page for that limit (the \`last\` link never points past it). ` +
      `A page deeper than ${EXPENSIVE_PAGE_OFFSET} items, or sorted by another field than the default, is an expensive request` +
      (limits.expensiveRequestsPerCaller > 0
        ? ` (429 past ${limits.expensiveRequestsPerCaller} at once per caller).`
        : '.'),
    examples: [2],
  })
}

/**
 * The common list parameters as schema properties. `sortBy` accepts only the given fields (unknown → 400).
 * Compose them into a query schema with listQueryOptions, which lets `filter[Field]` keys through as
 * strings for parseFilters to check:
 *   querystring: Type.Object({ ...listQueryProperties(limits, fields, 't'), group: Type.Optional(Type.String()) }, listQueryOptions)
 */
export function listQueryProperties(
  limits: Limits,
  fields: ListFields,
  defaultSort: string,
  filterFields?: ListFields,
  filterSchemas: Record<string, TSchema> = {},
) {
  return {
    page: pageParameter(limits),
    limit: HowMany('Page size', limits.pageLimitMax, limits.pageLimitDefault, 25),
    sortBy: StringEnum(Object.keys(fields), {
      default: defaultSort,
      description: 'Field to sort by',
      examples: [defaultSort],
    }),
    sortOrder: SortOrder,
    ...(filterFields ? { filter: filterParameter(filterFields, filterSchemas) } : {}),
  }
}

const KIND_SCHEMA: Record<FieldKind, () => TSchema> = {
  string: () => Type.String({ maxLength: 200 }),
  number: () => Type.Number(),
  integer: () => Integer({ minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER }),
  boolean: () => Type.Boolean(),
}

/**
 * `filter[Field]=value` as the OpenAPI document shows it: one deepObject parameter whose properties are the
 * fields, so that generated clients can type it (docs.ts sets style deepObject). The query parser delivers
 * the pairs as `filter[Field]` keys, which listQueryOptions admits and parseFilters checks; so this object
 * only documents, and may show a field's own schema (its format and example) where one is given.
 */
function filterParameter(fields: ListFields, schemas: Record<string, TSchema>) {
  const properties = Object.fromEntries(
    Object.entries(fields).map(([name, kind]) => [name, Type.Optional(schemas[name] ?? KIND_SCHEMA[kind]())]),
  )
  return Type.Optional(
    Type.Object(properties, {
      additionalProperties: false,
      description: 'filter[Field]=value: only items whose Field equals value',
    }),
  )
}

export const listQueryOptions = {
  patternProperties: {
    '^filter\\[[A-Za-z0-9_]+\\]$': Type.String({
      description: 'filter[Field]=value: only items whose Field equals value',
    }),
  },
}

export type FilterValue = string | number | boolean

/**
 * Reads `filter[Field]=value` pairs from a parsed query: each Field must be one of `fields`, each value
 * must parse as that field's kind. Problems become one 400 with every bad pair in details.
 */
export function parseFilters(query: Record<string, unknown>, fields: ListFields): Record<string, FilterValue> {
  const filters: Record<string, FilterValue> = {}
  const problems: { field: string; message: string }[] = []
  for (const [key, raw] of Object.entries(query)) {
    const match = /^filter\[([A-Za-z0-9_]+)\]$/.exec(key)
    if (!match) continue
    const field = match[1]!
    const kind = fields[field]
    const value: unknown = Array.isArray(raw) ? (raw as unknown[])[raw.length - 1] : raw
    if (!kind) {
      problems.push({
        field: `query:${key}`,
        message: `cannot filter by ${field}; allowed: ${Object.keys(fields).join(', ')}`,
      })
      continue
    }
    const parsed = parseValue(String(value), kind)
    if (parsed === undefined)
      problems.push({ field: `query:${key}`, message: `must be ${kind === 'integer' ? 'an integer' : `a ${kind}`}` })
    else filters[field] = parsed
  }
  if (problems.length > 0) throw validationFailed(problems)
  return filters
}

/** A number as a query string or a path writes one: a sign, digits, a decimal point (not `0x10`, `1e1` nor ` 10`). */
export const DECIMAL_NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)$/

function parseValue(value: string, kind: FieldKind): FilterValue | undefined {
  switch (kind) {
    case 'string':
      return value
    case 'boolean':
      return value === 'true' ? true : value === 'false' ? false : undefined
    case 'integer':
      return /^-?\d+$/.test(value) ? Number(value) : undefined
    case 'number':
      return DECIMAL_NUMBER.test(value) ? Number(value) : undefined
  }
}

/** Offset of a page. */
export function offsetOf(params: Pick<ListParams, 'page' | 'limit'>): number {
  return (params.page - 1) * params.limit
}
