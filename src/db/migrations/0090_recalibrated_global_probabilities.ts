// The scorer's calibration was refitted this round (docs/predictions.md#calibration): a raw score at a rule's threshold
// now reads birth 0.4049, heat 0.239, lameness 0.7673, where it read 0.1078, 0.2368, 0.7442. The accuracy route,
// retention, per-farm learning and the farm's calibration fit read `global_probability` against today's knots, so one
// stored on the old scale would read as another score (an old birth alarm at 0.2 as a quiet hour). This maps it once
// through the old knots back to the raw score and through the new ones forward, alarms staying alarms; scorer rows
// from before migration 0085 (no global_probability) get one from their peak, which was global. What the API shows
// (`results`, `peak_probability`: what the scorer said at its hour) is left as it was. Each farm's own map was fitted
// on the old scale: it is dropped, and the farm reads the global calibration until the job fits its map again.
import { recalibrationMigration, type ClassKnots } from './remap-global-probabilities.ts'

/** The knots of the last release (main at 47ef2f6), then this one's: copied here, since a migration never changes. */
// prettier-ignore
export const OLD_KNOTS: ClassKnots = {
  birth: [[0.009, 0.0063], [0.099, 0.0068], [0.149, 0.0163], [0.198, 0.0182], [0.248, 0.0277], [0.299, 0.0528], [0.348, 0.0622], [0.399, 0.0849], [0.449, 0.1041], [0.499, 0.1071], [0.548, 0.1401], [0.598, 0.1958], [0.647, 0.3106], [0.7, 0.6469], [0.752, 0.8978], [0.799, 0.9552], [0.856, 1]],
  heat: [[0.004, 0.0064], [0.1, 0.0075], [0.15, 0.009], [0.199, 0.0104], [0.249, 0.0146], [0.299, 0.0209], [0.348, 0.0363], [0.398, 0.0586], [0.448, 0.1225], [0.498, 0.2331], [0.548, 0.3256], [0.599, 0.4732], [0.649, 0.5371], [0.699, 0.5838], [0.75, 0.5946], [0.807, 0.6288]],
  lameness: [[0, 0.0598], [0.05, 0.0776], [0.099, 0.1036], [0.149, 0.1156], [0.2, 0.1286], [0.249, 0.1579], [0.3, 0.2118], [0.349, 0.2545], [0.399, 0.3987], [0.449, 0.528], [0.5, 0.7442], [0.55, 0.9448], [0.6, 0.9848], [0.669, 1]],
}
// prettier-ignore
export const NEW_KNOTS: ClassKnots = {
  birth: [[0, 0.0059], [0.048, 0.0128], [0.098, 0.0192], [0.149, 0.0458], [0.198, 0.0556], [0.248, 0.0952], [0.299, 0.1601], [0.349, 0.2046], [0.4, 0.276], [0.448, 0.3336], [0.498, 0.4002], [0.548, 0.5188], [0.598, 0.6563], [0.649, 0.7775], [0.7, 0.8996], [0.752, 0.9923], [0.828, 1]],
  heat: [[0.001, 0.0068], [0.05, 0.0078], [0.1, 0.0086], [0.15, 0.01], [0.199, 0.0124], [0.249, 0.0153], [0.299, 0.0222], [0.348, 0.0381], [0.398, 0.0634], [0.448, 0.1281], [0.498, 0.234], [0.548, 0.3592], [0.598, 0.5149], [0.649, 0.6281], [0.72, 0.6591], [0.813, 0.6691]],
  lameness: [[0, 0.061], [0.05, 0.0875], [0.099, 0.1014], [0.15, 0.1152], [0.2, 0.1293], [0.249, 0.1671], [0.3, 0.2049], [0.349, 0.2628], [0.399, 0.3987], [0.449, 0.5514], [0.5, 0.7673], [0.55, 0.9258], [0.6, 0.9848], [0.649, 0.9971], [0.703, 1]],
}

export const { remapped, recalibrateStored, up, down } = recalibrationMigration(OLD_KNOTS, NEW_KNOTS)
