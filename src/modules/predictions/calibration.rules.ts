// A rule's score as a probability: its raw score (0.5 at its threshold) mapped through the class's calibration.
import { interpolate } from '../../math/piecewise-linear.ts'
import { SCORER, type Calibration, type ClassScores, type ScorerSettings } from './scorer-settings.rules.ts'

/** A rule's score as a probability: 0.5 at the rule's threshold, rising towards 1 above it, 0 at or below 0. */
export function probabilityOf(score: number, threshold: number): number {
  return score <= 0 ? 0 : score / (score + threshold)
}

/** The probability of a raw score under a calibration (the raw score itself without one). */
export function calibrate(knots: Calibration | undefined, raw: number): number {
  if (knots === undefined || knots.length === 0) return raw
  return interpolate(knots, raw, 0, 1)
}

/** The raw score of a calibrated probability: calibrate's inverse (per-farm learning reads stored probabilities). */
export function uncalibrate(knots: Calibration | undefined, probability: number): number {
  if (knots === undefined || knots.length === 0) return probability
  return interpolate(knots, probability, 1, 0)
}

/** A raw score at which a rule alarms: its threshold. */
export const RAW_ALARM = 0.5

/**
 * The probability at which a class alarms: its raw alarm score calibrated (a stored probability at or above it is an
 * alarm; rounded as the stored probabilities are).
 */
export function alarmLevel(kind: keyof ClassScores, settings: ScorerSettings = SCORER): number {
  return roundProbability(calibrate(settings.calibration?.[kind], RAW_ALARM))
}

/**
 * The probability stored for a raw score: calibrated, rounded as stored, and kept under the alarm level while the raw
 * score is under the threshold (rounding would lift a score just under it onto the level where the map is flat).
 * `level`: the knots' alarm level, when the caller has it for many scores.
 */
export function calibratedProbability(
  knots: Calibration | undefined,
  raw: number,
  level: number = roundProbability(calibrate(knots, RAW_ALARM)),
): number {
  const p = roundProbability(calibrate(knots, raw))
  if (raw >= RAW_ALARM) return p
  return p < level ? p : roundProbability(level - 0.0001)
}

/** Probabilities are stored to 4 decimals: a calibrated probability near the alarm level keeps its order. */
export function roundProbability(p: number): number {
  return Math.round(p * 10_000) / 10_000
}
