// Events reaching people (docs/delivery.md): a reading ingested over HTTP that moves an animal's temperature
// band, until its webhook arrives at a local receiver (p50, p99); and 10,000 events queued at once, until the
// receiver has them all, with the repeats it saw. The service runs in this process on the bench's store.
import { createServer } from 'node:http'
import type { TableRow } from './scenario.ts'
import { buildApp } from '../src/app.ts'
import { loadConfig } from '../src/config.ts'
import { openDatabase } from '../src/db/database.ts'
import { migrateToLatest } from '../src/db/migrate.ts'
import { recordEvent } from '../src/modules/events/events.repository.ts'
import { insertIntegrator, link } from '../src/modules/integrators/integrators.repository.ts'
import { insertUser } from '../src/modules/users/users.repository.ts'

export interface DeliveryFigures {
  samples: number
  p50Ms: number
  p99Ms: number
  events: number
  allDeliveredMs: number
  eventsPerSecond: number
  repeats: number
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!

export async function measureDelivery(
  storeEnv: Record<string, string>,
  sizes: { samples: number; events: number },
): Promise<DeliveryFigures> {
  const arrivals = new Map<string, number>()
  const waiting = new Map<string, () => void>()
  let received = 0
  const receiver = createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      const id = String(req.headers['webhook-id'])
      arrivals.set(id, (arrivals.get(id) ?? 0) + 1)
      received++
      res.writeHead(204).end()
      waiting.get(id)?.()
    })
  })
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
  const address = receiver.address()
  if (!address || typeof address !== 'object') throw new Error('no receiver address')
  const config = loadConfig({
    ...storeEnv,
    LOG_LEVEL: 'silent',
    JWT_SECRET: 'bench-delivery-0123456789abcdef0123456789ab',
    RATE_LIMIT_IP_MAX: '0',
    QUOTA_ENTERPRISE: '0',
    WEBHOOK_ALLOW_INSECURE: 'on',
    DELIVERY_POLL_MS: '200',
    WEBHOOK_CONCURRENCY: '8',
  })
  const database = await openDatabase(config)
  await migrateToLatest(database.db)
  const app = await buildApp({ config, database, logger: false })
  try {
    const db = database.db
    await insertUser(db, {
      uid: 'bench-delivery',
      email: 'delivery@farm.example',
      name: 'Bench delivery',
      language: 'en',
      bd_user: false,
      admin: false,
      inactive: false,
      password_hash: null,
    })
    await insertIntegrator(db, {
      uid: 'int-bench-delivery',
      email: 'hooks@fms.example',
      name: 'Bench FMS',
      tier: 'enterprise',
      is_active: true,
      can_read: true,
      can_write: true,
      can_delete: false,
      client_secret_hash: null,
    })
    await link(db, 'bench-delivery', 'int-bench-delivery', 'operator')
    const token = await app.inject({
      method: 'POST',
      url: '/api/v1/tokens',
      payload: { integratorUID: 'int-bench-delivery' },
    })
    const authorization = `Bearer ${token.json().data.accessToken as string}`
    const subscribed = await app.inject({
      method: 'POST',
      url: '/api/v1/webhooks/subscriptions',
      headers: { authorization },
      payload: { url: `http://127.0.0.1:${address.port}/hooks` },
    })
    if (subscribed.statusCode !== 201) throw new Error(`subscribe: ${subscribed.body}`)
    const mac = 'BD:00:00:00:00:01'
    const animal = await app.inject({
      method: 'POST',
      url: '/api/v1/users/bench-delivery/animals',
      headers: { authorization },
      payload: { MAC: mac, Sex: 'female', Group: 'Pen 1' },
    })
    if (animal.statusCode !== 201) throw new Error(`animal: ${animal.body}`)
    await db
      .updateTable('animals')
      .set({ reference_temperature: 38, reference_temperature_updated_at: Date.now() })
      .where('uid', '=', 'bench-delivery')
      .execute()

    // One reading at a time, alternating red and green: each moves the band, makes one event and one webhook.
    const latencies: number[] = []
    const start = Date.now() - sizes.samples * 60_000
    for (let i = 0; i < sizes.samples; i++) {
      const before = received
      const arrived = new Promise<void>((resolve) => {
        const check = setInterval(() => {
          if (received > before) {
            clearInterval(check)
            resolve()
          }
        }, 1)
      })
      const t0 = performance.now()
      const res = await app.inject({
        method: 'POST',
        url: `/api/v1/users/bench-delivery/animals/${mac}/sensordata`,
        headers: { authorization },
        payload: { readings: [{ t: start + i * 60_000, c: i % 2 === 0 ? 39.2 : 38.0, x: 0, y: 0, z: 1 }] },
      })
      if (res.statusCode >= 300) throw new Error(`ingest: ${res.statusCode} ${res.body}`)
      await Promise.race([arrived, new Promise((resolve) => setTimeout(resolve, 10_000))])
      latencies.push(performance.now() - t0)
    }
    latencies.sort((a, b) => a - b)

    // Many events at once: written in transactions of 500, then the wait until the receiver has every one.
    const before = received
    const t0 = performance.now()
    for (let batch = 0; batch < sizes.events; batch += 500) {
      const rows = await db.transaction().execute(async (trx) => {
        const made = []
        for (let i = batch; i < Math.min(sizes.events, batch + 500); i++) {
          const now = Date.now()
          made.push(
            await recordEvent(trx, {
              uid: 'bench-delivery',
              type: 'tag-battery-low',
              mac,
              value: 15,
              t: now,
              evidence: { battery: 15 },
              episodeKey: `bench-${i}`,
              createdAt: now,
            }),
          )
        }
        return made
      })
      app.events.announce(rows.filter((row) => row !== undefined))
    }
    const deadline = Date.now() + 600_000
    while (received - before < sizes.events && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
    const allDeliveredMs = performance.now() - t0
    const repeats = [...arrivals.values()].filter((n) => n > 1).length
    return {
      samples: sizes.samples,
      p50Ms: quantile(latencies, 0.5),
      p99Ms: quantile(latencies, 0.99),
      events: sizes.events,
      allDeliveredMs,
      eventsPerSecond: sizes.events / (allDeliveredMs / 1000),
      repeats,
    }
  } finally {
    await app.close()
    await database.close()
    receiver.close()
  }
}

/** The bench table's rows. */
export function deliveryRows(figures: DeliveryFigures, store: string, smoke: boolean): TableRow[] {
  return [
    {
      scenario: `reading ingested -> band event -> webhook received (${store})`,
      service: `p50 ${figures.p50Ms.toFixed(1)} ms, p99 ${figures.p99Ms.toFixed(1)} ms over ${figures.samples} readings`,
      baseline: 'target p99 2,000 ms',
      ratio: Number((figures.p99Ms / 2000).toFixed(3)),
      target: 'ratio <= 1',
      met: smoke ? null : figures.p99Ms <= 2000,
      figures: { ...figures },
    },
    {
      scenario: `${figures.events.toLocaleString('en')} events to one receiver (${store})`,
      service: `all delivered in ${(figures.allDeliveredMs / 1000).toFixed(1)} s (${Math.round(figures.eventsPerSecond)} a second), ${figures.repeats} repeats`,
      baseline: 'no faults: 0 repeats',
      ratio: null,
      target: 'reported; repeats 0',
      met: smoke ? null : figures.repeats === 0,
      figures: { ...figures },
    },
  ]
}
