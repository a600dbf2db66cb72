// The scorer's calibration was refitted over harder farms (docs/predictions.md, Calibration across harder farms): the
// fit now counts four kinds of tuning farm alike, a rough one among them (lameness in one animal in seven, fevers,
// loose tags), and a raw score at a rule's threshold now reads birth 0.3441, heat 0.2139, lameness 0.6423, where it
// read 0.4049, 0.239, 0.7673. As migration 0090 did for the refit before it: the scorer's stored global probabilities
// are taken back through the old knots to the raw score and forward through the new ones, alarms staying alarms; what
// the API shows is left as scored; each farm's own map, fitted on the old scale, is dropped until the job refits it.
import { NEW_KNOTS as RELEASED_IN_0090 } from './0090_recalibrated_global_probabilities.ts'
import { recalibrationMigration, type ClassKnots } from './remap-global-probabilities.ts'

/** The knots of the last release: 0090's new ones. */
export const OLD_KNOTS: ClassKnots = RELEASED_IN_0090

/** This release's knots: copied here, since a migration never changes. */
// prettier-ignore
export const NEW_KNOTS: ClassKnots = {
  birth: [[0, 0.0062], [0.048, 0.013], [0.098, 0.02], [0.149, 0.0429], [0.198, 0.0526], [0.248, 0.0875], [0.299, 0.142], [0.349, 0.18], [0.4, 0.2405], [0.449, 0.2828], [0.498, 0.3405], [0.548, 0.4314], [0.598, 0.5393], [0.649, 0.664], [0.7, 0.8532], [0.751, 0.9651], [0.799, 0.9955], [0.858, 1]],
  heat: [[0.004, 0.0081], [0.1, 0.0086], [0.15, 0.0095], [0.199, 0.0124], [0.249, 0.015], [0.299, 0.0219], [0.348, 0.0366], [0.398, 0.0613], [0.448, 0.1169], [0.498, 0.209], [0.548, 0.3324], [0.598, 0.452], [0.649, 0.5526], [0.719, 0.5792], [0.815, 0.6278]],
  lameness: [[0, 0.0491], [0.05, 0.0683], [0.099, 0.0775], [0.15, 0.0867], [0.2, 0.1004], [0.249, 0.1274], [0.3, 0.1676], [0.349, 0.2109], [0.399, 0.3094], [0.448, 0.4399], [0.499, 0.6385], [0.55, 0.8343], [0.642, 0.8937], [0.744, 0.8942]],
}

export const { remapped, recalibrateStored, up, down } = recalibrationMigration(OLD_KNOTS, NEW_KNOTS)
