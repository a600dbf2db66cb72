// The animal registry's field table, and the path and query schemas of its routes.
import Type from 'typebox'
import type { Limits } from '../../config.ts'
import { StringEnum, listQueryOptions, listQueryProperties } from '../../http/list-params.ts'
import { MAX_PATH_SEGMENT } from '../../http/route-policy.ts'
import { BoundedString, EXAMPLE, EpochMs } from '../../http/schema-types.ts'
import { field } from '../../resource/field.ts'
import { defineResource } from '../../resource/resource.ts'
import { CYCLE_STATES } from '../cycle/cycle.rules.ts'
import { UID_PATTERN } from '../users/users.rules.ts'
import { MAC_PATTERN, normalizeMac } from './animals.rules.ts'

export const SEXES = ['male', 'female'] as const

const percent = (description: string) => ({ minimum: 0, maximum: 100, description })
const text = (description: string, example: string) => field.string({ maxLength: 200, description, example })

export const Diagnosed = (extra: Record<string, unknown> = {}) =>
  Type.Object(
    {
      Description: Type.String({ maxLength: 2000, examples: ['Lame on the left hind leg'] }),
      Diagnose: Type.String({ maxLength: 200, examples: ['Lameness'] }),
      t: EpochMs('ms since epoch of the diagnosis'),
    },
    { additionalProperties: false, ...extra },
  )

export const animals = defineResource({
  name: 'Animal',
  table: 'animals',
  description:
    'An animal carrying an ear tag. Fields without a value are left out (ReferenceTemperature is null instead).',
  fields: {
    ID: field.id("Creation time in ms as a decimal string; unique among the user's animals"),
    MAC: field.string({
      required: true,
      pattern: MAC_PATTERN,
      maxLength: 17,
      toColumn: (v) => normalizeMac(String(v)),
      description:
        "Tag MAC, AA:BB:CC:DD:EE:FF (lower case accepted, stored upper case). Changing it moves the tag's readings along",
      example: EXAMPLE.mac,
    }),
    Uid: field.string({
      readOnly: true,
      pattern: UID_PATTERN,
      maxLength: 128,
      description: 'Owner user id',
      example: EXAMPLE.uid,
    }),
    Sex: field.enum(SEXES, { required: true, description: 'male or female', example: 'female' }),
    Active: field.boolean({ default: true, example: true }),
    Battery: field.number({ ...percent('Tag battery, %'), example: 96 }),
    CurrentActivity: field.number({
      minimum: -1e15,
      maximum: 1e15,
      example: 0.18,
      description:
        "Share of the last whole hour's sensor samples in which the tag moved (0-1), set hourly by the service from the tag's readings; a value written stands until then",
    }),
    CurrentTemperature: field.number({
      readOnly: true,
      nullable: true,
      example: 38.6,
      description: 'Latest ear-pinna temperature, °C (not core body temperature); set by sensordata ingestion',
    }),
    ReferenceTemperature: field.number({
      readOnly: true,
      nullable: 'null',
      example: 38.2,
      description:
        'Rolling 7-day median of valid pinna samples (25.0-42.0 °C), refreshed daily at 00:00 UTC; null until the tag has 7 days of data and 100 valid samples',
    }),
    ReferenceTemperatureUpdatedAt: field.integer({
      readOnly: true,
      nullable: true,
      minimum: 0,
      description: 'ms since epoch of the last baseline refresh',
      example: EXAMPLE.ms - 24_000_000,
    }),
    ReferenceTemperatureWindowDays: field.integer({
      readOnly: true,
      nullable: true,
      minimum: 1,
      maximum: 366,
      description: 'Window length in days (7)',
      example: 7,
    }),
    EartagStart: field.number({ minimum: -1e15, maximum: 1e15, example: 1791158400000 }),
    Father: text('Father identifier', 'Boar DK-2231'),
    Mother: text('Mother identifier', 'Sow 1187'),
    Group: field.string({
      column: 'group_name',
      maxLength: 200,
      description: 'Group (pen, batch)',
      example: 'Farrowing 2',
    }),
    Node: field.string({
      readOnly: true,
      nullable: true,
      maxLength: 100,
      description: 'Node that last detected the tag; set by locations ingestion',
      example: 'node-3',
    }),
    NodeWeight: field.number({ minimum: -1e15, maximum: 1e15, example: 1 }),
    SignalStrength: field.number({
      readOnly: true,
      nullable: true,
      description: 'RSSI of the last detection, dBm; set by locations ingestion',
      example: -61,
    }),
    WatchdogWeight: field.number({ minimum: -1e15, maximum: 1e15, example: 0.5 }),
    t: field.createdAt('ms since epoch: the latest sensor reading, or the creation time before the first'),
    Suspicious: field.boolean({ default: false, example: false }),
    HealthScore: field.number({ ...percent('0-100'), example: 92 }),
    Diagnosed: field.json(Diagnosed, { description: 'The latest diagnosis' }),
  },
})

export const AnimalCreate = animals.createBody({
  description: 'MAC and Sex are required; the other writable fields are optional. Unknown fields are refused.',
})
export const AnimalPatch = animals.patchBody({
  description:
    "The fields to change (at least one); null clears an optional field. Changing MAC moves the tag's stored readings to the new MAC; its farm records belong to the animal and follow it.",
})

const Uid = Type.String({
  pattern: UID_PATTERN,
  maxLength: 128,
  description: "The account's Uid",
  examples: [EXAMPLE.uid],
})
export const UserPath = Type.Object({ userId: Uid })
/** A MAC as the API takes it, AA:BB:CC:DD:EE:FF in either case: a query parameter, or a field of another schema. */
export const MacString = (description: string, example: string = EXAMPLE.mac) =>
  Type.String({ pattern: MAC_PATTERN, maxLength: 17, description, examples: [example] })
/** Ids and MACs that name nothing of the account's answer 404 whatever their form (docs/decisions.md), so they are not patterned here. */
export const AnimalPath = Type.Object({
  userId: Uid,
  animalId: BoundedString(MAX_PATH_SEGMENT, "The animal's ID, or its tag MAC (either case)", String(EXAMPLE.ms)),
})
export const AnimalMacPath = Type.Object({
  userId: Uid,
  animalMac: BoundedString(MAX_PATH_SEGMENT, 'The tag MAC, AA:BB:CC:DD:EE:FF (either case)', EXAMPLE.mac),
})

export function AnimalListQuery(limits: Limits) {
  return Type.Object(
    {
      ...listQueryProperties(limits, animals.sortFields, 't', animals.filterFields, animals.filterSchemas),
      cycleState: Type.Optional(
        StringEnum(CYCLE_STATES, {
          description:
            "Only the females in this sow-cycle state today (GET .../animals/<animal_mac>/cycle gives one female's)",
          examples: ['due-to-farrow'],
        }),
      ),
    },
    {
      ...listQueryOptions,
      description: 'filter[Field]=value keeps the animals whose Field equals value (any field sortBy accepts)',
    },
  )
}

const QueryBoolean = Type.Boolean({ description: 'true or false' })
export const AnimalSearchQuery = Type.Object({
  group: Type.Optional(
    Type.String({ minLength: 1, maxLength: 200, description: 'Group, exact match', examples: ['Farrowing 2'] }),
  ),
  sex: Type.Optional(StringEnum(SEXES)),
  active: Type.Optional(QueryBoolean),
  suspicious: Type.Optional(QueryBoolean),
  mac: Type.Optional(MacString('Tag MAC, either case')),
})
