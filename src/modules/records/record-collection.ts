// What a record collection declares: its noun, its fields, where it lives in the API and the rules that
// span fields. The names, path segment, path parameter and table all derive from the noun; the routes
// come from record-routes.ts; the table's Kysely type is the declaration's type parameter, from which
// records/index.ts composes the record tables of `DB`.
import type { ColumnType, Generated } from 'kysely'
import type { FieldProblem } from '../../http/errors.ts'
import { field, type Field } from '../../resource/field.ts'
import { defineResource, type ApiObject, type BodyVariant, type Resource } from '../../resource/resource.ts'
import type { App } from '../../types.ts'

/** The columns every record table has (migration 0004) besides its fields' own. */
export interface RecordTable {
  uid: string
  /** Creation time in ms; the API's ID as a decimal string. */
  id: number
  animal_id: number
  /** ms since epoch: when the record was created. */
  t: number
  archived: Generated<boolean>
  created_at: ColumnType<Date, Date | string | undefined, Date | string>
  updated_at: ColumnType<Date, Date | string | undefined, Date | string>
}

/** A jsonb column: written as JSON text, read back parsed. */
export type JsonColumn = ColumnType<unknown, string, string>
export type NullableJsonColumn = ColumnType<unknown, string | null | undefined, string | null>

/** A noun of one or more words, lower case: "weaning", "general event". */
export interface RecordNoun<Noun extends string, Plural extends string, Collection extends string> {
  noun: Noun
  /** Default: the noun + s. */
  plural?: Plural
  /** What the segment and the table are named after; default: the plural. */
  collection?: Collection
  /** The item's path parameter; default: the noun in camelCase + Id (weaningId). */
  idParam?: string
  /** The OpenAPI component of an item; default: the noun in PascalCase. */
  schemaName?: string
}

export interface RecordDeclaration<
  Noun extends string,
  Plural extends string,
  Collection extends string,
> extends RecordNoun<Noun, Plural, Collection> {
  /** What the OpenAPI tag says of the collection. */
  description: string
  /** What the item schema says of one record. */
  itemDescription: string
  /** The record's own fields; ID comes first and t last, added here. */
  fields: Record<string, Field>
  /** The field holding the animal's MAC: MAC (the default), or Mac for treatments. */
  macField?: string
  /** The spec's routes at /users/:userId/<segment> (treatments, births, inseminations). */
  userLevel?: {
    /** Query parameters of .../search and the field each matches: text exactly but case-insensitively, a MAC in either case. */
    search: Record<string, string>
    create?: BodyVariant
  }
  /** The spec's routes at /users/:userId/animals/:animalMac/<segment>. */
  animalLevel?: {
    create?: BodyVariant
    /** The date field that .../range filters on (births, inseminations). */
    rangeField?: string
  }
  /** Rules across fields, on a create body or on a stored record with a change applied. */
  rules?: RecordRule[]
  /** Routes of this collection alone (births statistics), registered before the generic ones. */
  extraRoutes?: (app: App) => Promise<void>
}

export interface RecordRule {
  /** The fields the rule reads: it is skipped while one of them has a problem of its own. */
  fields: string[]
  check: (record: ApiObject) => FieldProblem[]
}

/** "general events" → "general_events". */
export type SnakeWords<S extends string> = S extends `${infer A} ${infer B}` ? `${A}_${SnakeWords<B>}` : S

export interface RecordCollection<
  Table extends string = string,
  Columns extends RecordTable = RecordTable,
> extends Omit<RecordDeclaration<string, string, string>, 'fields' | 'itemDescription' | keyof RecordNoun<'', '', ''>> {
  resource: Resource
  table: Table
  /** Path segment: births, general-events. */
  segment: string
  /** Path parameter of one record: birthId. */
  idParam: string
  /** Names in operation ids (singular, plural) and in messages (label). */
  names: { singular: string; plural: string; label: string }
  macField: string
  /** Type only (never set): the table's Kysely row type. */
  readonly columns?: Columns
}

const words = (noun: string) => noun.split(' ')
const capitalize = (word: string) => word.charAt(0).toUpperCase() + word.slice(1)
const pascal = (noun: string) => words(noun).map(capitalize).join('')

/** The names a noun gives: weaning → Weaning, Weanings, weanings, weaningId. */
export function namesOfNoun(noun: RecordNoun<string, string, string>) {
  const plural = noun.plural ?? `${noun.noun}s`
  const collection = noun.collection ?? plural
  return {
    singular: pascal(noun.noun),
    plural: pascal(plural),
    label: capitalize(noun.noun),
    segment: words(collection).join('-'),
    table: words(collection).join('_'),
    idParam: noun.idParam ?? `${pascal(noun.noun).charAt(0).toLowerCase()}${pascal(noun.noun).slice(1)}Id`,
    schemaName: noun.schemaName ?? pascal(noun.noun),
  }
}

/**
 * Declares a collection whose table has the columns `Columns`:
 * `defineRecordCollection<WeaningsTable>()({ noun: 'weaning', ... })`.
 */
export function defineRecordCollection<Columns extends RecordTable>() {
  return <
    const Noun extends string,
    const Plural extends string = `${Noun}s`,
    const Collection extends string = Plural,
  >(
    declaration: RecordDeclaration<Noun, Plural, Collection>,
  ): RecordCollection<SnakeWords<Collection>, Columns> => {
    const { noun, plural, collection, idParam, schemaName, fields, itemDescription, ...rest } = declaration
    const names = namesOfNoun({ noun, plural, collection, idParam, schemaName })
    return {
      ...rest,
      macField: declaration.macField ?? 'MAC',
      table: names.table as SnakeWords<Collection>,
      segment: names.segment,
      idParam: names.idParam,
      names: { singular: names.singular, plural: names.plural, label: names.label },
      resource: defineResource({
        name: names.schemaName,
        table: names.table,
        description: itemDescription,
        fields: { ID: field.id(), ...fields, t: field.createdAt() },
      }),
    }
  }
}
