// MQTT ingestion end to end against the real broker (real-server mode only): publish the HTTP body
// to livestock/v1/<user>/animals/<mac>/sensordata|locations and read it back through the API.
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { eventually } from '../support/eventually.ts'
import { steadyReadings } from '../support/readings.ts'
import { describe, it } from 'node:test'
import mqtt from 'mqtt'
import { pausableProxy } from '../support/proxy.ts'
import { sql } from 'kysely'
import { createScratchDatabase, testEnv, usingRealServers } from '../support/app.ts'
import { MQTT_URL, useBrokerIngestion } from '../support/mqtt-broker.ts'
import { loadConfig } from '../../src/config.ts'
import { openDatabase } from '../../src/db/database.ts'
import { migrateToLatest } from '../../src/db/migrate.ts'
import { buildApp } from '../../src/app.ts'
import { parseTopic, sensorTopic, startMqttIngest, topicFilters } from '../../src/ingest/mqtt.ts'
import { readingsFarm } from './farm.ts'
import { createPayloadValidator } from '../../src/modules/readings/ingest.ts'

describe('MQTT topics', () => {
  it('parses the user, tag and kind of a topic, and refuses anything else', () => {
    assert.deepEqual(parseTopic('livestock/v1/farm-1/animals/aa:bb:cc:dd:ee:ff/sensordata'), {
      uid: 'farm-1',
      mac: 'aa:bb:cc:dd:ee:ff',
      kind: 'sensordata',
    })
    assert.deepEqual(parseTopic('livestock/v1/farm-1/animals/AA:BB:CC:DD:EE:FF/locations'), {
      uid: 'farm-1',
      mac: 'AA:BB:CC:DD:EE:FF',
      kind: 'locations',
    })
    for (const bad of [
      'livestock/v2/farm-1/animals/AA:BB:CC:DD:EE:FF/sensordata',
      'livestock/v1/farm-1/animals/AA:BB/sensordata',
      'livestock/v1/farm-1/animals/AA:BB:CC:DD:EE:FF/predictions',
      'livestock/v1/farm-1/cows/AA:BB:CC:DD:EE:FF/sensordata',
      'livestock/v1/farm 1/animals/AA:BB:CC:DD:EE:FF/sensordata',
      'livestock/v1/farm-1/animals/AA:BB:CC:DD:EE:FF/sensordata/x',
    ]) {
      assert.equal(parseTopic(bad), undefined, bad)
    }
    assert.deepEqual(topicFilters('g'), [
      '$share/g/livestock/v1/+/animals/+/sensordata',
      '$share/g/livestock/v1/+/animals/+/locations',
      '$share/g/livestock/v1/+/litterguards/+/sensordata',
    ])
  })
})

describe('MQTT payloads', () => {
  it('refuses what HTTP bodies are refused for after their schema: a NUL character, a lone surrogate', () => {
    const validate = createPayloadValidator(loadConfig(testEnv()).limits)
    const t = Date.now()
    assert.equal(validate('locations', { readings: [{ t, rssi: -70, nodeuid: 'gw-1' }] }).ok, true)
    for (const [nodeuid, message] of [
      ['gw\u00001', /NUL/],
      ['gw-\ud800', /lone surrogate/],
    ] as const) {
      const checked = validate('locations', { readings: [{ t, rssi: -70, nodeuid }] })
      assert.equal(checked.ok, false, JSON.stringify(nodeuid))
      if (!checked.ok) {
        assert.equal(checked.details[0]?.field, 'readings[0].nodeuid')
        assert.match(checked.details[0]?.message ?? '', message)
      }
    }
  })
})

describe(
  'MQTT ingestion against the broker',
  { skip: !usingRealServers && 'needs the real Mosquitto (real-server mode)' },
  () => {
    const broker = useBrokerIngestion()

    async function counter(kind: string, outcome: string): Promise<number> {
      const text = (await broker.ctx.app.inject({ method: 'GET', url: '/metrics' })).body
      const line = text
        .split('\n')
        .find((l) => l.startsWith(`mqtt_messages_total{kind="${kind}",outcome="${outcome}"}`))
      return line ? Number(line.split(' ').pop()) : 0
    }

    const publish = (topic: string, payload: string | Buffer) =>
      broker.publisher.publishAsync(topic, payload, { qos: 1 })

    it('stores a published batch through the ingestion code, idempotently, and updates the animal', async () => {
      const f = await readingsFarm(broker.ctx)
      const a = await f.animal()
      const now = Date.now()
      const readings = Array.from({ length: 50 }, (_, i) => ({
        t: now - (49 - i) * 60_000,
        c: 37 + i / 100,
        x: 0,
        y: 0,
        z: 1,
      }))
      const storedBefore = await counter('sensordata', 'stored')
      await publish(sensorTopic(f.user.uid, a.MAC.toLowerCase(), 'sensordata'), JSON.stringify({ readings }))
      await publish(sensorTopic(f.user.uid, a.MAC, 'sensordata'), JSON.stringify({ readings }))
      await publish(
        sensorTopic(f.user.uid, a.MAC, 'locations'),
        JSON.stringify({ readings: [{ t: now, rssi: -61, nodeuid: 'node-7' }] }),
      )
      await eventually(
        () => counter('sensordata', 'stored'),
        (n) => n >= storedBefore + 2,
        'both sensordata messages handled',
      )
      const data = await eventually(
        async () => (await f.inject('GET', `/${a.MAC}/sensordata?limit=100&sortOrder=asc`)).json().data as unknown[],
        (d) => d.length >= 50,
        'readings',
      )
      assert.deepEqual(data, readings)
      const animal = await eventually(
        async () => (await f.inject('GET', `/${a.ID}`)).json().data,
        (x) => x.Node === 'node-7',
        'location state',
      )
      assert.equal(animal.CurrentTemperature, 37.49)
      assert.equal(animal.SignalStrength, -61)
    })

    it('logs and counts malformed messages, and still stores the messages behind them', async () => {
      const f = await readingsFarm(broker.ctx)
      const a = await f.animal()
      const malformedBefore = await counter('sensordata', 'malformed')
      const unknownBefore = await counter('sensordata', 'unknown_animal')
      const topic = sensorTopic(f.user.uid, a.MAC, 'sensordata')
      const now = Date.now()
      await publish(topic, '{"readings": [')
      await publish(topic, Buffer.from([0xff, 0xfe, 0x00]))
      await publish(topic, JSON.stringify({ readings: [{ t: now, c: '38', x: 0, y: 0, z: 1 }] }))
      await publish(topic, JSON.stringify({ readings: [] }))
      await publish(topic, '{"__proto__": {"polluted": true}, "readings": []}')
      await publish(topic, JSON.stringify({ readings: [{ t: now + 3_600_000, c: 38, x: 0, y: 0, z: 1 }] }))
      await publish(
        sensorTopic(f.user.uid, 'AA:AA:AA:AA:AA:AA', 'sensordata'),
        JSON.stringify({ readings: [{ t: now, c: 38, x: 0, y: 0, z: 1 }] }),
      )
      await publish(topic, JSON.stringify({ readings: [{ t: now, c: 38.2, x: 0, y: 0, z: 1 }] }))
      await eventually(
        () => counter('sensordata', 'malformed'),
        (n) => n >= malformedBefore + 6,
        'six malformed messages counted',
      )
      assert.equal(
        await eventually(
          () => counter('sensordata', 'unknown_animal'),
          (n) => n >= unknownBefore + 1,
          'unknown animal counted',
        ),
        unknownBefore + 1,
      )
      const data = await eventually(
        async () => (await f.inject('GET', `/${a.MAC}/sensordata`)).json().data as unknown[],
        (d) => d.length >= 1,
        'the good message',
      )
      assert.deepEqual(data, [{ t: now, c: 38.2, x: 0, y: 0, z: 1 }])
      assert.equal(({} as Record<string, unknown>).polluted, undefined)
    })

    it('takes QoS 0 messages, which the broker sends without limit, no faster than it stores them, and keeps each', async () => {
      // A gateway's QoS 0 flood used to be taken whole into memory (every message in hand at once): the broker's
      // Receive Maximum counts QoS 1 and 2 only. Now at most the Receive Maximum (32) are in hand at a time.
      const f = await readingsFarm(broker.ctx)
      const a = await f.animal()
      const topic = sensorTopic(f.user.uid, a.MAC, 'sensordata')
      const messages = 150
      const rows = 200
      const start = Date.now() - 7 * 86_400_000
      const storedBefore = await counter('sensordata', 'stored')
      let received = 0
      let mostInHand = 0
      const onPacket = (packet: { cmd: string; topic?: string }) => {
        if (packet.cmd === 'publish' && packet.topic === topic) received++
      }
      broker.ingestor.client.on('packetreceive', onPacket)
      const sampler = setInterval(() => {
        void counter('sensordata', 'stored').then((n) => {
          mostInHand = Math.max(mostInHand, received - (n - storedBefore))
        })
      }, 5)
      try {
        for (let i = 0; i < messages; i++) {
          await broker.publisher.publishAsync(topic, steadyReadings(start + i * rows * 1000, rows), { qos: 0 })
        }
        await eventually(
          () => counter('sensordata', 'stored'),
          (n) => n >= storedBefore + messages,
          'every QoS 0 message stored',
          { timeoutMs: 60_000 },
        )
      } finally {
        clearInterval(sampler)
        broker.ingestor.client.off('packetreceive', onPacket)
      }
      assert.ok(mostInHand <= 33, `${mostInHand} messages in hand at once`)
      const stored = await broker.ctx.database.db
        .selectFrom('animal_sensor_readings')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('uid', '=', f.user.uid)
        .executeTakeFirstOrThrow()
      assert.equal(Number(stored.n), messages * rows)
    })
  },
)

describe(
  'MQTT ingestion through a database outage',
  { skip: !usingRealServers && 'needs PostgreSQL and the real Mosquitto (real-server mode)' },
  () => {
    it('holds a message while the database is unreachable and stores it once it is back', async () => {
      const scratch = (await createScratchDatabase())!
      const direct = new URL(scratch.url)
      const proxy = await pausableProxy(Number(direct.port || 5432))
      const viaProxy = new URL(scratch.url)
      viaProxy.port = String(proxy.port)
      const config = loadConfig(
        testEnv({ DATABASE_URL: viaProxy.toString(), DB_CONNECT_TIMEOUT_MS: '1000', METRICS_PUBLIC: 'on' }),
      )
      const database = await openDatabase(config)
      await migrateToLatest(database.db)
      const app = await buildApp({ config, database, logger: false })
      const ctx = { app, config, database, redis: undefined, close: async () => {} }
      const ingestor = startMqttIngest(app, { url: MQTT_URL, group: `outage-${randomBytes(4).toString('hex')}` })
      const publisher = await mqtt.connectAsync(MQTT_URL, { protocolVersion: 5 })
      try {
        await ingestor.ready
        const f = await readingsFarm(ctx)
        const a = await f.animal()
        const now = Date.now()
        const readings = Array.from({ length: 20 }, (_, i) => ({ t: now - i * 60_000, c: 38, x: 0, y: 0, z: 1 }))

        await proxy.down()
        await publisher.publishAsync(sensorTopic(f.user.uid, a.MAC, 'sensordata'), JSON.stringify({ readings }), {
          qos: 1,
        })
        const metric = async (outcome: string) => {
          const line = (await app.inject({ method: 'GET', url: '/metrics' })).body
            .split('\n')
            .find((l) => l.startsWith(`mqtt_messages_total{kind="sensordata",outcome="${outcome}"}`))
          return line ? Number(line.split(' ').pop()) : 0
        }
        await eventually(
          () => metric('retried'),
          (n) => n >= 2,
          'the message to wait for the database',
        )
        assert.equal(await metric('failed'), 0, 'nothing is given up while the database is away')

        await proxy.up()
        const stored = async () => {
          const rows = await sql<{
            n: number
          }>`select count(*)::int as n from animal_sensor_readings where uid = ${f.user.uid}`.execute(database.db)
          return rows.rows[0]!.n
        }
        assert.equal(
          await eventually(
            () => stored().catch(() => 0),
            (n) => n >= 20,
            'the held message to be stored',
            { timeoutMs: 15_000 },
          ),
          20,
        )
        assert.equal(await metric('stored'), 1)
      } finally {
        await publisher.endAsync()
        await ingestor.stop()
        await app.close()
        await database.close()
        await proxy.close()
        await scratch.drop()
      }
    })

    it('keeps a message held at shutdown in the persistent session: the restarted subscriber stores it', async () => {
      const scratch = (await createScratchDatabase())!
      const proxy = await pausableProxy(Number(new URL(scratch.url).port || 5432))
      const viaProxy = new URL(scratch.url)
      viaProxy.port = String(proxy.port)
      const config = loadConfig(
        testEnv({ DATABASE_URL: viaProxy.toString(), DB_CONNECT_TIMEOUT_MS: '1000', METRICS_PUBLIC: 'on' }),
      )
      const database = await openDatabase(config)
      await migrateToLatest(database.db)
      const app = await buildApp({ config, database, logger: false })
      const ctx = { app, config, database, redis: undefined, close: async () => {} }
      const run = randomBytes(4).toString('hex')
      const session = {
        url: MQTT_URL,
        group: `held-${run}`,
        clientId: `lsapi-test-held-${run}`,
        sessionExpirySeconds: 60,
      }
      let ingestor = startMqttIngest(app, session)
      const publisher = await mqtt.connectAsync(MQTT_URL, { protocolVersion: 5 })
      try {
        await ingestor.ready
        const f = await readingsFarm(ctx)
        const a = await f.animal()
        const readings = Array.from({ length: 20 }, (_, i) => ({ t: Date.now() - i * 60_000, c: 38, x: 0, y: 0, z: 1 }))
        const metric = async (outcome: string) => {
          const line = (await app.inject({ method: 'GET', url: '/metrics' })).body
            .split('\n')
            .find((l) => l.startsWith(`mqtt_messages_total{kind="sensordata",outcome="${outcome}"}`))
          return line ? Number(line.split(' ').pop()) : 0
        }
        const retriedBefore = await metric('retried')
        const failedBefore = await metric('failed')

        await proxy.down()
        await publisher.publishAsync(sensorTopic(f.user.uid, a.MAC, 'sensordata'), JSON.stringify({ readings }), {
          qos: 1,
        })
        await eventually(
          () => metric('retried'),
          (n) => n > retriedBefore,
          'the message to wait for the database',
        )
        await ingestor.stop() // the service stops while the message is held
        // Its handler tries once more, finds the database still away, and leaves the message unacknowledged.
        await new Promise((resolve) => setTimeout(resolve, 2500))
        assert.equal(await metric('failed'), failedBefore, 'a message held at shutdown is not given up')

        await proxy.up()
        ingestor = startMqttIngest(app, session) // ... and starts again
        const stored = async () => {
          const rows = await sql<{
            n: number
          }>`select count(*)::int as n from animal_sensor_readings where uid = ${f.user.uid}`.execute(database.db)
          return rows.rows[0]!.n
        }
        assert.equal(
          await eventually(
            () => stored().catch(() => 0),
            (n) => n >= 20,
            'the held message to be stored after the restart',
            { timeoutMs: 15_000 },
          ),
          20,
        )
      } finally {
        await publisher.endAsync()
        await ingestor.stop()
        // End the session, or the broker would queue messages for it until it expires.
        const cleaner = await mqtt.connectAsync(MQTT_URL, {
          protocolVersion: 5,
          clientId: session.clientId,
          clean: true,
          properties: { sessionExpiryInterval: 0 },
        })
        await cleaner.endAsync()
        await app.close()
        await database.close()
        await proxy.close()
        await scratch.drop()
      }
    })
  },
)
