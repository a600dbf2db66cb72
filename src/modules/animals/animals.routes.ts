// The animal registry: list, search, read, and the writes of docs/decisions.md (POST, PATCH, DELETE).
import Type from 'typebox'
import { defineModule } from '../../http/api-module.ts'
import type { App } from '../../types.ts'
import { Envelope, MessageEnvelope, PageEnvelope, ok, okMessage, pageOf } from '../../http/envelope.ts'
import { ApiError, conflictOn, notFound, orNotFound } from '../../http/errors.ts'
import { parseFilters } from '../../http/list-params.ts'
import { createIdSource } from '../../db/ids.ts'
import { created } from '../../http/created.ts'
import {
  DuplicateMacError,
  deleteAnimal,
  findAnimal,
  insertAnimal,
  listAnimals,
  searchAnimals,
  toApiAnimal,
  updateAnimal,
} from './animals.repository.ts'
import {
  AnimalCreate,
  AnimalListQuery,
  AnimalPatch,
  AnimalPath,
  AnimalSearchQuery,
  UserPath,
  animals,
} from './animals.resource.ts'
import { dayOfInstant } from '../cycle/cycle.rules.ts'
import { femaleIdsInState } from '../cycle/cycle.repository.ts'

/** Most animals a search answers: a herd larger than this narrows its criteria (a page of readings holds as many). */
export const SEARCH_MAX = 10_000

const conflictError = {
  409: Type.Ref('ErrorEnvelope', { description: "The MAC is already used by another of the user's animals" }),
}

const rethrowDuplicate = conflictOn(DuplicateMacError)

export const animalsModule = defineModule({
  tag: 'animals',
  description: 'The animal registry: animals and their ear tags',
  schemas: [animals.item],
  routes: animalRoutes,
})

/** The registry; deleting an animal keeps or deletes its farm records (app.animalRecordTables, given by app.ts). */
async function animalRoutes(app: App) {
  const db = app.database.db
  const ids = createIdSource(app.clock)

  const requireAnimal = async (userId: string, animalId: string) =>
    orNotFound(await findAnimal(db, userId, animalId), 'Animal')

  app.get(
    '/users/:userId/animals',
    {
      schema: {
        operationId: 'listAnimals',
        summary: "List the user's animals",
        description:
          'Common list parameters. `sortBy` takes any scalar Animal field (default `t`, the latest reading time); ' +
          'animals without a value for it come last. `filter[Field]=value` keeps exact matches on any of those fields. ' +
          '`cycleState` keeps the females in that sow-cycle state today (from their farm records; see the herd tag); with it ' +
          'the request is an expensive one.',
        params: UserPath,
        querystring: AnimalListQuery(app.config.limits),
        response: { 200: PageEnvelope(animals.ref, 'One page of animals') },
      },
      // The cycleState filter reads the records of every female of the farm since her last farrowing.
      config: { access: 'own', cost: (q) => q.cycleState !== undefined },
    },
    async (req) => {
      const filters = parseFilters(req.query, animals.filterFields)
      const { cycleState } = req.query
      const onlyIds =
        cycleState === undefined
          ? undefined
          : await femaleIdsInState(db, req.params.userId, cycleState, dayOfInstant(app.clock()))
      return pageOf(await listAnimals(db, req.params.userId, req.query, filters, onlyIds), req.query, toApiAnimal)
    },
  )

  app.get(
    '/users/:userId/animals/search',
    {
      schema: {
        operationId: 'searchAnimals',
        summary: "Search the user's animals",
        description:
          'Every given criterion must match (group and mac exactly; mac in either case). All matches, oldest first, ' +
          `up to ${SEARCH_MAX}: when more match, the answer holds the first ${SEARCH_MAX} and says so in \`message\`.`,
        params: UserPath,
        querystring: AnimalSearchQuery,
        response: {
          200: Envelope(
            Type.Array(animals.ref, { maxItems: SEARCH_MAX }),
            'Matching animals',
            `The first ${SEARCH_MAX} matching animals; narrow the criteria for the rest`,
          ),
        },
      },
      config: { access: 'own' },
    },
    async (req) => {
      const rows = await searchAnimals(db, req.params.userId, req.query, SEARCH_MAX + 1)
      const found = rows.slice(0, SEARCH_MAX).map(toApiAnimal)
      return ok(
        found,
        rows.length > SEARCH_MAX
          ? `The first ${SEARCH_MAX} matching animals; narrow the criteria for the rest`
          : undefined,
      )
    },
  )

  app.get(
    '/users/:userId/animals/:animalId',
    {
      schema: {
        operationId: 'getAnimal',
        summary: 'Get one animal',
        description:
          "By its ID, or by its tag MAC (either case). Anything that names none of the user's animals is a 404.",
        params: AnimalPath,
        response: { 200: Envelope(animals.ref, 'The animal') },
      },
      config: { access: 'own' },
    },
    async (req) => ok(toApiAnimal(await requireAnimal(req.params.userId, req.params.animalId))),
  )

  app.post(
    '/users/:userId/animals',
    {
      schema: {
        operationId: 'createAnimal',
        summary: 'Register an animal',
        description:
          "MAC and Sex are required. The MAC must be unique among the user's animals (409 otherwise). " +
          'The ID is the creation time in ms, unique even for concurrent creates. Answers 201 with a Location header.',
        params: UserPath,
        body: AnimalCreate,
        response: { 201: Envelope(animals.ref, 'The stored animal', 'Animal created'), ...conflictError },
      },
      config: { access: 'own', idempotent: true },
    },
    async (req, reply) => {
      const row = await insertAnimal(db, req.params.userId, req.body, ids).catch(rethrowDuplicate)
      return created(reply, `/users/${req.params.userId}/animals/${row.id}`, ok(toApiAnimal(row), 'Animal created'))
    },
  )

  app.patch(
    '/users/:userId/animals/:animalId',
    {
      schema: {
        operationId: 'updateAnimal',
        summary: 'Change an animal',
        description:
          "By its ID or tag MAC. Integrators need the write permission. A new MAC must be unique among the user's " +
          "animals (409 otherwise) and takes the tag's readings along.",
        params: AnimalPath,
        body: AnimalPatch,
        response: { 200: Envelope(animals.ref, 'The animal as stored now', 'Animal updated'), ...conflictError },
      },
      config: { access: 'own' },
    },
    async (req) => {
      const current = await requireAnimal(req.params.userId, req.params.animalId)
      const row = await updateAnimal(db, req.params.userId, current.id, req.body, new Date(app.clock())).catch(
        rethrowDuplicate,
      )
      return ok(toApiAnimal(orNotFound(row, 'Animal')), 'Animal updated')
    },
  )

  app.delete(
    '/users/:userId/animals/:animalId',
    {
      schema: {
        operationId: 'deleteAnimal',
        summary: "Delete an animal and its tag's readings",
        description:
          'Integrators need the delete permission. Farm records (births, treatments, ...) are never deleted ' +
          'silently: an animal that has any answers 409 with their counts, and stays. `deleteRecords=true` deletes the ' +
          'animal with all its records; to retire an animal and keep its history, set `Active` to false instead.',
        params: AnimalPath,
        querystring: Type.Object(
          {
            deleteRecords: Type.Boolean({ default: false, description: "Also delete the animal's farm records" }),
          },
          { additionalProperties: false },
        ),
        response: {
          200: MessageEnvelope('Deleted', 'Animal deleted'),
          409: Type.Ref('ErrorEnvelope', {
            description: 'The animal has farm records and deleteRecords is not true',
          }),
        },
      },
      config: { access: 'own' },
    },
    async (req) => {
      const current = await requireAnimal(req.params.userId, req.params.animalId)
      const outcome = await deleteAnimal(
        db,
        req.params.userId,
        current.id,
        app.animalRecordTables,
        req.query.deleteRecords,
      )
      if ('missing' in outcome) throw notFound('Animal')
      if ('records' in outcome) {
        const counts = Object.entries(outcome.records)
          .map(([name, n]) => `${name} ${n}`)
          .join(', ')
        throw new ApiError(
          409,
          `The animal has farm records (${counts}): they are kept. Send deleteRecords=true to delete ` +
            'them with the animal, or set Active to false to retire it and keep its history',
        )
      }
      return okMessage('Animal deleted')
    },
  )
}
