// What deriving events costs ingestion: gateway-sized batches (10 readings of one tag a request, 32 requests in
// flight over 50 animals that all have a reference temperature, readings that cross the bands now and then)
// into two apps that share a database and differ only in EVENT_DERIVATION, in alternating rounds, medians.
// `npm run bench -- event-derivation`; target: derivation on >= 0.9 of off (docs/events.md).
import { Agent, request } from 'node:http'
import { sql } from 'kysely'
import { alternatingMedians, benchFarm, startBenchApp } from './support.ts'
import type { BenchResult, Scenario } from './scenario.ts'

const REQUESTS = Number(process.env.BENCH_EVENT_REQUESTS ?? 3000)
const ROWS = 10
const ANIMALS = 50
const CONCURRENCY = 32
const ROUNDS = 5
const LIMITS_OFF = { RATE_LIMIT_IP_MAX: '0', RATE_LIMIT_TOKENS_MAX: '0', QUOTA_ENTERPRISE: '0' }

function post(agent: Agent, port: number, path: string, headers: Record<string, string>, body: string) {
  return new Promise<number>((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path,
        agent,
        headers: { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
      },
      (res) => {
        res.resume()
        res.on('end', () => resolve(res.statusCode ?? 0))
      },
    )
    req.on('error', reject)
    req.end(body)
  })
}

export const eventDerivationScenario: Scenario = {
  name: 'event-derivation',
  description: `POST .../sensordata of ${ROWS} readings, ${REQUESTS} requests over ${ANIMALS} animals with a reference temperature, ${CONCURRENCY} in flight, EVENT_DERIVATION on vs off (${ROUNDS} alternating rounds, medians)`,
  run: async (): Promise<BenchResult> => {
    const off = await startBenchApp({ ...LIMITS_OFF, EVENT_DERIVATION: 'off' })
    const on = await startBenchApp({ ...LIMITS_OFF, EVENT_DERIVATION: 'on' }, { database: off.database })
    try {
      const farm = await benchFarm(on)
      const macs: string[] = []
      for (let i = 0; i < ANIMALS; i++) macs.push(await farm.animal())
      await sql`UPDATE animals SET reference_temperature = 38.0 WHERE uid = ${farm.uid}`.execute(on.database.db)
      // Each request carries the next minute's readings of one animal: every reading is new, as from a gateway.
      let minute = 0
      const start = Date.now() - 200 * 24 * 60 * 60_000
      const events = { on: 0 }
      const measure = (port: number) => async () => {
        const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY })
        let next = 0
        const started = performance.now()
        const worker = async () => {
          while (next < REQUESTS) {
            const n = next++
            const mac = macs[n % ANIMALS]!
            const base = start + (minute + Math.floor(n / ANIMALS)) * ROWS * 60_000
            // A slow wave around the reference: each animal passes through the bands every few hundred requests.
            const c = 38.0 + 0.45 + 0.3 * Math.sin((n / ANIMALS + (n % ANIMALS)) / 30)
            const readings = Array.from({ length: ROWS }, (_, i) => ({ t: base + i * 60_000, c, x: 0, y: 0, z: 1 }))
            const status = await post(
              agent,
              port,
              `/api/v1/users/${farm.uid}/animals/${encodeURIComponent(mac)}/sensordata`,
              farm.headers,
              JSON.stringify({ readings }),
            )
            if (status !== 200) throw new Error(`ingestion answered ${status}`)
          }
        }
        await Promise.all(Array.from({ length: CONCURRENCY }, worker))
        const seconds = (performance.now() - started) / 1000
        minute += Math.ceil(REQUESTS / ANIMALS) + 1
        agent.destroy()
        return REQUESTS / seconds
      }
      await measure(off.port)()
      await measure(on.port)()
      const { baseline, measured } = await alternatingMedians(ROUNDS, measure(off.port), measure(on.port))
      const { rows } = await sql<{ n: number }>`SELECT count(*) AS n FROM events WHERE uid = ${farm.uid}`.execute(
        on.database.db,
      )
      events.on = Number(rows[0]!.n)
      const ratio = measured / baseline
      return {
        baseline: `${baseline.toFixed(0)} req/s (${(baseline * ROWS).toFixed(0)} readings/s) derivation off`,
        measured: `${measured.toFixed(0)} req/s (${(measured * ROWS).toFixed(0)} readings/s) derivation on, ${events.on} events derived`,
        ratio: Number(ratio.toFixed(3)),
        target: '>= 0.9',
        met: ratio >= 0.9,
      }
    } finally {
      await on.close()
      await off.close()
    }
  },
}
