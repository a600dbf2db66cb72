import Type, { type Static, type TSchema } from 'typebox'
import type { Limits } from '../../config.ts'
import { SortOrder, StringEnum } from '../../http/list-params.ts'
import { ACCELERATION_BOUNDS, RSSI_BOUNDS, TEMPERATURE_BOUNDS, TIME_RANGES, T_MAX, T_MAX_SECONDS, T_MIN, T_MIN_SECONDS } from './readings.rules.ts'

const Time = Type.Integer({ minimum: T_MIN, maximum: T_MAX, description: 'ms since epoch' })
const Acceleration = (axis: string) => Type.Number({ ...ACCELERATION_BOUNDS, description: `acceleration along ${axis}, g` })

export const SensorReading = Type.Object({
  t: Time,
  c: Type.Number({ ...TEMPERATURE_BOUNDS, description: 'ear-pinna temperature, °C' }),
  x: Acceleration('x'),
  y: Acceleration('y'),
  z: Acceleration('z'),
}, { title: 'AnimalSensorReading', additionalProperties: false })

export const LocationReading = Type.Object({
  t: Time,
  rssi: Type.Number({ ...RSSI_BOUNDS, description: 'signal strength, dBm' }),
  nodeuid: Type.String({ minLength: 1, maxLength: 100, description: 'node that detected the tag' }),
}, { title: 'AnimalLocationReading', additionalProperties: false, description: 'A proximity detection by a node (not a GPS position)' })

/** A litter-monitoring device's reading: the ear-tag reading's fields, but t in Unix SECONDS. */
export const DeviceReading = Type.Object({
  t: Type.Integer({
    minimum: T_MIN_SECONDS, maximum: T_MAX_SECONDS,
    description: `Unix SECONDS (${T_MIN_SECONDS}-${T_MAX_SECONDS}, years 2000-2100): a value in ms is refused, not read as a date in the year 50,000`,
  }),
  c: Type.Number({ ...TEMPERATURE_BOUNDS, description: 'temperature, °C' }),
  x: Acceleration('x'),
  y: Acceleration('y'),
  z: Acceleration('z'),
}, { title: 'DeviceSensorReading', additionalProperties: false })

export type SensorRow = Static<typeof SensorReading>
export type LocationRow = Static<typeof LocationReading>
export type DeviceRow = Static<typeof DeviceReading>

/** An ingestion body of rows of `row`; the same JSON arrives as an MQTT payload. */
function IngestBody<Row extends TSchema>(row: Row, limits: Limits) {
  return Type.Object({
    readings: Type.Array(row, { minItems: 1, maxItems: limits.ingestMaxRows, description: `1-${limits.ingestMaxRows} rows` }),
  }, { additionalProperties: false })
}

export const SensorIngestBody = (limits: Limits) => IngestBody(SensorReading, limits)
export const LocationIngestBody = (limits: Limits) => IngestBody(LocationReading, limits)
export const DeviceIngestBody = (limits: Limits) => IngestBody(DeviceReading, limits)

export const IngestResult = Type.Object({
  received: Type.Integer({ description: 'Rows in the request' }),
  stored: Type.Integer({ description: 'Rows that were new' }),
  duplicates: Type.Integer({ description: 'Rows already stored (same MAC and t), or repeated within the request; not stored again' }),
})

export function ReadingsQuery(limits: Limits) {
  return Type.Object({
    startTime: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'ms since epoch, inclusive' })),
    endTime: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'ms since epoch, inclusive' })),
    limit: Type.Integer({ minimum: 1, maximum: limits.readingsLimitMax, default: limits.readingsLimitDefault, description: `Rows, 1-${limits.readingsLimitMax}` }),
    sortOrder: SortOrder,
  })
}

export function LatestQuery(limits: Limits) {
  return Type.Object({
    count: Type.Integer({ minimum: 1, maximum: limits.latestCountMax, default: limits.latestCountDefault, description: `Samples, 1-${limits.latestCountMax}` }),
  })
}

export const AnalyticsQuery = Type.Object({
  timeRange: StringEnum(TIME_RANGES, { default: '24h', description: 'Window ending now' }),
})

const Range = (description: string) => Type.Object({ min: Type.Union([Type.Number(), Type.Null()]), max: Type.Union([Type.Number(), Type.Null()]) }, { description })

export const SensorAnalytics = Type.Object({
  averageTemperature: Type.Union([Type.Number(), Type.Null()], { description: '°C; null when there are no readings in the window' }),
  averageAccelerationMagnitude: Type.Union([Type.Number(), Type.Null()], { description: 'mean of sqrt(x²+y²+z²), g; null when there are no readings' }),
  temperatureRange: Range('°C'),
  accelerationMagnitudeRange: Range('g'),
  dataPointsCount: Type.Integer(),
  timeRange: Type.Object({ start: Type.Integer({ description: 'ms since epoch' }), end: Type.Integer({ description: 'ms since epoch' }) }),
}, { title: 'AnimalSensorAnalytics', description: 'Computed over every stored reading in the window, both ends inclusive' })

export type SensorAnalyticsBody = Static<typeof SensorAnalytics>
