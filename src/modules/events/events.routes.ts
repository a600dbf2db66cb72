// The event feed of an account: the list (with a sync cursor), one event, one animal's events, acknowledging
// and resolving, a live stream (Server-Sent Events), and the account's alert rules. Events are derived
// elsewhere (reading-events.ts at ingestion, src/jobs/events.ts on a schedule, the predictions job); these
// routes read them.
import { actorSeenBy, eventActorsSeenBy, type Viewer } from './actors.rules.ts'
import type { ServerResponse } from 'node:http'
import Type from 'typebox'
import { callerKey, callerOf, type Caller } from '../../auth/caller.ts'
import { defineModule } from '../../http/api-module.ts'
import { Envelope, PageEnvelope, ok, pageOf } from '../../http/envelope.ts'
import { ApiError, conflict, notFound, validationFailed, type FieldProblem } from '../../http/errors.ts'
import { inFlightCounter } from '../../http/in-flight.ts'
import { parseFilters } from '../../http/list-params.ts'
import type { PageParams } from '../../db/paginate.ts'
import type { App } from '../../types.ts'
import { normalizeMac } from '../animals/animals.rules.ts'
import { ruleProblems, withDefaults } from './alert-rules.rules.ts'
import { AlertRules, AlertRulesBody } from './alert-rules.schemas.ts'
import { ALL_CLEAR_TYPES } from './event-kinds.ts'
import {
  eventsAfter,
  findAlertRules,
  findEvent,
  lastEventId,
  listEvents,
  saveAlertRules,
  updateEventStatus,
  type EventCriteria,
  type EventRow,
} from './events.repository.ts'
import {
  AnimalEventListQuery,
  AnimalMacPath,
  EventListQuery,
  EventPatch,
  EventPath,
  StreamQuery,
  UserPath,
  events,
} from './events.resource.ts'
import { ID_PATTERN } from '../../http/input-patterns.ts'

export const eventsModule = defineModule({
  tag: 'events',
  description:
    'Events the service derives as their causes arrive (temperature bands, prediction alarms, silent tags, offline litter devices, ' +
    'due dates from the farm records), read as a feed with a sync cursor or live as Server-Sent Events, and the alert rules of each account.',
  schemas: [events.item, AlertRules],
  routes: eventRoutes,
})

/** Events per stream read: a reader far behind catches up in reads of this size. */
const STREAM_BATCH = 100
/**
 * Streams one caller may hold open in one process: each polls the store while it is open (for up to its token's
 * life), so an unbounded number would let one caller keep the store busy for everyone.
 */
export const MAX_STREAMS_PER_CALLER = 20

/** A PUT of the alert rules made to a version someone else has written over since. */
const RULES_CHANGED = 'The alert rules changed since updatedAt: read them again and apply the change to them'

const toApi = (row: EventRow | Record<string, unknown>) => events.toApi(row)

/** The caller as a viewer of the account's actors: its owner, or a linked integrator. */
const viewerOf = (caller: Caller): Viewer =>
  caller.kind === 'user' ? { kind: 'owner' } : { kind: 'integrator', uid: caller.integrator.uid }

/** An event as `viewer` may see it: another integrator's UID is never shown (actorSeenBy). */
const eventSeenBy = (row: EventRow | Record<string, unknown>, viewer: Viewer) =>
  eventActorsSeenBy(toApi(row), String(row.uid), viewer)

/** Resolves once what was written to `res` has gone out to the client, or the connection closed. */
function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    if (res.destroyed || res.writableEnded) return resolve()
    const done = () => {
      res.off('drain', done)
      res.off('close', done)
      resolve()
    }
    res.on('drain', done)
    res.on('close', done)
  })
}

/** Who did something, as events record it. */
function actorOf(caller: Caller): string {
  return caller.kind === 'user' ? caller.user.uid : caller.integrator.uid
}

const eventIdOf = (text: string): number | undefined => (/^[0-9]{1,16}$/.test(text) ? Number(text) : undefined)

interface CriteriaQuery {
  EventType?: string | undefined
  severity?: string | undefined
  status?: string | undefined
  since?: number | undefined
  until?: number | undefined
  after?: string | undefined
}

function criteriaOf(uid: string, q: CriteriaQuery): EventCriteria {
  if (q.since !== undefined && q.until !== undefined && q.since > q.until)
    throw validationFailed([{ field: 'query:since', message: 'must not be after until' }])
  return {
    uid,
    type: q.EventType,
    severity: q.severity,
    status: q.status,
    since: q.since,
    until: q.until,
    after: q.after === undefined ? undefined : Number(q.after),
  }
}

async function eventRoutes(app: App) {
  const db = app.database.db
  const { limits, retention } = app.config
  const kept =
    retention.eventsDays === 0
      ? 'Resolved events are kept for good here (EVENTS_RETENTION_DAYS 0).'
      : `A resolved event is deleted EVENTS_RETENTION_DAYS (${retention.eventsDays} days here) after its resolution; an ` +
        `all-clear (${ALL_CLEAR_TYPES.join(', ')}) is resolved from its creation. Open and acknowledged events stay.`
  const List = PageEnvelope(events.ref)

  /** A page of the feed; with `after` (the sync cursor), the first page of the events created after it. */
  async function eventsPage(criteria: EventCriteria, query: PageParams & Record<string, unknown>, viewer: Viewer) {
    // The cursor has no pages; a page asked for beside it would answer the first again, unnoticed.
    if (criteria.after !== undefined && query.page !== 1)
      throw validationFailed([
        { field: 'query:page', message: 'does not apply with after: read on with after=<the last ID of this page>' },
      ])
    const filters = parseFilters(query, events.filterFields)
    const found = await listEvents(db, criteria, query, filters)
    return pageOf(found, { page: criteria.after === undefined ? query.page : 1, limit: query.limit }, (row) =>
      eventSeenBy(row, viewer),
    )
  }
  // Streams end at shutdown, so that closing the server does not wait for their clients.
  const openStreams = new Set<() => void>()
  const streamsOf = inFlightCounter(MAX_STREAMS_PER_CALLER)
  app.addHook('preClose', (done) => {
    for (const end of openStreams) end()
    done()
  })

  app.get(
    '/users/:userId/events',
    {
      schema: {
        operationId: 'listEvents',
        summary: "The account's events",
        description:
          'Newest first by t unless sortBy/sortOrder say otherwise. With `after=<ID>`, the events created after that one in the order ' +
          'they were created (the sync cursor): a consumer that keeps the last ID it saw catches up with nothing missed and nothing twice. ' +
          kept,
        params: UserPath,
        querystring: EventListQuery(limits),
        response: { 200: List },
      },
      config: { access: 'own' },
    },
    async (req) => {
      const criteria = criteriaOf(req.params.userId, req.query)
      if (req.query.MAC !== undefined) criteria.mac = normalizeMac(req.query.MAC)
      return eventsPage(criteria, req.query, viewerOf(callerOf(req)))
    },
  )

  app.get(
    '/users/:userId/events/stream',
    {
      schema: {
        operationId: 'streamEvents',
        summary: "The account's new events, live (Server-Sent Events)",
        description:
          'A `text/event-stream` of the events created from now on (or after `after`), oldest first: each message has `id:` the event ID, ' +
          '`event:` its EventType and `data:` the event as JSON. A reconnecting client sends `Last-Event-ID` (browsers do) and resumes ' +
          'after that event, with nothing missed and nothing twice; `Last-Event-ID` wins over `after`. A comment line every 15 s keeps ' +
          'the connection open; the stream ends when the token expires, and within 15 s once the caller may no longer read the ' +
          'account (token revoked, account or integrator deactivated, link removed, read permission withdrawn). ' +
          `One caller may hold ${MAX_STREAMS_PER_CALLER} streams open at once (per API process): one more is a 429 with Retry-After.`,
        params: UserPath,
        querystring: StreamQuery,
        headers: Type.Object({
          'last-event-id': Type.Optional(
            Type.String({
              pattern: ID_PATTERN,
              maxLength: 16,
              description: 'The last event ID received',
              examples: ['1287'],
            }),
          ),
        }),
        response: {
          200: {
            description: 'A stream of events (text/event-stream)',
            content: {
              'text/event-stream': {
                schema: Type.String({
                  maxLength: 1_000_000_000,
                  examples: ['id: 1288\nevent: temperature-red\ndata: {"ID":"1288"}\n\n'],
                }),
              },
            },
          },
        },
      },
      config: { access: 'own', etag: false },
    },
    async (req, reply) => {
      const uid = req.params.userId
      const caller = callerOf(req)
      const viewer = viewerOf(caller)
      const resume = req.headers['last-event-id'] ?? req.query.after
      const key = callerKey(caller)
      if (!streamsOf.tryAcquire(key)) {
        throw new ApiError(
          429,
          `Too many open event streams: at most ${MAX_STREAMS_PER_CALLER} per caller; close one first`,
          { limit: 'streams', headers: { 'retry-after': '15' } },
        )
      }
      let cursor: number
      try {
        cursor = resume === undefined ? await lastEventId(db, uid) : Number(resume)
      } catch (err) {
        streamsOf.release(key)
        throw err
      }
      reply.hijack()
      const res = reply.raw
      res.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        connection: 'keep-alive',
        'x-accel-buffering': 'no',
        'x-request-id': req.id,
      })
      res.write('retry: 2000\n\n')
      let ended = false
      let wake: (() => void) | undefined
      const end = () => {
        if (ended) return
        ended = true
        wake?.()
        res.end()
      }
      openStreams.add(end)
      res.on('close', end)
      const unsubscribe = app.events.subscribe((created) => {
        if (created.some((e) => e.uid === uid)) wake?.()
      })
      const expiresAt = caller.token.exp * 1000
      const pollMs = app.database.kind === 'embedded' ? 5000 : 1000
      const heartbeatMs = app.config.eventStreamHeartbeatSeconds * 1000
      let nextHeartbeat = Date.now() + heartbeatMs
      try {
        while (!ended) {
          const rows = await eventsAfter(db, uid, cursor, STREAM_BATCH)
          for (const row of rows) {
            const taken = res.write(
              `id: ${row.id}\nevent: ${row.event_type}\ndata: ${JSON.stringify(eventSeenBy(row, viewer))}\n\n`,
            )
            cursor = Number(row.id)
            // A client that reads slowly, or not at all, is sent no faster than it takes: the history it asked for
            // waits in the store, not in this process (a stalled one is closed by closeStalledConnections).
            if (!taken && !ended) await drained(res)
            if (ended) break
          }
          if (Date.now() >= nextHeartbeat) {
            // The route's access check again: a revoked token, a deactivated account or integrator, a removed link
            // or a withdrawn read permission end the stream here.
            if (Date.now() >= expiresAt || !(await app.stillAllows('own', caller, { method: 'GET', userId: uid })))
              break
            res.write(': keep-alive\n\n')
            nextHeartbeat = Date.now() + heartbeatMs
          }
          // A reader behind reads on at once; the heartbeat above still checks its access while it catches up.
          if (rows.length === STREAM_BATCH) continue
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, pollMs)
            wake = () => {
              clearTimeout(timer)
              resolve()
            }
          })
          wake = undefined
        }
      } catch (err) {
        req.log.warn({ err }, 'event stream ended by an error')
      } finally {
        unsubscribe()
        openStreams.delete(end)
        streamsOf.release(key)
        end()
      }
    },
  )

  async function requireEvent(uid: string, idText: string): Promise<EventRow> {
    const id = eventIdOf(idText)
    const event = id === undefined ? undefined : await findEvent(db, uid, id)
    if (!event) throw notFound('Event')
    return event
  }

  app.get(
    '/users/:userId/events/:eventId',
    {
      schema: {
        operationId: 'getEvent',
        summary: 'One event',
        description: 'One event of the account by its ID, with its current status.',
        params: EventPath,
        response: { 200: Envelope(events.ref) },
      },
      config: { access: 'own' },
    },
    async (req) => ok(eventSeenBy(await requireEvent(req.params.userId, req.params.eventId), viewerOf(callerOf(req)))),
  )

  app.patch(
    '/users/:userId/events/:eventId',
    {
      schema: {
        operationId: 'updateEvent',
        summary: 'Acknowledge or resolve an event',
        description:
          'Records who (the caller) and when, with an optional note. Acknowledging a resolved event is a 409 (an all-clear, ' +
          `${ALL_CLEAR_TYPES.join(', ')}, is resolved from its creation); resolving twice keeps the latest. Integrators need the ` +
          'write permission.',
        params: EventPath,
        body: EventPatch,
        response: { 200: Envelope(events.ref, 'The event as changed', 'Event acknowledged') },
      },
      config: { access: 'own' },
    },
    async (req) => {
      const id = eventIdOf(req.params.eventId)
      const result =
        id === undefined
          ? undefined
          : await updateEventStatus(db, req.params.userId, id, {
              status: req.body.status,
              note: req.body.note,
              by: actorOf(callerOf(req)),
              at: app.clock(),
            })
      if (!result) throw notFound('Event')
      if (result === 'resolved') throw conflict('Event is resolved already')
      return ok(eventSeenBy(result, viewerOf(callerOf(req))), `Event ${req.body.status}`)
    },
  )

  app.get(
    '/users/:userId/animals/:animalMac/events',
    {
      schema: {
        operationId: 'listAnimalEvents',
        summary: "One animal's events",
        description:
          "The animal's events, whatever tag it wore when they were created; the same parameters as the account's feed.",
        params: AnimalMacPath,
        querystring: AnimalEventListQuery(limits),
        response: { 200: List },
      },
      config: { access: 'own', animal: 'path' },
    },
    async (req) => {
      const criteria = criteriaOf(req.params.userId, req.query)
      return eventsPage({ ...criteria, animalId: req.pathAnimal.id }, req.query, viewerOf(callerOf(req)))
    },
  )

  const rulesOf = async (uid: string, viewer: Viewer) => {
    const stored = await findAlertRules(db, uid)
    return {
      ...withDefaults(stored?.input),
      updatedAt: stored?.updatedAt ?? null,
      updatedBy: actorSeenBy(stored?.updatedBy ?? null, uid, viewer),
    }
  }

  app.get(
    '/users/:userId/alert-rules',
    {
      schema: {
        operationId: 'getAlertRules',
        summary: "The account's alert rules",
        description:
          'The rules in force: what the account wrote, and the defaults for the rest (all defaults until it writes any).',
        params: UserPath,
        response: { 200: Envelope(Type.Ref('AlertRules')) },
      },
      config: { access: 'own' },
    },
    async (req) => ok(await rulesOf(req.params.userId, viewerOf(callerOf(req)))),
  )

  app.put(
    '/users/:userId/alert-rules',
    {
      schema: {
        operationId: 'putAlertRules',
        summary: "Replace the account's alert rules",
        description:
          'Every part is optional; what is left out takes its default. The red band must start above the yellow one and the ' +
          'hysteresis lie below every probability threshold. Integrators need the write permission.',
        params: UserPath,
        body: AlertRulesBody,
        response: {
          200: Envelope(Type.Ref('AlertRules'), 'The rules now in force', 'Alert rules saved'),
          409: Type.Ref('ErrorEnvelope', {
            description: `The body's updatedAt is not the rules' own: ${RULES_CHANGED}`,
          }),
        },
      },
      config: { access: 'own' },
    },
    async (req) => {
      const { updatedAt, updatedBy: _readOnly, ...input } = req.body
      const problems: FieldProblem[] = ruleProblems(input).map(([field, message]) => ({ field, message }))
      if (problems.length > 0) throw validationFailed(problems)
      const saved = await saveAlertRules(db, req.params.userId, input, actorOf(callerOf(req)), app.clock(), updatedAt)
      if (!saved) throw conflict(RULES_CHANGED)
      return ok(await rulesOf(req.params.userId, viewerOf(callerOf(req))), 'Alert rules saved')
    },
  )
}
