// The broker setup the project ships (deploy/mosquitto) and the subscriber's flow control, each against a
// mosquitto of the test's own (never the machine's shared one): accounts written by `livestock-api broker`,
// an ACL that keeps each gateway in its own farm and everyone but the service out of the readings; a day's
// backlog from one gateway while another farm's gateway publishes; drops the broker reports; a payload larger
// than the service's Maximum Packet Size; the warning about a broker that admits anonymous clients.
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import type { Agent } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import mqtt, { type IClientOptions, type MqttClient } from 'mqtt'
import { sensorTopic } from '../../src/ingest/mqtt.ts'
import { eventually } from '../support/eventually.ts'
import { steadyReadings } from '../support/readings.ts'
import { startPrivateMosquitto, type PrivateMosquitto } from './support/servers.ts'
import { call, keepAliveAgent, killHard, serviceEnv, startService, type ServiceProcess } from './support/service.ts'
import { createAnimal, farmHeaders, seedFarm, type Farm } from './support/farm.ts'

const CLI = join(import.meta.dirname, '../../bin/livestock-api.js')

function brokerCli(
  dir: string,
  ...args: string[]
): { username: string; password: string; env: Record<string, string> } {
  const result = spawnSync(process.execPath, [CLI, 'broker', ...args, '--dir', dir], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'silent' },
  })
  assert.equal(result.status, 0, result.stderr)
  return JSON.parse(result.stdout)
}

/** The reason the broker refused a connection, or '' when it accepted it (then closed). */
async function refusal(url: string, options: IClientOptions = {}): Promise<string> {
  const client = await connect(url, options)
  if (typeof client === 'string') return client
  await client.endAsync()
  return ''
}

/** A connection, or the reason the broker refused it. */
async function connect(url: string, options: IClientOptions = {}): Promise<MqttClient | string> {
  return mqtt
    .connectAsync(url, { protocolVersion: 5, reconnectPeriod: 0, connectTimeout: 5000, ...options })
    .catch((err: Error) => err.message)
}

async function connected(url: string, options: IClientOptions): Promise<MqttClient> {
  const client = await connect(url, options)
  if (typeof client === 'string') throw new Error(`connect as ${options.username}: ${client}`)
  return client
}

/** A farm, its own embedded store, the service on it, an integrator's headers and an animal. */
interface Running {
  service: ServiceProcess
  farms: Farm[]
  macs: string[]
  agent: Agent
  dataDir: string
}

async function runService(brokerUrl: string, farmCount: number, extra: Record<string, string>): Promise<Running> {
  const dataDir = mkdtempSync(join(tmpdir(), 'lsapi-faults-mqtt-broker-'))
  const farms: Farm[] = []
  for (let i = 0; i < farmCount; i++) farms.push(await seedFarm({ DATA_DIR: dataDir }))
  const service = await startService(
    serviceEnv({ DATA_DIR: dataDir, MQTT_URL: brokerUrl, METRICS_PUBLIC: 'on', ...extra }),
  )
  await eventually(
    () => service.output(),
    (out) => out.includes('MQTT ingestion subscribed') || out.includes('MQTT subscription failed'),
    'the MQTT subscription',
    { timeoutMs: 15_000 },
  )
  const agent = keepAliveAgent(4)
  const macs: string[] = []
  for (const farm of farms) macs.push(await createAnimal(agent, service, farm, await farmHeaders(agent, service, farm)))
  return { service, farms, macs, agent, dataDir }
}

async function stopService(running: Running | undefined): Promise<void> {
  if (!running) return
  await killHard(running.service)
  running.agent.destroy()
  rmSync(running.dataDir, { recursive: true, force: true })
}

async function storedCount(running: Running, farmIndex: number, since = 0): Promise<number> {
  const farm = running.farms[farmIndex]!
  const res = await call(
    running.agent,
    running.service.port,
    'GET',
    `/api/v1/users/${farm.uid}/animals/${running.macs[farmIndex]}/sensordata?limit=10000&startTime=${since}`,
    { headers: await farmHeaders(running.agent, running.service, farm) },
  )
  assert.equal(res.status, 200, JSON.stringify(res.body))
  return (res.body.data as unknown[]).length
}

async function metric(running: Running, line: string): Promise<number> {
  const text = (await call(running.agent, running.service.port, 'GET', '/metrics')).body as string
  const found = text.split('\n').find((l) => l.startsWith(line))
  return found ? Number(found.split(' ').pop()) : 0
}

describe('the shipped broker setup (deploy/mosquitto)', () => {
  let broker: PrivateMosquitto
  let running: Running | undefined
  let service: { env: Record<string, string> }
  const gateways: { username: string; password: string }[] = []

  before(async () => {
    broker = await startPrivateMosquitto({
      settings: ['sys_interval 1'],
      prepare: (dir) => {
        service = brokerCli(dir, 'service')
      },
    })
  })
  after(async () => {
    await stopService(running)
    await broker?.cleanup()
  })

  it('admits only accounts the CLI wrote; a gateway publishes its own farm only, and only the service reads', async () => {
    running = await runService(broker.url, 2, service.env)
    const [farmA, farmB] = running.farms as [Farm, Farm]
    for (const farm of running.farms)
      gateways.push(brokerCli(broker.dir, 'add', '--user', farm.uid, '--gateway', 'barn'))
    await broker.reload()
    assert.doesNotMatch(running.service.output(), /admits anonymous clients/)
    // The password file is Mosquitto's own: the real mosquitto_passwd adds to it, and the broker takes both.
    const passwd = spawnSync('mosquitto_passwd', ['-b', join(broker.dir, 'passwords'), 'added-by-mosquitto', 'pw-1'])
    assert.equal(passwd.status, 0, passwd.stderr?.toString())
    await broker.reload()
    ;(await connected(broker.url, { username: 'added-by-mosquitto', password: 'pw-1' })).end()

    assert.match(await refusal(broker.url), /Not authorized|Bad User Name or Password/i, 'anonymous')
    assert.match(
      await refusal(broker.url, { username: gateways[0]!.username, password: 'guess' }),
      /Not authorized|Bad User Name or Password/i,
    )
    const gatewayA = await connected(broker.url, { ...gateways[0]!, clientId: 'gateway-a' })
    const start = Date.now() - 3_600_000
    // Its own farm's readings are stored; another farm's are refused by the broker (PUBACK "not authorized").
    await gatewayA.publishAsync(sensorTopic(farmA.uid, running.macs[0]!, 'sensordata'), steadyReadings(start, 5), {
      qos: 1,
    })
    const intoB = await gatewayA
      .publishAsync(sensorTopic(farmB.uid, running.macs[1]!, 'sensordata'), steadyReadings(start, 5), { qos: 1 })
      .then(
        (packet) => (packet && 'reasonCode' in packet ? (packet.reasonCode ?? 0) : 0),
        (err: { code?: number }) => err.code ?? -1,
      )
    assert.equal(intoB, 135, "publishing into another farm's topic is refused (0x87 not authorized)")
    // Mosquitto's ACL file cannot refuse a subscription: a gateway joining the documented share group, or
    // subscribing to every topic, is withheld every message, and takes none from the service's secret group.
    let taken = 0
    gatewayA.on('message', () => taken++)
    await gatewayA.subscribeAsync(['$share/livestock-api/livestock/v1/+/animals/+/sensordata', 'livestock/v1/#'], {
      qos: 1,
    })
    for (let i = 0; i < 5; i++)
      await gatewayA.publishAsync(
        sensorTopic(farmA.uid, running.macs[0]!, 'sensordata'),
        steadyReadings(start + 10_000 + i * 1000, 1),
        { qos: 1 },
      )
    await eventually(
      () => storedCount(running!, 0),
      (n) => n === 10,
      "all of farm A's readings stored",
    )
    assert.equal(await storedCount(running, 1), 0, "nothing in farm B's")
    assert.equal(taken, 0, 'the gateway read nothing')
    await gatewayA.endAsync()

    // Rotated: the old password stops working; removed: the account is gone.
    const rotated = brokerCli(broker.dir, 'rotate', '--user', farmA.uid, '--gateway', 'barn')
    await broker.reload()
    assert.notEqual(await refusal(broker.url, gateways[0]), '', 'the old password is refused')
    ;(await connected(broker.url, rotated)).end()
    brokerCli(broker.dir, 'remove', '--user', farmA.uid, '--gateway', 'barn')
    await broker.reload()
    assert.notEqual(await refusal(broker.url, rotated), '', 'a removed account is refused')
    assert.match(readFileSync(join(broker.dir, 'acl'), 'utf8'), new RegExp(`user ${farmB.uid}/barn\\ntopic write`))
  })

  it('asks again when the broker refuses its account, and subscribes once the broker admits it', async () => {
    // An account the broker has not read yet: refused until the reload, as during a botched password-file rewrite.
    const late = brokerCli(broker.dir, 'service', '--username', 'late-service')
    const dataDir = mkdtempSync(join(tmpdir(), 'lsapi-faults-mqtt-refused-'))
    const farm = await seedFarm({ DATA_DIR: dataDir })
    const service = await startService(
      serviceEnv({ DATA_DIR: dataDir, MQTT_URL: broker.url, METRICS_PUBLIC: 'on', ...late.env }),
    )
    const agent = keepAliveAgent(2)
    const refused: Running = { service, farms: [farm], macs: [], agent, dataDir }
    try {
      await eventually(
        () => service.output(),
        (out) => /"msg":"MQTT client error"/.test(out) && /Not authorized/i.test(out),
        'the refusal',
        { timeoutMs: 15_000 },
      )
      assert.equal(await metric(refused, 'mqtt_connected'), 0)
      refused.macs.push(await createAnimal(agent, service, farm, await farmHeaders(agent, service, farm)))
      const gateway = brokerCli(broker.dir, 'add', '--user', farm.uid, '--gateway', 'late')
      await new Promise((resolve) => setTimeout(resolve, 5000)) // a few refused attempts, logged once
      assert.equal(service.output().split('"msg":"MQTT client error"').length - 1, 1, 'one line for the refusals')
      await broker.reload()
      await eventually(
        () => service.output(),
        (out) => out.includes('MQTT ingestion subscribed'),
        'the subscription after the reload',
        { timeoutMs: 15_000 },
      )
      assert.equal(await metric(refused, 'mqtt_connected'), 1)
      const publisher = await connected(broker.url, { ...gateway, clientId: 'gateway-late' })
      await publisher.publishAsync(
        sensorTopic(farm.uid, refused.macs[0]!, 'sensordata'),
        steadyReadings(Date.now() - 3_600_000, 5),
        { qos: 1 },
      )
      await publisher.endAsync()
      await eventually(
        () => storedCount(refused, 0),
        (n) => n === 5,
        'the readings stored',
      )
    } finally {
      await stopService(refused)
    }
  })

  it('stores all 200 of a farm while another farm gateway flushes a day of backlog (1,440 messages of 20)', async () => {
    assert.ok(running)
    const [farmA, farmB] = running.farms as [Farm, Farm]
    const gatewayB = await connected(broker.url, { ...gateways[1]!, clientId: 'gateway-b' })
    const loft = brokerCli(broker.dir, 'add', '--user', farmA.uid, '--gateway', 'loft')
    await broker.reload()
    const backlog = await connected(broker.url, { ...loft, clientId: 'gateway-a-loft' })
    const storedBefore = await metric(running, 'mqtt_messages_total{kind="sensordata",outcome="stored"}')
    const start = Date.now() - 2 * 86_400_000
    const started = performance.now()
    const flush = Promise.all(
      Array.from({ length: 1440 }, (_, m) =>
        backlog.publishAsync(
          sensorTopic(farmA.uid, running!.macs[0]!, 'sensordata'),
          steadyReadings(start + m * 60_000, 1),
          {
            qos: 1,
          },
        ),
      ),
    )
    const other = (async () => {
      for (let i = 0; i < 200; i++)
        await gatewayB.publishAsync(
          sensorTopic(farmB.uid, running.macs[1]!, 'sensordata'),
          steadyReadings(start + i * 1000, 1),
          {
            qos: 1,
          },
        )
    })()
    await Promise.all([flush, other])
    await eventually(
      () => metric(running!, 'mqtt_messages_total{kind="sensordata",outcome="stored"}'),
      (n) => n >= storedBefore + 1640,
      'every message handled',
      { timeoutMs: 60_000, intervalMs: 100 },
    )
    const seconds = (performance.now() - started) / 1000
    const storedB = await storedCount(running, 1)
    console.log(
      `  1,440 backlog messages of 20 readings and 200 of another farm: handled in ${seconds.toFixed(1)} s; ${storedB} of 200 stored`,
    )
    assert.equal(storedB, 200)
    assert.equal(await metric(running, 'mqtt_broker_dropped_messages'), 0)
    await Promise.all([gatewayB.endAsync(), backlog.endAsync()])
  })
})

describe('what the broker drops, refuses and admits', () => {
  let broker: PrivateMosquitto
  let running: Running | undefined
  after(async () => {
    await stopService(running)
    await broker?.cleanup()
  })

  it('announces its Maximum Packet Size: the broker drops a larger message instead of sending it', async () => {
    broker = await startPrivateMosquitto({ shipped: false, settings: ['allow_anonymous true', 'sys_interval 1'] })
    running = await runService(broker.url, 1, {})
    await eventually(
      () => running!.service.output(),
      (out) => out.includes('admits anonymous clients'),
      'the service to warn about an open broker',
    )
    const publisher = await connected(broker.url, {})
    const topic = sensorTopic(running.farms[0]!.uid, running.macs[0]!, 'sensordata')
    const rss = () =>
      Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${running!.service.child.pid}/status`, 'utf8'))?.[1]) / 1024
    const before = rss()
    // 6 MB: beyond BODY_LIMIT_BYTES (4 MiB) + 64 kB, the default MQTT_MAX_PACKET_BYTES.
    await publisher.publishAsync(topic, Buffer.alloc(6 * 1024 * 1024, 0x20), { qos: 1 })
    const afterIt = Date.now() - 10 * 60_000
    await publisher.publishAsync(topic, steadyReadings(afterIt, 1), { qos: 1 })
    await eventually(
      () => storedCount(running!, 0, afterIt),
      (n) => n === 1,
      'the message after it to be stored',
    ).catch((err: unknown) => {
      throw new Error(
        `${String(err)}\nservice:\n${running!.service.output().slice(-3000)}\nbroker:\n${broker.log().slice(-3000)}`,
      )
    })
    console.log(`  a 6 MB payload: resident ${before.toFixed(0)} MB before, ${rss().toFixed(0)} MB after`)
    assert.doesNotMatch(
      running.service.output(),
      /payload larger than/,
      'the oversized message never reached the service',
    )
    await publisher.endAsync()
  })
  it('counts and logs the messages a full queue made the broker drop', async () => {
    // A queue of 5 and one message in flight at a time: a burst overflows the service's queue.
    await stopService(running)
    await broker.cleanup()
    broker = await startPrivateMosquitto({
      shipped: false,
      settings: ['allow_anonymous true', 'max_queued_messages 5', 'sys_interval 1'],
    })
    running = await runService(broker.url, 1, { MQTT_RECEIVE_MAXIMUM: '1' })
    const publisher = await connected(broker.url, {})
    const start = Date.now() - 86_400_000
    await Promise.all(
      Array.from({ length: 100 }, (_, m) =>
        publisher.publishAsync(
          sensorTopic(running!.farms[0]!.uid, running!.macs[0]!, 'sensordata'),
          steadyReadings(start + m * 60_000, 1),
          {
            qos: 1,
          },
        ),
      ),
    )
    const dropped = await eventually(
      () => metric(running!, 'mqtt_broker_dropped_messages'),
      (n) => n > 0,
      'the broker to report drops',
      { timeoutMs: 15_000, intervalMs: 200 },
    )
    assert.match(running.service.output(), /the MQTT broker dropped messages/)
    console.log(`  the broker dropped ${dropped} of 100 messages (queue of 5); the service counted and logged them`)
    await publisher.endAsync()
  })
})
