// Second ingestion path: gateways publish the HTTP ingestion body to
//   livestock/v1/<user_id>/animals/<animal_mac>/sensordata | locations
//   livestock/v1/<user_id>/litterguards/<mac_address>/sensordata
// and every API process subscribes through one MQTT 5 shared subscription ($share/<group>/...), so the
// broker splits the messages among them. QoS 1: a message is acknowledged once it has been handled. Each
// process has a persistent session under a stable client id (no clean start, a session expiry): the
// broker keeps what the process has not acknowledged, and queues its share of new messages, while it is
// down or restarting, and delivers them when it is back; so neither a kill -9 mid-message nor a stop while
// the database is unreachable loses a message (ingestion is idempotent, so a redelivery stores nothing
// twice). Messages of one topic are handled one after another, different topics side by side, up to the
// Receive Maximum announced at connect (QoS 0 ones too, which the broker does not count); a malformed one is
// logged, counted in /metrics and acknowledged at once, so it neither crashes the process nor holds up the
// messages behind it.
// Who may publish to which user's topics is the broker's business: deploy/mosquitto ships a broker setup
// with an account per gateway and an ACL (docs/mqtt.md); the service warns when the broker admits anyone.
import { randomBytes } from 'node:crypto'
import { hostname } from 'node:os'
import mqtt, { type MqttClient } from 'mqtt'
import { Counter, Gauge } from 'prom-client'
import secureJson from 'secure-json-parse'
import { isStoreUnavailable } from '../db/errors.ts'
import { createPayloadValidator, ingest, type IngestOutcome } from '../modules/readings/ingest.ts'
import type { App } from '../types.ts'
import { BROKER_DROPPED_TOPIC, DEFAULT_SHARE_GROUP, parseTopic, topicFilters } from './topics.ts'

export { BROKER_DROPPED_TOPIC, DEFAULT_SHARE_GROUP, parseTopic, sensorTopic, topicFilters } from './topics.ts'

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
  /** The service's broker account; without one it connects anonymously (and warns). */
  username?: string | undefined
  password?: string | undefined
  /** MQTT 5 Receive Maximum: how many messages the broker may have in flight to this process. */
  receiveMaximum?: number
  /** MQTT 5 Maximum Packet Size: the broker drops a larger message instead of sending it to this process. */
  maximumPacketSize?: number
}

/**
 * Runs each key's work one after another, in the order given, and different keys' work side by side.
 * `work` must not reject.
 */
export function perKeyInOrder(): {
  run: (key: string, work: () => Promise<void>) => void
  /** Resolves when all work given so far has finished. */
  idle: () => Promise<void>
} {
  const tails = new Map<string, Promise<void>>()
  return {
    run: (key, work) => {
      const next = (tails.get(key) ?? Promise.resolve()).then(work)
      tails.set(key, next)
      void next.then(() => {
        if (tails.get(key) === next) tails.delete(key)
      })
    },
    idle: async () => {
      await Promise.all(tails.values())
    },
  }
}

/** mqtt.js's internal send, which the service uses for its own PUBACKs (see handleMessage below). */
interface PacketSender {
  _sendPacket: (
    packet: { cmd: 'puback'; messageId: number; reasonCode: number },
    cb?: () => void,
    cbStorePut?: undefined,
    noStore?: boolean,
  ) => void
}

/** The URL without the user and password it may carry: what an anonymous client would connect to. */
function withoutCredentials(url: string): string {
  const parsed = new URL(url)
  parsed.username = ''
  parsed.password = ''
  return parsed.toString()
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
        result = await ingest(
          app.database.db,
          target.uid,
          target.mac,
          checked.batch,
          app.clock(),
          app.events,
          app.config.retention.readingsDays,
        )
      } catch (err) {
        // A database outage must not lose readings: hold this message (its topic's next messages wait behind
        // it, unacknowledged) and retry until the database answers again. A service
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
    ...(options.username === undefined ? {} : { username: options.username }),
    ...(options.password === undefined ? {} : { password: options.password }),
    properties: {
      // MQTT 5 ends a session when its connection closes unless it is given an expiry.
      ...(persistent ? { sessionExpiryInterval: options.sessionExpirySeconds ?? 86_400 } : {}),
      receiveMaximum: options.receiveMaximum ?? 32,
      ...(options.maximumPacketSize === undefined ? {} : { maximumPacketSize: options.maximumPacketSize }),
    },
    reconnectPeriod: 2000,
    // A broker that refuses the account (a password file being rewritten, a reload) is asked again, as one that is
    // down is: mqtt.js otherwise gives up for good after a refused CONNACK.
    reconnectOnConnackError: true,
    // Subscribed below on every connection whose session the broker does not have.
    resubscribe: false,
    connectTimeout: 10_000,
  })
  // mqtt.js hands over the next message only once the handler's callback has run, and sends the PUBACK in it:
  // one message at a time. So the callback runs at once without a PUBACK (an error skips it) and the service
  // acknowledges each message itself after its commit. A message that arrived on an earlier connection gets
  // no PUBACK: the broker has delivered it again on the new one. A held message gets none either: the broker
  // keeps it in the session and delivers it again.
  let connection = 0
  client.on('connect', () => connection++)
  const inOrder = perKeyInOrder()
  // A QoS 0 message has no Receive Maximum: the broker sends them as fast as a gateway publishes them. So once
  // that many are in hand, the next is taken (its callback run) only when one of them is done: a flood waits in
  // the broker's queue and the socket, not in this process's memory.
  const qos0Max = options.receiveMaximum ?? 32
  let qos0InHand = 0
  let paused: (() => void) | undefined
  const sender = client as unknown as PacketSender
  client.handleMessage = (packet, callback) => {
    const topic = packet.cmd === 'publish' ? packet.topic : ''
    const payload = packet.cmd === 'publish' ? Buffer.from(packet.payload) : Buffer.alloc(0)
    if (topic === BROKER_DROPPED_TOPIC) {
      brokerDropped(payload.toString('utf8'))
      callback()
      return
    }
    const { messageId, qos } = packet
    const arrivedOn = connection
    if (qos === 0 || messageId === undefined) {
      qos0InHand++
      inOrder.run(topic, async () => {
        await handle(topic, payload).catch((err: unknown) => failed(err))
        qos0InHand--
        const resume = paused
        paused = undefined
        resume?.()
      })
      if (qos0InHand < qos0Max) callback()
      else paused = () => callback()
      return
    }
    inOrder.run(topic, async () => {
      const outcome = await handle(topic, payload).catch((err: unknown) => failed(err))
      if (outcome !== 'held' && arrivedOn === connection && client.connected)
        sender._sendPacket({ cmd: 'puback', messageId, reasonCode: 0 }, undefined, undefined, true)
    })
    callback(ACKNOWLEDGED_BY_THE_SERVICE)
  }
  const failed = (err: unknown): MessageOutcome => {
    app.log.error({ err }, 'MQTT message handler failed')
    return 'failed'
  }

  let droppedSeen: number | undefined
  const droppedGauge =
    (app.metrics.getSingleMetric('mqtt_broker_dropped_messages') as Gauge | undefined) ??
    new Gauge({
      name: 'mqtt_broker_dropped_messages',
      help: `Messages the MQTT broker dropped since it started because a client's queue was full (Mosquitto's ${BROKER_DROPPED_TOPIC}); any rise means acknowledged readings were lost`,
      registers: [app.metrics],
    })
  function brokerDropped(text: string) {
    const dropped = Number(text)
    if (!Number.isFinite(dropped)) return
    droppedGauge.set(dropped)
    if (droppedSeen !== undefined && dropped > droppedSeen)
      app.log.warn(
        { dropped: dropped - droppedSeen, droppedSinceBrokerStart: dropped },
        'the MQTT broker dropped messages: a client queue was full (max_queued_messages, docs/mqtt.md)',
      )
    droppedSeen = dropped
  }

  const connectedGauge =
    (app.metrics.getSingleMetric('mqtt_connected') as Gauge | undefined) ??
    new Gauge({
      name: 'mqtt_connected',
      help: 'Whether the MQTT subscriber is connected to the broker and subscribed (1) or not (0)',
      registers: [app.metrics],
    })
  connectedGauge.set(0)
  // One line per kind of failure while it lasts (a refused account is retried every 2 s), not one per attempt.
  let lastError: string | undefined
  client.on('error', (err) => {
    if (err.message !== lastError) app.log.warn({ err }, 'MQTT client error')
    lastError = err.message
  })
  client.on('reconnect', () => {
    if (lastError === undefined) app.log.info('MQTT reconnecting')
  })
  client.on('close', () => connectedGauge.set(0))
  let subscribed: () => void = noop
  const ready = new Promise<void>((resolve) => (subscribed = resolve))
  let everSubscribed = false
  client.on('connect', (connack) => {
    lastError = undefined
    // A session the broker kept holds the subscriptions; a new one (or none made yet) needs them.
    if (everSubscribed && connack.sessionPresent) {
      connectedGauge.set(1)
      return
    }
    client
      .subscribeAsync(topicFilters(group), { qos: 1 })
      .then((grants) => {
        const refused = grants.filter((g) => g.qos > 2)
        if (refused.length > 0)
          throw new Error(`MQTT broker refused the subscriptions ${refused.map((g) => g.topic).join(', ')}`)
        everSubscribed = true
        connectedGauge.set(1)
        app.log.info({ topics: grants.map((g) => g.topic) }, 'MQTT ingestion subscribed')
        subscribed()
      })
      .catch((err: unknown) => app.log.error({ err }, 'MQTT subscription failed'))
    // Where the broker tells it: a broker that does not publish it (or an ACL that hides it) leaves the gauge unset.
    client.subscribeAsync(BROKER_DROPPED_TOPIC, { qos: 0 }).catch(noop)
  })
  void warnWhenAnonymousAdmitted(app, options)

  return {
    client,
    ready,
    stop: async () => {
      stopping = true
      // Messages in hand finish (and are acknowledged) first; a held one gives up at its next retry.
      await inOrder.idle()
      await client.endAsync()
    },
  }
}

const noop = () => {}

/** Passed to mqtt.js's message callback so that it sends no PUBACK: the service sends its own. */
const ACKNOWLEDGED_BY_THE_SERVICE = new Error('acknowledged by the service after the message is handled')

/**
 * Tries an anonymous connection to the service's broker and warns when it is accepted: then anyone who
 * reaches the broker can publish readings into any farm, or subscribe to the service's share group.
 */
async function warnWhenAnonymousAdmitted(app: App, options: MqttIngestOptions): Promise<void> {
  const probe = await mqtt
    .connectAsync(withoutCredentials(options.url), {
      protocolVersion: 5,
      clientId: `livestock-api-probe-${randomBytes(6).toString('hex')}`,
      clean: true,
      reconnectPeriod: 0,
      connectTimeout: 5000,
    })
    .catch(() => undefined)
  if (!probe) return
  await probe.endAsync().catch(noop)
  app.log.warn(
    { mqttUrl: withoutCredentials(options.url) },
    'the MQTT broker admits anonymous clients: anyone who reaches it can publish readings into any farm and read the service share group; deploy/mosquitto is a safe setup (docs/mqtt.md)',
  )
}
