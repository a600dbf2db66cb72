// What compression costs and saves, per response size: the same reads from a client that accepts br and
// gzip, against an app with compression off and one that compresses every body, sharing one database.
// Loopback has no bandwidth to save, so the throughput ratio is the pure CPU cost; the byte ratio is what
// a farm's uplink or an integrator's egress bill would gain. COMPRESSION_MIN_BYTES is chosen from this table.
import { alternatingMedians, benchFarm, loadGet, startBenchApp } from './support.ts'
import { bareInsert, sensorRows } from './readings.ts'
import type { Scenario } from './scenario.ts'

const ROUNDS = 5
const CONCURRENCY = 16

export const compressionScenario: Scenario = {
  name: 'compression',
  description: `reads of growing size, compression off vs on (br quality 4), ${ROUNDS} alternating rounds each, load from another process`,
  run: async () => {
    const off = await startBenchApp({
      COMPRESSION_MIN_BYTES: '0',
      RATE_LIMIT_IP_MAX: '0',
      QUOTA_ENTERPRISE: '0',
      ACCESS_LOG: 'off',
    })
    const on = await startBenchApp(
      { COMPRESSION_MIN_BYTES: '1', RATE_LIMIT_IP_MAX: '0', QUOTA_ENTERPRISE: '0', ACCESS_LOG: 'off' },
      { database: off.database },
    )
    try {
      const farm = await benchFarm(on)
      const macs: string[] = []
      for (let i = 0; i < 100; i++) macs.push(await farm.animal())
      await bareInsert(on.database.db, farm.uid, macs[0]!, sensorRows(10_000, Date.now() - 60_000))
      const headers = { ...farm.headers, 'accept-encoding': 'br, gzip' }
      const cases = [
        { name: 'one animal', path: `/api/v1/users/${farm.uid}/animals/${encodeURIComponent(macs[0]!)}`, total: 4000 },
        { name: '10 animals', path: `/api/v1/users/${farm.uid}/animals?limit=10`, total: 3000 },
        { name: '100 animals', path: `/api/v1/users/${farm.uid}/animals?limit=100`, total: 1500 },
        {
          name: '10,000 readings',
          path: `/api/v1/users/${farm.uid}/animals/${encodeURIComponent(macs[0]!)}/sensordata?limit=10000`,
          total: 60,
        },
      ]
      const table: Record<string, string | number>[] = []
      let largest = 0
      for (const { name, path, total } of cases) {
        const plain = await on.app.inject({ method: 'GET', url: path, headers: farm.headers })
        const packed = await on.app.inject({ method: 'GET', url: path, headers })
        const measure = (port: number) => async () => (await loadGet(port, path, headers, total, CONCURRENCY)).rps
        await measure(off.port)()
        await measure(on.port)()
        const { baseline, measured } = await alternatingMedians(ROUNDS, measure(off.port), measure(on.port))
        largest = measured / baseline
        table.push({
          response: name,
          bytes: plain.rawPayload.length,
          compressed: packed.rawPayload.length,
          'byte ratio': Number((packed.rawPayload.length / plain.rawPayload.length).toFixed(3)),
          'req/s off': Math.round(baseline),
          'req/s on': Math.round(measured),
          'throughput on/off': Number((measured / baseline).toFixed(3)),
        })
      }
      console.table(table)
      return {
        baseline: `${table.at(-1)!['req/s off']} req/s uncompressed 10,000-row page`,
        measured: `${table.at(-1)!['req/s on']} req/s br (${table.at(-1)!.compressed} of ${table.at(-1)!.bytes} bytes)`,
        ratio: Number(largest.toFixed(3)),
        target: 'reported (see the table): the threshold is where the CPU cost stays small',
        met: true,
      }
    } finally {
      await on.close()
      await off.close()
    }
  },
}
