// The only reader of process.env. Every variable is parsed and checked here, and a bad start lists
// every bad variable at once rather than failing on the first.
import { invalidWebPushPrivateKey } from './web-push-key.ts'

export interface Limits {
  /** Length of the IP rate-limit window, seconds. */
  rateLimitWindowSeconds: number
  /** Requests per window per IP on POST /tokens and on POST /tokens/refresh (each its own bucket). 0 = unlimited. */
  rateLimitTokensMax: number
  /** Requests per window per IP on every other route. 0 = unlimited. */
  rateLimitIpMax: number
  /** Failed integrator authentications (POST /tokens) per window per client IP and integratorUID. 0 = unlimited. */
  authFailuresMax: number
  /** Failed logins per window for one account, from any address. 0 = unlimited. */
  loginFailuresMax: number
  /** E-mail change requests (each mails the address it names) per day for one account. 0 = unlimited. */
  emailChangesMax: number
  /** With Redis: the most points of a limit one process takes at once and counts locally (plugins/limit-leases.ts); 1 = every request asks Redis. */
  limitLeaseMax: number
  /** Daily per-endpoint quotas by integrator tier, and for user tokens. 0 = unlimited. */
  quotaFree: number
  quotaStarter: number
  quotaPro: number
  quotaEnterprise: number
  quotaUser: number
  /** Access-token lifetime bounds and default (expiresIn on POST /tokens), seconds. */
  tokenExpiresInMin: number
  tokenExpiresInMax: number
  tokenExpiresInDefault: number
  /** Refresh-token lifetime, seconds. */
  refreshTokenTtlSeconds: number
  /** Common list parameter `limit`. */
  pageLimitDefault: number
  pageLimitMax: number
  /** The most items a page may skip, (page - 1) × limit: deeper pages are a 400. */
  pageOffsetMax: number
  /** Expensive requests (analytics, long series, deep or sorted pages) one caller may have running at once in a process. 0 = unbounded. */
  expensiveRequestsPerCaller: number
  /** Raw animal locations and sensordata rows per read. */
  readingsLimitDefault: number
  readingsLimitMax: number
  /** `count` on .../sensordata/latest. */
  latestCountDefault: number
  latestCountMax: number
  /** Device sensordata `limit`. */
  deviceReadingsLimitDefault: number
  deviceReadingsLimitMax: number
  /** `limit` on .../recent. */
  recentLimitDefault: number
  recentLimitMax: number
  /** Rows accepted by one ingestion request. */
  ingestMaxRows: number
}

export interface Config {
  port: number
  host: string
  /** API processes `serve` starts (node:cluster); 0 = one per core. More than one needs DATABASE_URL. */
  workers: number
  /** Set by `serve --workers` in each worker it starts (1..N): worker 1 runs the schedules and the MQTT subscriber. */
  workerIndex: number | undefined
  /**
   * Started by npm (`npm start`, `npx livestock-api serve`: npm sets `npm_command`): the service stops, the graceful
   * way, once that npm is gone. `npx` runs it under a shell that dies on a signal without passing it on.
   */
  stopsWithNpm: boolean
  dataDir: string
  /** Embedded store: fsync each commit to disk before it is acknowledged (off: fast, survives a crash of the process only). */
  embeddedFsync: boolean
  databaseUrl: string | undefined
  redisUrl: string | undefined
  /** Prefix of every Redis key, so several deployments (or test runs) can share one Redis. */
  redisKeyPrefix: string
  /** A Redis command unanswered this long fails, and the limits switch to their in-process twins. */
  redisCommandTimeoutMs: number
  mqttUrl: string | undefined
  /** MQTT client id: the broker keeps this process's session (its queued messages) under it. Default livestock-api-<hostname>-<port>. */
  mqttClientId: string | undefined
  /** MQTT 5 shared-subscription group; the processes of one deployment split its messages. */
  mqttShareGroup: string
  /** How long the broker keeps a stopped process's session and queues its messages. */
  mqttSessionExpirySeconds: number
  /** The service's own broker account (deploy/mosquitto, docs/mqtt.md); unset: it connects anonymously and warns. */
  mqttUsername: string | undefined
  mqttPassword: string | undefined
  /** MQTT 5 Receive Maximum: messages the broker may have in flight to this process, handled side by side. */
  mqttReceiveMaximum: number
  /** MQTT 5 Maximum Packet Size: the broker drops larger messages instead of sending them. */
  mqttMaxPacketBytes: number
  /** Undefined until resolved: in embedded mode it is generated on first start and kept in DATA_DIR. */
  jwtSecret: string | undefined
  jwtIssuer: string
  jwtAudience: string
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent'
  /** Fastify's trustProxy: false, true, a hop count, or a list of addresses/CIDRs. */
  trustProxy: boolean | number | string[]
  bodyLimitBytes: number
  /** Origins allowed to call the API from a browser (CORS); ['*'] for any; empty: CORS off. */
  corsOrigins: string[]
  /** Responses of at least this many bytes are compressed (gzip or br) when the client accepts it; 0 = never. */
  compressionMinBytes: number
  requestTimeoutMs: number
  shutdownTimeoutMs: number
  dbPoolMax: number
  /** Longest wait for a PostgreSQL connection, new or from the full pool. */
  dbConnectTimeoutMs: number
  /** PostgreSQL statement_timeout: the server cancels a statement running longer. 0 = none. */
  dbStatementTimeoutMs: number
  /** Longest wait for PostgreSQL to answer a query (a hung server); the connection is then dropped. 0 = none. */
  dbQueryTimeoutMs: number
  /** scrypt cost as log2(N); 17 (N = 131072, 128 MiB, r = 8, p = 1) is the OWASP recommendation. */
  passwordScryptLogN: number
  /** OpenID Connect issuer whose ID tokens POST /tokens/verify-id-token accepts (all three or none). */
  /**
   * `emailVerified`: `required` takes only a token whose `email_verified` is true; `optional` (the operator's opt-in,
   * for a provider that never sends the claim) also one without it. `false` is refused either way.
   */
  oidc: { issuer: string; jwksUrl: string; audience: string; emailVerified: 'required' | 'optional' } | undefined
  /** The bearer token GET /metrics requires; unset, /metrics answers 404 unless `metricsPublic`. */
  metricsToken: string | undefined
  /** The operator's opt-in to a /metrics anyone may read (a scrape on a private network), METRICS_PUBLIC=on. */
  metricsPublic: boolean
  /** How long a cached caller, revocation check or link may be served (0 = no cache); changes invalidate at once. */
  authCacheTtlMs: number
  /** The access log of integrator requests (docs/authentication-and-limits.md, Access log). */
  accessLog: AccessLogConfig
  /** A litter-monitoring device is Active while its newest reading is at most this many minutes old. */
  litterguardActiveWindowMinutes: number
  /** EVENT_DERIVATION=off derives no events (the benchmark's baseline); what is stored stays readable. */
  eventDerivation: boolean
  /** An open event stream sends a comment line this often (keeping proxies from closing it) and checks its access again. */
  eventStreamHeartbeatSeconds: number
  /** Delivery of events: webhooks and push (docs/delivery.md). */
  delivery: DeliveryConfig
  /** The readings' storage jobs (docs/storage.md#readings). */
  readings: ReadingsConfig
  /** Outgoing e-mail and what needs it: confirming an owner's new address (docs/users.md#changing-the-e-mail-address). */
  mail: MailConfig
  /** How long derived and raw data are kept (docs/operations.md#retention); 0 days: for ever. */
  retention: RetentionConfig
  limits: Limits
}

export interface MailConfig {
  /** SMTP_URL (smtp:// or smtps://, credentials in the URL); unset: the service sends no e-mail. */
  smtpUrl: string | undefined
  /** The From of every message. */
  from: string
  /**
   * EMAIL_CHANGE=confirm: an owner's new e-mail address takes effect once confirmed from it (the answer never says
   * whether the address is taken). immediate: the spec's bare flow, changed at once, 409 when taken (the operator's opt-in).
   */
  emailChange: 'confirm' | 'immediate'
}

export interface ReadingsConfig {
  /** How often closed hours are packed; 0: never (the bench's row-per-reading baseline). */
  packingIntervalSeconds: number
}

export interface RetentionConfig {
  /** Days of raw readings (both parts of the three series) kept; 0: every reading. */
  readingsDays: number
  /** Days of hourly rollups kept; 0: every hour. */
  rollupsDays: number
  /** Days of the scorer's predictions kept; alarms stay whatever their age. 0: every prediction. */
  predictionsDays: number
  /** Days a resolved event (all-clears are, from creation) is kept after its resolution; open ones stay. 0: every event. */
  eventsDays: number
  /** The most rows one delete statement of the maintenance job removes. */
  batchRows: number
}

/** The fewest days of raw readings and rollups kept: the longest history a computation reads (docs/operations.md#retention). */
export const RETENTION_READINGS_DAYS_MIN = 40
/** The fewest days of predictions kept: per-farm learning reads the scorer's last 60 days (farm-learning.rules.ts LEARNING.periodDays). */
export const RETENTION_PREDICTIONS_DAYS_MIN = 60
/**
 * The fewest days of settled events kept: longer than a due event can be derived again after its cause
 * (events.rules.ts DUE_EVENT_HORIZON_DAYS), since its stored episode key is what keeps it from being raised twice.
 */
export const RETENTION_EVENTS_DAYS_MIN = 180

export interface DeliveryConfig {
  /** DELIVERY_WORKER=off: this process sends nothing (another does). */
  worker: boolean
  pollMs: number
  timeoutMs: number
  perEndpointConcurrency: number
  /** WEBHOOK_ALLOW_INSECURE=on: webhooks may use http:// and reach private, loopback and link-local addresses. */
  allowInsecure: boolean
  /** Finished deliveries and logged attempts older than this many days are pruned hourly; pending ones stay. */
  logRetentionDays: number
  fcmServiceAccountFile: string | undefined
  fcmEndpoint: string | undefined
  /**
   * WEB_PUSH_PRIVATE_KEY: the VAPID key that signs Web Push to the farm app (docs/delivery.md); the embedded store
   * generates one into DATA_DIR when unset (src/secrets.ts). Unset with DATABASE_URL: no Web Push.
   */
  webPushPrivateKey: string | undefined
  /** WEB_PUSH_CONTACT: the `mailto:` or `https:` a push service may reach the operator at (VAPID's `sub`). */
  webPushContact: string
}

export interface AccessLogConfig {
  /** ACCESS_LOG=off records nothing (the benchmark's baseline); what is stored stays readable. */
  enabled: boolean
  /** Rows older than this many days are pruned hourly. */
  retentionDays: number
  /** How long a recorded request may wait in the process before it is written. */
  flushIntervalMs: number
}

export class ConfigError extends Error {
  readonly problems: string[]
  constructor(problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`)
    this.name = 'ConfigError'
    this.problems = problems
  }
}

type Env = Record<string, string | undefined>

const DEFAULT_MAIL_FROM = 'Livestock API <no-reply@livestock-api.invalid>'

/** The address in a From header (`Name <a@b>` or `a@b`). */
const mailAddressOf = (from: string | undefined) => /<([^>]+)>/.exec(from ?? DEFAULT_MAIL_FROM)?.[1] ?? from ?? ''

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const
/** The shortest METRICS_TOKEN taken: it guards the metrics of every account, and is compared on every scrape. */
const METRICS_TOKEN_MIN_LENGTH = 16

/** Reads and validates the configuration. Throws ConfigError listing every bad variable. */
/** The most items one response lists: the OpenAPI document's bound on every page (http/envelope.ts). */
const PAGE_SIZE_CEILING = 10_000

export function loadConfig(env: Env = process.env): Config {
  const problems: string[] = []
  const read = new EnvReader(env, problems)

  const limits: Limits = {
    rateLimitWindowSeconds: read.int('RATE_LIMIT_WINDOW_SECONDS', 900, { min: 1 }),
    rateLimitTokensMax: read.int('RATE_LIMIT_TOKENS_MAX', 20, { min: 0 }),
    rateLimitIpMax: read.int('RATE_LIMIT_IP_MAX', 100, { min: 0 }),
    authFailuresMax: read.int('AUTH_FAILURES_MAX', 10, { min: 0 }),
    loginFailuresMax: read.int('LOGIN_FAILURES_MAX', 20, { min: 0 }),
    emailChangesMax: read.int('EMAIL_CHANGES_MAX', 10, { min: 0 }),
    limitLeaseMax: read.int('RATE_LIMIT_LEASE_MAX', 100, { min: 1, max: 10_000 }),
    quotaFree: read.int('QUOTA_FREE', 10, { min: 0 }),
    quotaStarter: read.int('QUOTA_STARTER', 1000, { min: 0 }),
    quotaPro: read.int('QUOTA_PRO', 10000, { min: 0 }),
    quotaEnterprise: read.int('QUOTA_ENTERPRISE', 0, { min: 0 }),
    quotaUser: read.int('QUOTA_USER', 1000, { min: 0 }),
    tokenExpiresInMin: read.int('TOKEN_EXPIRES_IN_MIN', 300, { min: 1 }),
    tokenExpiresInMax: read.int('TOKEN_EXPIRES_IN_MAX', 86400, { min: 1 }),
    tokenExpiresInDefault: read.int('ACCESS_TOKEN_TTL_SECONDS', 3600, { min: 1 }),
    refreshTokenTtlSeconds: read.int('REFRESH_TOKEN_TTL_SECONDS', 604800, { min: 60 }),
    pageLimitDefault: read.int('PAGE_LIMIT_DEFAULT', 10, { min: 1 }),
    pageLimitMax: read.int('PAGE_LIMIT_MAX', 100, { min: 1, max: PAGE_SIZE_CEILING }),
    pageOffsetMax: read.int('PAGE_OFFSET_MAX', 10000, { min: 0, max: 1_000_000_000 }),
    expensiveRequestsPerCaller: read.int('EXPENSIVE_REQUESTS_PER_CALLER', 2, { min: 0 }),
    readingsLimitDefault: read.int('READINGS_LIMIT_DEFAULT', 100, { min: 1 }),
    readingsLimitMax: read.int('READINGS_LIMIT_MAX', 10000, { min: 1, max: PAGE_SIZE_CEILING }),
    latestCountDefault: read.int('LATEST_COUNT_DEFAULT', 10, { min: 1 }),
    latestCountMax: read.int('LATEST_COUNT_MAX', 100, { min: 1, max: PAGE_SIZE_CEILING }),
    deviceReadingsLimitDefault: read.int('DEVICE_READINGS_LIMIT_DEFAULT', 100, { min: 1 }),
    deviceReadingsLimitMax: read.int('DEVICE_READINGS_LIMIT_MAX', 100, { min: 1, max: PAGE_SIZE_CEILING }),
    recentLimitDefault: read.int('RECENT_LIMIT_DEFAULT', 10, { min: 1 }),
    recentLimitMax: read.int('RECENT_LIMIT_MAX', 100, { min: 1, max: PAGE_SIZE_CEILING }),
    ingestMaxRows: read.int('INGEST_MAX_ROWS', 10000, { min: 1 }),
  }
  checkDefaultWithin(
    problems,
    'ACCESS_TOKEN_TTL_SECONDS',
    limits.tokenExpiresInDefault,
    limits.tokenExpiresInMin,
    limits.tokenExpiresInMax,
  )
  checkDefaultWithin(problems, 'PAGE_LIMIT_DEFAULT', limits.pageLimitDefault, 1, limits.pageLimitMax)
  checkDefaultWithin(problems, 'READINGS_LIMIT_DEFAULT', limits.readingsLimitDefault, 1, limits.readingsLimitMax)
  checkDefaultWithin(problems, 'LATEST_COUNT_DEFAULT', limits.latestCountDefault, 1, limits.latestCountMax)
  checkDefaultWithin(
    problems,
    'DEVICE_READINGS_LIMIT_DEFAULT',
    limits.deviceReadingsLimitDefault,
    1,
    limits.deviceReadingsLimitMax,
  )
  checkDefaultWithin(problems, 'RECENT_LIMIT_DEFAULT', limits.recentLimitDefault, 1, limits.recentLimitMax)

  const databaseUrl = read.url('DATABASE_URL', ['postgres:', 'postgresql:'])
  const jwtSecret = read.string('JWT_SECRET')
  if (jwtSecret !== undefined && Buffer.byteLength(jwtSecret) < 32) {
    problems.push('JWT_SECRET must be at least 32 bytes (256 bits) of random data, e.g. `openssl rand -base64 48`')
  }
  if (databaseUrl !== undefined && jwtSecret === undefined) {
    problems.push('JWT_SECRET is required when DATABASE_URL is set (several processes must share one signing key)')
  }

  const webPushPrivateKey = read.string('WEB_PUSH_PRIVATE_KEY')
  const webPushKeyProblem = webPushPrivateKey === undefined ? undefined : invalidWebPushPrivateKey(webPushPrivateKey)
  if (webPushKeyProblem) problems.push(`WEB_PUSH_PRIVATE_KEY ${webPushKeyProblem}`)
  const webPushContact = read.string('WEB_PUSH_CONTACT') ?? `mailto:${mailAddressOf(read.string('MAIL_FROM'))}`
  if (!/^(mailto:\S+@\S+|https:\/\/\S+)$/.test(webPushContact)) {
    problems.push(
      'WEB_PUSH_CONTACT must be a mailto: address or an https: URL where a push service can reach the operator',
    )
  }

  const workers = read.int('WORKERS', 1, { min: 0, max: 64 })
  if (workers !== 1 && databaseUrl === undefined) {
    problems.push('WORKERS other than 1 needs DATABASE_URL: the embedded store admits one process per DATA_DIR')
  }

  const bodyLimitBytes = read.int('BODY_LIMIT_BYTES', 4 * 1024 * 1024, { min: 1024 })
  const config: Config = {
    port: read.int('PORT', 3000, { min: 0, max: 65535 }),
    host: read.string('HOST') ?? '0.0.0.0',
    workers,
    workerIndex:
      read.string('LIVESTOCK_WORKER_INDEX') === undefined
        ? undefined
        : read.int('LIVESTOCK_WORKER_INDEX', 1, { min: 1, max: 64 }),
    stopsWithNpm: read.string('npm_command') !== undefined,
    dataDir: read.string('DATA_DIR') ?? './data',
    embeddedFsync: read.onOff('EMBEDDED_FSYNC', 'on'),
    databaseUrl,
    redisUrl: read.url('REDIS_URL', ['redis:', 'rediss:']),
    redisKeyPrefix: read.string('REDIS_KEY_PREFIX') ?? 'livestock:',
    redisCommandTimeoutMs: read.int('REDIS_COMMAND_TIMEOUT_MS', 500, { min: 1, max: 60_000 }),
    mqttUrl: read.url('MQTT_URL', ['mqtt:', 'mqtts:', 'ws:', 'wss:', 'tcp:']),
    mqttClientId: read.matching(
      'MQTT_CLIENT_ID',
      /^[A-Za-z0-9._:-]{1,128}$/,
      '1-128 letters, digits, dots, colons, underscores or hyphens',
    ),
    mqttShareGroup:
      read.matching(
        'MQTT_SHARE_GROUP',
        /^[A-Za-z0-9._-]{1,64}$/,
        '1-64 letters, digits, dots, underscores or hyphens',
      ) ?? 'livestock-api',
    mqttSessionExpirySeconds: read.int('MQTT_SESSION_EXPIRY_SECONDS', 86_400, { min: 0, max: 4_294_967_295 }),
    mqttUsername: read.string('MQTT_USERNAME'),
    mqttPassword: read.string('MQTT_PASSWORD'),
    mqttReceiveMaximum: read.int('MQTT_RECEIVE_MAXIMUM', 32, { min: 1, max: 65_535 }),
    // Room for the largest accepted body plus the topic and properties (docs/mqtt.md).
    mqttMaxPacketBytes: read.int('MQTT_MAX_PACKET_BYTES', bodyLimitBytes + 64 * 1024, { min: 1024, max: 268_435_455 }),
    jwtSecret,
    jwtIssuer: read.string('JWT_ISSUER') ?? 'livestock-api',
    jwtAudience: read.string('JWT_AUDIENCE') ?? 'livestock-api',
    logLevel: read.oneOf('LOG_LEVEL', LOG_LEVELS, 'info'),
    trustProxy: read.trustProxy('TRUST_PROXY'),
    bodyLimitBytes,
    corsOrigins: read.origins('CORS_ORIGINS'),
    compressionMinBytes: read.int('COMPRESSION_MIN_BYTES', 4096, { min: 0 }),
    requestTimeoutMs: read.int('REQUEST_TIMEOUT_MS', 30000, { min: 1 }),
    shutdownTimeoutMs: read.int('SHUTDOWN_TIMEOUT_MS', 10000, { min: 0 }),
    dbPoolMax: read.int('DB_POOL_MAX', 10, { min: 1, max: 1000 }),
    dbConnectTimeoutMs: read.int('DB_CONNECT_TIMEOUT_MS', 5000, { min: 1 }),
    dbStatementTimeoutMs: read.int('DB_STATEMENT_TIMEOUT_MS', 5000, { min: 0 }),
    dbQueryTimeoutMs: read.int('DB_QUERY_TIMEOUT_MS', 6000, { min: 0 }),
    metricsToken: read.string('METRICS_TOKEN'),
    metricsPublic: read.onOff('METRICS_PUBLIC', 'off'),
    passwordScryptLogN: read.int('PASSWORD_SCRYPT_LOG_N', 17, { min: 14, max: 20 }),
    oidc: readOidc(read, problems),
    authCacheTtlMs: read.int('AUTH_CACHE_TTL_MS', 30_000, { min: 0, max: 3_600_000 }),
    accessLog: {
      enabled: read.onOff('ACCESS_LOG', 'on'),
      retentionDays: read.int('ACCESS_LOG_RETENTION_DAYS', 90, { min: 1, max: 36500 }),
      flushIntervalMs: read.int('ACCESS_LOG_FLUSH_INTERVAL_MS', 1000, { min: 10, max: 60000 }),
    },
    litterguardActiveWindowMinutes: read.int('LITTERGUARD_ACTIVE_WINDOW_MINUTES', 15, { min: 1, max: 10080 }),
    eventDerivation: read.onOff('EVENT_DERIVATION', 'on'),
    eventStreamHeartbeatSeconds: read.int('EVENT_STREAM_HEARTBEAT_SECONDS', 15, { min: 1, max: 300 }),
    delivery: {
      worker: read.onOff('DELIVERY_WORKER', 'on'),
      pollMs: read.int('DELIVERY_POLL_MS', 1000, { min: 10, max: 60_000 }),
      timeoutMs: read.int('WEBHOOK_TIMEOUT_MS', 10_000, { min: 100, max: 60_000 }),
      perEndpointConcurrency: read.int('WEBHOOK_CONCURRENCY', 4, { min: 1, max: 64 }),
      allowInsecure: read.onOff('WEBHOOK_ALLOW_INSECURE', 'off'),
      logRetentionDays: read.int('DELIVERY_LOG_RETENTION_DAYS', 30, { min: 1, max: 36500 }),
      fcmServiceAccountFile: read.string('FCM_SERVICE_ACCOUNT_FILE'),
      fcmEndpoint: read.url('FCM_ENDPOINT', ['https:', 'http:']),
      webPushPrivateKey,
      webPushContact,
    },
    readings: {
      packingIntervalSeconds: read.int('PACKING_INTERVAL_SECONDS', 600, { min: 0, max: 86400 }),
    },
    mail: {
      smtpUrl: read.url('SMTP_URL', ['smtp:', 'smtps:']),
      from: read.string('MAIL_FROM') ?? DEFAULT_MAIL_FROM,
      emailChange: read.oneOf('EMAIL_CHANGE', ['confirm', 'immediate'] as const, 'confirm'),
    },
    retention: readRetention(read, problems),
    limits,
  }
  if ((config.mqttUsername === undefined) !== (config.mqttPassword === undefined)) {
    problems.push(
      'MQTT_USERNAME and MQTT_PASSWORD go together: set both (`livestock-api broker service` prints them) or neither',
    )
  }
  if (limits.tokenExpiresInMin > limits.tokenExpiresInMax) {
    problems.push(
      `TOKEN_EXPIRES_IN_MIN (${limits.tokenExpiresInMin}) must not exceed TOKEN_EXPIRES_IN_MAX (${limits.tokenExpiresInMax})`,
    )
  }
  if (
    config.dbQueryTimeoutMs > 0 &&
    config.dbStatementTimeoutMs > 0 &&
    config.dbQueryTimeoutMs <= config.dbStatementTimeoutMs
  ) {
    problems.push(
      `DB_QUERY_TIMEOUT_MS (${config.dbQueryTimeoutMs}) must exceed DB_STATEMENT_TIMEOUT_MS (${config.dbStatementTimeoutMs}): ` +
        'otherwise a slow statement drops its connection before PostgreSQL cancels it (docs/operations.md)',
    )
  }
  if (config.metricsToken !== undefined && config.metricsToken.length < METRICS_TOKEN_MIN_LENGTH) {
    problems.push(
      `METRICS_TOKEN must be at least ${METRICS_TOKEN_MIN_LENGTH} characters of random data, e.g. \`openssl rand -base64 24\``,
    )
  }
  if (config.metricsToken !== undefined && config.metricsPublic) {
    problems.push('METRICS_TOKEN and METRICS_PUBLIC=on contradict each other: set one (docs/operations.md)')
  }

  if (problems.length > 0) throw new ConfigError(problems)
  return config
}

function readOidc(read: EnvReader, problems: string[]): Config['oidc'] {
  const issuer = read.string('OIDC_ISSUER')
  const jwksUrl = read.url('OIDC_JWKS_URL', ['https:', 'http:'])
  const audience = read.string('OIDC_AUDIENCE')
  // Read (and checked) whether or not the provider is set, so that a bad value is never silently ignored.
  const emailVerified = read.oneOf('OIDC_EMAIL_VERIFIED', ['required', 'optional'] as const, 'required')
  const given = [issuer, jwksUrl, audience].filter((v) => v !== undefined).length
  if (given === 0) return undefined
  if (given < 3 || !issuer || !jwksUrl || !audience) {
    problems.push('OIDC_ISSUER, OIDC_JWKS_URL and OIDC_AUDIENCE go together: set all three or none')
    return undefined
  }
  return {
    issuer,
    jwksUrl,
    audience,
    emailVerified,
  }
}

function readRetention(read: EnvReader, problems: string[]): RetentionConfig {
  const days = (name: string, fallback: number, min: number, what: string) => {
    const value = read.int(name, fallback, { min: 0, max: 36500 })
    if (value > 0 && value < min) {
      problems.push(`${name} must be 0 (keep ${what}) or at least ${min} days, got ${value}`)
      return fallback
    }
    return value
  }
  const readingsDays = days('READINGS_RETENTION_DAYS', 0, RETENTION_READINGS_DAYS_MIN, 'every reading')
  const rollupsDays = days('ROLLUPS_RETENTION_DAYS', 0, RETENTION_READINGS_DAYS_MIN, 'every hour')
  // Analytics of a period whose readings are still there read its rollups: they must not go first.
  if (rollupsDays > 0 && (readingsDays === 0 || rollupsDays < readingsDays))
    problems.push(
      `ROLLUPS_RETENTION_DAYS (${rollupsDays}) must be 0 or at least READINGS_RETENTION_DAYS (${readingsDays === 0 ? '0: every reading' : readingsDays}): ` +
        'rollups are what the analytics read of the stored readings',
    )
  return {
    readingsDays,
    rollupsDays,
    predictionsDays: days('PREDICTIONS_RETENTION_DAYS', 90, RETENTION_PREDICTIONS_DAYS_MIN, 'every prediction'),
    eventsDays: days('EVENTS_RETENTION_DAYS', 365, RETENTION_EVENTS_DAYS_MIN, 'every event'),
    batchRows: read.int('RETENTION_BATCH_ROWS', 1000, { min: 1, max: 100_000 }),
  }
}

function checkDefaultWithin(problems: string[], name: string, value: number, min: number, max: number) {
  if (value < min || value > max) problems.push(`${name} (${value}) must lie between ${min} and ${max}`)
}

class EnvReader {
  private readonly env: Env
  private readonly problems: string[]

  constructor(env: Env, problems: string[]) {
    this.env = env
    this.problems = problems
  }

  /** A set, non-blank value, trimmed; undefined when unset or blank. */
  string(name: string): string | undefined {
    const value = this.env[name]?.trim()
    return value === undefined || value === '' ? undefined : value
  }

  int(name: string, fallback: number, bounds: { min?: number; max?: number } = {}): number {
    const raw = this.string(name)
    if (raw === undefined) return fallback
    if (!/^-?\d+$/.test(raw)) {
      this.problems.push(`${name} must be a whole number, got "${raw}"`)
      return fallback
    }
    const value = Number(raw)
    const { min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER } = bounds
    if (value < min || value > max) {
      this.problems.push(`${name} must be between ${min} and ${max}, got ${raw}`)
      return fallback
    }
    return value
  }

  /** A set value that matches `pattern` (described by `what`), or undefined when unset. */
  matching(name: string, pattern: RegExp, what: string): string | undefined {
    const raw = this.string(name)
    if (raw === undefined || pattern.test(raw)) return raw
    this.problems.push(`${name} must be ${what}, got "${raw}"`)
    return undefined
  }

  oneOf<T extends string>(name: string, allowed: readonly T[], fallback: T): T {
    const raw = this.string(name)
    if (raw === undefined) return fallback
    if (!(allowed as readonly string[]).includes(raw)) {
      this.problems.push(`${name} must be one of ${allowed.join(', ')}, got "${raw}"`)
      return fallback
    }
    return raw as T
  }

  /** A switch written `on` or `off`: true when on. */
  onOff(name: string, fallback: 'on' | 'off'): boolean {
    return this.oneOf(name, ['on', 'off'] as const, fallback) === 'on'
  }

  url(name: string, protocols: string[]): string | undefined {
    const raw = this.string(name)
    if (raw === undefined) return undefined
    let parsed: URL
    try {
      parsed = new URL(raw)
    } catch {
      this.problems.push(`${name} is not a valid URL`)
      return undefined
    }
    if (!protocols.includes(parsed.protocol)) {
      this.problems.push(
        `${name} must use one of ${protocols.map((p) => `${p}//`).join(', ')}, got ${parsed.protocol}//`,
      )
      return undefined
    }
    return raw
  }

  /** `*`, or a comma-separated list of origins (scheme://host[:port], no path). */
  origins(name: string): string[] {
    const raw = this.string(name)
    if (raw === undefined) return []
    if (raw === '*') return ['*']
    const entries = raw
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)
    const bad = entries.filter((e) => !/^https?:\/\/[A-Za-z0-9.-]+(:\d{1,5})?$/.test(e))
    if (bad.length > 0)
      this.problems.push(
        `${name} must be * or a comma-separated list of origins such as https://app.example.com, got "${bad.join(', ')}"`,
      )
    return entries.filter((e) => !bad.includes(e))
  }

  /** `true`, `false`, a hop count, or a comma-separated list of addresses/CIDRs. */
  trustProxy(name: string): boolean | number | string[] {
    const raw = this.string(name)
    if (raw === undefined || raw === 'false') return false
    if (raw === 'true') return true
    if (/^\d+$/.test(raw)) return Number(raw)
    const entries = raw
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)
    if (
      entries.length === 0 ||
      entries.some(
        (e) => !/^[0-9a-fA-F:.]+(\/\d{1,3})?$/.test(e) && !['loopback', 'linklocal', 'uniquelocal'].includes(e),
      )
    ) {
      this.problems.push(`${name} must be true, false, a hop count, or a comma-separated list of IP addresses/CIDRs`)
      return false
    }
    return entries
  }
}

/** Redacts the password of a connection URL for logs and CLI output. */
export function redactUrl(url: string | undefined): string | undefined {
  if (url === undefined) return undefined
  try {
    const parsed = new URL(url)
    if (parsed.password) parsed.password = '***'
    return parsed.toString()
  } catch {
    return '(unparseable URL)'
  }
}

/** The process's environment, whole: for what hands it on (a worker's environment, the start-up check of the flags). */
export function processEnvironment(): NodeJS.ProcessEnv {
  return process.env
}
