// Query and response schemas of the device readings, analytics and summary. Every figure's rule is in
// its description, so the OpenAPI document says how it is computed.
import Type, { type Static } from 'typebox'
import type { Limits } from '../../config.ts'
import { StringEnum } from '../../http/list-params.ts'
import { Count, EXAMPLE, HowMany, Integer } from '../../http/schema-types.ts'
import { TIME_RANGES, T_MAX_SECONDS } from '../readings/readings.rules.ts'
import type { AggregateSchemaUnit } from '../readings/readings.schemas.ts'
import {
  ACTIVITY_RATIOS,
  BASELINE_SECONDS,
  BUCKET_SECONDS,
  MIN_BASELINE_BUCKETS,
  NOISE_FLOOR_G,
  UNUSUAL_RUN_BUCKETS,
  UNUSUAL_SIGMAS,
} from './litterguards.rules.ts'

const Seconds = (description: string, example: number) =>
  Integer({
    minimum: 0,
    maximum: T_MAX_SECONDS,
    examples: [example],
    description: `${description}. Unix SECONDS (at most ${T_MAX_SECONDS}, the year 2100): a value in ms is a 400`,
  })

/** The aggregate schemas' unit of the device readings: Unix seconds, a creep area's temperatures. */
export const DEVICE_AGGREGATE: AggregateSchemaUnit = {
  title: 'DeviceSensor',
  msPerT: 1000,
  unitName: 'Unix SECONDS',
  time: (description, example) => Integer({ minimum: 0, maximum: T_MAX_SECONDS, description, examples: [example] }),
  queryTime: Seconds,
  example: EXAMPLE.seconds,
  temperature: { mean: 31.2, min: 30.6, max: 32.1, sd: 0.3 },
}

export function DeviceReadingsQuery(limits: Limits) {
  return Type.Object(
    {
      timeRange: Type.Optional(
        StringEnum(TIME_RANGES, { description: 'The window ending now; not with startTime/endTime', examples: ['6h'] }),
      ),
      startTime: Type.Optional(Seconds('First second, inclusive', EXAMPLE.seconds - 3600)),
      endTime: Type.Optional(Seconds('Last second, inclusive', EXAMPLE.seconds)),
      limit: HowMany('Rows', limits.deviceReadingsLimitMax, limits.deviceReadingsLimitDefault, 60),
    },
    { description: 'Without timeRange, startTime or endTime: the newest `limit` readings' },
  )
}

export function DeviceLatestQuery(limits: Limits) {
  return Type.Object({
    count: HowMany('Readings', limits.latestCountMax, limits.latestCountDefault, 5),
  })
}

export const DeviceAnalyticsQuery = Type.Object({
  timeRange: StringEnum(TIME_RANGES, { default: '24h', description: 'The window ending now', examples: ['24h'] }),
})

const Nullable = (description: string, example: number) =>
  Type.Union([Type.Number({ examples: [example] }), Type.Null()], { description })
const baselineDays = BASELINE_SECONDS / 86_400
const bucketMinutes = BUCKET_SECONDS / 60

export const ACTIVITY_RULES =
  `Activity is the dynamic acceleration |√(x²+y²+z²) − 1 g| (a device at rest measures gravity, ` +
  `so the magnitude itself barely moves). The baseline is the device's own ${baselineDays} days before the window.`

export const DeviceAnalytics = Type.Object(
  {
    averageTemperature: Nullable('Mean of c, °C; null without readings in the window', 31.2),
    averageAccelerationMagnitude: Nullable('Mean of √(x²+y²+z²), g (gravity included); null without readings', 1.01),
    temperatureRange: Type.Object(
      { min: Nullable('°C', 29.8), max: Nullable('°C', 32.6) },
      { description: 'Lowest and highest c; null without readings' },
    ),
    activityLevel: StringEnum(['low', 'normal', 'high'] as const, {
      description:
        `The window's mean activity against the baseline's: below ${ACTIVITY_RATIOS.low}× low, above ${ACTIVITY_RATIOS.high}× high, ` +
        `else normal; means below ${NOISE_FLOOR_G} g (sensor noise) count as ${NOISE_FLOOR_G} g. normal when the window or the baseline has no readings. ${ACTIVITY_RULES}`,
    }),
    unusualActivityDetected: Type.Boolean({
      description:
        `true when the mean activity of ${UNUSUAL_RUN_BUCKETS} consecutive ${bucketMinutes}-minute buckets of the window (UTC-aligned, the first cut by its start) ` +
        `lies more than ${UNUSUAL_SIGMAS} standard deviations (at least ${NOISE_FLOOR_G} g) from the mean of the baseline's ${bucketMinutes}-minute buckets, ` +
        `either way (one bucket alone crosses 3σ by chance on many ordinary days). false while the baseline has fewer than ` +
        `${MIN_BASELINE_BUCKETS} buckets with readings. ${ACTIVITY_RULES}`,
    }),
    dataPointsCount: Count('Readings in the window', 1440),
    timeRange: Type.Object(
      {
        start: Integer({
          minimum: 0,
          maximum: T_MAX_SECONDS,
          examples: [1793515200],
          description: 'Unix seconds: now − timeRange, inclusive',
        }),
        end: Integer({ minimum: 0, maximum: T_MAX_SECONDS, examples: [1793601600], description: 'Unix seconds: now' }),
      },
      { description: "The window, in Unix seconds like the device's readings" },
    ),
  },
  {
    title: 'DeviceAnalytics',
    description: 'Computed by the database over every stored reading of the window [now − timeRange, now]',
  },
)

export const DeviceSummary = Type.Object(
  {
    totalDevices: Count("The account's devices", 12),
    activeDevices: Count('Devices with Active true (data in the last LITTERGUARD_ACTIVE_WINDOW_MINUTES)', 11),
    inactiveDevices: Count('totalDevices − activeDevices (devices never heard from included)', 1),
    averageTemperature: Nullable(
      "Mean CurrentTemperature of the ACTIVE devices, °C (an inactive device's last value may be old); null when none is active",
      31.2,
    ),
    devicesWithUnusualActivity: Count(
      'Devices whose unusualActivityDetected holds over the last 24 hours of whole 10-minute buckets (the analytics rule over the 144 buckets ending at the last whole 10 minutes, UTC)',
      1,
    ),
    lastDataReceived: Type.Union(
      [Integer({ minimum: 0, maximum: T_MAX_SECONDS, examples: [EXAMPLE.seconds] }), Type.Null()],
      {
        description:
          'Unix SECONDS of the newest reading of any device (the latest LastSeen.seconds); null when no device has sent data',
      },
    ),
  },
  { title: 'DeviceSummary' },
)

export type DeviceAnalyticsBody = Static<typeof DeviceAnalytics>
export type DeviceSummaryBody = Static<typeof DeviceSummary>
