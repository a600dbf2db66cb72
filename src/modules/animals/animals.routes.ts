// The animal registry: list, search, read, and the writes of decisions.md (POST, PATCH, DELETE).
import Type from 'typebox'
import type { App } from '../../types.ts'
import { Envelope, MessageEnvelope, PageEnvelope, authErrors, commonErrors, ok, okMessage, page } from '../../http/envelope.ts'
import { conflict, notFound } from '../../http/errors.ts'
import { parseFilters } from '../../http/list-params.ts'
import { createIdSource } from './animals.rules.ts'
import {
  DuplicateMacError, deleteAnimal, findAnimalById, insertAnimal, listAnimals, searchAnimals, toApiAnimal, updateAnimal,
} from './animals.repository.ts'
import {
  ANIMAL_LIST_FIELDS, AnimalCreate, AnimalListQuery, AnimalPatch, AnimalPath, AnimalSearchQuery, UserPath,
} from './animals.schemas.ts'

const security = [{ bearer: [] }]
const tags = ['animals']
const AnimalRef = Type.Ref('Animal')
const conflictError = { 409: Type.Ref('ErrorEnvelope', { description: 'The MAC is already used by another of the user\'s animals' }) }

function rethrowDuplicate(err: unknown): never {
  if (err instanceof DuplicateMacError) throw conflict(err.message)
  throw err
}

export default async function animalRoutes(app: App) {
  const db = app.database.db
  const ids = createIdSource(app.clock)

  app.get('/users/:userId/animals', {
    schema: {
      tags, operationId: 'listAnimals', summary: 'List the user\'s animals', security,
      description: 'Common list parameters. `sortBy` takes any scalar Animal field (default `t`, the latest reading time); ' +
        'animals without a value for it come last. `filter[Field]=value` keeps exact matches on any of those fields.',
      params: UserPath,
      querystring: AnimalListQuery(app.config.limits),
      response: { 200: PageEnvelope(AnimalRef, 'One page of animals'), ...authErrors, ...commonErrors },
    },
    preValidation: app.access.own,
  }, async (req) => {
    const filters = parseFilters(req.query, ANIMAL_LIST_FIELDS)
    const { page: pageNumber, limit, sortBy, sortOrder } = req.query
    const { rows, total } = await listAnimals(db, req.params.userId, { page: pageNumber, limit, sortBy, sortOrder }, filters)
    return page(rows.map(toApiAnimal), pageNumber, limit, total)
  })

  app.get('/users/:userId/animals/search', {
    schema: {
      tags, operationId: 'searchAnimals', summary: 'Search the user\'s animals', security,
      description: 'Every given criterion must match (group and mac exactly; mac in either case). All matches, oldest first.',
      params: UserPath,
      querystring: AnimalSearchQuery,
      response: { 200: Envelope(Type.Array(AnimalRef), 'Matching animals'), ...authErrors, ...commonErrors },
    },
    preValidation: app.access.own,
  }, async (req) => ok((await searchAnimals(db, req.params.userId, req.query)).map(toApiAnimal)))

  app.get('/users/:userId/animals/:animalId', {
    schema: {
      tags, operationId: 'getAnimal', summary: 'Get one animal', security,
      params: AnimalPath,
      response: { 200: Envelope(AnimalRef, 'The animal'), ...authErrors, ...commonErrors },
    },
    preValidation: app.access.own,
  }, async (req) => {
    const row = await findAnimalById(db, req.params.userId, Number(req.params.animalId))
    if (!row) throw notFound('Animal')
    return ok(toApiAnimal(row))
  })

  app.post('/users/:userId/animals', {
    schema: {
      tags, operationId: 'createAnimal', summary: 'Register an animal', security,
      description: 'MAC and Sex are required. The MAC must be unique among the user\'s animals (409 otherwise). ' +
        'The ID is the creation time in ms, unique even for concurrent creates.',
      params: UserPath,
      body: AnimalCreate,
      response: { 201: Envelope(AnimalRef, 'The stored animal'), ...authErrors, ...conflictError, ...commonErrors },
    },
    preValidation: app.access.own,
  }, async (req, reply) => {
    const row = await insertAnimal(db, req.params.userId, req.body, ids).catch(rethrowDuplicate)
    return reply.status(201).send(ok(toApiAnimal(row), 'Animal created'))
  })

  app.patch('/users/:userId/animals/:animalId', {
    schema: {
      tags, operationId: 'updateAnimal', summary: 'Change an animal', security,
      params: AnimalPath,
      body: AnimalPatch,
      response: { 200: Envelope(AnimalRef, 'The animal as stored now'), ...authErrors, ...conflictError, ...commonErrors },
    },
    preValidation: app.access.own,
  }, async (req) => {
    const row = await updateAnimal(db, req.params.userId, Number(req.params.animalId), req.body, new Date(app.clock())).catch(rethrowDuplicate)
    if (!row) throw notFound('Animal')
    return ok(toApiAnimal(row), 'Animal updated')
  })

  app.delete('/users/:userId/animals/:animalId', {
    schema: {
      tags, operationId: 'deleteAnimal', summary: 'Delete an animal and its tag\'s readings', security,
      description: 'Integrators need the delete permission.',
      params: AnimalPath,
      response: { 200: MessageEnvelope('Deleted'), ...authErrors, ...commonErrors },
    },
    preValidation: app.access.own,
  }, async (req) => {
    if (!(await deleteAnimal(db, req.params.userId, Number(req.params.animalId)))) throw notFound('Animal')
    return okMessage('Animal deleted')
  })
}
