import type { Migration } from 'kysely/migration'
import * as accounts from './0001_accounts.ts'
import * as userPushTokens from './0002_user_push_tokens.ts'
import * as animalsAndReadings from './0003_animals_and_readings.ts'
import * as farmRecords from './0004_farm_records.ts'
import * as idempotencyKeys from './0005_idempotency_keys.ts'
import * as accessLog from './0006_access_log.ts'
import * as litterguards from './0007_litterguards.ts'
import * as accessChangeNotifications from './0009_access_change_notifications.ts'
import * as predictions from './0008_predictions.ts'
import * as tokenFamilies from './0010_token_families.ts'
import * as predictionAnimal from './0011_prediction_animal.ts'
import * as deliveries from './0055_deliveries.ts'
import * as events from './0020_events.ts'
import * as scorerFarmSettings from './0050_scorer_farm_settings.ts'
import * as packedReadings from './0030_packed_readings.ts'
import * as hourlyRollups from './0060_hourly_rollups.ts'
import * as litterguardActivity from './0065_litterguard_activity.ts'
import * as emailChanges from './0070_email_changes.ts'
import * as calibratedPredictions from './0075_calibrated_predictions.ts'
import * as farmCalibration from './0085_farm_calibration.ts'
import * as recalibratedGlobalProbabilities from './0090_recalibrated_global_probabilities.ts'
import * as recalibratedAcrossHarderFarms from './0095_recalibrated_across_harder_farms.ts'
import * as deliveryLogRetention from './0100_delivery_log_retention.ts'
import * as integratorTokensValidFrom from './0105_integrator_tokens_valid_from.ts'
import * as eventsRetention from './0110_events_retention.ts'
import * as allClearsSettled from './0115_all_clears_settled.ts'
import * as deliveryLogFilters from './0120_delivery_log_filters.ts'
import * as webPushSubscriptions from './0125_web_push_subscriptions.ts'
import * as pushTargetsDone from './0130_push_targets_done.ts'

// Listed explicitly (not read from the folder) so the same list works from src/ and from dist/.
// Names sort in the order they run.
export const migrations: Record<string, Migration> = {
  '0001_accounts': accounts,
  '0002_user_push_tokens': userPushTokens,
  '0003_animals_and_readings': animalsAndReadings,
  '0004_farm_records': farmRecords,
  '0005_idempotency_keys': idempotencyKeys,
  '0006_access_log': accessLog,
  '0007_litterguards': litterguards,
  '0008_predictions': predictions,
  '0009_access_change_notifications': accessChangeNotifications,
  '0010_token_families': tokenFamilies,
  '0011_prediction_animal': predictionAnimal,
  '0020_events': events,
  '0030_packed_readings': packedReadings,
  '0050_scorer_farm_settings': scorerFarmSettings,
  '0055_deliveries': deliveries,
  '0060_hourly_rollups': hourlyRollups,
  '0065_litterguard_activity': litterguardActivity,
  '0070_email_changes': emailChanges,
  '0075_calibrated_predictions': calibratedPredictions,
  '0085_farm_calibration': farmCalibration,
  '0090_recalibrated_global_probabilities': recalibratedGlobalProbabilities,
  '0095_recalibrated_across_harder_farms': recalibratedAcrossHarderFarms,
  '0100_delivery_log_retention': deliveryLogRetention,
  '0105_integrator_tokens_valid_from': integratorTokensValidFrom,
  '0110_events_retention': eventsRetention,
  '0115_all_clears_settled': allClearsSettled,
  '0120_delivery_log_filters': deliveryLogFilters,
  '0125_web_push_subscriptions': webPushSubscriptions,
  '0130_push_targets_done': pushTargetsDone,
}
