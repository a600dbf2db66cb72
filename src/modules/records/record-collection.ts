// What a record collection declares: its field table (a resource), where it lives in the API, and the
// rules that span fields. record-routes.ts turns a declaration into its routes.
import type { FieldProblem } from '../../http/errors.ts'
import type { ApiObject, BodyVariant, Resource } from '../../resource/resource.ts'
import type { App } from '../../types.ts'

export interface RecordCollection {
  resource: Resource
  /** Path segment: births, general-events. */
  segment: string
  /** Path parameter of one record: birthId. */
  idParam: string
  /** Names in operation ids (singular, plural) and in messages (label). */
  names: { singular: string; plural: string; label: string }
  /** The field holding the animal's MAC: MAC (the default), or Mac for treatments. */
  macField?: string
  /** What the OpenAPI tag says of the collection. */
  description: string
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

export function defineRecordCollection(collection: RecordCollection): RecordCollection {
  return collection
}
