// Table types for Kysely. Tables holding a farm's data carry the owning user's Uid (column `uid`,
// the tenant key), so a Citus-style sharded PostgreSQL can distribute them by it. integrators and
// the token tables are global (reference tables in such a deployment). The record collections' tables
// are declared beside their collections (modules/records/) and composed in here.
import type { ColumnType, Generated } from 'kysely'
import type { RecordTables } from '../modules/records/index.ts'

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>

export interface UsersTable {
  uid: string
  email: string
  name: string
  phone: string | null
  language: string | null
  flagged: Generated<boolean>
  inactive: Generated<boolean>
  bd_user: Generated<boolean>
  admin: Generated<boolean>
  request_deletion: Generated<boolean>
  beta_user: boolean | null
  integration_flags: ColumnType<Record<string, boolean>, string | undefined, string>
  password_hash: string | null
  password_changed_at: Date | null
  created_at: Timestamp
  updated_at: Timestamp
}

/** An owner's new e-mail address until it is confirmed from that address (migration 0070). */
export interface EmailChangesTable {
  uid: string
  new_email: string
  code_hash: string
  expires_at: number
  created_at: number
}

export interface IntegratorsTable {
  uid: string
  email: string
  name: string
  tier: 'free' | 'starter' | 'pro' | 'enterprise'
  is_active: Generated<boolean>
  can_read: Generated<boolean>
  can_write: Generated<boolean>
  can_delete: Generated<boolean>
  client_secret_hash: string | null
  /** Tokens issued before it are refused: set when the client secret changes. */
  tokens_valid_from: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>
  created_at: Timestamp
  updated_at: Timestamp
}

export interface UserIntegratorLinksTable {
  uid: string
  integrator_uid: string
  linked_by: 'owner' | 'operator'
  created_at: Timestamp
}

/** A refresh-token family: one session, revoked as a whole (migration 0010). */
export interface TokenFamiliesTable {
  id: string
  subject_kind: 'integrator' | 'user'
  subject_id: string
  created_at: number
  revoked_at: number | null
}

export interface RefreshTokensTable {
  jti: string
  family_id: string
  subject_kind: 'integrator' | 'user'
  subject_id: string
  token_hash: string
  access_jti: string
  access_expires_at: number
  access_ttl_seconds: number
  expires_at: number
  used_at: number | null
  revoked_at: number | null
  created_at: number
}

export interface RevokedTokensTable {
  jti: string
  expires_at: number
  revoked_at: number
  reason: string
}

export interface UserPushTokensTable {
  uid: string
  token: string
  custom_name: string
  name: string
  email: string
  rank: number | null
  /** ms since epoch */
  t: number
}

/** A browser registered for Web Push (migration 0125). */
export interface WebPushSubscriptionsTable {
  uid: string
  id: string
  endpoint: string
  p256dh: string
  auth: string
  rank: number | null
  name: string | null
  /** ms since epoch */
  created_at: number
  last_delivered_at: number | null
}

export interface Diagnosis {
  Description: string
  Diagnose: string
  t: number
}

export interface AnimalsTable {
  uid: string
  /** Creation time in ms; the API's ID as a decimal string. */
  id: number
  mac: string
  sex: 'male' | 'female'
  active: Generated<boolean>
  battery: number | null
  current_activity: number | null
  current_temperature: number | null
  reference_temperature: number | null
  reference_temperature_updated_at: number | null
  reference_temperature_window_days: number | null
  eartag_start: number | null
  father: string | null
  mother: string | null
  group_name: string | null
  node: string | null
  node_weight: number | null
  signal_strength: number | null
  watchdog_weight: number | null
  t: number
  suspicious: Generated<boolean>
  health_score: number | null
  diagnosed: ColumnType<Diagnosis | null, string | null | undefined, string | null>
  last_sensor_t: number | null
  last_location_t: number | null
  created_at: Timestamp
  updated_at: Timestamp
}

export interface AnimalSensorReadingsTable {
  uid: string
  mac: string
  t: number
  c: number
  x: number
  y: number
  z: number
}

export interface AnimalLocationReadingsTable {
  uid: string
  mac: string
  t: number
  rssi: number
  nodeuid: string
}

export interface LitterguardsTable {
  uid: string
  mac: string
  name: string
  /** Registration time, ms since epoch. */
  t: number
  /** The newest reading's t, Unix seconds; null before the first reading. */
  last_seen: number | null
  current_temperature: number | null
  created_at: Timestamp
  updated_at: Timestamp
}

/** The columns of the ear-tag readings, but t in Unix seconds (not ms). */
export type LitterguardReadingsTable = AnimalSensorReadingsTable

/** One tag's closed hour of readings, packed (migration 0030, docs/storage.md#readings). */
interface PackedHour {
  uid: string
  mac: string
  /** Start of the hour, in the series' unit of t. */
  hour: number
  /** Readings in the row. */
  n: number
  /** Offsets from `hour`, ascending. */
  dt: number[]
}

export interface PackedSensorTable extends PackedHour {
  /** °C × 100 */
  c: number[]
  /** g × 1000 */
  x: number[]
  y: number[]
  z: number[]
}

export interface PackedLocationTable extends PackedHour {
  /** dBm × 10 */
  rssi: number[]
  /** The hour's distinct nodes, and each reading's (1-based) index into them. */
  nodes: string[]
  node: number[]
}

/** One tag's hour of sensor readings summed up (migration 0060, docs/storage.md#hourly-rollups); m = sqrt(x² + y² + z²). */
export interface SensorHourlyTable {
  uid: string
  mac: string
  /** Start of the hour, in the series' unit of t. */
  hour: number
  /** Readings in the hour. */
  n: number
  /** Sums are exact (numeric) over each value's decimal; min and max as stored. */
  c_sum: number
  c_sumsq: number
  c_min: number
  c_max: number
  m_sum: number
  m_sumsq: number
  m_min: number
  m_max: number
  /** Readings moving (|m - 1| above the moving threshold), and those with a valid temperature and their sum. */
  moving_n: number
  valid_n: number
  valid_c_sum: number
}

/** A litter device's hour: the sensor sums, and what its activity rules read (migration 0065). */
export interface LitterguardHourlyTable extends SensorHourlyTable {
  /** Sum of the readings' dynamic acceleration |m - 1| (exact). */
  a_sum: number
  /** The hour's 10-minute buckets with readings: their count, the sum and sum of squares of their mean |m - 1|. */
  act_n: number
  act_mean_sum: number
  act_mean_sumsq: number
  /** Each such bucket's number within the hour (0-5) and its mean, in time order. */
  act_bucket: number[]
  act_mean: number[]
}

/** One tag's hour of location detections summed up (migration 0060). */
export interface LocationHourlyTable {
  uid: string
  mac: string
  /** Start of the hour, ms since epoch. */
  hour: number
  /** Detections in the hour. */
  n: number
  /** The hour's distinct nodes, and the detections by each. */
  nodes: string[]
  node_n: number[]
  /** Detections from another node than the one before in the hour; the hour's first and last detection's node. */
  changes: number
  first_node: string
  last_node: string
}

export interface PredictionsTable {
  uid: string
  id: Generated<number>
  animal_id: number
  classification_type: 'heat' | 'birth' | 'lameness'
  /** When predicted, ms since epoch. */
  predicted_at: number
  results: ColumnType<PredictionResult[], string, string>
  peak_probability: number
  /** The scorer's: the global calibration's probability, before the farm's map (migration 0085); else null. */
  global_probability: Generated<number | null>
  source: 'scorer' | 'external'
  created_by: string | null
  /** The animal as its poster gave it (migration 0011); null where not given. */
  animal_name: Generated<string | null>
  animal_group: Generated<string | null>
  animal_weight: Generated<number | null>
  created_at: Generated<Date>
}

/** One element of a prediction's results, as the API shows it. */
export interface PredictionResult {
  timestamp: string
  probability: number
}

export interface IdempotencyKeysTable {
  id: Generated<number>
  uid: string | null
  caller: string
  key: string
  fingerprint: string
  owner: string
  status_code: number | null
  body: string | null
  location: string | null
  /** ms since epoch */
  created_at: number
  locked_until: number
}

export interface AccessLogTable {
  id: Generated<number>
  /** The account the request acted on; NULL outside an account. */
  uid: string | null
  integrator_uid: string
  at: Timestamp
  method: string
  endpoint: string
  response_code: number
  response_time_ms: number
  data_size: number | null
  user_agent: string | null
  ip_address: string | null
}

export interface EventCountersTable {
  uid: string
  last_id: number
}

export interface EventsTable {
  uid: string
  /** The account's creation sequence: the event's id and the feed's cursor. */
  id: number
  event_type: string
  severity: 'info' | 'warning' | 'critical'
  status: Generated<'open' | 'acknowledged' | 'resolved'>
  mac: string
  animal_id: number | null
  group_name: string | null
  scale: string
  value: number
  /** ms since epoch: when the cause happened. */
  t: number
  evidence: ColumnType<Record<string, unknown>, string, string>
  episode_key: string
  /** ms since epoch */
  created_at: number
  acknowledged_by: string | null
  acknowledged_at: number | null
  resolved_by: string | null
  resolved_at: number | null
  note: string | null
}

export interface AlertStatesTable {
  uid: string
  subject: string
  rule: string
  state: string
  since: number
}

export interface AlertRulesTable {
  uid: string
  rules: ColumnType<Record<string, unknown>, string, string>
  updated_by: string
  updated_at: number
}

/** Per-farm learning: the factors of each class's default threshold, and why (0050). */
export interface ScorerFarmSettingsTable {
  uid: string
  birth_factor: number
  heat_factor: number
  lameness_factor: number
  learned_at: number
  basis: ColumnType<Record<string, unknown>, string, string>
  /** Per-farm calibration (migration 0085): each class's map and its counts; null: the global calibration. */
  calibration: ColumnType<Record<string, unknown> | null, string | null | undefined, string | null>
}

export interface DB extends RecordTables {
  users: UsersTable
  integrators: IntegratorsTable
  user_integrator_links: UserIntegratorLinksTable
  token_families: TokenFamiliesTable
  refresh_tokens: RefreshTokensTable
  revoked_tokens: RevokedTokensTable
  user_push_tokens: UserPushTokensTable
  web_push_subscriptions: WebPushSubscriptionsTable
  email_changes: EmailChangesTable
  animals: AnimalsTable
  animal_sensor_readings: AnimalSensorReadingsTable
  animal_location_readings: AnimalLocationReadingsTable
  litterguards: LitterguardsTable
  litterguard_readings: LitterguardReadingsTable
  animal_sensor_packed: PackedSensorTable
  animal_location_packed: PackedLocationTable
  litterguard_packed: PackedSensorTable
  animal_sensor_hourly: SensorHourlyTable
  animal_location_hourly: LocationHourlyTable
  litterguard_hourly: LitterguardHourlyTable
  idempotency_keys: IdempotencyKeysTable
  access_log: AccessLogTable
  predictions: PredictionsTable
  event_counters: EventCountersTable
  events: EventsTable
  alert_states: AlertStatesTable
  alert_rules: AlertRulesTable
  scorer_farm_settings: ScorerFarmSettingsTable
}
