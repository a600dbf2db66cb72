import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { ConfigError, loadConfig, redactUrl } from '../../src/config.ts'

const SECRET = 'x'.repeat(32)

describe('loadConfig', () => {
  it('uses the spec values as defaults', () => {
    const config = loadConfig({})
    assert.equal(config.port, 3000)
    assert.equal(config.dataDir, './data')
    assert.equal(config.databaseUrl, undefined)
    assert.equal(config.trustProxy, false)
    assert.deepEqual(
      [config.limits.rateLimitWindowSeconds, config.limits.rateLimitTokensMax, config.limits.rateLimitIpMax],
      [900, 20, 100],
    )
    assert.deepEqual(
      [
        config.limits.quotaFree,
        config.limits.quotaStarter,
        config.limits.quotaPro,
        config.limits.quotaEnterprise,
        config.limits.quotaUser,
      ],
      [10, 1000, 10000, 0, 1000],
    )
    assert.deepEqual(
      [config.limits.tokenExpiresInMin, config.limits.tokenExpiresInMax, config.limits.tokenExpiresInDefault],
      [300, 86400, 3600],
    )
    assert.equal(config.limits.refreshTokenTtlSeconds, 604800)
    assert.deepEqual([config.limits.pageLimitDefault, config.limits.pageLimitMax], [10, 100])
    assert.deepEqual([config.limits.readingsLimitDefault, config.limits.readingsLimitMax], [100, 10000])
    assert.deepEqual([config.limits.latestCountDefault, config.limits.latestCountMax], [10, 100])
    assert.deepEqual([config.limits.deviceReadingsLimitDefault, config.limits.deviceReadingsLimitMax], [100, 100])
    assert.deepEqual([config.limits.recentLimitDefault, config.limits.recentLimitMax], [10, 100])
  })

  it('lists every bad variable at once', () => {
    assert.throws(
      () => loadConfig({ PORT: 'eighty', LOG_LEVEL: 'loud', QUOTA_FREE: '-1', REDIS_URL: 'http://x' }),
      (err: unknown) => {
        assert.ok(err instanceof ConfigError)
        assert.equal(err.problems.length, 4)
        assert.match(err.message, /PORT must be a whole number, got "eighty"/)
        assert.match(err.message, /LOG_LEVEL must be one of/)
        assert.match(err.message, /QUOTA_FREE must be between 0/)
        assert.match(err.message, /REDIS_URL must use one of redis:\/\//)
        return true
      },
    )
  })

  it('refuses DATABASE_URL without JWT_SECRET', () => {
    assert.throws(
      () => loadConfig({ DATABASE_URL: 'postgres://localhost/x' }),
      /JWT_SECRET is required when DATABASE_URL is set/,
    )
    assert.equal(loadConfig({ DATABASE_URL: 'postgres://localhost/x', JWT_SECRET: SECRET }).jwtSecret, SECRET)
  })

  it('refuses a Web Push key that is no P-256 private key, and a contact a push service cannot use', () => {
    assert.throws(
      () => loadConfig({ WEB_PUSH_PRIVATE_KEY: 'c2hvcnQ' }),
      /WEB_PUSH_PRIVATE_KEY must be a P-256 private key/,
    )
    assert.throws(() => loadConfig({ WEB_PUSH_CONTACT: 'ops@farm.example' }), /WEB_PUSH_CONTACT must be a mailto:/)
    const key = 'amX3fMyS-W2gmyC1KsovdE4duf7VPFYLOgAaruHTvgg'
    assert.equal(loadConfig({ WEB_PUSH_PRIVATE_KEY: key }).delivery.webPushPrivateKey, key)
    assert.equal(loadConfig({}).delivery.webPushContact, 'mailto:no-reply@livestock-api.invalid')
    assert.equal(
      loadConfig({ MAIL_FROM: 'Hillside <alerts@hillside.example>' }).delivery.webPushContact,
      'mailto:alerts@hillside.example',
    )
  })

  it('caps every page size at the 10,000 items the OpenAPI document promises', () => {
    assert.throws(
      () => loadConfig({ PAGE_LIMIT_MAX: '20000' }),
      /PAGE_LIMIT_MAX must be between 1 and 10000, got 20000/,
    )
    assert.throws(() => loadConfig({ READINGS_LIMIT_MAX: '10001' }), /READINGS_LIMIT_MAX must be between 1 and 10000/)
    assert.equal(loadConfig({ PAGE_LIMIT_MAX: '10000' }).limits.pageLimitMax, 10_000)
  })

  it('refuses a JWT_SECRET shorter than 256 bits', () => {
    assert.throws(() => loadConfig({ JWT_SECRET: 'short' }), /at least 32 bytes/)
  })

  it('refuses a default outside its own bounds', () => {
    assert.throws(
      () => loadConfig({ ACCESS_TOKEN_TTL_SECONDS: '100' }),
      /ACCESS_TOKEN_TTL_SECONDS \(100\) must lie between 300 and 86400/,
    )
  })

  it('parses TRUST_PROXY as boolean, hop count or address list', () => {
    assert.equal(loadConfig({ TRUST_PROXY: 'true' }).trustProxy, true)
    assert.equal(loadConfig({ TRUST_PROXY: '2' }).trustProxy, 2)
    assert.deepEqual(loadConfig({ TRUST_PROXY: '10.0.0.0/8, 127.0.0.1' }).trustProxy, ['10.0.0.0/8', '127.0.0.1'])
    assert.throws(() => loadConfig({ TRUST_PROXY: 'everyone' }), /TRUST_PROXY must be/)
  })

  it('parses CORS_ORIGINS as * or a list of origins, off when unset', () => {
    assert.deepEqual(loadConfig({}).corsOrigins, [])
    assert.deepEqual(loadConfig({ CORS_ORIGINS: '*' }).corsOrigins, ['*'])
    assert.deepEqual(loadConfig({ CORS_ORIGINS: 'https://app.farmsoft.example, http://localhost:5173' }).corsOrigins, [
      'https://app.farmsoft.example',
      'http://localhost:5173',
    ])
    assert.throws(() => loadConfig({ CORS_ORIGINS: 'https://app.example/path' }), /CORS_ORIGINS must be/)
    assert.throws(() => loadConfig({ CORS_ORIGINS: 'app.example' }), /CORS_ORIGINS must be/)
  })

  it('bounds every wait on PostgreSQL and Redis by default', () => {
    const config = loadConfig({})
    assert.deepEqual(
      [config.dbConnectTimeoutMs, config.dbStatementTimeoutMs, config.dbQueryTimeoutMs, config.redisCommandTimeoutMs],
      [5000, 5000, 6000, 500],
    )
    assert.equal(loadConfig({ DB_QUERY_TIMEOUT_MS: '0' }).dbQueryTimeoutMs, 0)
    // The client's bound below the server's: a slow statement would drop its connection instead of being cancelled.
    assert.throws(
      () => loadConfig({ DB_QUERY_TIMEOUT_MS: '2000' }),
      /DB_QUERY_TIMEOUT_MS \(2000\) must exceed DB_STATEMENT_TIMEOUT_MS \(5000\)/,
    )
    assert.equal(loadConfig({ DB_QUERY_TIMEOUT_MS: '2000', DB_STATEMENT_TIMEOUT_MS: '0' }).dbQueryTimeoutMs, 2000)
    assert.throws(() => loadConfig({ REDIS_COMMAND_TIMEOUT_MS: '0' }), /REDIS_COMMAND_TIMEOUT_MS must be between 1/)
  })

  it('reads the MQTT session settings, and refuses a client id or share group a broker would misread', () => {
    const config = loadConfig({})
    assert.deepEqual(
      [config.mqttClientId, config.mqttShareGroup, config.mqttSessionExpirySeconds],
      [undefined, 'livestock-api', 86400],
    )
    assert.equal(loadConfig({ MQTT_CLIENT_ID: 'api-1.barn:3000' }).mqttClientId, 'api-1.barn:3000')
    assert.throws(() => loadConfig({ MQTT_CLIENT_ID: 'api 1' }), /MQTT_CLIENT_ID must be 1-128 letters/)
    assert.throws(() => loadConfig({ MQTT_SHARE_GROUP: 'a/b' }), /MQTT_SHARE_GROUP must be/)
    assert.throws(() => loadConfig({ MQTT_SHARE_GROUP: '#' }), /MQTT_SHARE_GROUP must be/)
  })

  it('keeps every reading and rollup and 90 days of predictions by default, and refuses retentions that would cut what is read', () => {
    assert.deepEqual(loadConfig({}).retention, {
      readingsDays: 0,
      rollupsDays: 0,
      predictionsDays: 90,
      eventsDays: 365,
      batchRows: 1000,
    })
    assert.deepEqual(
      loadConfig({ READINGS_RETENTION_DAYS: '400', ROLLUPS_RETENTION_DAYS: '800', PREDICTIONS_RETENTION_DAYS: '0' })
        .retention,
      { readingsDays: 400, rollupsDays: 800, predictionsDays: 0, eventsDays: 365, batchRows: 1000 },
    )
    assert.throws(
      () =>
        loadConfig({
          READINGS_RETENTION_DAYS: '7',
          PREDICTIONS_RETENTION_DAYS: '30',
          RETENTION_BATCH_ROWS: '0',
          ROLLUPS_RETENTION_DAYS: 'a year',
        }),
      (err: unknown) => {
        assert.ok(err instanceof ConfigError)
        assert.deepEqual(err.problems, [
          'READINGS_RETENTION_DAYS must be 0 (keep every reading) or at least 40 days, got 7',
          'ROLLUPS_RETENTION_DAYS must be a whole number, got "a year"',
          'PREDICTIONS_RETENTION_DAYS must be 0 (keep every prediction) or at least 60 days, got 30',
          'RETENTION_BATCH_ROWS must be between 1 and 100000, got 0',
        ])
        return true
      },
    )
    assert.throws(
      () => loadConfig({ READINGS_RETENTION_DAYS: '100', ROLLUPS_RETENTION_DAYS: '50' }),
      /ROLLUPS_RETENTION_DAYS \(50\) must be 0 or at least READINGS_RETENTION_DAYS \(100\)/,
    )
    assert.throws(
      () => loadConfig({ ROLLUPS_RETENTION_DAYS: '365' }),
      /ROLLUPS_RETENTION_DAYS \(365\) must be 0 or at least READINGS_RETENTION_DAYS \(0: every reading\)/,
    )
    assert.throws(
      () => loadConfig({ READINGS_RETENTION_DAYS: '-1' }),
      /READINGS_RETENTION_DAYS must be between 0 and 36500/,
    )
  })

  it('keeps a year of settled events by default, 0 keeps all, and refuses less than a due event can be derived again', () => {
    assert.equal(loadConfig({ EVENTS_RETENTION_DAYS: '0' }).retention.eventsDays, 0)
    assert.equal(loadConfig({ EVENTS_RETENTION_DAYS: '180' }).retention.eventsDays, 180)
    assert.equal(loadConfig({ EVENTS_RETENTION_DAYS: '36500' }).retention.eventsDays, 36500)
    const problems = (value: string) => {
      try {
        loadConfig({ EVENTS_RETENTION_DAYS: value })
      } catch (err) {
        assert.ok(err instanceof ConfigError)
        return err.problems
      }
      assert.fail(`EVENTS_RETENTION_DAYS=${value} was accepted`)
    }
    assert.deepEqual(problems('179'), [
      'EVENTS_RETENTION_DAYS must be 0 (keep every event) or at least 180 days, got 179',
    ])
    assert.deepEqual(problems('1'), ['EVENTS_RETENTION_DAYS must be 0 (keep every event) or at least 180 days, got 1'])
    assert.deepEqual(problems('-1'), ['EVENTS_RETENTION_DAYS must be between 0 and 36500, got -1'])
    assert.deepEqual(problems('36501'), ['EVENTS_RETENTION_DAYS must be between 0 and 36500, got 36501'])
    assert.deepEqual(problems('a year'), ['EVENTS_RETENTION_DAYS must be a whole number, got "a year"'])
    assert.deepEqual(problems('365.5'), ['EVENTS_RETENTION_DAYS must be a whole number, got "365.5"'])
  })

  it('refuses settings that would be ignored or contradict each other, each named', () => {
    assert.throws(() => loadConfig({ MQTT_PASSWORD: 'pw' }), /MQTT_USERNAME and MQTT_PASSWORD go together/)
    assert.throws(() => loadConfig({ MQTT_USERNAME: 'livestock-api' }), /MQTT_USERNAME and MQTT_PASSWORD go together/)
    assert.equal(loadConfig({ MQTT_USERNAME: 'livestock-api', MQTT_PASSWORD: 'pw' }).mqttPassword, 'pw')
    assert.throws(
      () => loadConfig({ TOKEN_EXPIRES_IN_MIN: '90000' }),
      /TOKEN_EXPIRES_IN_MIN \(90000\) must not exceed TOKEN_EXPIRES_IN_MAX \(86400\)/,
    )
    // checked even while no provider is configured: a typo surfaces now, not on the day OIDC is switched on
    assert.throws(
      () => loadConfig({ OIDC_EMAIL_VERIFIED: 'yes' }),
      /OIDC_EMAIL_VERIFIED must be one of required, optional/,
    )
  })

  it('redacts passwords in connection URLs', () => {
    assert.equal(redactUrl('postgres://u:secret@h:5432/db'), 'postgres://u:***@h:5432/db')
  })
})
