// The scorer's calibration was refitted on today's rules and over more varied farms (docs/predictions-tuning.md,
// branch calib5): seven kinds of tuning farm counting alike (weaker heats, gilts without records and weak nest
// builders besides the four before), and a raw score at a rule's threshold now reads birth 0.3171, heat 0.2659, lameness
// 0.7207, where it read 0.3441, 0.2139, 0.6423. As migrations 0090 and 0095 did: the scorer's stored global
// probabilities are taken back through the old knots to the raw score and forward through the new ones, alarms
// staying alarms; what the API shows is left as scored; each farm's own map, fitted on the old scale, is dropped until
// the job refits it.
import { NEW_KNOTS as RELEASED_IN_0095 } from './0095_recalibrated_across_harder_farms.ts'
import { recalibrationMigration, type ClassKnots } from './remap-global-probabilities.ts'

/** The knots of the last release: 0095's new ones. */
export const OLD_KNOTS: ClassKnots = RELEASED_IN_0095

/** This release's knots: copied here, since a migration never changes. */
// prettier-ignore
export const NEW_KNOTS: ClassKnots = {
  birth: [[0, 0.0057], [0.048, 0.0117], [0.098, 0.0177], [0.149, 0.0396], [0.198, 0.0489], [0.248, 0.0755], [0.299, 0.1312], [0.349, 0.1648], [0.399, 0.2208], [0.449, 0.2638], [0.4586, 0.2671], [0.499, 0.3151], [0.5, 0.3171], [0.549, 0.4134], [0.598, 0.4954], [0.649, 0.5798], [0.7, 0.7397], [0.751, 0.8568], [0.799, 0.9288], [0.853, 0.9927], [0.901, 0.999], [0.93, 1]],
  heat: [[0, 0.0076], [0.05, 0.0081], [0.1, 0.0096], [0.15, 0.0111], [0.199, 0.014], [0.249, 0.018], [0.298, 0.0275], [0.348, 0.0436], [0.398, 0.0779], [0.448, 0.1442], [0.47352, 0.2159], [0.498, 0.2601], [0.5, 0.2659], [0.547, 0.403], [0.602, 0.5243], [0.649, 0.6232], [0.699, 0.6934], [0.749, 0.7481], [0.798, 0.7934], [0.855, 0.8227]],
  lameness: [[0, 0.0523], [0.05, 0.0771], [0.1, 0.0859], [0.15, 0.0935], [0.2, 0.119], [0.25, 0.1404], [0.299, 0.1847], [0.35, 0.2573], [0.399, 0.3356], [0.449, 0.5048], [0.48714, 0.6707], [0.499, 0.7172], [0.5, 0.7207], [0.55, 0.8953], [0.601, 0.9656], [0.648, 0.9744], [0.695, 0.9903], [0.737, 1]],
}

export const { remapped, recalibrateStored, up, down } = recalibrationMigration(OLD_KNOTS, NEW_KNOTS)
