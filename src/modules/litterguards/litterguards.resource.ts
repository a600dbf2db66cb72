// The litter-monitoring device registry's field table, and the path and query schemas of its routes.
import Type from 'typebox'
import type { Limits } from '../../config.ts'
import { listQueryOptions, listQueryProperties } from '../../http/list-params.ts'
import { MAX_PATH_SEGMENT } from '../../http/route-policy.ts'
import { BoundedString, EXAMPLE } from '../../http/schema-types.ts'
import { field } from '../../resource/field.ts'
import { defineResource } from '../../resource/resource.ts'
import { MAC_PATTERN, normalizeMac } from '../animals/animals.rules.ts'
import { MacString, UserPath } from '../animals/animals.resource.ts'

export { UserPath }

export const litterguards = defineResource({
  name: 'Litterguard',
  table: 'litterguards',
  description:
    'A litter-monitoring device (path segment litterguards), named by its MAC within the account. ' +
    'LastSeen and CurrentTemperature come from its newest reading (null before the first); Active says whether ' +
    'that reading is recent, judged when the device is read.',
  fields: {
    MAC: field.string({
      required: true,
      createOnly: true,
      pattern: MAC_PATTERN,
      maxLength: 17,
      toColumn: (v) => normalizeMac(String(v)),
      description:
        'Device MAC, AA:BB:CC:DD:EE:FF (lower case accepted, stored upper case); unique within the account and never changed',
      example: EXAMPLE.deviceMac,
    }),
    Name: field.string({
      required: true,
      maxLength: 200,
      description: 'User-defined name',
      example: 'Farrowing room 2, pen 3',
    }),
    LastSeen: field.timestampObject({
      column: 'last_seen',
      nullable: 'null',
      description:
        "When data was last received: the newest reading's t as a timestamp object (Unix seconds; nanoseconds 0, " +
        'readings carry whole seconds). null before the first reading. A batch of older readings arriving late never moves it back.',
    }),
    Active: field.boolean({
      readOnly: true,
      nullable: false,
      description:
        'Connectivity: true while the newest reading is at most LITTERGUARD_ACTIVE_WINDOW_MINUTES (default 15) minutes old. ' +
        'Computed when the device is read, never stored, so it is never stale',
      example: true,
    }),
    CurrentTemperature: field.number({
      readOnly: true,
      nullable: 'null',
      example: 31.4,
      description: "The newest reading's temperature c, °C; null before the first reading",
    }),
    t: field.createdAt("ms since epoch: when the device was registered (its readings' t are Unix seconds)"),
  },
})

export const LitterguardCreate = litterguards.createBody({
  description: 'MAC and Name are required. Unknown fields are refused.',
})
export const LitterguardPatch = litterguards.patchBody({
  description:
    'The fields to change: Name. The MAC names the device and cannot change (register a new device instead); unknown and read-only fields are refused.',
})

/** Any form up to the router's segment length: a MAC that names none of the account's devices is a 404 whatever its form (docs/decisions.md). */
export const LitterguardPath = Type.Object({
  userId: UserPath.properties.userId,
  macAddress: BoundedString(MAX_PATH_SEGMENT, 'The device MAC, AA:BB:CC:DD:EE:FF (either case)', EXAMPLE.deviceMac),
})

/** The criteria that list and search share. */
const criteria = {
  active: Type.Optional(
    Type.Boolean({
      description: 'true: devices with data in the last LITTERGUARD_ACTIVE_WINDOW_MINUTES; false: the others',
    }),
  ),
  mac: Type.Optional(MacString('Device MAC, exact, either case', EXAMPLE.deviceMac)),
  name: Type.Optional(
    Type.String({ minLength: 1, maxLength: 200, description: 'Part of the name, any case', examples: ['room 2'] }),
  ),
}

export function LitterguardListQuery(limits: Limits) {
  return Type.Object(
    {
      ...listQueryProperties(
        limits,
        litterguards.sortFields,
        't',
        litterguards.filterFields,
        litterguards.filterSchemas,
      ),
      ...criteria,
    },
    {
      ...listQueryOptions,
      description:
        'Common list parameters (sortBy any scalar field; filter[Field]=value exact matches) and the criteria active, mac, name',
    },
  )
}

export function LitterguardSearchQuery(limits: Limits) {
  const { page, limit } = listQueryProperties(
    limits,
    litterguards.sortFields,
    't',
    litterguards.filterFields,
    litterguards.filterSchemas,
  )
  return Type.Object({ ...criteria, page, limit })
}
