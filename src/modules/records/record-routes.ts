// The routes of a record collection, from its declaration, one small builder a route, each named by its
// path (the declaration's segment stands for <segment>). One store, two views: a record created at one
// level is read, changed and deleted at either.
import Type, { type TSchema } from 'typebox'
import type { Limits } from '../../config.ts'
import { createIdSource } from '../../db/ids.ts'
import { defineModule, type ApiModule } from '../../http/api-module.ts'
import { created } from '../../http/created.ts'
import { Envelope, MessageEnvelope, PageEnvelope, ok, pageOf } from '../../http/envelope.ts'
import { listQueryOptions, listQueryProperties, parseFilters } from '../../http/list-params.ts'
import { MAX_PATH_SEGMENT } from '../../http/route-policy.ts'
import { BoundedString, EXAMPLE, HowMany } from '../../http/schema-types.ts'
import type { FastifyRequest } from 'fastify'
import type { RoutePolicy } from '../../http/route-policy.ts'
import type { App } from '../../types.ts'
import { AnimalMacPath, UserPath } from '../animals/animals.resource.ts'
import { settleDueEvents } from '../events/due-events.ts'
import { UID_PATTERN } from '../users/users.rules.ts'
import { RANGE_MAX, listRecords, recentRecords, recordsInRange, type RecordScope } from './records.repository.ts'
import { IsoDate, dayRange } from './date-range.ts'
import { recordWrites, type Collection } from './record-writes.ts'

export function recordModule(collection: Collection): ApiModule {
  return defineModule({
    tag: collection.segment,
    description: collection.description,
    schemas: [collection.resource.item],
    routes: (app) => recordRoutes(app, collection),
  })
}

/** A collection's routes: its own first (births statistics), then those of its levels. */
async function recordRoutes(app: App, collection: Collection) {
  const kit = routeKit(app, collection)
  if (collection.extraRoutes) await collection.extraRoutes(app)
  if (collection.userLevel) {
    listRecordsOf(app, kit, 'user')
    searchUserRecords(app, kit)
    listActiveOrArchivedUserRecords(app, kit, 'active')
    listActiveOrArchivedUserRecords(app, kit, 'archived')
    getRecord(app, kit, 'user')
    createRecord(app, kit, 'user')
    updateRecord(app, kit, 'user')
    deleteRecord(app, kit, 'user')
  }
  if (collection.animalLevel) {
    listRecordsOf(app, kit, 'animal')
    recentAnimalRecords(app, kit)
    animalRecordsInRange(app, kit)
    getRecord(app, kit, 'animal')
    createRecord(app, kit, 'animal')
    updateRecord(app, kit, 'animal')
    deleteRecord(app, kit, 'animal')
  }
}

const Uid = Type.String({
  pattern: UID_PATTERN,
  maxLength: 128,
  description: "The account's Uid",
  examples: [EXAMPLE.uid],
})
const RangeDay = (description: string) =>
  IsoDate(`${description}: ISO 8601, a date or a date and time (compared by UTC calendar day)`, '2026-11-01')
const rulesNote = 'Every problem of the body is reported at once, one `details` entry per field.'
const deleteDescription = 'Owner, or an integrator with the delete permission.'
const listDescription =
  'Common list parameters: `sortBy` any scalar field (default `t`, when recorded), `filter[Field]=value` exact matches.'

/** What every builder of one collection shares: its names, schemas, texts and its reads and writes. */
function routeKit(app: App, collection: Collection) {
  const { resource, segment, idParam, names, macField } = collection
  const limits: Limits = app.config.limits
  const RecordId = BoundedString(MAX_PATH_SEGMENT, `The ${names.label.toLowerCase()}'s ID`, String(EXAMPLE.ms))
  /** What the two views differ by: a user's records, or those of the path's animal. */
  const levels = {
    user: {
      base: `/users/:userId/${segment}`,
      name: '',
      Path: UserPath,
      ItemPath: Type.Object({ userId: Uid, [idParam]: RecordId }),
      config: { access: 'own' },
      scope: (req: FastifyRequest, uid: string): RecordScope => ({ uid }),
    },
    animal: {
      base: `/users/:userId/animals/:animalMac/${segment}`,
      name: 'Animal',
      Path: AnimalMacPath,
      ItemPath: Type.Object({ ...AnimalMacPath.properties, [idParam]: RecordId }),
      config: { access: 'own', animal: 'path' },
      scope: (req: FastifyRequest, uid: string): RecordScope => ({ uid, animalId: req.pathAnimal.id }),
    },
  } satisfies Record<Level, { config: RoutePolicy; [k: string]: unknown }>
  return {
    collection,
    db: app.database.db,
    limits,
    writes: recordWrites(collection, app.database.db, createIdSource(app.clock), app.clock, (uid, animalId) =>
      settleDueEvents(app, uid, animalId),
    ),
    item: `/:${idParam}`,
    levels,
    /** The record the path names: the scope it must lie in (the user's, or the path animal's) and its id. */
    pathRecord: (req: FastifyRequest, level: Level) => {
      // The parameter is named by the collection, so the route's type cannot know it.
      const named = req.params as Record<string, string>
      return { scope: levels[level].scope(req, named.userId!), id: named[idParam]! }
    },
    ListQuery: (extra: Record<string, TSchema> = {}, description?: string) =>
      Type.Object(
        {
          ...listQueryProperties(limits, resource.sortFields, 't', resource.filterFields, resource.filterSchemas),
          ...extra,
        },
        { ...listQueryOptions, ...(description ? { description } : {}) },
      ),
    notFoundResponse: {
      404: Type.Ref('ErrorEnvelope', { description: `No such ${names.label.toLowerCase()} (or animal) of the user` }),
    },
    patchDescription:
      `Archive or unarchive (\`Archived\`), or correct fields; null clears an optional field. A new ${macField} ` +
      `moves the record to that animal (one of the user's). ${rulesNote}`,
    getDescription: `The ${names.label.toLowerCase()} with this ID, as stored (its MAC is the animal's current one); 404 unless it is one of the user's.`,
  }
}

type Kit = ReturnType<typeof routeKit>
type Level = 'user' | 'animal'

/** The summary of a route on one record: "Change a treatment", or "Change one of the animal's treatments". */
function oneRecordSummary(kit: Kit, level: Level, verb: string, article = 'a') {
  const { names } = kit.collection
  return level === 'user'
    ? `${verb} ${article} ${names.label.toLowerCase()}`
    : `${verb} one of the animal's ${names.plural.toLowerCase()}`
}

/** The search parameters of .../search, each typed by the field it matches. */
function searchParameters({ resource, userLevel }: Collection): Record<string, TSchema> {
  const params: Record<string, TSchema> = {}
  for (const [param, fieldName] of Object.entries(userLevel?.search ?? {})) {
    const f = resource.fields[fieldName]!
    params[param] = Type.Optional(
      f.kind === 'boolean'
        ? Type.Boolean({ description: `${fieldName}: true or false` })
        : f.joined
          ? f.schema({ description: `${fieldName}, either case` })
          : Type.String({
              minLength: 1,
              maxLength: 2000,
              description: `${fieldName}: exact, case-insensitive`,
              examples: (f.schema() as { examples?: unknown[] }).examples,
            }),
    )
  }
  return params
}

/** A page of the scope's records: all, the active or archived part, or the search's matches. */
async function recordsPage(
  kit: Kit,
  scope: RecordScope,
  query: Record<string, unknown> & { page: number; limit: number; sortBy: string; sortOrder: 'asc' | 'desc' },
  view: { archived?: boolean; search?: true },
) {
  const { collection, db, writes } = kit
  const matches: Record<string, string | boolean> = {}
  for (const [param, fieldName] of Object.entries(view.search ? (collection.userLevel?.search ?? {}) : {})) {
    const value = query[param]
    if (typeof value === 'string' || typeof value === 'boolean') matches[fieldName] = value
  }
  const filters = parseFilters(query, collection.resource.filterFields)
  const found = await listRecords(db, collection, scope, query, filters, { archived: view.archived, matches })
  return pageOf(found, query, writes.toApi)
}

/** GET /users/:userId/<segment> and GET /users/:userId/animals/:animalMac/<segment> */
function listRecordsOf(app: App, kit: Kit, level: Level) {
  const { names, resource } = kit.collection
  const at = kit.levels[level]
  app.get(
    at.base,
    {
      schema: {
        operationId: `list${at.name}${names.plural}`,
        summary: `${level === 'user' ? 'List the user' : 'The animal'}'s ${names.plural.toLowerCase()}`,
        description: listDescription,
        params: at.Path,
        querystring: kit.ListQuery(),
        response: { 200: PageEnvelope(resource.ref) },
      },
      config: at.config,
    },
    async (req) => recordsPage(kit, at.scope(req, req.params.userId), req.query, {}),
  )
}

/** GET /users/:userId/<segment>/search */
function searchUserRecords(app: App, kit: Kit) {
  const { names, resource, userLevel } = kit.collection
  app.get(
    `${kit.levels.user.base}/search`,
    {
      schema: {
        operationId: `search${names.plural}`,
        summary: `Search the user's ${names.plural.toLowerCase()}`,
        description:
          `Every given criterion must match: ${Object.keys(userLevel?.search ?? {}).join(', ')}. Text matches exactly but ` +
          'case-insensitively, a MAC in either case. Paginated like every list.',
        params: UserPath,
        querystring: kit.ListQuery(searchParameters(kit.collection)),
        response: { 200: PageEnvelope(resource.ref) },
      },
      config: { access: 'own' },
    },
    async (req) => recordsPage(kit, { uid: req.params.userId }, req.query, { search: true }),
  )
}

/** GET /users/:userId/<segment>/active and GET /users/:userId/<segment>/archived */
function listActiveOrArchivedUserRecords(app: App, kit: Kit, view: 'active' | 'archived') {
  const { names, resource } = kit.collection
  const archived = view === 'archived'
  app.get(
    `${kit.levels.user.base}/${view}`,
    {
      schema: {
        operationId: `list${archived ? 'Archived' : 'Active'}${names.plural}`,
        summary: `The user's ${view} ${names.plural.toLowerCase()}`,
        description: `Records with Archived ${archived}. Common list parameters.`,
        params: UserPath,
        querystring: kit.ListQuery(),
        response: { 200: PageEnvelope(resource.ref) },
      },
      config: { access: 'own' },
    },
    async (req) => recordsPage(kit, { uid: req.params.userId }, req.query, { archived }),
  )
}

/** GET /users/:userId/animals/:animalMac/<segment>/recent */
function recentAnimalRecords(app: App, kit: Kit) {
  const { collection, db, writes, limits } = kit
  const { names, resource } = collection
  app.get(
    `${kit.levels.animal.base}/recent`,
    {
      schema: {
        operationId: `recentAnimal${names.plural}`,
        summary: `The animal's latest ${names.plural.toLowerCase()}`,
        description: 'The newest `limit` records, newest first by t (when they were recorded).',
        params: AnimalMacPath,
        querystring: Type.Object({
          limit: HowMany('Records', limits.recentLimitMax, limits.recentLimitDefault, 5),
        }),
        response: { 200: Envelope(Type.Array(resource.ref, { maxItems: limits.recentLimitMax })) },
      },
      config: { access: 'own', animal: 'path' },
    },
    async (req) => {
      const scope = { uid: req.params.userId, animalId: req.pathAnimal.id }
      return ok((await recentRecords(db, collection, scope, req.query.limit)).map(writes.toApi))
    },
  )
}

/** GET /users/:userId/animals/:animalMac/<segment>/range, for a collection that names its date field */
function animalRecordsInRange(app: App, kit: Kit) {
  const { collection, db, writes } = kit
  const { names, resource } = collection
  const rangeField = collection.animalLevel?.rangeField
  if (!rangeField) return
  const column = resource.fields[rangeField]!.column
  app.get(
    `${kit.levels.animal.base}/range`,
    {
      schema: {
        operationId: `animal${names.plural}InRange`,
        summary: `The animal's ${names.plural.toLowerCase()} between two dates`,
        description: `Records whose ${rangeField} lies between startDate and endDate, both inclusive, oldest first (at most ${RANGE_MAX}).`,
        params: AnimalMacPath,
        querystring: Type.Object({ startDate: RangeDay('First day'), endDate: RangeDay('Last day') }),
        response: { 200: Envelope(Type.Array(resource.ref, { maxItems: RANGE_MAX })) },
      },
      config: { access: 'own', animal: 'path' },
    },
    async (req) => {
      const { from, to } = dayRange(req.query.startDate, req.query.endDate)
      const scope = { uid: req.params.userId, animalId: req.pathAnimal.id }
      return ok((await recordsInRange(db, collection, scope, column, from!, to!)).map(writes.toApi))
    },
  )
}

/** GET /users/:userId/<segment>/:<idParam> and GET /users/:userId/animals/:animalMac/<segment>/:<idParam> */
function getRecord(app: App, kit: Kit, level: Level) {
  const { names, resource } = kit.collection
  const at = kit.levels[level]
  app.get(
    at.base + kit.item,
    {
      schema: {
        operationId: `get${at.name}${names.singular}`,
        summary: oneRecordSummary(kit, level, 'Get', 'one'),
        description:
          level === 'user' ? kit.getDescription : `${kit.getDescription} It must be one of the path animal's.`,
        params: at.ItemPath,
        response: { 200: Envelope(resource.ref) },
      },
      config: at.config,
    },
    async (req) => {
      const { scope, id } = kit.pathRecord(req, level)
      return ok(kit.writes.toApi(await kit.writes.find(scope, id)))
    },
  )
}

/** POST /users/:userId/<segment> and POST /users/:userId/animals/:animalMac/<segment> */
function createRecord(app: App, kit: Kit, level: Level) {
  const { names, resource, segment, macField } = kit.collection
  const at = kit.levels[level]
  const stored = `Answers 201 with the stored record (ID and t generated) and a Location header. ${rulesNote}`
  app.post(
    at.base,
    {
      schema: {
        operationId: `create${at.name}${names.singular}`,
        summary: `Record a ${names.label.toLowerCase()}${level === 'user' ? '' : ' of the animal'}`,
        description:
          level === 'user'
            ? `${macField} must be one of the user's animals. ${stored}`
            : `The animal is the path's; ${macField} may be left out, and when sent must be its MAC. ${stored}`,
        params: at.Path,
        body: resource.createBody(kit.collection[`${level}Level`]?.create),
        response: { 201: Envelope(resource.ref, 'The stored record', `${names.label} created`) },
      },
      attachValidation: true,
      config: { ...at.config, idempotent: true },
    },
    async (req, reply) => {
      const animal = level === 'user' ? undefined : req.pathAnimal
      const row = await kit.writes.create(req, req.params.userId, animal)
      const location = `/users/${req.params.userId}${animal ? `/animals/${animal.mac}` : ''}/${segment}/${String(row.id)}`
      return created(reply, location, ok(kit.writes.toApi(row), `${names.label} created`))
    },
  )
}

/** PATCH /users/:userId/<segment>/:<idParam> and PATCH /users/:userId/animals/:animalMac/<segment>/:<idParam> */
function updateRecord(app: App, kit: Kit, level: Level) {
  const { names, resource } = kit.collection
  const at = kit.levels[level]
  app.patch(
    at.base + kit.item,
    {
      schema: {
        operationId: `update${at.name}${names.singular}`,
        summary: oneRecordSummary(kit, level, 'Change'),
        description: kit.patchDescription,
        params: at.ItemPath,
        body: resource.patchBody(),
        response: {
          200: Envelope(resource.ref, 'The record as stored now', `${names.label} updated`),
          ...kit.notFoundResponse,
        },
      },
      attachValidation: true,
      config: at.config,
    },
    async (req) => {
      const { scope, id } = kit.pathRecord(req, level)
      return kit.writes.update(req, scope, id)
    },
  )
}

/** DELETE /users/:userId/<segment>/:<idParam> and DELETE /users/:userId/animals/:animalMac/<segment>/:<idParam> */
function deleteRecord(app: App, kit: Kit, level: Level) {
  const { names } = kit.collection
  const at = kit.levels[level]
  app.delete(
    at.base + kit.item,
    {
      schema: {
        operationId: `delete${at.name}${names.singular}`,
        summary: oneRecordSummary(kit, level, 'Delete'),
        description: deleteDescription,
        params: at.ItemPath,
        response: { 200: MessageEnvelope('Deleted', `${names.label} deleted`) },
      },
      config: at.config,
    },
    async (req) => {
      const { scope, id } = kit.pathRecord(req, level)
      return kit.writes.remove(scope, id)
    },
  )
}
