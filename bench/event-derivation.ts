// What deriving events costs ingestion: gateway-sized batches (10 readings of one tag a request, 32 requests in
// flight over 50 animals that all have a reference temperature) into two apps that share a database and differ
// only in EVENT_DERIVATION, in alternating rounds, medians. A set share of the requests (BENCH_EVENT_SHARE,
// 0.016 by default) moves its animal between the green and the red band, so it derives one band event.
// `npm run bench -- event-derivation` (BENCH_EVENT_REQUESTS, BENCH_EVENT_ROUNDS), and a row of the table (table-steps.ts);
// target: derivation on >= 0.9 of off (docs/events.md#cost).
import { Agent, request } from 'node:http'
import { sql } from 'kysely'
import { benchFarm, median, startBenchApp } from './support.ts'
import type { BenchResult, Scenario, TableRow } from './scenario.ts'

const REQUESTS = Number(process.env.BENCH_EVENT_REQUESTS ?? 3000)
const SHARE = Number(process.env.BENCH_EVENT_SHARE ?? 0.016)
const ROUNDS = Number(process.env.BENCH_EVENT_ROUNDS ?? 5)
const ROWS = 10
const ANIMALS = 50
const CONCURRENCY = 32
const LIMITS_OFF = { RATE_LIMIT_IP_MAX: '0', RATE_LIMIT_TOKENS_MAX: '0', QUOTA_ENTERPRISE: '0' }
const MINUTE = 60_000

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

export interface DerivationFigures {
  requests: number
  rounds: number
  /** Requests a second, the median of the rounds, derivation off and on. */
  offPerSecond: number
  onPerSecond: number
  /** The median of the rounds' on / off. */
  ratio: number
  events: number
  /** Events derived per request of the "on" app. */
  share: number
  kinds: string
}

/**
 * Two apps on one store (`env`: its DATABASE_URL or DATA_DIR; a scratch database or memory when empty), derivation
 * off and on, `rounds` pairs of `requests` requests, each pair's order flipped from the last; the ratio is the
 * median of the pairs' ratios.
 */
export async function measureEventDerivation(
  sizes: { requests: number; rounds: number; share: number },
  env: Record<string, string> = {},
): Promise<DerivationFigures> {
  const { requests, rounds, share } = sizes
  const off = await startBenchApp({ ...LIMITS_OFF, ...env, EVENT_DERIVATION: 'off' })
  const on = await startBenchApp({ ...LIMITS_OFF, ...env, EVENT_DERIVATION: 'on' }, { database: off.database })
  try {
    const farm = await benchFarm(on)
    const macs: string[] = []
    for (let i = 0; i < ANIMALS; i++) macs.push(await farm.animal())
    await sql`UPDATE animals SET reference_temperature = 38.0 WHERE uid = ${farm.uid}`.execute(on.database.db)
    // The readings lie in the past (days of them), so the tags' silence is set past them: the events measured are
    // the band events of the ingestion, not the events job's silent tags.
    const rules = await on.app.inject({
      method: 'PUT',
      url: `/api/v1/users/${farm.uid}/alert-rules`,
      headers: farm.headers,
      payload: { thresholds: { tagSilentMinutes: 10_080 } },
    })
    if (rules.statusCode !== 200) throw new Error(`alert rules answered ${rules.statusCode}: ${rules.body}`)
    // Each request carries the next readings of one animal: every reading is new, as from a gateway. Readings are
    // a minute apart, or closer when a run needs more than 6 days of them.
    const perRound = Math.ceil(requests / ANIMALS) + 1
    const slots = (2 + 2 * rounds) * perRound * ROWS
    const step = Math.min(MINUTE, Math.floor((6 * 24 * 60 * MINUTE) / slots))
    const start = Date.now() - slots * step - 60 * MINUTE
    let slot = 0
    const measure = async (port: number) => {
      const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY })
      let next = 0
      const started = performance.now()
      const worker = async () => {
        while (next < requests) {
          const n = next++
          const animal = n % ANIMALS
          const turn = slot + Math.floor(n / ANIMALS)
          const base = start + turn * ROWS * step
          // The animal's band turns over once in 1/share of its requests (green 0.1 above its reference, red 0.8).
          const red = Math.floor(turn * share + animal / ANIMALS) % 2 === 1
          const c = red ? 38.8 : 38.1
          const readings = Array.from({ length: ROWS }, (_, i) => ({ t: base + i * step, c, x: 0, y: 0, z: 1 }))
          const status = await post(
            agent,
            port,
            `/api/v1/users/${farm.uid}/animals/${encodeURIComponent(macs[animal]!)}/sensordata`,
            farm.headers,
            JSON.stringify({ readings }),
          )
          if (status !== 200) throw new Error(`ingestion answered ${status}`)
        }
      }
      await Promise.all(Array.from({ length: CONCURRENCY }, worker))
      const seconds = (performance.now() - started) / 1000
      slot += perRound
      agent.destroy()
      return requests / seconds
    }
    await measure(off.port)
    await measure(on.port)
    const offRuns: number[] = []
    const onRuns: number[] = []
    for (let round = 0; round < rounds; round++) {
      if (round % 2 === 0) {
        offRuns.push(await measure(off.port))
        onRuns.push(await measure(on.port))
      } else {
        onRuns.push(await measure(on.port))
        offRuns.push(await measure(off.port))
      }
    }
    const { rows } = await sql<{ event_type: string; n: number }>`
      SELECT event_type, count(*) AS n FROM events WHERE uid = ${farm.uid} GROUP BY event_type ORDER BY event_type`.execute(
      on.database.db,
    )
    const events = rows.reduce((sum, r) => sum + Number(r.n), 0)
    return {
      requests,
      rounds,
      offPerSecond: median(offRuns),
      onPerSecond: median(onRuns),
      ratio: median(onRuns.map((x, i) => x / offRuns[i]!)),
      events,
      share: events / ((rounds + 1) * requests),
      kinds: rows.map((r) => `${r.event_type} ${Number(r.n)}`).join(', '),
    }
  } finally {
    await on.close()
    await off.close()
  }
}

const describeOn = (f: DerivationFigures) =>
  `${f.onPerSecond.toFixed(0)} req/s (${(f.onPerSecond * ROWS).toFixed(0)} readings/s) derivation on, ${f.events} events (${(f.share * 100).toFixed(1)} % of requests)`
const describeOff = (f: DerivationFigures) =>
  `${f.offPerSecond.toFixed(0)} req/s (${(f.offPerSecond * ROWS).toFixed(0)} readings/s) derivation off`

/** The table's row: ingestion with event derivation on vs off, on `store`. */
export function eventDerivationRow(f: DerivationFigures, store: string, smoke: boolean): TableRow {
  return {
    scenario: `ingestion with event derivation on vs off (${store}, ${(f.share * 100).toFixed(1)} % of requests derive an event)`,
    service: describeOn(f),
    baseline: describeOff(f),
    ratio: Number(f.ratio.toFixed(3)),
    target: '>= 0.9',
    met: smoke ? null : f.ratio >= 0.9,
    figures: { ...f },
  }
}

export const eventDerivationScenario: Scenario = {
  name: 'event-derivation',
  description: `POST .../sensordata of ${ROWS} readings, ${REQUESTS} requests over ${ANIMALS} animals with a reference temperature, ${CONCURRENCY} in flight, ${(SHARE * 100).toFixed(1)} % of them deriving a band event (BENCH_EVENT_SHARE), EVENT_DERIVATION on vs off (${ROUNDS} alternating pairs, median of their ratios)`,
  run: async (): Promise<BenchResult> => {
    const f = await measureEventDerivation({ requests: REQUESTS, rounds: ROUNDS, share: SHARE })
    return {
      baseline: describeOff(f),
      measured: `${describeOn(f)}: ${f.kinds}`,
      ratio: Number(f.ratio.toFixed(3)),
      target: '>= 0.9',
      met: f.ratio >= 0.9,
    }
  },
}
