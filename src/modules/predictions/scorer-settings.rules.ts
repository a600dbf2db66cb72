// The scorer's settings: every threshold of its rules in one object (SCORER), with its calibration.
import { DAY_HOURS } from './hour-summaries.rules.ts'

/** Every threshold of the rules; docs/predictions.md gives each one's reason. Tuned on the evaluation's tuning seed. */
export interface ScorerSettings {
  /** Added to both sides of an activity ratio (a share of the hour), so that quiet nights do not divide by ~0. */
  activityFloor: number
  /** The hourly baseline: the same hour of day (±1 h) on these days back; it needs minHours hours with data. */
  baseline: { fromDay: number; toDay: number; minHours: number }
  /**
   * A new tag's first days, before its own baseline days exist (newTagUsual): heat's usual at an hour is her group's
   * median activity at that hour times her own level against the group, over her hours at least a day earlier (at
   * least levelHours of them); its rise is shrunk as a usual of `days` baseline days. Null: none (no heat score until
   * two baseline days exist).
   */
  newTag: { levelHours: number; days: number } | null
  /** Group correction: the group's median needs this many animals with data that hour, else the farm's, else none. */
  groupMinAnimals: number
  /**
   * CUSUM of ln(ratio / reference) over the last `hours`, each hour's ratio capped at `cap`; alarm (p = 0.5) at
   * `threshold`, or at threshold x warmFactor while the ear is `warmC` warmer than usual (over 6 h, less its group's).
   */
  birth: {
    reference: number
    cap: number
    hours: number
    threshold: number
    warmC: number
    warmFactor: number
    /** An hour whose usual activity is peakFactor x the animal's usual day (a meal) neither adds nor removes. */
    peakFactor: number
    /** Activity above `reference` for persistentShare of the hours 24-48 h back is no nest building (a loose tag, a move). */
    persistentShare: number
    /** An ear this much cooler than usual over 6 h (less its group's) has a tag off the skin: no birth alarm. */
    tagOffC: number
    /**
     * No birth alarm in the quietAfterBirthDays after a recorded farrowing: no sow farrows again before a gestation
     * has passed since a service after it, so a rise then (leaving the crate at weaning, mixing, a heat) is none.
     */
    quietAfterBirthDays: number
    /**
     * Days from a service to farrowing that the windows after a service centre on (the lower threshold, the short
     * CUSUM's due days, the crate's search): the defaults' windows are for DEFAULT_GESTATION_DAYS, and a farm whose
     * records show a longer or shorter gestation moves them by the difference (per-farm learning).
     */
    gestationDays: number
    /**
     * Both birth thresholds times `factor` from fromDay to toDay around the farm's gestation after the latest service:
     * a bar learned from the farm's own farrowings (due-bar.rules.ts; factor 1, the defaults, until then).
     */
    dueBar: { factor: number; fromDay: number; toDay: number }
    /**
     * A second, shorter CUSUM for weak or short nest building, only while a recorded service makes farrowing due
     * (dueFromDay-dueToDay after it): over `hours` hours, ln(ratio / reference), alarm at `threshold`.
     */
    short: {
      hours: number
      reference: number
      threshold: number
      dueFromDay: number
      dueToDay: number
      /**
       * Its usual is the same hours (±1 h) on days baseline.fromDay-recentToDay back only: a sow moved into the crate
       * a few days before farrowing is far less active there than in the pen, and the pen's days would hide her rise.
       */
      recentToDay: number
      /** When at least this share of its group's animals with data are due too (a batch), the group takes no rise away. */
      batchShare: number
      /**
       * Once a move into the crate shows (crateEntryIndex, from fromDay after the service), the usual is the
       * same hours on days 1-recentToDay back that lie in the crate, settleHours after the move (the move's own
       * unrest left out): a move 1-2 days before farrowing leaves days 2-4 back in the pen. Null: days 2-4 always.
       */
      crate: { fromDay: number; settleHours: number } | null
      /**
       * Meal hours count here: each is compared with the same meal of her last (crate) days, so a nest builder
       * restless at a meal rises above it. False: left out, as in the long CUSUM (whose pen days' meals differ).
       */
      meals: boolean
      /**
       * The last day before farrowing, which a due sow's warming ear marks: while her ear is warmC warmer than usual
       * (over the last 6 h, less her group's), a longer, lower CUSUM of the same hours' ratios, over `hours` h
       * above `reference`, alarm at `threshold`: a weak nester's rise, small against her usual but sustained over
       * hours. Null: none.
       */
      lastDay: { hours: number; reference: number; threshold: number; warmC: number } | null
    }
    /**
     * On a farm that records no service, what the records would have said, read from the data (see
     * unrecordedCrateMoves): a move into the crate is a drop of movement between nodes below `drop` x its usual that
     * is still below it heldHours later, while the group's movement stays above groupKept x its usual (not its
     * gateway out of reach), and the dropped block's ear lies no more than earShiftC from her usual (earShifted: a
     * fever or a tag off the skin lowers the movement read; null: not read). From when it shows to dueDays after it
     * she is due: the short and last-day CUSUMs run against her crate days, and the long CUSUM's bar is the
     * threshold x dueFactor. From then to quietDays after the move, and quietDays after a weaning read from the data
     * (leaving the crate), she has farrowed: no birth alarm. Elsewhere the long CUSUM's bar is the threshold x
     * unseenFactor. In her due days, once her day's activity fell below lactationDrop x her crate days'
     * (lactationIndex: she farrowed and lies to nurse), she has farrowed too (null: not read). Null: none of this.
     */
    unrecorded: {
      drop: number
      heldHours: number
      groupKept: number
      earShiftC: number | null
      dueDays: number
      dueFactor: number
      quietDays: number
      unseenFactor: number
      lactationDrop: number | null
    } | null
    /**
     * A farm's first weeks: while a tag's first hour with data lies within tagDays before the first hour scored (a
     * farm with that much history is scored without this), (moves) her move into the crate is read, with her
     * records' due days and on a farm that records nothing, against her day blocks since the tag went on until the
     * blocks 2-8 days back exist (movementUsual), and (unrecordedSows) on a farm that keeps records, a sow with no
     * service and no farrowing recorded at the hour (her past not entered) is scored by what her data say, as on a
     * farm that records nothing (`unrecorded`). Null: neither.
     */
    newTag: { tagDays: number; moves: boolean; unrecordedSows: boolean } | null
  }
  /** The group's level is this quantile of its animals' (not the median), so that a share of a group can share an event. */
  groupQuantile: number
  /**
   * Activity of the last `hours` hours against the same hours on baseline days (hours without data on either side
   * left out); alarm when `threshold` above it (0.3 = 1.3x), threshold x expectedFactor after a weaning,
   * x returnFactor when a return is possible, x unlikelyFactor while pregnant or nursing.
   */
  heat: {
    hours: number
    threshold: number
    expectedFactor: number
    returnFactor: number
    unlikelyFactor: number
    /**
     * Where the records make a heat likely (see heatLikely), also the last shortHours hours, alarm at the threshold x
     * shortFactor after a weaning (a shorter window is noisier, but alarms sooner after the rise begins; the
     * day-long window's bar there is kept near the plain one, so that two windows at a low bar do not both start
     * alarms on the noise of the days before the heat).
     */
    shortHours: number
    shortFactor: number
    /**
     * In the return window (heatShortFactor) that shorter window's bar is the threshold x returnShortFactor: most
     * services hold, so its noise raised more false alarms on pregnant sows than it found returns.
     */
    returnShortFactor: number
    /**
     * No heat alarm in the first quietLactationDays after a recorded farrowing with no weaning since, recorded or read
     * from the data (lactational anoestrus through a conventional lactation: weaning at 21-28 days; later, a weaning
     * neither recorded nor read may have happened).
     */
    quietLactationDays: number
    /**
     * A weaning the farm did not record, read from the data: movement between nodes risen to weaningRise x its usual
     * (days 2-8 before) in a day, as when a sow leaves the farrowing crate; it counts as a weaning from then on.
     */
    weaningRise: number
    /**
     * A weaned sow that had not settled in the settleHours after her weaning (her activity then above settleRise x
     * her activity since: the move out of the crate, the fights of mixing) has her heat baseline from then on, and
     * settledMinDays of it suffice (elsewhere two): see heatBaselineStart.
     */
    settleHours: number
    settleRise: number
    settledMinDays: number
    /**
     * Where the records say nothing of an animal's cycle on a farm that keeps them (cycleUnrecorded: a gilt not yet
     * served), her own last heat read from her data: the latest hour, at least currentDays back (not the heat she may
     * be in now), at which her 24-h rise (less her group's) had stayed at the threshold for heldHours hours (a heat
     * lasts one to three days, a day's noise crosses the bar for hours). More than dueFromDay and at most dueToDay days
     * after it her next heat is due (an oestrous cycle, 18-24 days, after the last): the 24-h bar is the threshold x
     * dueFactor (ownHeatDue). Null: not read.
     */
    ownHeat: { heldHours: number; currentDays: number; dueFromDay: number; dueToDay: number; dueFactor: number } | null
    /** A window with data in fewer of its hours is noisier: its rise is shrunk by that too (heatRatio). */
    partialShrink: boolean
    /**
     * Hours after a service in which the heat it was done in may still run (servedInHeat): heat's bars then are no
     * higher than without that service (heatBars). Null: a service raises them at once (the plain bar, no 12-h window).
     */
    servedHours: number | null
    /**
     * The shorter window's crossing must hold (heldShortRise): its rise is the least over its last `hours` hours
     * (`returnHours` in the return window, where most sows are pregnant and a crossing is more often noise), unless
     * the latest is at least clearFactor x its bar, which counts at once. A heat's rise lasts a day or more; a
     * crossing of an hour or two at the bar is the window's own noise (about twenty bouts of activity). Null: the
     * latest hour alone.
     */
    shortHold: { hours: number; returnHours: number; clearFactor: number } | null
    /**
     * On a farm that records no service, what its records would have said of a sow's cycle, read from her data
     * (birth.unrecorded's moves into the crate and farrowings, the weanings read from the data), for heat only:
     * `births`, a farrowing read from the data counts as a recorded one (lactational anoestrus: no heat alarm through
     * quietLactationDays unless a weaning follows; the lactation's phase), and while a move into the crate read from
     * the data makes her due, no heat alarm (as in the crate window after a service); `servedDay`, a sow weaned (read
     * from the data) and past the days a heat is expected after it (heatExpected) counts as served servedDay days
     * after her weaning (sows are served at the first heat after weaning; most services hold): the luteal phase's and
     * pregnancy's bar, the return window's bars 17-25 days after (presumedService). Null: none of this.
     */
    unrecordedCycle: { births: boolean; servedDay: number | null } | null
  }
  /** The last recentDays days against days baselineFromDay-baselineToDay back; alarm at a decline of `threshold`. */
  lameness: {
    recentDays: number
    baselineFromDay: number
    baselineToDay: number
    threshold: number
    /** The decline scored is the least over the last persistHours hours (a lameness persists). */
    persistHours: number
    /**
     * Days whose ear temperature (against the group's) lies more than this many °C from the animal's usual over the
     * days read are a sickness (warmer: left out of the recent days) or a tag off the skin (cooler: left out of both),
     * not lameness (temperatureShifts).
     */
    temperatureShiftC: number
  }
  /**
   * Each class's raw score (score / (score + threshold): 0.5 at the alarm threshold) mapped to a probability, so that
   * a probability says how often such an hour lies in the event's window; null keeps the raw scores (for fitting).
   */
  calibration: ClassCalibration | null
}

export interface ClassScores {
  birth: number
  heat: number
  lameness: number
}

export type ClassCalibration = Record<keyof ClassScores, Calibration>

/**
 * A calibration: knots [raw score, probability], both strictly rising; linear between knots, the end knots' values
 * beyond them. Fitted by isotonic regression on the tuning family's herds, each counting alike (fitCalibration in
 * src/simulation/evaluation.ts).
 */
export type Calibration = readonly (readonly [raw: number, probability: number])[]

export const SCORER: ScorerSettings = {
  activityFloor: 0.03,
  baseline: { fromDay: 2, toDay: 8, minHours: 8 },
  newTag: { levelHours: 24, days: 1 },
  groupMinAnimals: 5,
  birth: {
    reference: 1.6,
    cap: 6,
    hours: 36,
    threshold: 4,
    warmC: 0.3,
    warmFactor: 0.6,
    peakFactor: 1.8,
    persistentShare: 0.5,
    tagOffC: -0.8,
    quietAfterBirthDays: 100,
    gestationDays: 115,
    dueBar: { factor: 1, fromDay: -2, toDay: 2 },
    short: {
      hours: 6,
      reference: 1.4,
      threshold: 2,
      dueFromDay: 111,
      dueToDay: 119,
      recentToDay: 4,
      batchShare: 0.5,
      crate: { fromDay: 100, settleHours: 12 },
      meals: true,
      lastDay: { hours: 12, reference: 1.2, threshold: 2, warmC: 0.2 },
    },
    unrecorded: {
      drop: 0.5,
      heldHours: 24,
      groupKept: 0.75,
      earShiftC: 0.5,
      dueDays: 10,
      dueFactor: 0.75,
      quietDays: 18,
      unseenFactor: 1.5,
      lactationDrop: 0.5,
    },
    newTag: { tagDays: 24, moves: true, unrecordedSows: true },
  },
  groupQuantile: 0.4,
  heat: {
    hours: 24,
    threshold: 0.4,
    expectedFactor: 0.8,
    returnFactor: 1.5,
    unlikelyFactor: 2,
    shortHours: 12,
    shortFactor: 0.56,
    returnShortFactor: 1.5,
    quietLactationDays: 28,
    weaningRise: 2.5,
    settleHours: 36,
    settleRise: 1.25,
    settledMinDays: 1,
    ownHeat: { heldHours: 12, currentDays: 3, dueFromDay: 14, dueToDay: 26, dueFactor: 0.8 },
    partialShrink: true,
    servedHours: 24,
    shortHold: { hours: 2, returnHours: 3, clearFactor: 1.5 },
    unrecordedCycle: { births: true, servedDay: 5 },
  },
  lameness: {
    recentDays: 3,
    baselineFromDay: 12,
    baselineToDay: 20,
    threshold: 0.2,
    persistHours: 12,
    temperatureShiftC: 0.5,
  },
  // `jobs fit-calibration` (fitCalibration, src/simulation/evaluation.ts) on the tuning family's conditions; refit
  // whenever a rule changes.
  // prettier-ignore
  calibration: {
    birth: [[0, 0.0062], [0.048, 0.013], [0.098, 0.02], [0.149, 0.0429], [0.198, 0.0526], [0.248, 0.0875], [0.299, 0.142], [0.349, 0.18], [0.4, 0.2405], [0.449, 0.2828], [0.498, 0.3405], [0.548, 0.4314], [0.598, 0.5393], [0.649, 0.664], [0.7, 0.8532], [0.751, 0.9651], [0.799, 0.9955], [0.858, 1]],
    heat: [[0.004, 0.0081], [0.1, 0.0086], [0.15, 0.0095], [0.199, 0.0124], [0.249, 0.015], [0.299, 0.0219], [0.348, 0.0366], [0.398, 0.0613], [0.448, 0.1169], [0.498, 0.209], [0.548, 0.3324], [0.598, 0.452], [0.649, 0.5526], [0.719, 0.5792], [0.815, 0.6278]],
    lameness: [[0, 0.0491], [0.05, 0.0683], [0.099, 0.0775], [0.15, 0.0867], [0.2, 0.1004], [0.249, 0.1274], [0.3, 0.1676], [0.349, 0.2109], [0.399, 0.3094], [0.448, 0.4399], [0.499, 0.6385], [0.55, 0.8343], [0.642, 0.8937], [0.744, 0.8942]],
  },
}

/** The gestation the default windows after a service centre on: 108-122 days, 111-119, 100 = 115 -7/+7, -4/+4, -15. */
export const DEFAULT_GESTATION_DAYS = 115

/**
 * Days since a service as the birth windows read them: the farm's gestation moves every window by its difference
 * from the default's (a sow of a farm whose sows farrow 119 days after the service is due at 119, not 115).
 */
export const dueDaysSince = (sinceService: number, settings: ScorerSettings = SCORER) =>
  sinceService - (settings.birth.gestationDays - DEFAULT_GESTATION_DAYS)

/**
 * The settings with each class's alarm threshold multiplied by a farm's factor, at the farm's gestation and with its
 * due bar (per-farm learning; the defaults' when not given).
 */
export function settingsWithFactors(
  factors: { birth: number; heat: number; lameness: number },
  settings: ScorerSettings = SCORER,
  gestationDays: number = settings.birth.gestationDays,
  dueBar: ScorerSettings['birth']['dueBar'] = settings.birth.dueBar,
): ScorerSettings {
  return {
    ...settings,
    birth: {
      ...settings.birth,
      gestationDays,
      dueBar,
      threshold: settings.birth.threshold * factors.birth,
      short: { ...settings.birth.short, threshold: settings.birth.short.threshold * factors.birth },
    },
    heat: { ...settings.heat, threshold: settings.heat.threshold * factors.heat },
    lameness: { ...settings.lameness, threshold: settings.lameness.threshold * factors.lameness },
  }
}

/** Hours of summaries before the first scored hour that the rules need. */
export const LOOKBACK_HOURS = (SCORER.lameness.baselineToDay + 8) * DAY_HOURS
