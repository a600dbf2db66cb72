// The MQTT subscriber killed (kill -9) with messages in flight, and messages published while it is dead:
// its persistent session (a stable client id, no clean start, QoS 1) makes the broker keep every message it
// has not acknowledged and queue the new ones, so that after a restart every published reading is stored
// exactly once. With a clean session, those messages were lost. The broker is the machine's Mosquitto,
// used as it is (never faulted); a client id, share group and farm of this run's own keep runs apart.
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import type { Agent } from 'node:http'
import { after, before, describe, it } from 'node:test'
import mqtt, { type MqttClient } from 'mqtt'
import { sensorTopic } from '../../src/ingest/mqtt.ts'
import { eventually } from '../support/eventually.ts'
import { steadyReadings } from '../support/readings.ts'
import { startPrivatePostgres, type PrivatePostgres } from './support/servers.ts'
import { keepAliveAgent, killHard, serviceEnv, startService, type ServiceProcess } from './support/service.ts'
import { createAnimal, farmHeaders, seedFarm, sensorTimesSql, type Farm } from './support/farm.ts'

const MQTT_URL = process.env.MQTT_URL ?? 'mqtt://127.0.0.1:1883'
const READINGS_PER_MESSAGE = 10

describe('MQTT subscriber killed with messages in flight', () => {
  const run = randomBytes(4).toString('hex')
  const clientId = `lsapi-faults-${run}`
  let postgres: PrivatePostgres
  let publisher: MqttClient
  let service: ServiceProcess | undefined
  let agent: Agent
  let env: Record<string, string>
  let farm: Farm

  before(async () => {
    postgres = await startPrivatePostgres()
    await postgres.query('CREATE DATABASE api')
    const store = { DATABASE_URL: postgres.url('api') }
    farm = await seedFarm(store)
    env = serviceEnv({ ...store, MQTT_URL, MQTT_CLIENT_ID: clientId, MQTT_SHARE_GROUP: `lsapi-faults-${run}` })
    agent = keepAliveAgent(2)
    publisher = await mqtt.connectAsync(MQTT_URL, { protocolVersion: 5, clientId: `lsapi-faults-publisher-${run}` })
  })
  after(async () => {
    if (service) await killHard(service)
    await publisher?.endAsync()
    // The broker would keep this run's session (and queue matching messages for it) until it expires: end it.
    const cleaner = await mqtt
      .connectAsync(MQTT_URL, { protocolVersion: 5, clientId, clean: true, properties: { sessionExpiryInterval: 0 } })
      .catch(() => undefined)
    await cleaner?.endAsync()
    agent?.destroy()
    postgres?.cleanup()
  })

  async function startSubscriber(): Promise<ServiceProcess> {
    const started = await startService(env)
    await eventually(
      () => started.output(),
      (out) => out.includes('MQTT ingestion subscribed'),
      'the MQTT subscription',
      { timeoutMs: 15_000 },
    )
    return started
  }

  it('stores every published reading exactly once after a restart', async () => {
    service = await startSubscriber()
    const mac = await createAnimal(agent, service, farm, await farmHeaders(agent, service, farm))
    const topic = sensorTopic(farm.uid, mac, 'sensordata')
    const start = Date.now() - 3 * 86_400_000
    let published = 0
    const publish = async (messages: number) => {
      for (let i = 0; i < messages; i++) {
        const body = steadyReadings(start + published * READINGS_PER_MESSAGE * 1000, READINGS_PER_MESSAGE)
        await publisher.publishAsync(topic, body, { qos: 1 })
        published++
      }
    }
    const stored = async () =>
      Number((await postgres.query(`SELECT count(*) AS n FROM (${sensorTimesSql(farm.uid, mac)}) s`, 'api')).rows[0].n)

    await publish(300)
    // Killed while it works through them: some stored, the one in hand unacknowledged, the rest queued.
    const storedAtKill = await eventually(stored, (n) => n > 0, 'the first messages to be stored', {
      timeoutMs: 15_000,
      intervalMs: 10,
    })
    await killHard(service)
    service = undefined
    const afterKill = await stored()
    await publish(200) // while no subscriber runs
    service = await startSubscriber()
    const total = published * READINGS_PER_MESSAGE
    const storedInAll = await eventually(stored, (n) => n >= total, `all ${total} readings to be stored`, {
      timeoutMs: 60_000,
      intervalMs: 100,
    })
    console.log(
      `  published ${published} messages (${total} readings); ${afterKill} readings stored when the subscriber was killed ` +
        `(${storedAtKill} seen just before), 200 messages published while it was dead; ${storedInAll} stored after the restart`,
    )

    assert.equal(storedInAll, total, 'every reading stored, none twice')
    const times = (await postgres.query(sensorTimesSql(farm.uid, mac), 'api')).rows.map((r: { t: string }) =>
      Number(r.t),
    )
    assert.deepEqual(
      times,
      Array.from({ length: total }, (_, i) => start + i * 1000),
      'exactly the published readings',
    )
    assert.ok(afterKill < total, 'the subscriber was killed before it had handled everything')
  })
})
