// A resource declared once: from its field table come the item schema (the OpenAPI component), the
// create and patch bodies, the sortBy/filter lists, the column map of the list pipeline and the
// row <-> API mappers. Animals, users and every record collection are declared this way.
import Type, { type TObject, type TProperties, type TSchema } from 'typebox'
import type { ColumnMapping } from '../db/paginate.ts'
import type { FieldKind as ListKind, FilterValue, ListFields } from '../http/list-params.ts'
import { snakeCase, type Field } from './field.ts'
import { compileRowMapper } from './row-mapper.ts'

export type ApiObject = Record<string, unknown>
export type Row = Record<string, unknown>

export interface ResourceDefinition {
  /** Schema id and OpenAPI component name: Animal, Treatment. */
  name: string
  table: string
  description: string
  fields: Record<string, Field>
  /** Extra keywords of the item and body objects (users: vendor flags as patternProperties). */
  objectOptions?: Record<string, unknown>
}

/** How one view's create body differs from the field table (e.g. the relaxed animal-level insemination). */
export interface BodyVariant {
  /** Required here though the table says optional. */
  require?: readonly string[]
  /** Optional here though the table says required. */
  optional?: readonly string[]
  /** Left out of this body. */
  omit?: readonly string[]
  /** Create defaults that differ from the table's. */
  defaults?: Record<string, unknown>
  /** Body-only properties that are no field of the item (a password). */
  extra?: TProperties
  /** Keywords of this body's object that differ from the resource's (vendor flags that PATCH may null). */
  objectOptions?: Record<string, unknown>
  description?: string
}

export interface Resource {
  name: string
  table: string
  fields: Readonly<Record<string, Field>>
  /** The item schema, registered once with app.addSchema; routes use `ref`. */
  item: TObject
  ref: TSchema
  createBody(variant?: BodyVariant): TObject
  patchBody(variant?: Pick<BodyVariant, 'omit' | 'extra' | 'objectOptions' | 'description'>): TObject
  /** sortBy values and filter[Field] names of its lists. */
  sortFields: ListFields
  filterFields: ListFields
  /** How the OpenAPI document shows each filter[Field] value: the field's own schema, with its example. */
  filterSchemas: Record<string, TSchema>
  /** API field → SQL for the list pipeline; own columns and joined ones may be qualified by table aliases. */
  columns(aliases?: { own?: string; joined?: string }): Record<string, ColumnMapping>
  /** A stored row as the API shows it: unset fields left out, or null where the field says so. */
  toApi(row: Row): ApiObject
  /** The columns of the body's fields that are present (null clears). Joined and unknown fields are skipped. */
  toColumns(body: ApiObject): Row
  /** filter[Field] values as the column holds them (a MAC upper-cased). */
  filterValues(filters: Record<string, FilterValue>): Record<string, FilterValue>
}

const listKind = (kind: Field['kind']): ListKind | undefined => (kind === 'json' ? undefined : kind)

export function defineResource(definition: ResourceDefinition): Resource {
  const fields = Object.fromEntries(
    Object.entries(definition.fields).map(([name, f]) => [name, { ...f, column: f.column || snakeCase(name) }]),
  ) as Record<string, Field>
  const entries = Object.entries(fields)
  const writable = entries.filter(([, f]) => !f.readOnly)
  const objectOptions = definition.objectOptions ?? {}

  const itemProperties: TProperties = {}
  for (const [name, f] of entries) {
    itemProperties[name] =
      f.nullable === 'null'
        ? Type.Union([f.schema(), Type.Null()])
        : f.nullable || f.virtual
          ? Type.Optional(f.schema())
          : f.schema()
  }
  const item = Type.Object(itemProperties, {
    ...objectOptions,
    $id: definition.name,
    additionalProperties: false,
    description: definition.description,
  })

  const listFields = (pick: (f: Field) => boolean): ListFields => {
    const out: ListFields = {}
    for (const [name, f] of entries) {
      const kind = listKind(f.kind)
      if (kind && pick(f)) out[name] = kind
    }
    return out
  }

  return {
    name: definition.name,
    table: definition.table,
    fields,
    item,
    ref: Type.Ref(definition.name),

    createBody(variant = {}) {
      const properties: TProperties = {}
      for (const [name, f] of writable) {
        if (variant.omit?.includes(name)) continue
        const required = variant.require?.includes(name) || (f.required && !variant.optional?.includes(name))
        const fallback = variant.defaults && name in variant.defaults ? variant.defaults[name] : f.default
        const schema =
          fallback !== undefined && !required
            ? f.schema({ default: fallback })
            : f.nullable === 'null' && !required
              ? Type.Union([f.schema(), Type.Null()])
              : f.schema()
        properties[name] = required ? schema : Type.Optional(schema)
      }
      const requiredNames = Object.keys(properties).filter((n) => !Type.IsOptional(properties[n]))
      return Type.Object(
        { ...properties, ...variant.extra },
        {
          ...objectOptions,
          ...variant.objectOptions,
          additionalProperties: false,
          description: variant.description ?? `Required: ${requiredNames.join(', ')}. Unknown fields are refused.`,
        },
      )
    },

    patchBody(variant = {}) {
      const properties: TProperties = {}
      for (const [name, f] of writable) {
        if (f.createOnly || variant.omit?.includes(name)) continue
        properties[name] = Type.Optional(f.nullable ? Type.Union([f.schema(), Type.Null()]) : f.schema())
      }
      return Type.Object(
        { ...properties, ...variant.extra },
        {
          ...objectOptions,
          ...variant.objectOptions,
          additionalProperties: false,
          minProperties: 1,
          description: variant.description ?? 'The fields to change (at least one); null clears an optional field.',
        },
      )
    },

    sortFields: listFields((f) => f.sortable),
    filterFields: listFields((f) => f.filterable),
    filterSchemas: Object.fromEntries(
      entries.filter(([, f]) => f.filterable && listKind(f.kind)).map(([name, f]) => [name, f.schema()]),
    ),

    columns(aliases = {}) {
      const mapping: Record<string, ColumnMapping> = {}
      for (const [name, f] of entries) {
        if (!f.sortable && !f.filterable) continue
        const alias = f.joined ? aliases.joined : aliases.own
        mapping[name] = {
          column: alias ? `${alias}.${f.column}` : f.column,
          ...(f.caseInsensitive ? { caseInsensitive: true } : {}),
          ...(f.nullAs !== undefined ? { nullAs: f.nullAs } : {}),
        }
      }
      return mapping
    },

    toApi: compileRowMapper(entries),

    toColumns(body) {
      const columns: Row = {}
      for (const [name, f] of writable) {
        if (f.joined || f.virtual || !(name in body) || body[name] === undefined) continue
        const value = body[name]
        columns[f.column] = value === null ? null : f.toColumn(value)
      }
      return columns
    },

    filterValues(filters) {
      return Object.fromEntries(
        Object.entries(filters).map(([name, value]) => {
          const f = fields[name]
          return [name, f && f.kind !== 'json' ? (f.toColumn(value) as FilterValue) : value]
        }),
      )
    },
  }
}
