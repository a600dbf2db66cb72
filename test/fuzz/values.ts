// Values for the fuzz suite: valid, boundary and hostile values derived from an OpenAPI (JSON Schema)
// schema, and the JSON text that carries them. Some hostile numbers (1e309, -0, 99999999999999999999999)
// cannot be written by JSON.stringify, so a value may hold a RawJson token that is sent as it is.
import fc from 'fast-check'

/** JSON text sent as it is, in place of a value. */
export class RawJson {
  readonly text: string
  constructor(text: string) {
    this.text = text
  }
}

export type FuzzValue = null | boolean | number | string | RawJson | FuzzValue[] | { [key: string]: FuzzValue }

export interface JsonSchema {
  type?: string | string[]
  enum?: unknown[]
  const?: unknown
  minimum?: number
  maximum?: number
  exclusiveMinimum?: number
  exclusiveMaximum?: number
  minLength?: number
  maxLength?: number
  pattern?: string
  format?: string
  items?: JsonSchema
  minItems?: number
  maxItems?: number
  properties?: Record<string, JsonSchema>
  required?: string[]
  additionalProperties?: boolean | JsonSchema
  minProperties?: number
  maxProperties?: number
  anyOf?: JsonSchema[]
  oneOf?: JsonSchema[]
  allOf?: JsonSchema[]
  $ref?: string
  examples?: unknown[]
}

export function toJsonText(value: FuzzValue): string {
  if (value instanceof RawJson) return value.text
  if (Array.isArray(value)) return `[${value.map(toJsonText).join(',')}]`
  if (value !== null && typeof value === 'object') {
    return `{${Object.entries(value)
      .map(([key, item]) => `${JSON.stringify(key)}:${toJsonText(item)}`)
      .join(',')}}`
  }
  return JSON.stringify(value)
}

/** An object whose keys are all its own, `__proto__` included (a plain literal would set its prototype instead). */
export function plainObject(entries: [string, FuzzValue][]): { [key: string]: FuzzValue } {
  const object = Object.create(null) as { [key: string]: FuzzValue }
  for (const [key, value] of entries) object[key] = value
  return object
}

/** Known good values by field or parameter name (the fixture animal's MAC for `MAC`, the owner's Uid for `Uid`, ...). */
export type Hints = Record<string, FuzzValue>

const raw = (text: string) => new RawJson(text)

/** Numbers no store keeps or no double holds, as JSON text. */
const HOSTILE_NUMBERS = [
  '1e309',
  '-1e309',
  '-0',
  '99999999999999999999999',
  '-99999999999999999999999',
  '1e-400',
  '9007199254740993',
  '0.1e1',
  '1E2',
  '-0.0',
]

const CONTROL_CHARACTERS =
  Array.from({ length: 32 }, (_, code) => String.fromCharCode(code)).join('') + '\u007f\u0085\u2028\u2029'

/** Strings that broke, or could break, a parser, a store or a log: control characters, bad Unicode, injections. */
export const HOSTILE_STRINGS: readonly string[] = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  CONTROL_CHARACTERS,
  '\t\r\n',
  '\ud800',
  'x\udfffy',
  '\udc00\ud800',
  '\ufeffBOM',
  '\u202eRTL',
  'zero\u200bwidth',
  '🐖🐷',
  'ß',
  'ﬁ',
  'Å',
  'e\u0301',
  '%',
  '%zz',
  '%00',
  '\\',
  '"',
  "'",
  '`',
  "' OR '1'='1",
  '1; DROP TABLE users; --',
  "'); SELECT pg_sleep(5); --",
  '$1',
  '%s%n',
  '${7*7}',
  '{{7*7}}',
  '../../etc/passwd',
  '<script>alert(1)</script>',
  'null',
  'true',
  '[]',
  '{}',
  '1e309',
  'NaN',
  'Infinity',
  '-0',
  '99999999999999999999999',
  '0x10',
  ' 1',
  '1 ',
  '__proto__',
  'constructor',
  'a'.repeat(257),
  'é'.repeat(3000),
]

const HUGE_STRING_LENGTH = 100_000

/** A hostile value of any type, for a field of any schema: wrong types, bad strings, huge and deep values. */
export const hostileValue: fc.Arbitrary<FuzzValue> = fc.oneof(
  // What no store keeps (PostgreSQL text holds no U+0000; a lone surrogate is not UTF-8): the classic 500s.
  { weight: 4, arbitrary: fc.constantFrom('\u0000', 'a\u0000b', '\ud800', 'x\udfffy', CONTROL_CHARACTERS) },
  { weight: 3, arbitrary: fc.constantFrom(...HOSTILE_STRINGS) },
  { weight: 3, arbitrary: fc.constantFrom(...HOSTILE_NUMBERS).map(raw) },
  { weight: 2, arbitrary: fc.constantFrom<FuzzValue>(true, false, null, 0, -1, 1.5, [], {}, [null], ['a'], { a: 1 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.constantFrom('x', '\u0000', 'é').map((unit) => unit.repeat(HUGE_STRING_LENGTH)) },
  { weight: 1, arbitrary: fc.constantFrom(64, 1000, 5000).map((depth) => raw('['.repeat(depth) + ']'.repeat(depth))) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(64, 1000, 5000).map((depth) => raw('{"a":'.repeat(depth) + '1' + '}'.repeat(depth))),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      raw('{"__proto__":{"admin":true}}'),
      raw('{"constructor":{"prototype":{"admin":true}}}'),
    ),
  },
)

export class SchemaValues {
  private readonly components: Record<string, JsonSchema>
  private readonly hints: Hints

  constructor(components: Record<string, JsonSchema>, hints: Hints) {
    this.components = components
    this.hints = hints
  }

  resolve(schema: JsonSchema): JsonSchema {
    let current = schema
    for (let hops = 0; current.$ref && hops < 10; hops++) {
      const name = current.$ref.replace('#/components/schemas/', '')
      current = this.components[name] ?? {}
    }
    return current
  }

  /** A value the schema accepts (mostly: a pattern and a length bound are not always both kept), or the hint for the name. */
  valid(schema: JsonSchema, name?: string): fc.Arbitrary<FuzzValue> {
    const fromSchema = this.validBySchema(this.resolve(schema))
    const hint = name === undefined ? undefined : this.hints[name]
    return hint === undefined
      ? fromSchema
      : fc.oneof({ weight: 3, arbitrary: fc.constant(hint) }, { weight: 1, arbitrary: fromSchema })
  }

  /** Values at and just past each bound of the schema, and the edge cases of its format. */
  boundary(schema: JsonSchema): FuzzValue[] {
    const resolved = this.resolve(schema)
    const branches = resolved.anyOf ?? resolved.oneOf
    if (branches) return branches.flatMap((branch) => this.boundary(branch))
    const values: FuzzValue[] = []
    const type = primaryType(resolved)
    if (resolved.enum)
      values.push(...resolved.enum.map((v) => (typeof v === 'string' ? [v.toUpperCase(), `${v} `, ''] : [])).flat())
    if (type === 'integer' || type === 'number') {
      const { minimum, maximum } = resolved
      if (minimum !== undefined) values.push(minimum, minimum - 1, minimum - 0.5)
      if (maximum !== undefined) values.push(maximum, maximum + 1, maximum + 0.5)
      values.push(
        0,
        raw('-0'),
        type === 'integer' ? 1.5 : 1e-7,
        raw('1e309'),
        raw('99999999999999999999999'),
        String(minimum ?? 1),
      )
    }
    if (type === 'string') {
      const { minLength = 0, maxLength } = resolved
      values.push('', ' '.repeat(Math.max(1, minLength)))
      if (minLength > 1) values.push('a'.repeat(minLength - 1))
      if (maxLength !== undefined)
        values.push('a'.repeat(maxLength), 'a'.repeat(maxLength + 1), 'é'.repeat(maxLength), '🐖'.repeat(maxLength))
      if (resolved.format === 'date' || /\\d\{4\}/.test(resolved.pattern ?? '')) {
        values.push(
          '2026-02-30',
          '2026-13-01',
          '0000-00-00',
          '9999-12-31',
          '2026-1-1',
          '2026-01-01T25:00:00Z',
          '+275760-09-13',
          '2024-02-29',
        )
      }
      if (resolved.format === 'date-time')
        values.push(
          '2026-01-01T00:00:00',
          '2026-01-01T00:00:00+14:00',
          '+275760-09-13T00:00:00.000Z',
          '1969-12-31T23:59:59Z',
        )
      if (resolved.format === 'email')
        values.push('a@b', '@farm.example', 'owner@', `${'a'.repeat(65)}@farm.example`, 'OWNER@FARM.EXAMPLE')
      values.push(1, true)
    }
    if (type === 'boolean') values.push('true', 0, 1, 'false')
    if (type === 'array') {
      values.push([], {}, 'a')
      const item = resolved.items && this.sample(resolved.items)
      if (item !== undefined && resolved.maxItems !== undefined)
        values.push(new Array<FuzzValue>(resolved.maxItems + 1).fill(item))
    }
    if (type === 'object') values.push(plainObject([]), [], 'object')
    return values.length > 0 ? values : [null]
  }

  /** One value for a field: mostly valid (to reach the handler), else at a bound, else hostile. */
  field(schema: JsonSchema, name?: string): fc.Arbitrary<FuzzValue> {
    return fc.oneof(
      { weight: 5, arbitrary: this.valid(schema, name) },
      { weight: 2, arbitrary: fc.constantFrom(...this.boundary(schema)) },
      { weight: 2, arbitrary: hostileValue },
    )
  }

  /** An object for a body schema whose fields are each valid, at a bound, hostile or missing, with unknown keys at times. */
  mutatedObject(schema: JsonSchema): fc.Arbitrary<FuzzValue> {
    const resolved = this.resolve(schema)
    const properties = Object.entries(resolved.properties ?? {})
    const required = new Set(resolved.required ?? [])
    const fields = properties.map(([name, property]) =>
      fc.option(
        this.field(property, name).map((value): [string, FuzzValue] => [name, value]),
        { freq: required.has(name) ? 12 : 3, nil: undefined },
      ),
    )
    const extraKey = fc.oneof(
      fc.constantFrom(
        '__proto__',
        'constructor',
        'BDUser',
        'Admin',
        'uid',
        'id',
        'ID',
        '',
        '\u0000',
        '\ud800',
        'a'.repeat(300),
      ),
      fc.string(),
    )
    const extras = fc.array(fc.tuple(extraKey, hostileValue), { maxLength: 2 })
    return fc
      .tuple(
        fc.tuple(...fields),
        fc.oneof({ weight: 6, arbitrary: fc.constant([] as [string, FuzzValue][]) }, { weight: 1, arbitrary: extras }),
      )
      .map(([chosen, extra]) => plainObject([...chosen.filter((entry) => entry !== undefined), ...extra]))
  }

  /** The value a client would most likely send: the hint for the name, else the schema's first example, else a plain valid value. */
  example(schema: JsonSchema, name?: string): FuzzValue {
    const hint = name === undefined ? undefined : this.hints[name]
    if (hint !== undefined) return hint
    const resolved = this.resolve(schema)
    const branch = resolved.anyOf?.find((b) => this.resolve(b).type !== 'null') ?? resolved.oneOf?.[0]
    if (branch) return this.example(branch)
    if (resolved.examples?.[0] !== undefined) return resolved.examples[0] as FuzzValue
    if (resolved.enum?.[0] !== undefined) return resolved.enum[0] as FuzzValue
    if (primaryType(resolved) === 'array')
      return new Array<FuzzValue>(resolved.minItems ?? 0).fill(this.example(resolved.items ?? {}))
    if (primaryType(resolved) === 'object') {
      return plainObject(
        (resolved.required ?? []).map((key) => [key, this.example(resolved.properties?.[key] ?? {}, key)]),
      )
    }
    return this.sample(resolved) ?? null
  }

  /**
   * A valid value with one place in it changed: a field or array item replaced by a boundary or hostile
   * value, or removed, or a key added. The rest stays valid, so the change is what the service meets.
   */
  mutatedOnce(schema: JsonSchema): fc.Arbitrary<FuzzValue> {
    const replacement = fc.oneof(
      { weight: 3, arbitrary: hostileValue.map((value) => ({ kind: 'replace' as const, value })) },
      {
        weight: 2,
        arbitrary: fc
          .constantFrom(...this.boundaryValuesIn(schema))
          .map((value) => ({ kind: 'replace' as const, value })),
      },
      { weight: 1, arbitrary: fc.constant({ kind: 'remove' as const }) },
      {
        weight: 1,
        arbitrary: fc
          .tuple(
            fc.constantFrom('__proto__', 'constructor', 'Admin', 'ID', '\u0000', '\ud800', 'x'.repeat(300)),
            hostileValue,
          )
          .map(([key, value]) => ({ kind: 'add' as const, key, value })),
      },
    )
    return fc.tuple(this.valid(schema), fc.nat(), replacement).map(([generated, pick, change]) => {
      // Generated values may be shared (examples, hints, constants): change a copy.
      const value = copyOf(generated)
      const places = placesIn(value)
      if (places.length === 0) return change.kind === 'replace' ? change.value : value
      const { parent, key } = places[pick % places.length]!
      if (Array.isArray(parent)) {
        if (change.kind === 'remove') parent.splice(Number(key), 1)
        else if (change.kind === 'replace') parent[Number(key)] = change.value
      } else if (change.kind === 'add') {
        parent[change.key] = change.value
      } else if (change.kind === 'remove') {
        delete parent[key]
      } else {
        parent[key] = change.value
      }
      return value
    })
  }

  /** The boundary values of every field under a schema, for a change at any depth. */
  private boundaryValuesIn(schema: JsonSchema): FuzzValue[] {
    const resolved = this.resolve(schema)
    const nested = [...Object.values(resolved.properties ?? {}), ...(resolved.items ? [resolved.items] : [])]
    return [...this.boundary(resolved), ...nested.flatMap((child) => this.boundaryValuesIn(child))]
  }

  /** One valid value, taken from the schema's first example when it has one. */
  private sample(schema: JsonSchema): FuzzValue | undefined {
    const resolved = this.resolve(schema)
    if (resolved.examples?.[0] !== undefined) return resolved.examples[0] as FuzzValue
    return fc.sample(this.validBySchema(resolved), { numRuns: 1, seed: 1 })[0]
  }

  private validBySchema(schema: JsonSchema): fc.Arbitrary<FuzzValue> {
    const branches = schema.anyOf ?? schema.oneOf
    if (branches) return fc.oneof(...branches.map((branch) => this.valid(branch)))
    if (schema.allOf?.[0]) return this.valid(schema.allOf[0])
    if (schema.const !== undefined) return fc.constant(schema.const as FuzzValue)
    if (schema.enum) return fc.constantFrom(...(schema.enum as FuzzValue[]))
    const examples = (schema.examples ?? []) as FuzzValue[]
    const fromType = this.validByType(schema)
    return examples.length > 0
      ? fc.oneof({ weight: 1, arbitrary: fc.constantFrom(...examples) }, { weight: 2, arbitrary: fromType })
      : fromType
  }

  private validByType(schema: JsonSchema): fc.Arbitrary<FuzzValue> {
    switch (primaryType(schema)) {
      case 'null':
        return fc.constant(null)
      case 'boolean':
        return fc.boolean()
      case 'integer': {
        const min = Math.max(schema.minimum ?? -1_000_000, Number.MIN_SAFE_INTEGER)
        const max = Math.min(schema.maximum ?? 1_000_000, Number.MAX_SAFE_INTEGER)
        return fc.oneof(fc.integer({ min, max }), fc.constantFrom(min, max))
      }
      case 'number': {
        const min = schema.minimum ?? -1e6
        const max = schema.maximum ?? 1e6
        return fc.oneof(
          fc.double({ min, max, noNaN: true, noDefaultInfinity: true }),
          fc.integer({ min: Math.ceil(min), max: Math.floor(Math.min(max, Number.MAX_SAFE_INTEGER)) }),
        )
      }
      case 'string':
        return this.validString(schema)
      case 'array': {
        if (!schema.items) return fc.constant([])
        return fc.array(this.valid(schema.items), {
          minLength: schema.minItems ?? 0,
          maxLength: Math.min(schema.maxItems ?? 4, 4),
        })
      }
      case 'object': {
        const properties = Object.entries(schema.properties ?? {})
        const required = new Set(schema.required ?? [])
        const fields = properties.map(([name, property]) =>
          required.has(name)
            ? this.valid(property, name).map((value): [string, FuzzValue] => [name, value])
            : fc.option(
                this.valid(property, name).map((value): [string, FuzzValue] => [name, value]),
                { freq: 2, nil: undefined },
              ),
        )
        return fc.tuple(...fields).map((entries) => plainObject(entries.filter((entry) => entry !== undefined)))
      }
      default:
        return fc.constantFrom<FuzzValue>('x', 1, true, null)
    }
  }

  private validString(schema: JsonSchema): fc.Arbitrary<FuzzValue> {
    const minLength = schema.minLength ?? 0
    const maxLength = Math.min(schema.maxLength ?? 40, 40)
    if (schema.format === 'date') {
      return fc
        .date({ min: new Date('1990-01-01'), max: new Date('2100-12-31'), noInvalidDate: true })
        .map((d) => d.toISOString().slice(0, 10))
    }
    if (schema.format === 'date-time') {
      return fc
        .date({ min: new Date('1990-01-01'), max: new Date('2100-12-31'), noInvalidDate: true })
        .map((d) => d.toISOString())
    }
    if (schema.format === 'email') return fc.emailAddress().filter((email) => email.length <= (schema.maxLength ?? 320))
    if (schema.pattern) {
      try {
        // Ajv compiles patterns with the u flag; fast-check reads the same syntax.
        const matching = fc.stringMatching(new RegExp(schema.pattern, 'u'), { size: 'small' })
        return schema.maxLength === undefined ? matching : matching.map((s) => s.slice(0, schema.maxLength))
      } catch {
        // A pattern fast-check cannot generate from: plain strings, which the validator mostly refuses.
      }
    }
    return fc.oneof(
      fc.string({ minLength, maxLength: Math.max(minLength, maxLength) }),
      fc.string({ unit: 'grapheme', minLength, maxLength: Math.max(minLength, maxLength) }),
    )
  }
}

function copyOf(value: FuzzValue): FuzzValue {
  if (Array.isArray(value)) return value.map(copyOf)
  if (value !== null && typeof value === 'object' && !(value instanceof RawJson)) {
    return plainObject(Object.entries(value).map(([key, item]) => [key, copyOf(item)]))
  }
  return value
}

/** Every field and array item inside a value, as its container and key. */
function placesIn(value: FuzzValue): { parent: FuzzValue[] | { [key: string]: FuzzValue }; key: string }[] {
  if (value === null || typeof value !== 'object' || value instanceof RawJson) return []
  const keys = Array.isArray(value) ? value.map((_, i) => String(i)) : Object.keys(value)
  const parent = value
  return keys.flatMap((key) => [{ parent, key }, ...placesIn((parent as Record<string, FuzzValue>)[key]!)])
}

function primaryType(schema: JsonSchema): string | undefined {
  if (Array.isArray(schema.type)) return schema.type.find((type) => type !== 'null') ?? 'null'
  if (schema.type) return schema.type
  if (schema.properties) return 'object'
  return undefined
}
