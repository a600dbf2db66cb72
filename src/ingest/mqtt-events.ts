// Events out over MQTT: every event this process creates is published, once its transaction has committed,
// to livestock/v1/<user_id>/events as the feed shows it (JSON), at QoS 1. Every API process publishes its
// own (events are created where their cause arrives: any process's HTTP ingestion, worker 1's jobs and
// MQTT ingestion), through a client of its own. While the broker is away, mqtt.js keeps the QoS 1 messages
// and sends them on reconnection; a process that dies first loses what it had not sent, so the feed with
// its cursor, not MQTT, is the record a consumer catches up from. Who may subscribe to which user's events
// is the broker's ACL (docs/operations.md, MQTT).
import { randomBytes } from 'node:crypto'
import { hostname } from 'node:os'
import mqtt, { type MqttClient } from 'mqtt'
import { events as eventResource } from '../modules/events/events.resource.ts'
import type { App } from '../types.ts'
import { eventsTopic } from './topics.ts'

export { eventsTopic } from './topics.ts'

export interface EventPublisher {
  client: MqttClient
  stop: () => Promise<void>
}

export function startEventPublisher(
  app: App,
  options: { url: string; username?: string | undefined; password?: string | undefined },
): EventPublisher {
  const client = mqtt.connect(options.url, {
    ...(options.username === undefined ? {} : { username: options.username }),
    ...(options.password === undefined ? {} : { password: options.password }),
    clientId: `livestock-api-events-${hostname()}-${process.pid}-${randomBytes(4).toString('hex')}`,
    protocolVersion: 5,
    clean: true,
    reconnectPeriod: 2000,
    // A refused account is asked again, as a broker that is down is (mqtt.js otherwise gives up for good).
    reconnectOnConnackError: true,
    connectTimeout: 10_000,
  })
  // One line per kind of failure while it lasts, not one per attempt.
  let lastError: string | undefined
  client.on('connect', () => (lastError = undefined))
  client.on('error', (err) => {
    if (err.message !== lastError) app.log.warn({ err }, 'MQTT event publisher error')
    lastError = err.message
  })
  const unsubscribe = app.events.subscribe((created) => {
    for (const event of created) {
      client.publish(eventsTopic(event.uid), JSON.stringify(eventResource.toApi(event)), { qos: 1 }, (err) => {
        if (err) app.log.warn({ err, uid: event.uid, eventId: event.id }, 'event not published over MQTT')
      })
    }
  })
  return {
    client,
    stop: async () => {
      unsubscribe()
      await client.endAsync()
    },
  }
}
