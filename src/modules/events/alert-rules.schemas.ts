// The alert rules document as the API reads and writes it (alert-rules.rules.ts holds its meaning).
import Type, { type TProperties } from 'typebox'
import { BoundedString, EpochMs, EXAMPLE, Integer } from '../../http/schema-types.ts'
import { DEFAULT_THRESHOLDS } from './alert-rules.rules.ts'
import { EVENT_KINDS, EVENT_TYPES } from './event-kinds.ts'
import { THRESHOLD_LIMITS, THRESHOLD_NAMES, type ThresholdLimit, type ThresholdName } from './alert-thresholds.ts'
import { describedPattern } from '../../http/input-patterns.ts'

const RankList = Type.Array(Type.Union([Type.Literal(1), Type.Literal(2), Type.Literal(3)]), {
  maxItems: 3,
  uniqueItems: true,
  description: 'Ranks notified (UserPhone.Rank): 1 Admin, 2 Manager, 3 Worker; [] notifies nobody',
  examples: [[2, 3]],
})

const KindRule = Type.Object(
  {
    enabled: Type.Boolean({ description: 'false: the service derives no event of this kind', examples: [true] }),
    notifyRanks: RankList,
  },
  { additionalProperties: false },
)

/** English descriptions of the thresholds for the OpenAPI document; their bounds are alert-thresholds.ts's. */
const THRESHOLD_DESCRIPTIONS: Record<ThresholdName, string> = {
  temperatureYellowDelta: 'Delta (°C) at which the yellow band starts',
  temperatureRedDelta: 'Delta (°C) above which the red band starts',
  heatProbability: 'Heat probability that raises a heat alarm',
  birthProbability: 'Birth probability that raises a farrowing alarm',
  lamenessProbability: 'Lameness probability that raises an alarm',
  probabilityHysteresis: 'An alarm clears once the probability is this far below its threshold',
  alarmCooldownHours: 'Hours after an alarm clears before the same alarm is raised again',
  tagSilentMinutes: 'Minutes without a sensor reading before an ear tag counts as silent',
  litterOfflineMinutes: 'Minutes without a reading before a litter device counts as offline',
  batteryPercent: 'Ear-tag battery (%) below which the battery is low',
  gestationDays: 'Gestation length in days: farrowing is due this long after the service',
  farrowingLeadDays: 'The farrowing event opens this many days before the due day',
  pregnancyCheckDays: 'Days after the service at which the pregnancy check is due',
  weanedNotServedDays: 'Days after weaning by which a sow should be served again',
}

function thresholdSchema(name: ThresholdName) {
  const limit: ThresholdLimit = THRESHOLD_LIMITS[name]
  const described = {
    maximum: limit.maximum,
    description: `${THRESHOLD_DESCRIPTIONS[name]} (default ${DEFAULT_THRESHOLDS[name]})`,
    examples: [DEFAULT_THRESHOLDS[name]],
  }
  if (limit.integer) return Integer({ minimum: limit.minimum, ...described })
  return Type.Number({
    ...(limit.exclusiveMinimum ? { exclusiveMinimum: limit.minimum } : { minimum: limit.minimum }),
    ...described,
  })
}

const thresholdProperties = Object.fromEntries(THRESHOLD_NAMES.map((name) => [name, thresholdSchema(name)])) as Record<
  ThresholdName,
  ReturnType<typeof thresholdSchema>
> satisfies TProperties

/** A local wall-clock time, HH:mm. */
function LocalTime(description: string, example: string) {
  return Type.String({
    pattern: describedPattern('^([01][0-9]|2[0-3]):[0-5][0-9]$', 'must be a time of day, HH:mm'),
    maxLength: 5,
    description,
    examples: [example],
  })
}

const QuietHours = Type.Union([
  Type.Object(
    {
      start: LocalTime('HH:mm, local time', '22:00'),
      end: LocalTime('HH:mm, local time (before start: over midnight)', '06:00'),
    },
    { additionalProperties: false },
  ),
  Type.Null(),
])

const kindDescription = 'Per EventType: whether it is derived and which ranks are notified'
const quietDescription =
  'Per rank ("1" Admin, "2" Manager, "3" Worker): a window of local time (timeZone) in which that rank gets no push, or null for none'
const TimeZone = BoundedString(64, 'IANA time zone of the quiet hours', 'Europe/Copenhagen')

/** The rules in force (every part filled in from the defaults where the account wrote nothing). */
export const AlertRules = Type.Object(
  {
    kinds: Type.Object(Object.fromEntries(EVENT_TYPES.map((type) => [type, KindRule])), {
      additionalProperties: false,
      description: kindDescription,
    }),
    thresholds: Type.Object(thresholdProperties, { additionalProperties: false }),
    quietHours: Type.Object(
      { '1': QuietHours, '2': QuietHours, '3': QuietHours },
      { additionalProperties: false, description: quietDescription },
    ),
    timeZone: TimeZone,
    updatedAt: Type.Union([EpochMs('When the account last wrote its rules; null: never (all defaults)'), Type.Null()]),
    updatedBy: Type.Union([
      Type.String({
        maxLength: 200,
        description:
          "Who wrote them: the account's Uid or an integratorUID; an integrator sees another integrator as `another integrator`",
        examples: [EXAMPLE.uid],
      }),
      Type.Null(),
    ]),
  },
  {
    $id: 'AlertRules',
    additionalProperties: false,
    description:
      "An account's alert rules: which kinds of event are derived, their thresholds, and who is notified by Rank with quiet hours per rank. " +
      'Defaults apply to everything the account has not written.',
  },
)

/** PUT body: every part optional; what is left out takes the default (kinds one by one, thresholds one by one). */
export const AlertRulesBody = Type.Object(
  {
    kinds: Type.Optional(
      Type.Object(Object.fromEntries(EVENT_TYPES.map((type) => [type, Type.Optional(KindRule)])), {
        additionalProperties: false,
        description: `${kindDescription}; kinds left out keep their defaults (${EVENT_TYPES.map((t) => `${t}: ${JSON.stringify(EVENT_KINDS[t].notifyRanks)}`).join(', ')})`,
      }),
    ),
    thresholds: Type.Optional(
      Type.Object(
        Object.fromEntries(Object.entries(thresholdProperties).map(([name, schema]) => [name, Type.Optional(schema)])),
        { additionalProperties: false, description: 'Thresholds left out keep their defaults' },
      ),
    ),
    quietHours: Type.Optional(
      Type.Object(
        { '1': Type.Optional(QuietHours), '2': Type.Optional(QuietHours), '3': Type.Optional(QuietHours) },
        { additionalProperties: false, description: `${quietDescription}; ranks left out keep their defaults` },
      ),
    ),
    timeZone: Type.Optional(TimeZone),
    updatedAt: Type.Optional(
      Type.Union([
        EpochMs(
          'The `updatedAt` of the rules this change was made to, as GET gave it: when present, the rules are replaced only if ' +
            'no one has written them since, else 409 (null: only if they were never written)',
        ),
        Type.Null(),
      ]),
    ),
    updatedBy: Type.Optional(
      Type.Union([
        Type.String({
          maxLength: 200,
          description: 'Read-only: accepted and ignored, so that a GET document can be sent back',
          examples: [EXAMPLE.uid],
        }),
        Type.Null(),
      ]),
    ),
  },
  {
    additionalProperties: false,
    description:
      "Replaces the account's rules. Every part is optional and what is left out takes its default, so `{}` restores the defaults. " +
      'The document GET answers can be sent back as it is, changed; with its `updatedAt` the change is refused (409) when someone ' +
      'else wrote the rules in between.',
    examples: [
      {
        kinds: {
          'heat-alarm': { enabled: true, notifyRanks: [3] },
          'temperature-red': { enabled: true, notifyRanks: [2] },
        },
        thresholds: { heatProbability: 0.8, gestationDays: 116 },
        quietHours: { '3': { start: '21:00', end: '05:30' } },
        timeZone: 'Europe/Copenhagen',
      },
    ],
  },
)
