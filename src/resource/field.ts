// One field of a resource, declared once: its API name (the key in the resource's field table), its
// column, its JSON schema, and whether clients write it, sort by it and filter on it. The resource
// derives its schemas, list parameters, column map and row mappers from these (resource.ts).
import Type, { type TSchema } from 'typebox'
import { EXAMPLE, integerFormat } from '../http/schema-types.ts'
import { ID_PATTERN } from '../http/input-patterns.ts'

/** How a filter value is parsed from the query string (list-params.ts). */
export type FieldKind = 'string' | 'number' | 'integer' | 'boolean' | 'json'

export interface Field {
  kind: FieldKind
  /** Column in the resource's table; for a field of a joined table, its column there (see `joined`). */
  column: string
  /** Not stored in the resource's row: the route fills it in (a user's push tokens). */
  virtual: boolean
  /** The column lives in the joined animals table (records show the animal's current MAC). */
  joined: boolean
  /** Builds the field's schema; `extra` adds options such as a create default. */
  schema: (extra?: Record<string, unknown>) => TSchema
  /** Required in a create body. */
  required: boolean
  /** Never written by a client (set by the service). */
  readOnly: boolean
  /** Written on create only (PATCH refuses it). */
  createOnly: boolean
  /**
   * May be unset: absent from a response (or shown as null with `nullable: 'null'`, which a create body may
   * also send), cleared by PATCH null. Default: writable fields that are neither required nor defaulted.
   */
  nullable: boolean | 'null'
  /** Filled in on create when absent. */
  default: unknown
  sortable: boolean
  filterable: boolean
  /** Filters compare lower-case text. */
  caseInsensitive: boolean
  /** An unset (NULL) value matches filters on this value. */
  nullAs: string | number | boolean | undefined
  /** Column value → API value. */
  toApi: (value: unknown) => unknown
  /** API value → column value (writes and filters). */
  toColumn: (value: unknown) => unknown
}

export interface FieldOptions {
  /** Defaults to the API name in snake_case. */
  column?: string
  /** Shown in responses, but filled in by the route rather than read from the row. Read-only. */
  virtual?: boolean
  description?: string
  example?: unknown
  required?: boolean
  readOnly?: boolean
  createOnly?: boolean
  nullable?: boolean | 'null'
  default?: unknown
  sortable?: boolean
  filterable?: boolean
  caseInsensitive?: boolean
  nullAs?: string | number | boolean
  toApi?: (value: unknown) => unknown
  toColumn?: (value: unknown) => unknown
}

export const identity = (value: unknown) => value

function make(
  kind: FieldKind,
  schema: (extra: Record<string, unknown>) => TSchema,
  options: FieldOptions & { joined?: boolean },
  column: string | undefined,
): Field {
  const scalar = kind !== 'json'
  const docs = {
    ...(options.description !== undefined ? { description: options.description } : {}),
    ...(options.example !== undefined ? { examples: [options.example] } : {}),
  }
  return {
    kind,
    column: options.column ?? column ?? '',
    virtual: options.virtual ?? false,
    joined: options.joined ?? false,
    schema: (extra = {}) => schema({ ...docs, ...extra }),
    required: options.required ?? false,
    readOnly: options.readOnly ?? options.virtual ?? false,
    createOnly: options.createOnly ?? false,
    // An optional field without a default is simply unset until written.
    nullable:
      options.nullable ?? (!options.required && options.default === undefined && !options.readOnly && !options.virtual),
    default: options.default,
    sortable: options.sortable ?? (scalar && !options.virtual),
    filterable: options.filterable ?? (scalar && !options.virtual),
    caseInsensitive: options.caseInsensitive ?? false,
    nullAs: options.nullAs,
    toApi: options.toApi ?? identity,
    toColumn: options.toColumn ?? identity,
  }
}

export interface StringOptions extends FieldOptions {
  minLength?: number
  maxLength?: number
  pattern?: string
  format?: string
}

/** The field builders. Strings are bounded (maxLength 200 unless said otherwise) and non-empty unless minLength 0. */
export const field = {
  string: (options: StringOptions = {}) =>
    make(
      'string',
      (extra) =>
        Type.String({
          minLength: options.minLength ?? 1,
          maxLength: options.maxLength ?? 200,
          ...(options.pattern !== undefined ? { pattern: options.pattern } : {}),
          ...(options.format !== undefined ? { format: options.format } : {}),
          ...extra,
        }),
      options,
      undefined,
    ),

  /** One of a fixed set of strings. */
  enum: <T extends string>(values: readonly T[], options: FieldOptions = {}) =>
    make('string', (extra) => Type.Unsafe<T>({ type: 'string', enum: [...values], ...extra }), options, undefined),

  number: (options: FieldOptions & { minimum?: number; maximum?: number } = {}) =>
    make(
      'number',
      (extra) =>
        Type.Number({
          ...(options.minimum !== undefined ? { minimum: options.minimum } : {}),
          ...(options.maximum !== undefined ? { maximum: options.maximum } : {}),
          ...extra,
        }),
      options,
      undefined,
    ),

  integer: (options: FieldOptions & { minimum?: number; maximum?: number } = {}) => {
    const minimum = options.minimum ?? Number.MIN_SAFE_INTEGER
    const maximum = options.maximum ?? Number.MAX_SAFE_INTEGER
    return make(
      'integer',
      (extra) => Type.Integer({ format: integerFormat(minimum, maximum), minimum, maximum, ...extra }),
      options,
      undefined,
    )
  },

  boolean: (options: FieldOptions = {}) => make('boolean', (extra) => Type.Boolean(extra), options, undefined),

  /** An object or array stored as jsonb. */
  json: (schema: (extra: Record<string, unknown>) => TSchema, options: FieldOptions = {}) =>
    make(
      'json',
      schema,
      {
        ...options,
        toColumn: options.toColumn ?? ((value) => (value === null ? null : JSON.stringify(value))),
      },
      undefined,
    ),

  /** The record id: the creation time in ms, stored as bigint, shown as a decimal string. */
  id: (
    description = 'Creation time in ms as a decimal string; unique within the collection',
    example = String(EXAMPLE.ms),
  ) =>
    make(
      'integer',
      (extra) => Type.String({ pattern: ID_PATTERN, maxLength: 16, ...extra }),
      { column: 'id', readOnly: true, description, example, toApi: (v) => String(v) },
      undefined,
    ),

  /** `t`: the creation time in ms (or, for animals, the latest reading's). */
  createdAt: (description = 'ms since epoch: when the record was created') =>
    make(
      'integer',
      (extra) => Type.Integer({ format: 'int64', minimum: 0, maximum: Number.MAX_SAFE_INTEGER, ...extra }),
      { column: 't', readOnly: true, description, example: EXAMPLE.ms },
      undefined,
    ),

  /**
   * A time kept as Unix seconds (a bigint column) and shown as the timestamp object `{seconds, nanoseconds}`
   * (docs/decisions.md: a litter device's LastSeen). Sorts by the seconds it holds; read-only.
   */
  timestampObject: (options: FieldOptions = {}) =>
    make(
      'integer',
      (extra) =>
        Type.Object(
          {
            seconds: Type.Integer({
              format: 'int64',
              minimum: 0,
              maximum: Number.MAX_SAFE_INTEGER,
              description: 'Unix seconds',
              examples: [EXAMPLE.seconds],
            }),
            nanoseconds: Type.Integer({
              format: 'int32',
              minimum: 0,
              maximum: 999_999_999,
              description: 'Fraction of the second in ns (0 for whole-second times)',
              examples: [0],
            }),
          },
          { additionalProperties: false, ...extra },
        ),
      {
        readOnly: true,
        filterable: false,
        toApi: (v) => ({ seconds: Number(v), nanoseconds: 0 }),
        ...options,
      },
      undefined,
    ),

  /** A column of the joined animals table (read through the record's animal). */
  joined: (
    kind: FieldKind,
    schema: (extra: Record<string, unknown>) => TSchema,
    options: FieldOptions & { column: string },
  ) => make(kind, schema, { ...options, joined: true }, undefined),
}

/** Default column of an API field: CurrentTemperature → current_temperature, serviceOrder → service_order. */
export function snakeCase(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z])([A-Z][a-z])/g, '$1_$2')
    .toLowerCase()
}
