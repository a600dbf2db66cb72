// Second ingestion path: gateways publish the HTTP ingestion body to
//   livestock/v1/<user_id>/animals/<animal_mac>/sensordata | locations
//   livestock/v1/<user_id>/litterguards/<mac_address>/sensordata
// and every API process subscribes through one MQTT 5 shared subscription ($share/<group>/...), so the
// broker splits the messages among them. QoS 1: a message is acknowledged once it has been handled. Each
// process has a persistent session under a stable client id (no clean start, a session expiry): the
// broker keeps what the process has not acknowledged, and queues its share of new messages, while it is
// down or restarting, and delivers them when it is back; so neither a kill -9 mid-message nor a stop while
// the database is unreachable loses a message (ingestion is idempotent, so a redelivery stores nothing
// twice). Messages are handled one at a time (the client's backpressure); a malformed one is logged,
// counted in /metrics and acknowledged at once, so it neither crashes the process nor holds up the
// messages behind it.
// Who may publish to which user's topics is the broker's business: give each gateway its own
// credentials and an ACL on livestock/v1/<its user>/# (docs/operations.md, MQTT ingestion).
import { randomBytes } from 'node:crypto'
import { hostname } from 'node:os'
import mqtt, { type MqttClient } from 'mqtt'
import { Counter } from 'prom-client'
import secureJson from 'secure-json-parse'
import { isStoreUnavailable } from '../db/errors.ts'
import { isMac } from '../modules/animals/animals.rules.ts'
import { createPayloadValidator, ingest, type IngestOutcome } from '../modules/readings/ingest.ts'
import type { ReadingKind } from '../modules/readings/readings.repository.ts'
import { isUid } from '../modules/users/users.rules.ts'
import type { App } from '../types.ts'

export const DEFAULT_SHARE_GROUP = 'livestock-api'
const TOPIC_ROOT = 'livestock/v1'

/** Where each series is published: livestock/v1/<user_id>/<registry>/<mac>/<segment>, as its HTTP path. */
const TOPICS: Record<ReadingKind, { registry: 'animals' | 'litterguards'; segment: string }> = {
  sensordata: { registry: 'animals', segment: 'sensordata' },
  locations: { registry: 'animals', segment: 'locations' },
  devicedata: { registry: 'litterguards', segment: 'sensordata' },
}

export function topicFilters(group: string): string[] {
  return Object.values(TOPICS).map(
    ({ registry, segment }) => `$share/${group}/${TOPIC_ROOT}/+/${registry}/+/${segment}`,
  )
}

export function sensorTopic(uid: string, mac: string, kind: ReadingKind): string {
  return `${TOPIC_ROOT}/${uid}/${TOPICS[kind].registry}/${mac}/${TOPICS[kind].segment}`
}

/** The user, tag (or device) and kind a topic addresses, or undefined when it is not one of ours. */
export function parseTopic(topic: string): { uid: string; mac: string; kind: ReadingKind } | undefined {
  const parts = topic.split('/')
  if (parts.length !== 6 || `${parts[0]}/${parts[1]}` !== TOPIC_ROOT) return undefined
  const [, , uid, registry, mac, segment] = parts as [string, string, string, string, string, string]
  const kind = (Object.keys(TOPICS) as ReadingKind[]).find(
    (k) => TOPICS[k].registry === registry && TOPICS[k].segment === segment,
  )
  if (!kind || !isUid(uid) || !isMac(mac)) return undefined
  return { uid, mac, kind }
}

const RETRY_FIRST_MS = 250
const RETRY_MAX_MS = 2000

/** What became of a message; `held`: not acknowledged, the broker delivers it again (the service stopped meanwhile). */
export type MessageOutcome = 'stored' | 'malformed' | 'unknown_animal' | 'unknown_device' | 'failed' | 'held'

export interface MqttIngestOptions {
  url: string
  /** Shared-subscription group; processes in one group split the messages. */
  group?: string
  /**
   * A stable client id gives the process a persistent session: the broker keeps its unacknowledged and
   * queued messages for sessionExpirySeconds after it disconnects. Without one, a throwaway clean session.
   */
  clientId?: string
  sessionExpirySeconds?: number
}

/** The client id of a service that names none: stable across restarts of the process on one host and port. */
export function defaultClientId(port: number): string {
  return `livestock-api-${hostname()}-${port}`
}

export interface MqttIngest {
  client: MqttClient
  /** Resolves once the subscriptions are granted. */
  ready: Promise<void>
  stop: () => Promise<void>
}

export function startMqttIngest(app: App, options: MqttIngestOptions): MqttIngest {
  let stopping = false
  const group = options.group ?? DEFAULT_SHARE_GROUP
  const validate = createPayloadValidator(app.config.limits)
  const maxBytes = app.config.bodyLimitBytes
  const name = 'mqtt_messages_total'
  const counter =
    (app.metrics.getSingleMetric(name) as Counter<'kind' | 'outcome'> | undefined) ??
    new Counter({
      name,
      help: 'MQTT ingestion messages handled, by kind (sensordata, locations, devicedata, unknown) and outcome (stored, malformed, unknown_animal, unknown_device, failed; retried counts each wait for an unreachable database)',
      labelNames: ['kind', 'outcome'] as const,
      registers: [app.metrics],
    })

  async function handle(topic: string, payload: Buffer): Promise<MessageOutcome> {
    const log = app.log.child({ mqttTopic: topic })
    const target = parseTopic(topic)
    const kind = target?.kind ?? 'unknown'
    const reject = (reason: string, details?: unknown): MessageOutcome => {
      log.warn({ reason, details }, 'malformed MQTT message dropped')
      counter.inc({ kind, outcome: 'malformed' })
      return 'malformed'
    }
    if (!target)
      return reject(
        'topic is not livestock/v1/<user_id>/animals/<animal_mac>/sensordata|locations or livestock/v1/<user_id>/litterguards/<mac_address>/sensordata',
      )
    if (payload.length > maxBytes) return reject(`payload larger than ${maxBytes} bytes`)
    let body: unknown
    try {
      body = secureJson.parse(payload.toString('utf8'), undefined, { protoAction: 'error', constructorAction: 'error' })
    } catch {
      return reject('payload is not valid JSON')
    }
    const checked = validate(target.kind, body)
    if (!checked.ok) return reject('Validation failed', checked.details)
    for (let attempt = 0; ; attempt++) {
      let result: IngestOutcome
      try {
        result = await ingest(app.database.db, target.uid, target.mac, checked.batch, app.clock(), app.events)
      } catch (err) {
        // A database outage must not lose readings: hold this message (messages are handled one at a time,
        // so the ones behind it wait at the broker) and retry until the database answers again. A service
        // stopping meanwhile leaves it unacknowledged, in its session at the broker.
        if (isStoreUnavailable(err) && stopping) return 'held'
        if (isStoreUnavailable(err)) {
          if (attempt === 0) log.warn({ err }, 'database unreachable: holding the MQTT message until it answers again')
          counter.inc({ kind, outcome: 'retried' })
          await new Promise((resolve) => setTimeout(resolve, Math.min(RETRY_MAX_MS, RETRY_FIRST_MS * 2 ** attempt)))
          continue
        }
        log.error({ err }, 'storing MQTT readings failed')
        counter.inc({ kind, outcome: 'failed' })
        return 'failed'
      }
      switch (result.outcome) {
        case 'stored':
          counter.inc({ kind, outcome: 'stored' })
          app.countIngested('mqtt', kind, result.counts.stored)
          log.debug({ ...result.counts }, 'MQTT readings stored')
          return 'stored'
        case 'unknownMac': {
          const outcome = target.kind === 'devicedata' ? 'unknown_device' : 'unknown_animal'
          log.warn({ uid: target.uid, mac: target.mac }, `MQTT readings for an ${outcome.replace('_', ' ')} dropped`)
          counter.inc({ kind, outcome })
          return outcome
        }
        case 'invalid':
          return reject('Validation failed', result.details)
      }
    }
  }

  const persistent = options.clientId !== undefined
  const client = mqtt.connect(options.url, {
    clientId: options.clientId ?? `livestock-api-${hostname()}-${process.pid}-${randomBytes(4).toString('hex')}`,
    protocolVersion: 5,
    clean: !persistent,
    // MQTT 5 ends a session when its connection closes unless it is given an expiry.
    ...(persistent ? { properties: { sessionExpiryInterval: options.sessionExpirySeconds ?? 86_400 } } : {}),
    reconnectPeriod: 2000,
    connectTimeout: 10_000,
  })
  // One message at a time; the PUBACK goes out when the callback is called, after the message is handled.
  // A held message gets none: the broker keeps it in the session and delivers it again.
  client.handleMessage = (packet, callback) => {
    const topic = packet.cmd === 'publish' ? packet.topic : ''
    const payload = packet.cmd === 'publish' ? Buffer.from(packet.payload) : Buffer.alloc(0)
    handle(topic, payload).then(
      (outcome) => {
        if (outcome !== 'held') callback()
      },
      (err: unknown) => {
        app.log.error({ err }, 'MQTT message handler failed')
        callback()
      },
    )
  }
  client.on('error', (err) => app.log.warn({ err }, 'MQTT client error'))
  client.on('reconnect', () => app.log.info('MQTT reconnecting'))
  const ready = client.subscribeAsync(topicFilters(group), { qos: 1 }).then((grants) => {
    const refused = grants.filter((g) => g.qos > 2)
    if (refused.length > 0)
      throw new Error(`MQTT broker refused the subscriptions ${refused.map((g) => g.topic).join(', ')}`)
    app.log.info({ topics: grants.map((g) => g.topic) }, 'MQTT ingestion subscribed')
  })
  ready.catch((err: unknown) => app.log.error({ err }, 'MQTT subscription failed'))

  return {
    client,
    ready,
    stop: async () => {
      stopping = true
      await client.endAsync()
    },
  }
}
