import Type, { type Static, type TSchema } from 'typebox'
import type { Limits } from '../../config.ts'
import { StringEnum, listQueryOptions, listQueryProperties, type ListFields } from '../../http/list-params.ts'
import { UID_PATTERN } from '../users/users.rules.ts'
import { MAC_PATTERN } from './animals.rules.ts'

export const SEXES = ['male', 'female'] as const

const Mac = Type.String({ pattern: MAC_PATTERN, description: 'Tag MAC, AA:BB:CC:DD:EE:FF (lower case accepted, stored upper case)', examples: ['AA:BB:CC:DD:EE:01'] })
const Sex = StringEnum(SEXES, { description: 'male or female' })
const Percent = (description: string) => Type.Number({ minimum: 0, maximum: 100, description })
const Text = (description: string) => Type.String({ minLength: 1, maxLength: 200, description })
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()])

export const Diagnosed = Type.Object({
  Description: Type.String({ maxLength: 2000 }),
  Diagnose: Type.String({ maxLength: 200 }),
  t: Type.Integer({ minimum: 0, description: 'ms since epoch' }),
}, { additionalProperties: false })

export const Animal = Type.Object({
  ID: Type.String({ description: 'Creation time in ms as a decimal string; unique among the user\'s animals' }),
  MAC: Type.String({ description: 'Tag MAC, upper case' }),
  Uid: Type.String({ description: 'Owner user id' }),
  Sex,
  Active: Type.Boolean(),
  Battery: Type.Optional(Percent('0-100')),
  CurrentActivity: Type.Optional(Type.Number()),
  CurrentTemperature: Type.Optional(Type.Number({ description: 'Latest ear-pinna temperature, °C (not core body temperature); set by sensordata ingestion' })),
  ReferenceTemperature: Type.Union([Type.Number(), Type.Null()], {
    description: 'Rolling 7-day median of valid pinna samples (25.0-42.0 °C), refreshed daily at 00:00 UTC; null until the tag has 7 days of data and 100 valid samples',
  }),
  ReferenceTemperatureUpdatedAt: Type.Optional(Type.Integer({ description: 'ms since epoch of the last baseline refresh' })),
  ReferenceTemperatureWindowDays: Type.Optional(Type.Integer({ description: 'Window length in days (7)' })),
  EartagStart: Type.Optional(Type.Number()),
  Father: Type.Optional(Type.String()),
  Mother: Type.Optional(Type.String()),
  Group: Type.Optional(Type.String()),
  Node: Type.Optional(Type.String({ description: 'Node that last detected the tag; set by locations ingestion' })),
  NodeWeight: Type.Optional(Type.Number()),
  SignalStrength: Type.Optional(Type.Number({ description: 'RSSI of the last detection, dBm; set by locations ingestion' })),
  WatchdogWeight: Type.Optional(Type.Number()),
  t: Type.Integer({ description: 'ms since epoch: the latest sensor reading, or the creation time before the first' }),
  Suspicious: Type.Boolean(),
  HealthScore: Type.Optional(Percent('0-100')),
  Diagnosed: Type.Optional(Diagnosed),
}, {
  $id: 'Animal',
  additionalProperties: false,
  description: 'An animal carrying an ear tag. Fields without a value are left out (ReferenceTemperature is null instead).',
})

export type ApiAnimal = Static<typeof Animal>

// Fields a client writes. CurrentTemperature, Node, SignalStrength and t come from ingestion,
// the Reference* fields from the daily job, ID and Uid from the service.
export const AnimalCreate = Type.Object({
  MAC: Mac,
  Sex,
  Active: Type.Optional(Type.Boolean({ default: true })),
  Battery: Type.Optional(Percent('0-100')),
  CurrentActivity: Type.Optional(Type.Number()),
  EartagStart: Type.Optional(Type.Number()),
  Father: Type.Optional(Text('Father identifier')),
  Mother: Type.Optional(Text('Mother identifier')),
  Group: Type.Optional(Text('Group (pen, batch)')),
  NodeWeight: Type.Optional(Type.Number()),
  WatchdogWeight: Type.Optional(Type.Number()),
  Suspicious: Type.Optional(Type.Boolean({ default: false })),
  HealthScore: Type.Optional(Percent('0-100')),
  Diagnosed: Type.Optional(Diagnosed),
}, { additionalProperties: false, description: 'MAC and Sex are required' })

export const AnimalPatch = Type.Object({
  MAC: Type.Optional(Mac),
  Sex: Type.Optional(Sex),
  Active: Type.Optional(Type.Boolean()),
  Battery: Type.Optional(Nullable(Percent('0-100'))),
  CurrentActivity: Type.Optional(Nullable(Type.Number())),
  EartagStart: Type.Optional(Nullable(Type.Number())),
  Father: Type.Optional(Nullable(Text('Father identifier'))),
  Mother: Type.Optional(Nullable(Text('Mother identifier'))),
  Group: Type.Optional(Nullable(Text('Group (pen, batch)'))),
  NodeWeight: Type.Optional(Nullable(Type.Number())),
  WatchdogWeight: Type.Optional(Nullable(Type.Number())),
  Suspicious: Type.Optional(Type.Boolean()),
  HealthScore: Type.Optional(Nullable(Percent('0-100'))),
  Diagnosed: Type.Optional(Nullable(Diagnosed)),
}, {
  additionalProperties: false, minProperties: 1,
  description: 'The fields to change; null clears an optional field. Changing MAC moves the tag\'s stored readings to the new MAC.',
})

export type AnimalCreateBody = Static<typeof AnimalCreate>
export type AnimalPatchBody = Static<typeof AnimalPatch>

export const UserPath = Type.Object({ userId: Type.String({ pattern: UID_PATTERN }) })
export const AnimalPath = Type.Object({
  userId: Type.String({ pattern: UID_PATTERN }),
  animalId: Type.String({ pattern: '^[0-9]{1,15}$', description: 'The animal\'s ID' }),
})
export const AnimalMacPath = Type.Object({
  userId: Type.String({ pattern: UID_PATTERN }),
  animalMac: Mac,
})

/** Every scalar Animal field: sortable and filterable (Diagnosed is an object and is neither). */
export const ANIMAL_LIST_FIELDS: ListFields = {
  ID: 'integer', MAC: 'string', Uid: 'string', Sex: 'string', Active: 'boolean', Battery: 'number',
  CurrentActivity: 'number', CurrentTemperature: 'number', ReferenceTemperature: 'number',
  ReferenceTemperatureUpdatedAt: 'integer', ReferenceTemperatureWindowDays: 'integer', EartagStart: 'number',
  Father: 'string', Mother: 'string', Group: 'string', Node: 'string', NodeWeight: 'number', SignalStrength: 'number',
  WatchdogWeight: 'number', t: 'integer', Suspicious: 'boolean', HealthScore: 'number',
}

export function AnimalListQuery(limits: Limits) {
  return Type.Object(listQueryProperties(limits, ANIMAL_LIST_FIELDS, 't'), {
    ...listQueryOptions,
    description: 'filter[Field]=value keeps the animals whose Field equals value (any field sortBy accepts)',
  })
}

const QueryBoolean = Type.Boolean({ description: 'true or false' })
export const AnimalSearchQuery = Type.Object({
  group: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Group, exact match' })),
  sex: Type.Optional(Sex),
  active: Type.Optional(QueryBoolean),
  suspicious: Type.Optional(QueryBoolean),
  mac: Type.Optional(Mac),
})

export const animalSchemas = [Animal]
