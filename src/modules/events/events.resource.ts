// The event as the API shows it (the spec's AnimalEvent fields, plus its id, severity, status and evidence),
// and the path and query schemas of the event routes.
import Type from 'typebox'
import type { Limits } from '../../config.ts'
import { listQueryOptions, listQueryProperties, StringEnum } from '../../http/list-params.ts'
import { MAX_PATH_SEGMENT } from '../../http/route-policy.ts'
import { BoundedString, EXAMPLE } from '../../http/schema-types.ts'
import { field } from '../../resource/field.ts'
import { defineResource } from '../../resource/resource.ts'
import { MAC_PATTERN, normalizeMac } from '../animals/animals.rules.ts'
import { AnimalMacPath, MacString, UserPath } from '../animals/animals.resource.ts'
import { ALL_CLEAR_TYPES, EVENT_KINDS, EVENT_TYPES } from './event-kinds.ts'
import { ID_PATTERN } from '../../http/input-patterns.ts'

export const SEVERITIES = ['info', 'warning', 'critical'] as const
export const STATUSES = ['open', 'acknowledged', 'resolved'] as const

const ms = (description: string) =>
  field.integer({ minimum: 0, readOnly: true, nullable: 'null', description, example: EXAMPLE.ms })

const kindList = EVENT_TYPES.map(
  (type) => `\`${type}\` (${EVENT_KINDS[type].title}; Value in ${EVENT_KINDS[type].scale})`,
)

export const events = defineResource({
  name: 'AnimalEvent',
  table: 'events',
  description:
    "Something the service noticed about an animal or a litter device (the spec's AnimalEvent: EventType, Group, MAC, " +
    'Scale, Value, t), with its id, severity, status and evidence. Events are derived as their cause arrives and never ' +
    'change except for their status.',
  fields: {
    ID: field.id(
      "The event's id: the account's creation sequence as a decimal string. Ids grow in the order events are created, " +
        'so the newest ID seen is the cursor of `after`',
      '1288',
    ),
    EventType: field.enum(EVENT_TYPES, {
      column: 'event_type',
      readOnly: true,
      description: `The kind of event: ${kindList.join(', ')}`,
      example: 'temperature-red',
    }),
    Group: field.string({
      column: 'group_name',
      readOnly: true,
      nullable: 'null',
      description: "The animal's group when the event was created; null for a litter device or an animal in none",
      example: 'Farrowing 2',
    }),
    MAC: field.string({
      column: 'mac',
      readOnly: true,
      pattern: MAC_PATTERN,
      maxLength: 17,
      toColumn: (v) => normalizeMac(String(v)),
      description: 'The ear tag (or litter device) the event is about',
      example: EXAMPLE.mac,
    }),
    Scale: field.string({
      readOnly: true,
      description: 'What Value measures: delta °C, probability, minutes, %, days or sigma',
      example: 'delta °C',
    }),
    Value: field.number({
      readOnly: true,
      description:
        'The figure behind the event: the temperature delta, the probability, minutes without data, battery %, days since the record',
      example: 0.74,
    }),
    t: field.integer({
      minimum: 0,
      readOnly: true,
      description: 'ms since epoch: when the cause happened (the reading, the prediction, the due day)',
      example: EXAMPLE.ms,
    }),
    severity: field.enum(SEVERITIES, { readOnly: true, description: 'info, warning or critical', example: 'critical' }),
    status: field.enum(STATUSES, {
      readOnly: true,
      description:
        'open, acknowledged or resolved (by a person, or by the service when the cause went away); an all-clear, the event ' +
        `that says a condition is over (${ALL_CLEAR_TYPES.join(', ')}), is resolved by the service from its creation`,
      example: 'open',
    }),
    evidence: field.json((extra) => Type.Object({}, { additionalProperties: true, ...extra }), {
      readOnly: true,
      sortable: false,
      filterable: false,
      description:
        'What made the event: the delta and reference temperature, the probability and the prediction id, the record that made it due, ' +
        'the minutes without data; the keys depend on EventType (docs/events.md)',
      example: { delta: 0.74, currentTemperature: 38.9, referenceTemperature: 38.16 },
    }),
    createdAt: field.integer({
      column: 'created_at',
      minimum: 0,
      readOnly: true,
      description: 'ms since epoch: when the service created the event',
      example: EXAMPLE.ms,
    }),
    acknowledgedBy: field.string({
      column: 'acknowledged_by',
      readOnly: true,
      nullable: 'null',
      description:
        "Who acknowledged it: the account's Uid or an integratorUID; an integrator sees another integrator as `another integrator`",
      example: EXAMPLE.uid,
    }),
    acknowledgedAt: ms('ms since epoch: when it was acknowledged'),
    resolvedBy: field.string({
      column: 'resolved_by',
      readOnly: true,
      nullable: 'null',
      description:
        "Who resolved it: the account's Uid, an integratorUID (an integrator sees another integrator as `another integrator`), " +
        'or `service` when the cause went away (and for an all-clear, at its creation)',
      example: 'service',
    }),
    resolvedAt: ms('ms since epoch: when it was resolved'),
    note: field.string({
      readOnly: true,
      nullable: 'null',
      maxLength: 2000,
      description: 'The note given with the last acknowledgement or resolution',
      example: 'Checked at 07:10, vet called',
    }),
  },
})

const EventId = BoundedString(MAX_PATH_SEGMENT, "The event's ID", '1287')

export const EventPath = Type.Object({ userId: UserPath.properties.userId, eventId: EventId })
export { AnimalMacPath, UserPath }

const Cursor = Type.String({
  pattern: ID_PATTERN,
  maxLength: 16,
  description:
    'Sync cursor: the newest event ID already seen. Returns the events created after it, oldest first (sortBy and sortOrder do not apply, ' +
    'page is a 400); read on with the last ID of each page as the next cursor until a page comes back short. The `Link` header has ' +
    '`next` (that cursor) while more remain, and `pagination.total` counts the events after the cursor',
  examples: ['1287'],
})

const Instant = (description: string) =>
  Type.Integer({ format: 'int64', minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description, examples: [EXAMPLE.ms] })

const criteria = {
  EventType: Type.Optional(StringEnum(EVENT_TYPES, { description: 'Only this kind', examples: ['farrowing-due'] })),
  severity: Type.Optional(StringEnum(SEVERITIES, { description: 'Only this severity', examples: ['critical'] })),
  status: Type.Optional(StringEnum(STATUSES, { description: 'Only this status', examples: ['open'] })),
  since: Type.Optional(Instant('Only events whose t is at or after this, ms since epoch')),
  until: Type.Optional(Instant('Only events whose t is at or before this, ms since epoch')),
  after: Type.Optional(Cursor),
}

export function EventListQuery(limits: Limits) {
  return Type.Object(
    {
      ...listQueryProperties(limits, events.sortFields, 't', events.filterFields, events.filterSchemas),
      ...criteria,
      MAC: Type.Optional(MacString('Only this tag or device, either case')),
    },
    {
      ...listQueryOptions,
      description:
        'Common list parameters and the criteria EventType, MAC, severity, status, since, until; `after` for a sync in creation order',
    },
  )
}

export function AnimalEventListQuery(limits: Limits) {
  return Type.Object(
    { ...listQueryProperties(limits, events.sortFields, 't', events.filterFields, events.filterSchemas), ...criteria },
    {
      ...listQueryOptions,
      description: 'Common list parameters and the criteria EventType, severity, status, since, until, after',
    },
  )
}

export const EventPatch = Type.Object(
  {
    status: StringEnum(['acknowledged', 'resolved'] as const, {
      description: 'acknowledged (seen, being handled) or resolved (done)',
      examples: ['acknowledged'],
    }),
    note: Type.Optional(BoundedString(2000, 'Optional note', 'Checked at 07:10, vet called')),
  },
  {
    additionalProperties: false,
    description:
      'Acknowledge or resolve an event. A resolved event stays resolved (409 on a later acknowledgement); who and when are recorded.',
  },
)

export const StreamQuery = Type.Object({
  after: Type.Optional(Cursor),
})
