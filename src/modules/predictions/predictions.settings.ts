// GET /users/:userId/predictions/settings: what the scorer now uses for this farm and why. Per-farm learning
// (farm-learning.rules.ts) sets each class's threshold as a factor of the default from the farm's own records;
// this shows the thresholds, the factors, the counts they came from and the reason in words; and per-farm
// calibration (farm-calibration.rules.ts), the map that re-states the scorer's probability in this farm's terms.
import Type from 'typebox'
import { Envelope, ok } from '../../http/envelope.ts'
import { Count, DateTime } from '../../http/schema-types.ts'
import type { App } from '../../types.ts'
import { UserPath } from '../animals/animals.resource.ts'
import type { ClassificationType } from './predictions.rules.ts'
import {
  DEFAULT_FACTORS,
  DEFAULT_GESTATION,
  GESTATION_LEARNING,
  LEARNING,
  type GestationLearning,
} from './farm-learning.rules.ts'
import { findFarmSettings } from './farm-settings.repository.ts'
import { DEFAULT_DUE_BAR_LEARNING, DUE_BAR_LEARNING } from './due-bar.rules.ts'
import { DueBarSettings, dueBarSettingsOf } from './due-bar.settings.ts'
import { DaySpan, Days, Events, Limits, Rate, Reason, Setting } from './settings.schemas.ts'
import { DEFAULT_GESTATION_DAYS, SCORER } from './scorer-settings.rules.ts'
import { alarmLevel } from './calibration.rules.ts'
import { DUE_DAYS } from './birth.rules.ts'
import {
  FARM_CALIBRATION,
  IDENTITY_MAP,
  LAMENESS_PRIOR,
  recalibrate,
  type FarmCalibrationFit,
  type FarmCalibrationMap,
} from './farm-calibration.rules.ts'

const DEFAULT_THRESHOLDS: Record<ClassificationType, { value: number; unit: string }> = {
  birth: { value: SCORER.birth.threshold, unit: 'CUSUM level of hourly activity against her baseline' },
  heat: { value: SCORER.heat.threshold, unit: 'rise of activity over 24 h against her baseline (0.4 = 1.4x)' },
  lameness: { value: SCORER.lameness.threshold, unit: 'decline of activity and movement over days (0.2 = 20 %)' },
}

/** Global probabilities the settings show the farm's map at. */
const MAP_POINTS = [0.01, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 0.9] as const
const round4 = (x: number) => Math.round(x * 10_000) / 10_000
const mapPoints = (map: FarmCalibrationMap) => MAP_POINTS.map((p) => ({ global: p, farm: round4(recalibrate(map, p)) }))

const EXAMPLE_MAP = { intercept: -1.12, slope: 0.78 }

const LamenessPriorSettings = Type.Object(
  {
    shift: Setting(
      "Added to the log-odds of every lameness probability before the farm's records move the map (0: none): the log-odds of share less those of the global calibration's farms' share, shrunk by the animals and kept within the limits",
      -0.9271,
    ),
    share: Rate(
      "Share of the period's scored animal-days that lay in a lameness alarm held for sustainedDays days or more; null when not estimated (too few days, or a farm whose records give the lameness rule no phases)",
      0.0095,
    ),
    knotsShare: Rate(
      'The same share on the farms the global calibration was fitted on: the base rate its probabilities assume',
      LAMENESS_PRIOR.knotsShare,
    ),
    animals: Count('Animals with a lameness score in the period', 150),
    days: Count('Their scored animal-days', 8400),
    sustainedDays: Count('Of them, days in a lameness alarm held for sustainedDays days or more', 80),
    phaseRecords: Count('Farrowings and weanings the farm recorded in the period', 110),
    reason: Reason(
      400,
      'Why the shift is what it is, in words',
      "0.95 % of the period's animal-days lay in a lameness alarm held 7 days or more (80 of 8400), 2.82 % on the farms the global calibration was fitted on: lameness's log-odds lowered by 0.9271, 83 % of the way (150 animals)",
    ),
  },
  {
    additionalProperties: false,
    description:
      "lameness only (null for birth and heat): the farm's own base rate, read from its scores without any lameness record, where the map starts from. At one score the odds of a lameness differ with how common lameness is on a farm; the global calibration carries its farms' base rate",
  },
)

const ClassCalibration = (kind: ClassificationType, example: { inUse: boolean; reason: string }) =>
  Type.Object(
    {
      inUse: Type.Union([Type.Literal('farm'), Type.Literal('global')], {
        description:
          "farm: the scorer's probability is re-mapped by this farm's map (from its records, or for lameness its base rate: prior); global: the global calibration alone (too few events and no shift, or not fitted yet)",
        examples: [example.inUse ? 'farm' : 'global'],
      }),
      intercept: Setting(
        'The map: logit(farm probability) = intercept + slope x logit(global probability); 0 and 1: none',
        example.inUse ? EXAMPLE_MAP.intercept : 0,
      ),
      slope: Type.Number({
        minimum: FARM_CALIBRATION.minSlope,
        maximum: FARM_CALIBRATION.maxSlope,
        description: `The map's slope (${FARM_CALIBRATION.minSlope}-${FARM_CALIBRATION.maxSlope}; positive, so no alarm moves)`,
        examples: [example.inUse ? EXAMPLE_MAP.slope : 1],
      }),
      events: Count('Events the farm recorded in the period the map was fitted on (records of one event merged)', 12),
      hours: Count(
        'Hours the scorer scored in that period, which the map was fitted on; lameness: 0 (its map is its prior)',
        86_400,
      ),
      observed: Rate(
        'Share of those hours that lay in a recorded event (birth: the 48 h before a farrowing record; heat: 36 h before each service or return seen to 24 h after it); null when no hour was fitted',
        0.006,
      ),
      meanPredicted: Rate("The global calibration's mean probability over the same hours", 0.014),
      globalAlarmLevel: Type.Number({
        minimum: 0,
        maximum: 1,
        description:
          "The global probability at which this class alarms: the global calibration's probability of its rule's threshold (the factor above applied)",
        examples: [alarmLevel(kind)],
      }),
      alarmLevel: Type.Number({
        minimum: 0,
        maximum: 1,
        description:
          "The probability this farm's predictions carry where the class alarms: the map of globalAlarmLevel. The alarms are where they were; alert rules compare their thresholds with the global probability (a scale the weekly refit does not move), so they fire where they did",
        examples: [round4(recalibrate(example.inUse ? EXAMPLE_MAP : IDENTITY_MAP, alarmLevel(kind)))],
      }),
      map: Type.Array(
        Type.Object(
          {
            global: Type.Number({ minimum: 0, maximum: 1, description: 'A global probability' }),
            farm: Type.Number({ minimum: 0, maximum: 1, description: "What the farm's predictions say for it" }),
          },
          { additionalProperties: false },
        ),
        {
          maxItems: MAP_POINTS.length,
          description: 'The map at a few global probabilities',
          examples: [mapPoints(example.inUse ? EXAMPLE_MAP : IDENTITY_MAP)],
        },
      ),
      reason: Reason(500, 'Why the map is what it is, in words', example.reason),
      prior: Type.Union([LamenessPriorSettings, Type.Null()], {
        description:
          "lameness: the farm's base rate the map starts from (with fewer than minEvents lameness events, the map is this shift alone; with more, the records' fit is shrunk toward it); null for birth and heat, and before it was estimated",
      }),
    },
    {
      additionalProperties: false,
      description: `${kind}: the calibration in use for this farm and why`,
    },
  )

const ClassSettings = (
  kind: ClassificationType,
  example: { factor: number; reason: string; calibration: { inUse: boolean; reason: string } },
) =>
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
      reason: Reason(500, 'Why the factor is what it is, in words', example.reason),
      calibration: ClassCalibration(kind, example.calibration),
    },
    { additionalProperties: false, description: `${kind}: the threshold in use and why` },
  )

/** The birth windows after a service for a farm whose sows farrow `days` after it. */
function birthWindows(days: number) {
  const shift = Math.round((days - DEFAULT_GESTATION_DAYS) * 10) / 10
  const span = (from: number, to: number) => ({
    from: Math.round((from + shift) * 10) / 10,
    to: Math.round((to + shift) * 10) / 10,
  })
  return {
    lowerThreshold: span(DUE_DAYS.from, DUE_DAYS.to),
    shortCusum: span(SCORER.birth.short.dueFromDay, SCORER.birth.short.dueToDay),
  }
}

const EXAMPLE_GESTATION_DAYS = 118.4

const GestationSettings = Type.Object(
  {
    days: Type.Number({
      minimum: GESTATION_LEARNING.defaultDays - GESTATION_LEARNING.maxShiftDays,
      maximum: GESTATION_LEARNING.defaultDays + GESTATION_LEARNING.maxShiftDays,
      description:
        "The days from a service to farrowing the scorer's birth windows centre on for this farm, learned from its own farrowing and service records",
      examples: [EXAMPLE_GESTATION_DAYS],
    }),
    defaultDays: Setting('What the default windows centre on', GESTATION_LEARNING.defaultDays),
    pairs: Events(
      'Farrowings recorded in the period with a service 105-127 days before (the latest before it counts)',
      46,
    ),
    medianDays: Rate('Their median gestation, days; null without any', 118.8),
    range: Type.Union(
      [Type.Array(Type.Number(), { minItems: 2, maxItems: 2, examples: [[117.1, 121]] }), Type.Null()],
      { description: 'Their shortest and longest gestation, days; null without any' },
    ),
    windows: Type.Object(
      {
        lowerThreshold: DaySpan(
          'Days after a service in which the birth threshold is 0.75x (farrowing due)',
          [111.4, 125.4],
        ),
        shortCusum: DaySpan(
          'Days after a service in which the shorter CUSUM for weak or short nest building runs',
          [114.4, 122.4],
        ),
      },
      { additionalProperties: false, description: 'The birth windows this gestation puts in place' },
    ),
    limits: Limits({
      minPairs: Events('Fewer pairs than this: the default gestation', GESTATION_LEARNING.minPairs),
      shrinkPairs: Events(
        'The gestation moves pairs / (pairs + this) of the way from the default to the median',
        GESTATION_LEARNING.shrinkPairs,
      ),
      maxShiftDays: Setting('It stays within this many days of the default', GESTATION_LEARNING.maxShiftDays),
    }),
    reason: Reason(
      500,
      'Why the gestation is what it is, in words',
      '46 farrowings came a median 118.8 days (117.1-121) after their service; the birth windows centre on 118.4 days (the default 115), 90 % of the way',
    ),
  },
  {
    additionalProperties: false,
    description:
      "The farm's gestation: where the birth rules expect a farrowing after a recorded service, learned with the thresholds from the same period",
  },
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
    learning: Limits({
      periodDays: Days('Days of records one learning reads', LEARNING.periodDays),
      everyDays: Days('Days between learnings', LEARNING.everyDays),
      minEvents: Events('Fewer events of a class than this change nothing', LEARNING.minEvents),
      maxStep: Setting('One learning moves a factor at most this much (x or /)', LEARNING.maxStep),
      shrinkEvents: Events(
        'A learning moves events / (events + this) of the way to what the records ask for',
        LEARNING.shrinkEvents,
      ),
    }),
    calibrationLimits: Type.Object(
      {
        minEvents: Events(
          'Fewer events of a class than this in the period: the global calibration alone',
          FARM_CALIBRATION.minEvents,
        ),
        shrinkEvents: Events(
          'The fitted map is taken events / (events + this) of the way from the global calibration',
          FARM_CALIBRATION.shrinkEvents,
        ),
        minSlope: Setting("The map's least slope", FARM_CALIBRATION.minSlope),
        maxSlope: Setting("The map's greatest slope", FARM_CALIBRATION.maxSlope),
        maxIntercept: Setting("The map's intercept stays within ± this (log-odds)", FARM_CALIBRATION.maxIntercept),
        lamenessPrior: Limits({
          sustainedDays: Days(
            'A day counts in the share when it lies in a run of at least this many consecutive days whose lameness peak reached the alarm level',
            LAMENESS_PRIOR.sustainedDays,
          ),
          minDays: Days('Fewer days scored in the period: no shift', LAMENESS_PRIOR.minDays),
          minPhaseRecords: Events(
            'Fewer farrowings and weanings recorded in the period: no shift (without them the lameness rule has no phases, and a nursing sow reads as a decline)',
            LAMENESS_PRIOR.minPhaseRecords,
          ),
          shrinkAnimals: Events(
            'The shift is taken animals / (animals + this) of the way from none',
            LAMENESS_PRIOR.shrinkAnimals,
          ),
          maxShift: Setting('The shift stays within ± this (log-odds)', LAMENESS_PRIOR.maxShift),
        }),
      },
      {
        additionalProperties: false,
        description: "Per-farm calibration's limits: refitted with the factors, from the same period's records",
      },
    ),
    birth: ClassSettings('birth', {
      factor: 0.85,
      reason:
        'caught 6 of 9 events; at 0.8x the default threshold it would have caught 8 without more false alarms (moved 47 % of the way: 9 events)',
      calibration: {
        inUse: true,
        reason:
          "12 birth events: 0.6 % of the period's hours lay in an event's window, the global calibration said 1.4 %; its line moved 71 % of the way from the global calibration (12 events)",
      },
    }),
    heat: ClassSettings('heat', {
      factor: 1,
      reason: 'caught 21 of 24 events at 0.6 false alarms per animal-month: on target, unchanged',
      calibration: {
        inUse: true,
        reason:
          "24 heat events: 1.1 % of the period's hours lay in an event's window, the global calibration said 1.5 %; its line moved 83 % of the way from the global calibration (24 events)",
      },
    }),
    lameness: ClassSettings('lameness', {
      factor: 1,
      reason: '2 events recorded in the period, fewer than 5: unchanged',
      calibration: {
        inUse: false,
        reason: '2 lameness events recorded in the period, fewer than 5: the global calibration',
      },
    }),
    gestation: GestationSettings,
    dueBar: DueBarSettings,
  },
  { additionalProperties: false, title: 'PredictionSettings' },
)

function gestationOf(learned: GestationLearning) {
  return {
    days: learned.days,
    defaultDays: GESTATION_LEARNING.defaultDays,
    pairs: learned.pairs,
    medianDays: learned.medianDays,
    range: learned.range,
    windows: birthWindows(learned.days),
    limits: {
      minPairs: GESTATION_LEARNING.minPairs,
      shrinkPairs: GESTATION_LEARNING.shrinkPairs,
      maxShiftDays: GESTATION_LEARNING.maxShiftDays,
    },
    reason: learned.reason,
  }
}

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
          'false alarms, and raises it when false alarms are many and a higher one would still catch every event caught, ' +
          `each event's peak at least ${LEARNING.raiseMargin}x the new threshold (events to come are not the ones learned from); within ` +
          `${LEARNING.minFactor}-${LEARNING.maxFactor}x the default, at most ${LEARNING.maxStep}x per learning, only ` +
          `with ${LEARNING.minEvents} events or more, and part of the way when events are few. ` +
          "Per-farm calibration, refitted at the same time from the same period: the scorer's probability (the global " +
          "calibration's) re-mapped per class, logit(farm) = intercept + slope x logit(global), fitted on every scored " +
          'hour against whether it lay in a recorded event (birth: the 48 h before a farrowing record, the day after left out; ' +
          'heat: 36 h before a service to 24 h after it, as a sow is served in standing heat, the next day left out), taken events / (events + ' +
          `${FARM_CALIBRATION.shrinkEvents}) of the way from the global calibration, only with ${FARM_CALIBRATION.minEvents} events or ` +
          `more, slope ${FARM_CALIBRATION.minSlope}-${FARM_CALIBRATION.maxSlope}, intercept within ±${FARM_CALIBRATION.maxIntercept}. ` +
          'The map rises strictly, so alarms stay where the thresholds put them; alarmLevel is the probability they now carry. ' +
          "Lameness's map is the farm's own base rate (prior), read from its scores without any lameness record: " +
          `the share of its scored animal-days in a lameness alarm held ${LAMENESS_PRIOR.sustainedDays} days or more, against ${LAMENESS_PRIOR.knotsShare * 100} % on the farms the global calibration was fitted on; ` +
          `its log-odds difference, taken animals / (animals + ${LAMENESS_PRIOR.shrinkAnimals}) of the way and within ±${LAMENESS_PRIOR.maxShift}, is added to the log-odds of every lameness probability ` +
          `(only with ${LAMENESS_PRIOR.minDays} days scored and ${LAMENESS_PRIOR.minPhaseRecords} farrowings and weanings recorded in the period); lameness treatments are counted, not fitted: one is recorded days into a lameness, and not every lameness is treated. ` +
          "The farm's gestation, learned at the same time: the median days from each farrowing recorded in the period " +
          'to the latest service before it (105-127 days apart), taken pairs / (pairs + ' +
          `${GESTATION_LEARNING.shrinkPairs}) of the way from the default ${GESTATION_LEARNING.defaultDays} days, only with ${GESTATION_LEARNING.minPairs} pairs or more, ` +
          `within ${GESTATION_LEARNING.maxShiftDays} days of the default; the birth rules' windows after a service (the lower threshold, the shorter CUSUM) move with it. ` +
          "The due bar, learned at the same time: birth's thresholds in the days " +
          `${DUE_BAR_LEARNING.fromDay} to +${DUE_BAR_LEARNING.toDay} around the farm's gestation after a sow's latest service, set ${DUE_BAR_LEARNING.under}x under the score ` +
          `${DUE_BAR_LEARNING.peakQuantile * 100} % of the period's recorded farrowings did not reach in the 48 h before onset (no lower than ${DUE_BAR_LEARNING.minFactor}x), ` +
          "replayed on the farm's own scored hours of those days and kept only where it catches more farrowings (an alarm starting in the 48 h before onset) " +
          `with at most ${DUE_BAR_LEARNING.falseAlarmsPerBirthGained} more false alarm for each, farrowings / (farrowings + ${DUE_BAR_LEARNING.shrinkFarrowings}) of the way, ` +
          `only with ${DUE_BAR_LEARNING.minFarrowings} farrowings or more.`,
        params: UserPath,
        response: { 200: Envelope(PredictionSettings) },
      },
      config: { access: 'own' },
    },
    async (req) => {
      const stored = await findFarmSettings(app.database.db, req.params.userId)
      const factors = stored?.factors ?? DEFAULT_FACTORS
      const calibrationOf = (kind: ClassificationType, fit: FarmCalibrationFit | undefined) => {
        const map = fit?.map ?? IDENTITY_MAP
        const inUse = map.intercept !== 0 || map.slope !== 1
        return {
          inUse: inUse ? ('farm' as const) : ('global' as const),
          intercept: map.intercept,
          slope: map.slope,
          events: fit?.events ?? 0,
          hours: fit?.hours ?? 0,
          observed: fit?.observed ?? null,
          meanPredicted: fit?.meanPredicted ?? null,
          globalAlarmLevel: alarmLevel(kind),
          alarmLevel: round4(recalibrate(map, alarmLevel(kind))),
          map: mapPoints(map),
          reason: fit?.reason ?? 'not fitted yet: the global calibration',
          prior: kind === 'lameness' && fit?.prior ? { ...fit.prior, knotsShare: LAMENESS_PRIOR.knotsShare } : null,
        }
      }
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
          calibration: calibrationOf(kind, stored?.calibration?.[kind]),
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
        calibrationLimits: {
          minEvents: FARM_CALIBRATION.minEvents,
          shrinkEvents: FARM_CALIBRATION.shrinkEvents,
          minSlope: FARM_CALIBRATION.minSlope,
          maxSlope: FARM_CALIBRATION.maxSlope,
          maxIntercept: FARM_CALIBRATION.maxIntercept,
          lamenessPrior: {
            sustainedDays: LAMENESS_PRIOR.sustainedDays,
            minDays: LAMENESS_PRIOR.minDays,
            minPhaseRecords: LAMENESS_PRIOR.minPhaseRecords,
            shrinkAnimals: LAMENESS_PRIOR.shrinkAnimals,
            maxShift: LAMENESS_PRIOR.maxShift,
          },
        },
        birth: classOf('birth'),
        heat: classOf('heat'),
        lameness: classOf('lameness'),
        gestation: gestationOf(stored?.basis.gestation ?? DEFAULT_GESTATION),
        dueBar: dueBarSettingsOf(
          stored?.basis.dueBar ?? DEFAULT_DUE_BAR_LEARNING,
          (stored?.basis.gestation ?? DEFAULT_GESTATION).days,
        ),
      })
    },
  )
}
