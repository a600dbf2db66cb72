import Type, { type Static } from 'typebox'
import type { Limits } from '../../config.ts'
import { SortOrder, StringEnum } from '../../http/list-params.ts'
import { ACCELERATION_BOUNDS, RSSI_BOUNDS, TEMPERATURE_BOUNDS, TIME_RANGES, T_MAX, T_MIN } from './readings.rules.ts'

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

export type SensorRow = Static<typeof SensorReading>
export type LocationRow = Static<typeof LocationReading>

/** Ingestion bodies; the same JSON arrives as an MQTT payload. */
export function SensorIngestBody(limits: Limits) {
  return Type.Object({
    readings: Type.Array(SensorReading, { minItems: 1, maxItems: limits.ingestMaxRows, description: `1-${limits.ingestMaxRows} rows` }),
  }, { additionalProperties: false })
}

export function LocationIngestBody(limits: Limits) {
  return Type.Object({
    readings: Type.Array(LocationReading, { minItems: 1, maxItems: limits.ingestMaxRows, description: `1-${limits.ingestMaxRows} rows` }),
  }, { additionalProperties: false })
}

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
