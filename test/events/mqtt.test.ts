// Events published over MQTT to livestock/v1/<user_id>/events (real-server mode: the machine's Mosquitto).
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import mqtt, { type MqttClient } from 'mqtt'
import { eventsTopic, startEventPublisher, type EventPublisher } from '../../src/ingest/mqtt-events.ts'
import { createTestApp, usingRealServers, type TestContext } from '../support/app.ts'
import { eventually } from '../support/eventually.ts'
import { MQTT_URL } from '../support/mqtt-broker.ts'
import { eventsFarm } from './farm.ts'

describe('events over MQTT', { skip: !usingRealServers && 'needs the real Mosquitto (real-server mode)' }, () => {
  let ctx: TestContext
  let publisher: EventPublisher
  let subscriber: MqttClient
  before(async () => {
    ctx = await createTestApp()
    publisher = startEventPublisher(ctx.app, { url: MQTT_URL })
    subscriber = await mqtt.connectAsync(MQTT_URL, { protocolVersion: 5 })
  })
  after(async () => {
    await subscriber.endAsync()
    await publisher.stop()
    await ctx.close()
  })

  it('publishes each new event to its account topic at QoS 1, as the feed shows it', async () => {
    const farm = await eventsFarm(ctx)
    const received: { topic: string; qos: number; body: Record<string, unknown> }[] = []
    subscriber.on('message', (topic, payload, packet) => {
      received.push({ topic, qos: packet.qos, body: JSON.parse(payload.toString()) })
    })
    await subscriber.subscribeAsync(eventsTopic(farm.user.uid), { qos: 1 })
    const sow = await farm.animal(38.0)
    await farm.readings(sow.MAC, [39.0], Date.now() - 5 * 60_000)
    await eventually(
      () => received.length,
      (n) => n >= 1,
      'the event over MQTT',
    )
    const [message] = received
    assert.equal(message!.topic, `livestock/v1/${farm.user.uid}/events`)
    assert.equal(message!.qos, 1)
    const [event] = (await farm.list()).data
    assert.deepEqual(message!.body, event)
    // An all-clear goes out as stored: resolved by the service at its creation.
    await farm.readings(sow.MAC, [38.0], Date.now() - 4 * 60_000)
    const [, normal] = await eventually(
      () => received,
      (list) => list.length >= 2,
      'the all-clear over MQTT',
    )
    assert.equal(normal!.body.EventType, 'temperature-normal')
    assert.deepEqual(
      [normal!.body.status, normal!.body.resolvedBy, normal!.body.resolvedAt],
      ['resolved', 'service', normal!.body.createdAt],
    )
  })
})
