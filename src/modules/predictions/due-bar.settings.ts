// GET .../predictions/settings' due bar (due-bar.rules.ts): birth's bar in the days the farm's sows farrow, what it
// was learned from and why.
import Type from 'typebox'
import { Count } from '../../http/schema-types.ts'
import { DaySpan, Events, Limits, Rate, Reason, Setting } from './settings.schemas.ts'
import { DUE_BAR_LEARNING, type DueBarLearning } from './due-bar.rules.ts'

export const DueBarSettings = Type.Object(
  {
    factor: Type.Number({
      minimum: DUE_BAR_LEARNING.minFactor,
      maximum: 1,
      description:
        "Birth's thresholds (both CUSUMs') times this in the farm's due days, on top of birth's factor (1 = the default bar; below 1 alarms sooner there)",
      examples: [0.557],
    }),
    days: DaySpan(
      "Days after a service in which the due bar holds: the farm's gestation from fromDay to toDay",
      [112.8, 116.8],
    ),
    fromDay: Setting("First day of the due bar, from the farm's gestation", DUE_BAR_LEARNING.fromDay),
    toDay: Setting("Last day of the due bar, from the farm's gestation", DUE_BAR_LEARNING.toDay),
    farrowings: Events("Farrowings recorded in the period with their sow's due days scored", 39),
    peakQuantile: Rate(
      `The score the lowest ${DUE_BAR_LEARNING.peakQuantile * 100} % of them did not reach in the 48 h before onset, as a multiple of the threshold without the bar; null without farrowings`,
      0.316,
    ),
    caught: Count('Of them, caught by an alarm starting in the 48 h before onset, replayed at the default bar', 22),
    caughtAtBar: Count('The same at the due bar in use', 31),
    falseAlarms: Count("Alarms in the sows' due days outside a farrowing's window, replayed at the default bar", 22),
    falseAlarmsAtBar: Count('The same at the due bar in use', 25),
    limits: Limits({
      minFarrowings: Events('Fewer farrowings than this: the default bar', DUE_BAR_LEARNING.minFarrowings),
      shrinkFarrowings: Events(
        'The bar moves farrowings / (farrowings + this) of the way from the default',
        DUE_BAR_LEARNING.shrinkFarrowings,
      ),
      minFactor: Setting('The bar aims no lower than this factor', DUE_BAR_LEARNING.minFactor),
      falseAlarmsPerBirthGained: Setting(
        'A bar is kept only with at most this many more false alarms for each farrowing it gains',
        DUE_BAR_LEARNING.falseAlarmsPerBirthGained,
      ),
    }),
    reason: Reason(
      600,
      'Why the due bar is what it is, in words',
      "39 farrowings: 10 % peaked under 0.316x the threshold in the 48 h before onset; at 0.5x in the days -2 to +2 around the farm's gestation the period would have caught 31 of them (22 at the default), with 27 false alarms there (22); 0.557x, 89 % of the way",
    ),
  },
  {
    additionalProperties: false,
    description:
      "Birth's bar in the days the farm's sows farrow, learned from its farrowings: how high their birth score rose before each recorded farrowing, replayed on the farm's own scored hours",
  },
)

export function dueBarSettingsOf(learned: DueBarLearning, gestationDays: number) {
  const day = (offset: number) => Math.round((gestationDays + offset) * 10) / 10
  return {
    ...learned,
    days: { from: day(learned.fromDay), to: day(learned.toDay) },
    limits: {
      minFarrowings: DUE_BAR_LEARNING.minFarrowings,
      shrinkFarrowings: DUE_BAR_LEARNING.shrinkFarrowings,
      minFactor: DUE_BAR_LEARNING.minFactor,
      falseAlarmsPerBirthGained: DUE_BAR_LEARNING.falseAlarmsPerBirthGained,
    },
  }
}
