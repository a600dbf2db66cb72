import Type, { type Static, type TSchema } from 'typebox'
import type { Limits } from '../../config.ts'
import { SortOrder, StringEnum } from '../../http/list-params.ts'
import { BoundedString, Count, EXAMPLE, EpochMs, HowMany, Integer } from '../../http/schema-types.ts'
import {
  ACCELERATION_BOUNDS,
  AGGREGATE_DEFAULT_INTERVAL,
  AGGREGATE_DEFAULT_SPAN_MS,
  AGGREGATE_INTERVALS,
  AGGREGATE_MAX_BUCKETS,
  RSSI_BOUNDS,
  TEMPERATURE_BOUNDS,
  TIME_RANGES,
  T_MAX,
  T_MAX_SECONDS,
  T_MIN,
  T_MIN_SECONDS,
} from './readings.rules.ts'

const Time = Integer({ minimum: T_MIN, maximum: T_MAX, description: 'ms since epoch', examples: [EXAMPLE.ms] })
/** A resting sow: the tag lies nearly flat, gravity mostly along z. */
const Acceleration = (axis: string, example: number) =>
  Type.Number({ ...ACCELERATION_BOUNDS, description: `acceleration along ${axis}, g`, examples: [example] })

export const SensorReading = Type.Object(
  {
    t: Time,
    c: Type.Number({ ...TEMPERATURE_BOUNDS, description: 'ear-pinna temperature, °C', examples: [38.6] }),
    x: Acceleration('x', 0.02),
    y: Acceleration('y', -0.11),
    z: Acceleration('z', 0.99),
  },
  { title: 'AnimalSensorReading', additionalProperties: false },
)

export const LocationReading = Type.Object(
  {
    t: Time,
    rssi: Type.Number({ ...RSSI_BOUNDS, description: 'signal strength, dBm', examples: [-67] }),
    nodeuid: BoundedString(100, 'node that detected the tag', 'node-farrowing-2'),
  },
  {
    title: 'AnimalLocationReading',
    additionalProperties: false,
    description: 'A proximity detection by a node (not a GPS position)',
  },
)

/** A litter-monitoring device's reading: the ear-tag reading's fields, but t in Unix SECONDS. */
export const DeviceReading = Type.Object(
  {
    t: Integer({
      minimum: T_MIN_SECONDS,
      maximum: T_MAX_SECONDS,
      examples: [EXAMPLE.seconds],
      description: `Unix SECONDS (${T_MIN_SECONDS}-${T_MAX_SECONDS}, years 2000-2100): a value in ms is refused, not read as a date in the year 50,000`,
    }),
    c: Type.Number({ ...TEMPERATURE_BOUNDS, description: 'temperature, °C', examples: [31.4] }),
    x: Acceleration('x', 0.05),
    y: Acceleration('y', 0.01),
    z: Acceleration('z', 1.02),
  },
  { title: 'DeviceSensorReading', additionalProperties: false },
)

export type SensorRow = Static<typeof SensorReading>
export type LocationRow = Static<typeof LocationReading>
export type DeviceRow = Static<typeof DeviceReading>

/** An ingestion body of rows of `row`; the same JSON arrives as an MQTT payload. */
function IngestBody<Row extends TSchema>(row: Row, limits: Limits) {
  return Type.Object(
    {
      readings: Type.Array(row, {
        minItems: 1,
        maxItems: limits.ingestMaxRows,
        description: `1-${limits.ingestMaxRows} rows`,
      }),
    },
    { additionalProperties: false },
  )
}

export const SensorIngestBody = (limits: Limits) => IngestBody(SensorReading, limits)
export const LocationIngestBody = (limits: Limits) => IngestBody(LocationReading, limits)
export const DeviceIngestBody = (limits: Limits) => IngestBody(DeviceReading, limits)

export const IngestResult = Type.Object({
  received: Count('Rows in the request', 120),
  stored: Count('Rows that were new', 118),
  duplicates: Count('Rows already stored (same MAC and t), or repeated within the request; not stored again', 2),
})

/** A page of readings as the routes answer it: at most the largest `limit` (or `count`) the query admits. */
export const Rows = <Row extends TSchema>(row: Row, maxItems: number) => Type.Array(row, { maxItems })

export function ReadingsQuery(limits: Limits) {
  return Type.Object({
    startTime: Type.Optional(EpochMs('ms since epoch, inclusive', EXAMPLE.ms - 86_400_000)),
    endTime: Type.Optional(EpochMs('ms since epoch, inclusive')),
    limit: HowMany('Rows', limits.readingsLimitMax, limits.readingsLimitDefault, 1000),
    sortOrder: SortOrder,
  })
}

export function LatestQuery(limits: Limits) {
  return Type.Object({
    count: HowMany('Samples', limits.latestCountMax, limits.latestCountDefault, 5),
  })
}

export const AnalyticsQuery = Type.Object({
  timeRange: StringEnum(TIME_RANGES, { default: '24h', description: 'Window ending now', examples: ['7d'] }),
})

const OrNull = (example: number) => Type.Union([Type.Number({ examples: [example] }), Type.Null()])
const Range = (description: string, min: number, max: number) =>
  Type.Object({ min: OrNull(min), max: OrNull(max) }, { description })

export const SensorAnalytics = Type.Object(
  {
    averageTemperature: Type.Union([Type.Number({ examples: [38.4] }), Type.Null()], {
      description: '°C; null when there are no readings in the window',
    }),
    averageAccelerationMagnitude: Type.Union([Type.Number({ examples: [1.03] }), Type.Null()], {
      description: 'mean of sqrt(x²+y²+z²), g; null when there are no readings',
    }),
    temperatureRange: Range('°C', 37.1, 39.2),
    accelerationMagnitudeRange: Range('g', 0.94, 2.61),
    dataPointsCount: Count('Readings in the window', 10_080),
    timeRange: Type.Object({
      start: EpochMs('ms since epoch: now − timeRange', EXAMPLE.ms - 7 * 86_400_000),
      end: EpochMs('ms since epoch: now'),
    }),
  },
  {
    title: 'AnimalSensorAnalytics',
    description: 'Computed over every stored reading in the window, both ends inclusive',
  },
)

export type SensorAnalyticsBody = Static<typeof SensorAnalytics>

/** An example bucket's figures of one quantity (its sums follow from mean, standard deviation and count). */
interface StatsExample {
  mean: number
  min: number
  max: number
  sd: number
}

/**
 * What the aggregate schemas of a series need: how it writes its times (ear tags: ms; litter devices: Unix
 * seconds), the schema of one, and realistic examples.
 */
export interface AggregateSchemaUnit {
  /** Prefix of the schemas' titles: `AnimalSensor`, `DeviceSensor`. */
  title: string
  msPerT: 1 | 1000
  unitName: string
  /** A time in the answer. */
  time: (description: string, example: number) => ReturnType<typeof Integer>
  /** A time in the query: as `time`, or stricter (a device's refuses a value in ms with words to say so). */
  queryTime: (description: string, example: number) => ReturnType<typeof Integer>
  example: number
  temperature: StatsExample
}

export const EAR_TAG_AGGREGATE: AggregateSchemaUnit = {
  title: 'AnimalSensor',
  msPerT: 1,
  unitName: 'ms',
  time: EpochMs,
  queryTime: EpochMs,
  example: EXAMPLE.ms,
  temperature: { mean: 38.4, min: 38.1, max: 38.7, sd: 0.15 },
}

/** What the aggregate routes of both series (ear tags, litter devices) say of themselves. */
export const AGGREGATE_DESCRIPTION =
  `The readings of [startTime, endTime] summed up per bucket of \`interval\` (default ${AGGREGATE_DEFAULT_INTERVAL}): count, and ` +
  'the sum, sum of squares, minimum, maximum and mean of the temperature and of the acceleration magnitude √(x²+y²+z²), ' +
  'computed by the database. Buckets are aligned to UTC, oldest first, and only those with readings are listed. ' +
  `A span of more than ${AGGREGATE_MAX_BUCKETS} buckets is a 400.`

const AGGREGATE_RULES =
  'Buckets are aligned to UTC (each starts at a multiple of the interval since the epoch) and only buckets with readings ' +
  'are listed, in time order; the first and last bucket count only the readings inside [startTime, endTime].'

export function AggregateQuery(unit: AggregateSchemaUnit) {
  const day = AGGREGATE_DEFAULT_SPAN_MS / unit.msPerT
  return Type.Object({
    interval: StringEnum(AGGREGATE_INTERVALS, {
      default: AGGREGATE_DEFAULT_INTERVAL,
      description: `Bucket size. ${AGGREGATE_RULES}`,
      examples: ['15m'],
    }),
    startTime: Type.Optional(
      unit.queryTime(`First instant, ${unit.unitName}, inclusive; default endTime − 24 hours`, unit.example - day),
    ),
    endTime: Type.Optional(unit.queryTime(`Last instant, ${unit.unitName}, inclusive; default now`, unit.example)),
  })
}

/** Sums of one quantity over a bucket's readings: enough to merge buckets or draw a mean with its spread. */
function BucketStats(quantity: string, unitSymbol: string, e: StatsExample, n: number) {
  const sum = Math.round(e.mean * n * 1000) / 1000
  const sumOfSquares = Math.round((e.sd * e.sd + e.mean * e.mean) * n * 1000) / 1000
  return Type.Object(
    {
      mean: Type.Number({ description: `sum / count, ${unitSymbol}`, examples: [e.mean] }),
      min: Type.Number({ description: unitSymbol, examples: [e.min] }),
      max: Type.Number({ description: unitSymbol, examples: [e.max] }),
      sum: Type.Number({ description: unitSymbol, examples: [sum] }),
      sumOfSquares: Type.Number({
        description: `${unitSymbol}²: the variance is sumOfSquares / count − mean²`,
        examples: [sumOfSquares],
      }),
    },
    { description: `${quantity} over the bucket's readings` },
  )
}

/** An hour of readings a minute. */
const EXAMPLE_COUNT = 60

export function AggregateBucket(unit: AggregateSchemaUnit) {
  return Type.Object({
    t: unit.time(`Start of the bucket, ${unit.unitName}: a multiple of the interval since the epoch`, unit.example),
    count: Count('Readings in the bucket (at least 1)', EXAMPLE_COUNT),
    temperature: BucketStats('Temperature c', '°C', unit.temperature, EXAMPLE_COUNT),
    accelerationMagnitude: BucketStats(
      'Acceleration magnitude √(x²+y²+z²) (gravity included)',
      'g',
      { mean: 1.03, min: 0.97, max: 1.61, sd: 0.09 },
      EXAMPLE_COUNT,
    ),
  })
}

export function AggregateSeries(unit: AggregateSchemaUnit) {
  return Type.Object(
    {
      interval: StringEnum(AGGREGATE_INTERVALS, { description: 'The bucket size', examples: ['1h'] }),
      startTime: unit.time(
        `The span's first instant, ${unit.unitName} (as given, or its default)`,
        unit.example - AGGREGATE_DEFAULT_SPAN_MS / unit.msPerT,
      ),
      endTime: unit.time(`The span's last instant, ${unit.unitName} (as given, or its default: now)`, unit.example),
      buckets: Type.Array(AggregateBucket(unit), {
        maxItems: AGGREGATE_MAX_BUCKETS,
        description: `The buckets with readings, oldest first. ${AGGREGATE_RULES}`,
      }),
    },
    {
      title: `${unit.title}Aggregate`,
      description: `Readings summed up per bucket of \`interval\`; a span holds at most ${AGGREGATE_MAX_BUCKETS} buckets`,
    },
  )
}

export type AggregateBucketBody = Static<ReturnType<typeof AggregateBucket>>
export type AggregateSeriesBody = Static<ReturnType<typeof AggregateSeries>>
