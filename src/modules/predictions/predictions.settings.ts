// GET /users/:userId/predictions/settings: what the scorer now uses for this farm and why. Per-farm learning
// (farm-learning.rules.ts) sets each class's threshold as a factor of the default from the farm's own records;
// this shows the thresholds, the factors, the counts they came from and the reason in words.
import Type from 'typebox'
import { Envelope, ok } from '../../http/envelope.ts'
import { Count, DateTime, Integer } from '../../http/schema-types.ts'
import type { App } from '../../types.ts'
import { UserPath } from '../animals/animals.resource.ts'
import type { ClassificationType } from './predictions.rules.ts'
import { DEFAULT_FACTORS, LEARNING } from './farm-learning.rules.ts'
import { findFarmSettings } from './farm-settings.repository.ts'
import { SCORER } from './scorer.rules.ts'

const DEFAULT_THRESHOLDS: Record<ClassificationType, { value: number; unit: string }> = {
  birth: { value: SCORER.birth.threshold, unit: 'CUSUM level of hourly activity against her baseline' },
  heat: { value: SCORER.heat.threshold, unit: 'rise of activity over 24 h against her baseline (0.4 = 1.4x)' },
  lameness: { value: SCORER.lameness.threshold, unit: 'decline of activity and movement over days (0.2 = 20 %)' },
}

const Rate = (description: string, example: number) =>
  Type.Union([Type.Number({ minimum: 0, examples: [example] }), Type.Null()], { description })

const ClassSettings = (kind: ClassificationType, example: { factor: number; reason: string }) =>
  Type.Object(
    {
      defaultThreshold: Type.Number({
        description: `The rule's default alarm threshold: ${DEFAULT_THRESHOLDS[kind].unit}`,
        examples: [DEFAULT_THRESHOLDS[kind].value],
      }),
      factor: Type.Number({
        minimum: LEARNING.minFactor,
        maximum: LEARNING.maxFactor,
        description: `What this farm's records set the default threshold to, as a factor (${LEARNING.minFactor}-${LEARNING.maxFactor}; 1 = the default; below 1 alarms sooner)`,
        examples: [example.factor],
      }),
      threshold: Type.Number({
        description: 'The threshold the scorer uses for this farm now: defaultThreshold x factor',
        examples: [Math.round(DEFAULT_THRESHOLDS[kind].value * example.factor * 1000) / 1000],
      }),
      events: Count('Events the farm recorded in the period learned from (records of one event merged)', 9),
      detected: Count('Of them, preceded by an alarm at the factor the period was scored with', 6),
      detectedAtFactor: Count('Of them, that the new factor would have alarmed for', 8),
      falseAlarmsPerAnimalMonth: Rate(
        'Days without an event that reached the alarm level, per animal-month, at the factor the period was scored with; null when nothing was scored',
        0.3,
      ),
      falseAlarmsAtFactor: Rate('The same at the new factor', 0.3),
      reason: Type.String({
        maxLength: 500,
        description: 'Why the factor is what it is, in words',
        examples: [example.reason],
      }),
    },
    { additionalProperties: false, description: `${kind}: the threshold in use and why` },
  )

export const PredictionSettings = Type.Object(
  {
    learnedAt: Type.Union([DateTime('When the farm was last learned from'), Type.Null()], {
      description: 'When the factors were last learned; null: not yet (the defaults)',
    }),
    period: Type.Union(
      [
        Type.Object(
          { from: DateTime('First instant read'), to: DateTime('Last instant read') },
          { additionalProperties: false },
        ),
        Type.Null(),
      ],
      { description: 'The records and predictions the factors were learned from; null: not yet' },
    ),
    learning: Type.Object(
      {
        periodDays: Integer({
          minimum: 1,
          maximum: 366,
          description: 'Days of records one learning reads',
          examples: [LEARNING.periodDays],
        }),
        everyDays: Integer({
          minimum: 1,
          maximum: 366,
          description: 'Days between learnings',
          examples: [LEARNING.everyDays],
        }),
        minEvents: Integer({
          minimum: 0,
          maximum: 1000,
          description: 'Fewer events of a class than this change nothing',
          examples: [LEARNING.minEvents],
        }),
        maxStep: Type.Number({
          description: 'One learning moves a factor at most this much (x or /)',
          examples: [LEARNING.maxStep],
        }),
        shrinkEvents: Integer({
          minimum: 0,
          maximum: 1000,
          description: 'A learning moves events / (events + this) of the way to what the records ask for',
          examples: [LEARNING.shrinkEvents],
        }),
      },
      { additionalProperties: false, description: 'The limits that keep a few records from running it away' },
    ),
    birth: ClassSettings('birth', {
      factor: 0.85,
      reason:
        'caught 6 of 9 events; at 0.8x the default threshold it would have caught 8 without more false alarms (moved 47 % of the way: 9 events)',
    }),
    heat: ClassSettings('heat', {
      factor: 1,
      reason: 'caught 21 of 24 events at 0.6 false alarms per animal-month: on target, unchanged',
    }),
    lameness: ClassSettings('lameness', {
      factor: 1,
      reason: '2 events recorded in the period, fewer than 5: unchanged',
    }),
  },
  { additionalProperties: false, title: 'PredictionSettings' },
)

export async function predictionSettingsRoute(app: App) {
  app.get(
    '/users/:userId/predictions/settings',
    {
      schema: {
        operationId: 'getPredictionSettings',
        summary: 'What the scorer now uses for this farm, and why',
        description:
          "Per class, the alarm threshold our scorer uses for this farm: the rule's default times a factor learned " +
          `from the farm's own records every ${LEARNING.everyDays} days, over the last ${LEARNING.periodDays} days ` +
          "(events as GET .../predictions/accuracy matches them, against the scorer's highest probability each day). " +
          'It lowers a threshold when recorded events went without an alarm and a lower one would not have raised the ' +
          'false alarms, and raises it when false alarms are many and a higher one would still catch enough; within ' +
          `${LEARNING.minFactor}-${LEARNING.maxFactor}x the default, at most ${LEARNING.maxStep}x per learning, only ` +
          `with ${LEARNING.minEvents} events or more, and part of the way when events are few.`,
        params: UserPath,
        response: { 200: Envelope(PredictionSettings) },
      },
      config: { access: 'own' },
    },
    async (req) => {
      const stored = await findFarmSettings(app.database.db, req.params.userId)
      const factors = stored?.factors ?? DEFAULT_FACTORS
      const classOf = (kind: ClassificationType) => {
        const learned = stored?.basis.classes[kind]
        return {
          defaultThreshold: DEFAULT_THRESHOLDS[kind].value,
          factor: factors[kind],
          threshold: Math.round(DEFAULT_THRESHOLDS[kind].value * factors[kind] * 1000) / 1000,
          events: learned?.events ?? 0,
          detected: learned?.detected ?? 0,
          detectedAtFactor: learned?.detectedAtFactor ?? 0,
          falseAlarmsPerAnimalMonth: learned?.falseAlarmsPerAnimalMonth ?? null,
          falseAlarmsAtFactor: learned?.falseAlarmsAtFactor ?? null,
          reason: learned?.reason ?? 'not learned yet: the default threshold',
        }
      }
      return ok({
        learnedAt: stored ? new Date(stored.learnedAt).toISOString() : null,
        period: stored
          ? { from: new Date(stored.basis.from).toISOString(), to: new Date(stored.basis.to).toISOString() }
          : null,
        learning: {
          periodDays: LEARNING.periodDays,
          everyDays: LEARNING.everyDays,
          minEvents: LEARNING.minEvents,
          maxStep: LEARNING.maxStep,
          shrinkEvents: LEARNING.shrinkEvents,
        },
        birth: classOf('birth'),
        heat: classOf('heat'),
        lameness: classOf('lameness'),
      })
    },
  )
}
