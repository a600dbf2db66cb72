// Schema building blocks that the modules share: every integer carries its bounds and the format they
// imply, every string a length bound, and each a realistic example from a pig farm, so that the OpenAPI
// document states its limits (OWASP API4) and the reference shows real values instead of placeholders.
import Type from 'typebox'

const INT32_MIN = -(2 ** 31)
const INT32_MAX = 2 ** 31 - 1

/** The examples the document's schemas share: one farm, one sow and her tag, one morning. */
export const EXAMPLE = {
  uid: 'hillside-farm',
  email: 'manager@hillside-farm.example',
  mac: 'A4:C1:38:5F:2B:91',
  deviceMac: 'D8:3B:DA:12:7C:04',
  integratorUid: 'int_7QbZ3kXw9P2mTn4RcYh7Aw',
  /** 2026-11-02T06:40:00Z */
  ms: 1793601600000,
  seconds: 1793601600,
  dateTime: '2026-11-02T06:40:00.000Z',
  date: '2026-11-02',
  requestId: '3f1c9a52-7d4e-4b8a-9c61-0e2f5d8b7a14',
  jwt: 'eyJhbGciOiJIUzI1NiIsInR5cCI6ImF0K2p3dCJ9.eyJpbnRlZ3JhdG9yVUlEIjoiaW50XzdRYlozIn0.Qm9vdHMgYW5kIGJhcm4gZG9vcnM',
} as const

/** int32 when the bounds fit in it, int64 otherwise (JSON numbers hold integers exactly up to 2^53 − 1). */
export function integerFormat(minimum: number, maximum: number): 'int32' | 'int64' {
  return minimum >= INT32_MIN && maximum <= INT32_MAX ? 'int32' : 'int64'
}

interface IntegerOptions {
  minimum: number
  maximum: number
  description?: string
  examples?: number[]
  default?: number
}

/** An integer between its bounds, with the format they imply. */
export const Integer = (options: IntegerOptions) =>
  Type.Integer({ format: integerFormat(options.minimum, options.maximum), ...options })

/** How many to answer (a limit, a count): 1 up to `maximum`, `byDefault` when not given; `noun` names what is counted. */
export const HowMany = (noun: string, maximum: number, byDefault: number, example: number) =>
  Integer({
    minimum: 1,
    maximum,
    default: byDefault,
    description: `${noun}, 1-${maximum}`,
    examples: [Math.min(example, maximum)],
  })

/** A count of things (rows, requests, bytes, devices): 0 up to 2^53 − 1. */
export const Count = (description: string, example: number, maximum = Number.MAX_SAFE_INTEGER) =>
  Integer({ minimum: 0, maximum, description, examples: [example] })

/** A time in ms since the Unix epoch. */
export const EpochMs = (description: string, example: number = EXAMPLE.ms) =>
  Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description, examples: [example] })

/** A time in seconds since the Unix epoch. */
export const EpochSeconds = (description: string, example: number = EXAMPLE.seconds) =>
  Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description, examples: [example] })

/** An ISO 8601 date-time as the service writes it (UTC, ms). */
export const DateTime = (description: string, example: string = EXAMPLE.dateTime) =>
  Type.String({ format: 'date-time', maxLength: 40, description, examples: [example] })

/** A string of `minLength` (one unless given) to `maxLength` characters: its description and an example. */
export const BoundedString = (maxLength: number, description: string, example: string, minLength = 1) =>
  Type.String({ minLength, maxLength, description, examples: [example] })

/** A message the service writes: a sentence, not data. */
export const Message = (description: string, example: string) =>
  Type.String({ minLength: 1, maxLength: 500, description, examples: [example] })
