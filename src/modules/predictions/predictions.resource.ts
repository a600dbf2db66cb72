// The spec's AIPrediction, declared once on the resource layer, and the path, query and body schemas of
// the prediction routes.
import Type from 'typebox'
import type { Limits } from '../../config.ts'
import { pageParameter, StringEnum } from '../../http/list-params.ts'
import { BoundedString, EXAMPLE, HowMany } from '../../http/schema-types.ts'
import { field } from '../../resource/field.ts'
import { defineResource } from '../../resource/resource.ts'
import { AnimalMacPath } from '../animals/animals.resource.ts'
import { MAC_PATTERN } from '../animals/animals.rules.ts'
import { UID_PATTERN } from '../users/users.rules.ts'
import { alarmLevel } from './calibration.rules.ts'
import { CLASSIFICATION_TYPES, ISO_8601_PATTERN, ISO_DATE_TIME_PATTERN } from './predictions.rules.ts'
import { ID_PATTERN } from '../../http/input-patterns.ts'

/** Most results one prediction holds: a week of hourly probabilities, with room to spare. */
export const RESULTS_MAX = 500
/** Most predictions `.../range` answers (oldest first); a longer range is cut there and says so. */
export const RANGE_MAX = 1000

const DateTime = (description: string) =>
  Type.String({ pattern: ISO_DATE_TIME_PATTERN, maxLength: 40, description, examples: ['2026-11-02T06:00:00.000Z'] })

const AnimalId = (description: string) =>
  Type.String({ pattern: ID_PATTERN, maxLength: 16, description, examples: [String(EXAMPLE.ms)] })

export const PredictionAnimal = (extra: Record<string, unknown> = {}) =>
  Type.Object(
    {
      id: AnimalId("The animal's ID"),
      mac: Type.String({
        pattern: MAC_PATTERN,
        maxLength: 17,
        description: "The animal's current tag MAC",
        examples: [EXAMPLE.mac],
      }),
      name: BoundedString(
        200,
        "The animal's name as the prediction's poster gave it; else the animal's ID (the Animal model has no name " +
          'field, and its ID is how the API names it)',
        String(EXAMPLE.ms),
      ),
      group: Type.Union([Type.String({ maxLength: 200, examples: ['Farrowing 2'] }), Type.Null()], {
        description: "The group as the prediction's poster gave it; else the animal's current Group; null when neither",
      }),
      weight: Type.Number({
        minimum: 0,
        examples: [212.5],
        description:
          "The weight as the prediction's poster gave it; else the animal's current WatchdogWeight (its weight as last " +
          'weighed); 0 means not known',
      }),
      userId: Type.String({
        pattern: UID_PATTERN,
        maxLength: 128,
        description: "The owner's Uid",
        examples: [EXAMPLE.uid],
      }),
    },
    { additionalProperties: false, ...extra },
  )

/** `animal` in a posted prediction: any part of what the reads show; the ids must name the path's animal. */
/** A body's userId: the path's user, which a client may repeat. */
const PathUserIfGiven = Type.Optional(
  Type.String({
    pattern: UID_PATTERN,
    maxLength: 128,
    description: "The path's user, if given",
    examples: [EXAMPLE.uid],
  }),
)

const PostedAnimal = Type.Object(
  {
    id: Type.Optional(AnimalId("The path's animal's ID, if given")),
    mac: Type.Optional(
      Type.String({
        pattern: MAC_PATTERN,
        maxLength: 17,
        description: "The path's animal's MAC (any case), if given",
        examples: [EXAMPLE.mac],
      }),
    ),
    name: Type.Optional(
      Type.String({ minLength: 1, maxLength: 200, description: 'Stored as given', examples: ['Sow 4711'] }),
    ),
    group: Type.Optional(
      Type.Union([Type.String({ minLength: 1, maxLength: 200, examples: ['Farrowing 2'] }), Type.Null()], {
        description: "Stored as given; null or left out: the animal's current Group shows",
      }),
    ),
    weight: Type.Optional(
      Type.Number({
        minimum: 0,
        maximum: 100_000,
        description: "Stored as given; left out: the animal's current WatchdogWeight shows, 0 when none",
        examples: [212.5],
      }),
    ),
    userId: PathUserIfGiven,
  },
  { additionalProperties: false, description: "The animal (AIPrediction's `animal`); every part optional" },
)

const Result = Type.Object(
  {
    timestamp: DateTime('The moment this probability is about, ISO 8601 (stored and shown in UTC)'),
    probability: Type.Number({
      minimum: 0,
      maximum: 1,
      description:
        "0.0-1.0. The scorer's is calibrated: of the hours given about this probability, about this share lay in the " +
        "event's window (48 h before a farrowing; 12 h before a heat to its end; 2-21 days into a lameness), on the " +
        "herds the calibration was fitted on or, once the farm's records fit its own map, on this farm. The scorer " +
        `alarms at each class's alarm level, not at 0.5: birth ${alarmLevel('birth')}, heat ${alarmLevel('heat')}, ` +
        `lameness ${alarmLevel('lameness')} by default; this farm's are \`alarmLevel\` in ` +
        "GET /users/{user_id}/predictions/settings. An external model's is as it was posted",
      examples: [0.87],
    }),
  },
  { additionalProperties: false },
)

export const predictions = defineResource({
  name: 'AIPrediction',
  table: 'predictions',
  description:
    'A prediction about one animal: our own rule-based scorer stores one per animal, class and hour ' +
    '(see the predictions tag), an external model posts its own. `animal` shows the animal as the registry has it now.',
  fields: {
    timestamp: field.string({
      column: 'predicted_at',
      nullable: false,
      pattern: ISO_DATE_TIME_PATTERN,
      maxLength: 40,
      toApi: (ms) => new Date(Number(ms)).toISOString(),
      description:
        'When predicted, ISO 8601 in UTC. For the scorer: the end of the hour whose readings it scored. ' +
        'On create: optional, default now; never in the future',
      example: '2026-11-02T06:00:00.000Z',
    }),
    classificationType: field.enum(CLASSIFICATION_TYPES, {
      column: 'classification_type',
      required: true,
      description: 'heat, birth or lameness',
      example: 'birth',
    }),
    userId: field.string({
      column: 'uid',
      readOnly: true,
      pattern: UID_PATTERN,
      maxLength: 128,
      description: "The owner's Uid",
      example: EXAMPLE.uid,
    }),
    animal: field.json(PredictionAnimal, {
      readOnly: true,
      nullable: false,
      description: 'The animal, from its current registry fields',
    }),
    results: field.json((extra) => Type.Array(Result, { minItems: 1, maxItems: RESULTS_MAX, ...extra }), {
      required: true,
      description: `1-${RESULTS_MAX} probabilities, each about one moment. The scorer gives one: the probability for the hour it scored`,
    }),
  },
})

export const PredictionCreate = predictions.createBody({
  extra: {
    userId: PathUserIfGiven,
    animal: Type.Optional(PostedAnimal),
  },
  description:
    'The AIPrediction shape: classificationType and results are required, timestamp is optional (default now). ' +
    "The user and the animal come from the path; userId and animal may be sent too, and must then name the path's " +
    'user and animal (400 otherwise); animal.name, animal.group and animal.weight are stored as given. Unknown ' +
    'fields are refused.',
})

export const ClassificationPath = Type.Object({
  ...AnimalMacPath.properties,
  classificationType: StringEnum(CLASSIFICATION_TYPES, {
    description: 'heat, birth or lameness; anything else is a 400',
  }),
})

const IsoDate = (description: string) =>
  Type.String({
    pattern: ISO_8601_PATTERN,
    maxLength: 40,
    examples: ['2026-11-01'],
    description: `${description}: ISO 8601, a date (the whole UTC day) or a date and time (UTC unless it has an offset)`,
  })
const Probability = (description: string, example: number) =>
  Type.Number({
    minimum: 0,
    maximum: 1,
    description: `${description}, 0.0-1.0: compared with the prediction's highest result probability`,
    examples: [example],
  })
const Classification = StringEnum(CLASSIFICATION_TYPES, { description: 'heat, birth or lameness' })

function windowProperties() {
  return {
    startDate: Type.Optional(IsoDate('Predictions made at or after')),
    endDate: Type.Optional(IsoDate('Predictions made at or before')),
    minProbability: Type.Optional(Probability('At least', 0.7)),
    maxProbability: Type.Optional(Probability('At most', 1)),
  }
}

function pageProperties(limits: Limits) {
  return {
    page: pageParameter(limits),
    limit: HowMany('Page size', limits.pageLimitMax, limits.pageLimitDefault, 24),
  }
}

export function PredictionListQuery(limits: Limits) {
  return Type.Object({
    ...pageProperties(limits),
    classificationType: Type.Optional(Classification),
    ...windowProperties(),
  })
}

export function ClassificationListQuery(limits: Limits) {
  return Type.Object({ ...pageProperties(limits), ...windowProperties() })
}

export function RecentQuery(limits: Limits) {
  return Type.Object({
    limit: HowMany('Predictions', limits.recentLimitMax, limits.recentLimitDefault, 5),
    classificationType: Type.Optional(Classification),
  })
}

export const RangeQuery = Type.Object({
  startDate: IsoDate('Predictions made at or after'),
  endDate: IsoDate('Predictions made at or before'),
  classificationType: Type.Optional(Classification),
})
