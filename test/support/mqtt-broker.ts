// MQTT end-to-end tests against the machine's broker: an app subscribed under a share group of its own (so no
// other subscriber of the broker takes this file's messages) and a publisher, set up and torn down around a suite.
import { randomBytes } from 'node:crypto'
import { after, before } from 'node:test'
import mqtt, { type MqttClient } from 'mqtt'
import { startMqttIngest, type MqttIngest } from '../../src/ingest/mqtt.ts'
import { createTestApp, type TestContext } from './app.ts'

export const MQTT_URL = process.env.MQTT_URL ?? 'mqtt://127.0.0.1:1883'

export interface BrokerIngestion {
  ctx: TestContext
  ingestor: MqttIngest
  publisher: MqttClient
}

/** Call inside a describe: its fields are set once the suite's `before` has run. */
export function useBrokerIngestion(): BrokerIngestion {
  const broker = {} as BrokerIngestion
  before(async () => {
    // The ingestion tests read its counters from /metrics, closed unless opened.
    broker.ctx = await createTestApp({ env: { METRICS_PUBLIC: 'on' } })
    broker.ingestor = startMqttIngest(broker.ctx.app, {
      url: MQTT_URL,
      group: `test-${randomBytes(4).toString('hex')}`,
    })
    await broker.ingestor.ready
    broker.publisher = await mqtt.connectAsync(MQTT_URL, { protocolVersion: 5 })
  })
  after(async () => {
    await broker.publisher?.endAsync()
    await broker.ingestor?.stop()
    await broker.ctx?.close()
  })
  return broker
}
