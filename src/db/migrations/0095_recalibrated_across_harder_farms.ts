// The scorer's calibration was refitted over harder farms (docs/predictions.md, Calibration across harder farms): the
// fit now counts four kinds of tuning farm alike, a rough one among them (lameness in one animal in seven, fevers,
// loose tags), and a raw score at a rule's threshold now reads birth 0.3441, heat 0.2139, lameness 0.6423, where it
// read 0.4049, 0.239, 0.7673. As migration 0090 did for the refit before it: the scorer's stored global probabilities
// are taken back through the old knots to the raw score and forward through the new ones, alarms staying alarms; what
// the API shows is left as scored; each farm's own map, fitted on the old scale, is dropped until the job refits it.
import type { Kysely } from 'kysely'
import {
  remapStoredGlobalProbabilities,
  remappedProbability,
  type ClassKnots,
  type Kind,
} from './remap-global-probabilities.ts'

/** The knots of the last release (0090's new ones), then this one's: copied here, since a migration never changes. */
// prettier-ignore
export const OLD_KNOTS: ClassKnots = {
  birth: [[0, 0.0059], [0.048, 0.0128], [0.098, 0.0192], [0.149, 0.0458], [0.198, 0.0556], [0.248, 0.0952], [0.299, 0.1601], [0.349, 0.2046], [0.4, 0.276], [0.448, 0.3336], [0.498, 0.4002], [0.548, 0.5188], [0.598, 0.6563], [0.649, 0.7775], [0.7, 0.8996], [0.752, 0.9923], [0.828, 1]],
  heat: [[0.001, 0.0068], [0.05, 0.0078], [0.1, 0.0086], [0.15, 0.01], [0.199, 0.0124], [0.249, 0.0153], [0.299, 0.0222], [0.348, 0.0381], [0.398, 0.0634], [0.448, 0.1281], [0.498, 0.234], [0.548, 0.3592], [0.598, 0.5149], [0.649, 0.6281], [0.72, 0.6591], [0.813, 0.6691]],
  lameness: [[0, 0.061], [0.05, 0.0875], [0.099, 0.1014], [0.15, 0.1152], [0.2, 0.1293], [0.249, 0.1671], [0.3, 0.2049], [0.349, 0.2628], [0.399, 0.3987], [0.449, 0.5514], [0.5, 0.7673], [0.55, 0.9258], [0.6, 0.9848], [0.649, 0.9971], [0.703, 1]],
}
// prettier-ignore
export const NEW_KNOTS: ClassKnots = {
  birth: [[0, 0.0062], [0.048, 0.013], [0.098, 0.02], [0.149, 0.0429], [0.198, 0.0526], [0.248, 0.0875], [0.299, 0.142], [0.349, 0.18], [0.4, 0.2405], [0.449, 0.2828], [0.498, 0.3405], [0.548, 0.4314], [0.598, 0.5393], [0.649, 0.664], [0.7, 0.8532], [0.751, 0.9651], [0.799, 0.9955], [0.858, 1]],
  heat: [[0.004, 0.0081], [0.1, 0.0086], [0.15, 0.0095], [0.199, 0.0124], [0.249, 0.015], [0.299, 0.0219], [0.348, 0.0366], [0.398, 0.0613], [0.448, 0.1169], [0.498, 0.209], [0.548, 0.3324], [0.598, 0.452], [0.649, 0.5526], [0.719, 0.5792], [0.815, 0.6278]],
  lameness: [[0, 0.0491], [0.05, 0.0683], [0.099, 0.0775], [0.15, 0.0867], [0.2, 0.1004], [0.249, 0.1274], [0.3, 0.1676], [0.349, 0.2109], [0.399, 0.3094], [0.448, 0.4399], [0.499, 0.6385], [0.55, 0.8343], [0.642, 0.8937], [0.744, 0.8942]],
}

/** The new global probability of an old one, as the scorer would store it now (remappedProbability). */
export const remapped = (kind: Kind, old: number): number => remappedProbability(OLD_KNOTS, NEW_KNOTS, kind, old)

/** Remaps the scorer's stored global probabilities (of one account with `uid`) and drops the farms' maps. */
export const recalibrateStored = (db: Kysely<unknown>, uid?: string): Promise<void> =>
  remapStoredGlobalProbabilities(db, OLD_KNOTS, NEW_KNOTS, uid)

export async function up(db: Kysely<unknown>): Promise<void> {
  await recalibrateStored(db)
}

export async function down(): Promise<void> {
  // Where the old knots are flat, the raw score (and so the old probability) cannot be told back exactly.
}
