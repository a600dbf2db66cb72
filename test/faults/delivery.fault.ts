// Webhook delivery under faults, on a private PostgreSQL: the service killed with deliveries in flight loses
// no event and repeats an event only with its first webhook-id; two processes deliver each event once;
// PostgreSQL stopped for a minute: deliveries resume after, in order, nothing lost.
import assert from 'node:assert/strict'
import { createServer, type Server } from 'node:http'
import { after, before, describe, it } from 'node:test'
import { Webhook } from 'standardwebhooks'
import { loadConfig } from '../../src/config.ts'
import { openDatabase, type Database } from '../../src/db/database.ts'
import { recordEvent } from '../../src/modules/events/events.repository.ts'
import { TEST_JWT_SECRET } from '../support/app.ts'
import { eventually } from '../support/eventually.ts'
import { startPrivatePostgres, type PrivatePostgres } from './support/servers.ts'
import { call, keepAliveAgent, killHard, serviceEnv, startService, type ServiceProcess } from './support/service.ts'
import { farmHeaders, seedFarm, type Farm } from './support/farm.ts'

describe('webhook delivery under faults', () => {
  let postgres: PrivatePostgres
  let database: Database
  let receiver: Server
  let receiverUrl: string
  let delayMs = 0
  /** webhook-id → how many times it arrived, in arrival order of first arrivals. */
  const arrivals = new Map<string, number>()
  const firstOrder: { uid: string; id: number }[] = []
  const services: ServiceProcess[] = []
  const store = () => ({ DATABASE_URL: postgres.url('api') })
  const start = async (extra: Record<string, string> = {}) => {
    const service = await startService(
      serviceEnv({
        ...store(),
        WEBHOOK_ALLOW_INSECURE: 'on',
        DELIVERY_POLL_MS: '100',
        WEBHOOK_TIMEOUT_MS: '2000',
        ...extra,
      }),
    )
    services.push(service)
    return service
  }

  before(async () => {
    postgres = await startPrivatePostgres()
    await postgres.query('CREATE DATABASE api')
    receiver = createServer((req, res) => {
      let body = ''
      req.on('data', (chunk: Buffer) => (body += chunk.toString()))
      req.on('end', () => {
        setTimeout(() => {
          const id = String(req.headers['webhook-id'])
          const { data } = JSON.parse(body) as { data: { userId: string; event: { ID: string } } }
          if (!arrivals.has(id)) firstOrder.push({ uid: data.userId, id: Number(data.event.ID) })
          arrivals.set(id, (arrivals.get(id) ?? 0) + 1)
          res.writeHead(200).end()
        }, delayMs)
      })
    })
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
    const address = receiver.address()
    assert.ok(address && typeof address === 'object')
    receiverUrl = `http://127.0.0.1:${address.port}/hooks`
  })
  after(async () => {
    for (const service of services) await killHard(service)
    await database?.close()
    receiver?.close()
    postgres?.cleanup()
  })

  async function subscribedFarm(service: ServiceProcess): Promise<{ farm: Farm; secret: string }> {
    const farm = await seedFarm(store())
    const agent = keepAliveAgent(2)
    const headers = await farmHeaders(agent, service, farm)
    const res = await call(agent, service.port, 'POST', '/api/v1/webhooks/subscriptions', {
      headers,
      body: { url: receiverUrl },
    })
    agent.destroy()
    assert.equal(res.status, 201, JSON.stringify(res.body))
    return { farm, secret: res.body.data.secret as string }
  }

  async function createEvents(farm: Farm, count: number): Promise<number[]> {
    database ??= await openDatabase(loadConfig({ LOG_LEVEL: 'silent', JWT_SECRET: TEST_JWT_SECRET, ...store() }))
    const ids: number[] = []
    for (let i = 0; i < count; i++) {
      const now = Date.now()
      const row = await recordEvent(database.db, {
        uid: farm.uid,
        type: 'temperature-red',
        mac: 'A4:C1:38:5F:2B:91',
        value: 0.7,
        t: now,
        evidence: { delta: 0.7 },
        episodeKey: `fault-${farm.uid}-${i}`,
        createdAt: now,
      })
      ids.push(Number(row!.id))
    }
    return ids
  }

  const delivered = (messageIds: string[]) => messageIds.filter((id) => arrivals.has(id))

  /** The webhook-ids of the farm's deliveries in the outbox, in event order. */
  async function outboxMessageIds(uid: string): Promise<string[]> {
    const { rows } = await postgres.query(
      `SELECT message_id FROM deliveries WHERE uid = '${uid}' ORDER BY event_id`,
      'api',
    )
    return rows.map((r) => r.message_id as string)
  }

  const everyDelivered = (messageIds: string[], timeoutMs: number) =>
    eventually(
      () => delivered(messageIds).length,
      (n) => n === messageIds.length,
      'every event delivered',
      { timeoutMs, intervalMs: 200 },
    )

  it('kill -9 with deliveries in flight: every event delivered, repeats only with the first webhook-id', async () => {
    delayMs = 40
    let service = await start()
    const { farm, secret } = await subscribedFarm(service)
    new Webhook(secret) // a valid Standard Webhooks secret
    const ids = await createEvents(farm, 150)
    const messageIds = await eventually(
      () => outboxMessageIds(farm.uid),
      (list) => list.length === ids.length,
      'the outbox rows',
    )
    await eventually(
      () => delivered(messageIds).length,
      (n) => n >= 30,
      'some deliveries',
      { timeoutMs: 30_000 },
    )
    await killHard(service)
    const beforeKill = delivered(messageIds).length
    service = await start()
    await everyDelivered(messageIds, 90_000)
    const repeats = messageIds.filter((id) => (arrivals.get(id) ?? 0) > 1).length
    console.log(
      `  kill -9 after ${beforeKill} of ${ids.length} deliveries: all ${ids.length} delivered after the restart, ${repeats} repeated (same webhook-id)`,
    )
    assert.ok(repeats <= 8, `${repeats} repeats: at most the deliveries in flight when killed`)
    await killHard(service)
  })

  it('two processes deliver each event once', async () => {
    delayMs = 5
    const one = await start()
    await start()
    const { farm } = await subscribedFarm(one)
    const ids = await createEvents(farm, 200)
    const messageIds = await outboxMessageIds(farm.uid)
    assert.equal(messageIds.length, ids.length)
    await everyDelivered(messageIds, 60_000)
    await new Promise((resolve) => setTimeout(resolve, 1000))
    const repeats = messageIds.filter((id) => (arrivals.get(id) ?? 0) > 1).length
    console.log(`  two processes: ${ids.length} events, ${ids.length} delivered, ${repeats} twice`)
    assert.equal(repeats, 0)
    for (const service of services.splice(0)) await killHard(service)
  })

  it(
    'PostgreSQL stopped for a minute: deliveries resume after, in order, nothing lost',
    { timeout: 240_000 },
    async () => {
      delayMs = 20
      const service = await start({ WEBHOOK_CONCURRENCY: '1' })
      const { farm } = await subscribedFarm(service)
      const ids = await createEvents(farm, 100)
      const messageIds = await outboxMessageIds(farm.uid)
      assert.equal(messageIds.length, ids.length)
      await database.close()
      database = undefined as unknown as Database
      await eventually(
        () => delivered(messageIds).length,
        (n) => n >= 5,
        'the first deliveries',
      )
      postgres.stopImmediate()
      const duringStop = delivered(messageIds).length
      await new Promise((resolve) => setTimeout(resolve, 60_000))
      postgres.start()
      await everyDelivered(messageIds, 90_000)
      const order = firstOrder.filter((a) => a.uid === farm.uid).map((a) => a.id)
      console.log(
        `  PostgreSQL stopped for a minute after ${duringStop} of ${ids.length} deliveries: all delivered after, first arrivals in event order: ${order.every((id, i) => i === 0 || id > order[i - 1]!)}`,
      )
      assert.deepEqual(
        order,
        [...order].sort((a, b) => a - b),
        'in order per subscription',
      )
    },
  )
})
