// Fields that the record collections share: the animal's MAC, Archived, the owner's Uid, dates, times,
// counts and free text, each with the spec's validation (non-empty strings, non-negative numbers).
import Type from 'typebox'
import { EXAMPLE } from '../../http/schema-types.ts'
import { field, type FieldOptions, type StringOptions } from '../../resource/field.ts'
import { MAC_PATTERN, normalizeMac } from '../animals/animals.rules.ts'
import { UID_PATTERN } from '../users/users.rules.ts'
import { describedPattern } from '../../http/input-patterns.ts'

/** Upper bound of counts and amounts: far above any herd, low enough to keep sums exact. */
const COUNT_MAX = 1_000_000

/** The record's animal, shown by its current tag MAC (read from animals, so it follows a MAC change). */
export function animalMac(options: { required?: boolean } = {}) {
  return field.joined('string', (extra) => Type.String({ pattern: MAC_PATTERN, maxLength: 17, ...extra }), {
    column: 'mac',
    required: options.required ?? true,
    toColumn: (value) => normalizeMac(String(value)),
    description: "Tag MAC of the animal, AA:BB:CC:DD:EE:FF (either case); must be one of the user's animals",
    example: EXAMPLE.mac,
  })
}

export const archived = (options: { required?: boolean } = {}) =>
  field.boolean({
    required: options.required ?? false,
    ...(options.required ? {} : { default: false }),
    description: 'Filed away: listed under .../archived instead of .../active',
    example: false,
  })

/** The owner's Uid: sent in some create bodies, where it must equal the path's user id. */
export const ownerUid = (options: { required: boolean }) =>
  field.string({
    column: 'uid',
    createOnly: true,
    required: options.required,
    pattern: UID_PATTERN,
    maxLength: 128,
    description: "The owner's user id; when sent it must equal the path's",
    example: EXAMPLE.uid,
  })

/** A calendar date, YYYY-MM-DD. */
export const date = (description: string, options: StringOptions = {}) =>
  field.string({
    format: 'date',
    maxLength: 10,
    description: `${description}, YYYY-MM-DD`,
    example: '2026-11-02',
    ...options,
  })

/** A time of day, HH:mm or HH:mm:ss. */
export const time = (description: string, options: StringOptions = {}) =>
  field.string({
    pattern: describedPattern(
      '^([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9])?$',
      'must be a time of day, HH:mm or HH:mm:ss',
    ),
    maxLength: 8,
    description: `${description}, HH:mm or HH:mm:ss`,
    example: '06:40',
    ...options,
  })

/** A non-negative number (a count, an amount, a duration). */
export const count = (description: string, options: FieldOptions = {}) =>
  field.number({ minimum: 0, maximum: COUNT_MAX, description, ...options })

/** Unix seconds or ms, non-negative. */
export const timestamp = (description: string, options: FieldOptions = {}) =>
  field.number({ minimum: 0, maximum: 1e15, description, ...options })

/** Free text: non-empty, at most 2,000 characters. */
export const text = (description: string, example: string, options: StringOptions = {}) =>
  field.string({ maxLength: 2000, description, example, ...options })
