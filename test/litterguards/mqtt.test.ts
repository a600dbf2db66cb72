// MQTT ingestion of device readings: livestock/v1/<user_id>/litterguards/<mac_address>/sensordata, end to end
// against the real broker (real-server mode), read back through the API.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { usingRealServers } from '../support/app.ts'
import { eventually } from '../support/eventually.ts'
import { useBrokerIngestion } from '../support/mqtt-broker.ts'
import { parseTopic, sensorTopic } from '../../src/ingest/mqtt.ts'
import { deviceFarm, nextDeviceMac, storedReadings } from './farm.ts'

describe('MQTT topics of the litter devices', () => {
  it('reads livestock/v1/<user_id>/litterguards/<mac_address>/sensordata as device readings', () => {
    assert.deepEqual(parseTopic('livestock/v1/farm-1/litterguards/aa:bb:cc:dd:ee:ff/sensordata'), {
      uid: 'farm-1',
      mac: 'aa:bb:cc:dd:ee:ff',
      kind: 'devicedata',
    })
    assert.equal(
      sensorTopic('farm-1', 'AA:BB:CC:DD:EE:FF', 'devicedata'),
      'livestock/v1/farm-1/litterguards/AA:BB:CC:DD:EE:FF/sensordata',
    )
    for (const bad of [
      'livestock/v1/farm-1/litterguards/AA:BB:CC:DD:EE:FF/locations',
      'livestock/v1/farm-1/litterguards/AA:BB:CC:DD:EE:FF/analytics',
      'livestock/v1/farm-1/litterguards/summary/sensordata',
      'livestock/v1/farm-1/litterguards/AA:BB:CC:DD:EE:FF/sensordata/latest',
    ]) {
      assert.equal(parseTopic(bad), undefined, bad)
    }
  })
})

describe(
  'MQTT ingestion of device readings against the broker',
  { skip: !usingRealServers && 'needs the real Mosquitto (real-server mode)' },
  () => {
    const broker = useBrokerIngestion()

    async function counter(outcome: string): Promise<number> {
      const text = (await broker.ctx.app.inject({ method: 'GET', url: '/metrics' })).body
      const line = text
        .split('\n')
        .find((l) => l.startsWith(`mqtt_messages_total{kind="devicedata",outcome="${outcome}"}`))
      return line ? Number(line.split(' ').pop()) : 0
    }
    const publish = (topic: string, payload: string) => broker.publisher.publishAsync(topic, payload, { qos: 1 })

    it('stores a published batch through the ingestion code, idempotently, and updates the device', async () => {
      const f = await deviceFarm(broker.ctx)
      const d = await f.device()
      const now = Math.floor(Date.now() / 1000)
      const readings = Array.from({ length: 30 }, (_, i) => ({
        t: now - (29 - i) * 60,
        c: 30 + i / 10,
        x: 0,
        y: 0.1,
        z: 1,
      }))
      const storedBefore = await counter('stored')
      await publish(sensorTopic(f.user.uid, d.MAC.toLowerCase(), 'devicedata'), JSON.stringify({ readings }))
      await publish(sensorTopic(f.user.uid, d.MAC, 'devicedata'), JSON.stringify({ readings }))
      await eventually(
        () => counter('stored'),
        (n) => n >= storedBefore + 2,
        'both messages handled',
      )
      assert.equal(await storedReadings(broker.ctx, f.user.uid, d.MAC), 30)
      assert.deepEqual((await f.inject('GET', `/${d.MAC}/sensordata?limit=100`)).json().data, [...readings].reverse())
      const device = (await f.inject('GET', `/${d.MAC}`)).json().data
      assert.deepEqual(device.LastSeen, { seconds: now, nanoseconds: 0 })
      assert.equal(device.CurrentTemperature, 32.9)
      assert.equal(device.Active, true)
    })

    it('drops and counts a message for an unknown device or with a bad row (t in ms), and stores the message behind them', async () => {
      const f = await deviceFarm(broker.ctx)
      const d = await f.device()
      const now = Math.floor(Date.now() / 1000)
      const malformedBefore = await counter('malformed')
      const unknownBefore = await counter('unknown_device')
      await publish(
        sensorTopic(f.user.uid, d.MAC, 'devicedata'),
        JSON.stringify({ readings: [{ t: now * 1000, c: 30, x: 0, y: 0, z: 1 }] }),
      )
      await publish(
        sensorTopic(f.user.uid, d.MAC, 'devicedata'),
        JSON.stringify({ readings: [{ t: now + 3600, c: 30, x: 0, y: 0, z: 1 }] }),
      )
      await publish(
        sensorTopic(f.user.uid, nextDeviceMac(), 'devicedata'),
        JSON.stringify({ readings: [{ t: now, c: 30, x: 0, y: 0, z: 1 }] }),
      )
      await publish(
        sensorTopic(f.user.uid, d.MAC, 'devicedata'),
        JSON.stringify({ readings: [{ t: now, c: 31.2, x: 0, y: 0, z: 1 }] }),
      )
      await eventually(
        () => counter('malformed'),
        (n) => n >= malformedBefore + 2,
        'two malformed messages counted',
      )
      await eventually(
        () => counter('unknown_device'),
        (n) => n >= unknownBefore + 1,
        'the unknown device counted',
      )
      const data = await eventually(
        async () => (await f.inject('GET', `/${d.MAC}/sensordata`)).json().data as unknown[],
        (rows) => rows.length >= 1,
        'the good message',
      )
      assert.deepEqual(data, [{ t: now, c: 31.2, x: 0, y: 0, z: 1 }])
    })
  },
)
