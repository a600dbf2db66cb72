// GET .../predictions/settings' nest-building strength (nest-strength.rules.ts): birth's CUSUM references in the days
// the farm's sows farrow, what they were learned from and why.
import Type from 'typebox'
import { Count } from '../../http/schema-types.ts'
import { DaySpan, Events, Limits, Rate, Reason, Setting } from './settings.schemas.ts'
import { SCORER } from './scorer-settings.rules.ts'
import { NEST_STRENGTH_LEARNING, strengthReference, type NestStrengthLearning } from './nest-strength.rules.ts'

export const NestStrengthSettings = Type.Object(
  {
    strength: Type.Number({
      minimum: NEST_STRENGTH_LEARNING.minStrength,
      maximum: 1,
      description:
        "The farm's sows' nest building against the defaults': in the farm's due days both birth CUSUMs' references are 1 + (reference - 1) x this (1 = the defaults; below 1 a weaker rise counts)",
      examples: [0.8],
    }),
    references: Type.Object(
      {
        long: Setting("The long CUSUM's reference in the due days, times the sow's usual activity", 1.48),
        short: Setting("The short CUSUM's reference in the due days, times her crate days' activity", 1.32),
      },
      { additionalProperties: false, description: 'The references in use in the due days' },
    ),
    days: DaySpan(
      "Days after a service in which the strength holds: the farm's gestation from fromDay to toDay (the due bar's days)",
      [112.8, 116.8],
    ),
    fromDay: Setting("First day of the strength, from the farm's gestation", SCORER.birth.dueBar.fromDay),
    toDay: Setting("Last day of the strength, from the farm's gestation", SCORER.birth.dueBar.toDay),
    farrowings: Events("Farrowings recorded in the period with their sow's due days scored", 26),
    supported: Rate(
      `The strength under which the lowest ${NEST_STRENGTH_LEARNING.supportQuantile * 100} % of them reached the bar in the 48 h before onset (each farrowing's highest strength tried at which it did); null without farrowings`,
      0.75,
    ),
    caught: Count(
      'Of them, caught by an alarm starting in the 48 h before onset, replayed at strength 1 and the due bar',
      21,
    ),
    caughtAtStrength: Count('The same at the strength in use', 24),
    falseAlarms: Count(
      "Alarms in the sows' due days outside a farrowing's window, replayed at strength 1 and the due bar",
      16,
    ),
    falseAlarmsAtStrength: Count('The same at the strength in use', 18),
    limits: Limits({
      minFarrowings: Events('Fewer farrowings than this: strength 1', NEST_STRENGTH_LEARNING.minFarrowings),
      shrinkFarrowings: Events(
        'The strength moves farrowings / (farrowings + this) of the way from 1',
        NEST_STRENGTH_LEARNING.shrinkFarrowings,
      ),
      minStrength: Setting('The strength aims no lower than this', NEST_STRENGTH_LEARNING.minStrength),
      falseAlarmsPerBirthGained: Setting(
        'A strength is kept only with at most this many more false alarms for each farrowing it gains',
        NEST_STRENGTH_LEARNING.falseAlarmsPerBirthGained,
      ),
    }),
    reason: Reason(
      700,
      'Why the strength is what it is, in words',
      "26 farrowings: 10 % reached the bar in the 48 h before onset only under strength 0.75; at 0.75 (references 1.45x and 1.3x) in the days -2 to +2 around the farm's gestation the period would have caught 24 of them (21 at the defaults'), with 18 false alarms there (16); 0.81 (1.486x and 1.324x), 84 % of the way",
    ),
  },
  {
    additionalProperties: false,
    description:
      "Birth's CUSUM references in the days the farm's sows farrow, learned from its farrowings: how weak a rise its sows' recorded farrowings showed, replayed on the farm's own hours",
  },
)

export function nestStrengthSettingsOf(learned: NestStrengthLearning, gestationDays: number) {
  const day = (offset: number) => Math.round((gestationDays + offset) * 10) / 10
  const reference = (r: number) => Math.round(strengthReference(r, learned.strength) * 1000) / 1000
  return {
    ...learned,
    references: { long: reference(SCORER.birth.reference), short: reference(SCORER.birth.short.reference) },
    days: { from: day(learned.fromDay), to: day(learned.toDay) },
    limits: {
      minFarrowings: NEST_STRENGTH_LEARNING.minFarrowings,
      shrinkFarrowings: NEST_STRENGTH_LEARNING.shrinkFarrowings,
      minStrength: NEST_STRENGTH_LEARNING.minStrength,
      falseAlarmsPerBirthGained: NEST_STRENGTH_LEARNING.falseAlarmsPerBirthGained,
    },
  }
}
