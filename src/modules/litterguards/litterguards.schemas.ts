// Query and response schemas of the device readings, analytics and summary. Every figure's rule is in
// its description, so the OpenAPI document says how it is computed.
import Type, { type Static } from 'typebox'
import type { Limits } from '../../config.ts'
import { StringEnum } from '../../http/list-params.ts'
import { TIME_RANGES, T_MAX_SECONDS } from '../readings/readings.rules.ts'
import {
  ACTIVITY_RATIOS, BASELINE_SECONDS, BUCKET_SECONDS, MIN_BASELINE_BUCKETS, NOISE_FLOOR_G, UNUSUAL_RUN_BUCKETS, UNUSUAL_SIGMAS,
} from './litterguards.rules.ts'

const Seconds = (description: string) => Type.Integer({
  minimum: 0, maximum: T_MAX_SECONDS,
  description: `${description}. Unix SECONDS (at most ${T_MAX_SECONDS}, the year 2100): a value in ms is a 400`,
})

export function DeviceReadingsQuery(limits: Limits) {
  return Type.Object({
    timeRange: Type.Optional(StringEnum(TIME_RANGES, { description: 'The window ending now; not with startTime/endTime' })),
    startTime: Type.Optional(Seconds('First second, inclusive')),
    endTime: Type.Optional(Seconds('Last second, inclusive')),
    limit: Type.Integer({
      minimum: 1, maximum: limits.deviceReadingsLimitMax, default: limits.deviceReadingsLimitDefault,
      description: `Rows, 1-${limits.deviceReadingsLimitMax}`,
    }),
  }, { description: 'Without timeRange, startTime or endTime: the newest `limit` readings' })
}

export function DeviceLatestQuery(limits: Limits) {
  return Type.Object({
    count: Type.Integer({ minimum: 1, maximum: limits.latestCountMax, default: limits.latestCountDefault, description: `Readings, 1-${limits.latestCountMax}` }),
  })
}

export const DeviceAnalyticsQuery = Type.Object({
  timeRange: StringEnum(TIME_RANGES, { default: '24h', description: 'The window ending now' }),
})

const Nullable = (description: string) => Type.Union([Type.Number(), Type.Null()], { description })
const baselineDays = BASELINE_SECONDS / 86_400
const bucketMinutes = BUCKET_SECONDS / 60

export const ACTIVITY_RULES = `Activity is the dynamic acceleration |√(x²+y²+z²) − 1 g| (a device at rest measures gravity, ` +
  `so the magnitude itself barely moves). The baseline is the device's own ${baselineDays} days before the window.`

export const DeviceAnalytics = Type.Object({
  averageTemperature: Nullable('Mean of c, °C; null without readings in the window'),
  averageAccelerationMagnitude: Nullable('Mean of √(x²+y²+z²), g (gravity included); null without readings'),
  temperatureRange: Type.Object({ min: Nullable('°C'), max: Nullable('°C') }, { description: 'Lowest and highest c; null without readings' }),
  activityLevel: StringEnum(['low', 'normal', 'high'] as const, {
    description: `The window's mean activity against the baseline's: below ${ACTIVITY_RATIOS.low}× low, above ${ACTIVITY_RATIOS.high}× high, ` +
      `else normal; means below ${NOISE_FLOOR_G} g (sensor noise) count as ${NOISE_FLOOR_G} g. normal when the window or the baseline has no readings. ${ACTIVITY_RULES}`,
  }),
  unusualActivityDetected: Type.Boolean({
    description: `true when the mean activity of ${UNUSUAL_RUN_BUCKETS} consecutive ${bucketMinutes}-minute buckets of the window (aligned on its start) ` +
      `lies more than ${UNUSUAL_SIGMAS} standard deviations (at least ${NOISE_FLOOR_G} g) from the mean of the baseline's ${bucketMinutes}-minute buckets, ` +
      `either way (one bucket alone crosses 3σ by chance on many ordinary days). false while the baseline has fewer than ` +
      `${MIN_BASELINE_BUCKETS} buckets with readings. ${ACTIVITY_RULES}`,
  }),
  dataPointsCount: Type.Integer({ minimum: 0, description: 'Readings in the window' }),
  timeRange: Type.Object({
    start: Type.String({ format: 'date-time', description: 'ISO 8601: now − timeRange, inclusive' }),
    end: Type.String({ format: 'date-time', description: 'ISO 8601: now, inclusive' }),
  }),
}, { title: 'DeviceAnalytics', description: 'Computed by the database over every stored reading of the window [now − timeRange, now]' })

export const DeviceSummary = Type.Object({
  totalDevices: Type.Integer({ minimum: 0, description: 'The account\'s devices' }),
  activeDevices: Type.Integer({ minimum: 0, description: 'Devices with Active true (data in the last LITTERGUARD_ACTIVE_WINDOW_MINUTES)' }),
  inactiveDevices: Type.Integer({ minimum: 0, description: 'totalDevices − activeDevices (devices never heard from included)' }),
  averageTemperature: Nullable('Mean CurrentTemperature of the ACTIVE devices, °C (an inactive device\'s last value may be old); null when none is active'),
  devicesWithUnusualActivity: Type.Integer({ minimum: 0, description: 'Devices whose unusualActivityDetected holds over the last 24 hours (the analytics rule with timeRange=24h)' }),
  lastDataReceived: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
    description: 'Unix SECONDS of the newest reading of any device (the latest LastSeen.seconds); null when no device has sent data',
  }),
}, { title: 'DeviceSummary' })

export type DeviceAnalyticsBody = Static<typeof DeviceAnalytics>
export type DeviceSummaryBody = Static<typeof DeviceSummary>
