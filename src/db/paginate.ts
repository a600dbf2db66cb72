// The one list pipeline: equality filters, a sort with a unique tiebreak (pages never overlap or skip
// rows), and one page plus the total count. Users, animals and every record list run through it.
import {
  sql,
  type ComparisonOperatorExpression,
  type Expression,
  type ReferenceExpression,
  type SelectQueryBuilder,
} from 'kysely'

export interface PageParams {
  page: number
  limit: number
  /** An API field name; `columns` maps it to SQL. */
  sortBy: string
  sortOrder: 'asc' | 'desc'
}

/** How an API field reads in SQL, and how a filter on it compares. */
export interface ColumnMapping {
  /** A column reference such as `mac` or `a.mac`, or an expression. */
  column: string | Expression<unknown>
  /** Text compared case-insensitively (e-mail, language). */
  caseInsensitive?: boolean
  /** A NULL value matches a filter on this value (e.g. an unset flag counts as false). */
  nullAs?: string | number | boolean
}

export interface PaginateOptions {
  /** API field → SQL, for every field that can be sorted or filtered. */
  columns: Record<string, ColumnMapping>
  params: PageParams
  /** API field → value: rows whose field equals the value. */
  filters?: Record<string, string | number | boolean>
  /** A unique column that orders rows with equal sort values. */
  tiebreak: string
}

export interface Page<Row> {
  rows: Row[]
  total: number
}

export function offsetOf(params: Pick<PageParams, 'page' | 'limit'>): number {
  return (params.page - 1) * params.limit
}

const ref = (column: string | Expression<unknown>) => (typeof column === 'string' ? sql.ref(column) : column)

/**
 * Runs one page of `query` (already scoped to its tenant and selecting the row's columns) and counts
 * every row the filters keep. Rows without a value in the sort field come last in either order.
 */

/** A listing's optional criterion: the column it compares, how, and its value (undefined: not asked). */
export type Criterion<DB, TB extends keyof DB> = readonly [
  column: ReferenceExpression<DB, TB>,
  operator: ComparisonOperatorExpression,
  value: unknown,
]

/** The query narrowed by each criterion that has a value, in order. */
export function whereGiven<DB, TB extends keyof DB, Row>(
  query: SelectQueryBuilder<DB, TB, Row>,
  criteria: readonly Criterion<DB, TB>[],
): SelectQueryBuilder<DB, TB, Row> {
  for (const [column, operator, value] of criteria)
    if (value !== undefined) query = query.where(column, operator, value as never)
  return query
}

export async function paginate<DB, TB extends keyof DB, Row>(
  query: SelectQueryBuilder<DB, TB, Row>,
  options: PaginateOptions,
): Promise<Page<Row>> {
  let filtered = query
  for (const [field, value] of Object.entries(options.filters ?? {})) {
    const mapping = options.columns[field]
    if (!mapping) throw new Error(`No column for filter field ${field}`)
    let left = ref(mapping.column)
    let right: unknown = value
    if (mapping.caseInsensitive && typeof value === 'string') {
      left = sql`lower(${left})`
      right = value.toLowerCase()
    }
    if (mapping.nullAs !== undefined) left = sql`coalesce(${left}, ${mapping.nullAs})`
    filtered = filtered.where(sql<boolean>`${left} = ${right}`)
  }
  const { params } = options
  const sort = options.columns[params.sortBy]
  if (!sort) throw new Error(`No column for sort field ${params.sortBy}`)
  const direction = params.sortOrder === 'asc' ? sql`asc` : sql`desc`
  const [rows, count] = await Promise.all([
    filtered
      .orderBy(sql`${ref(sort.column)} ${direction} nulls last`)
      .orderBy(sql`${sql.ref(options.tiebreak)} ${direction}`)
      .limit(params.limit)
      .offset(offsetOf(params))
      .execute(),
    filtered
      .clearSelect()
      .select(sql<number>`count(*)`.as('total'))
      .executeTakeFirstOrThrow(),
  ])
  return { rows, total: Number((count as { total: number }).total) }
}
