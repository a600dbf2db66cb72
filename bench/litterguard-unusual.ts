// `node bench/litterguard-unusual.ts`: how often the unusual-activity rule fires on the simulator's litter
// devices, the quiet pen (which should stay quiet) and the restless one (which should be caught), over 40
// farms, for one bucket beyond 3σ and for two in a row (the rule: litterguards.rules.ts), with a sample a
// minute and one every 10 minutes. The analytics compute the same figures in SQL; this works on the rows.
import {
  BUCKET_SECONDS,
  NOISE_FLOOR_G,
  UNUSUAL_SIGMAS,
  baselineWindow,
  dynamicAcceleration,
  unusualActivity,
} from '../src/modules/litterguards/litterguards.rules.ts'
import { simulateLitterguardReadings, simulatedLitterguards } from '../src/simulation/litterguard-simulator.ts'

const FARMS = 40
const DAY = 86_400
const end = Math.floor(Date.UTC(2026, 5, 1, 12) / 1000)
const window = { start: end - DAY, end }
const baseline = baselineWindow(window)
const mean = (values: number[]) => values.reduce((sum, v) => sum + v, 0) / values.length

/** Bucket means of the rows in [from, to), UTC-aligned and numbered from the epoch, as the service's. */
function buckets(rows: { t: number; activity: number }[], from: number, to: number) {
  const byBucket = new Map<number, number[]>()
  for (const row of rows) {
    if (row.t < from || row.t >= to) continue
    const bucket = Math.floor(row.t / BUCKET_SECONDS)
    byBucket.set(bucket, [...(byBucket.get(bucket) ?? []), row.activity])
  }
  return [...byBucket.entries()]
    .sort(([a], [b]) => a - b)
    .map(([bucket, values]) => ({ bucket, activity: mean(values) }))
}

const results: Record<string, string | number>[] = []
for (const intervalSeconds of [60, 600]) {
  const flagged = { quietOne: 0, quietTwo: 0, restlessOne: 0, restlessTwo: 0 }
  for (let farm = 0; farm < FARMS; farm++) {
    const uid = `farm-${farm}`
    for (const device of simulatedLitterguards(uid)) {
      const rows = [
        ...simulateLitterguardReadings(device, { uid, start: baseline.start, end, intervalSeconds, batchSize: 10_000 }),
      ]
        .flat()
        .map((r) => ({ t: r.t, activity: dynamicAcceleration(r.x, r.y, r.z) }))
      const base = buckets(rows, baseline.start, baseline.endBefore)
      const baselineMean = mean(base.map((b) => b.activity))
      const baselineSd = Math.sqrt(mean(base.map((b) => (b.activity - baselineMean) ** 2)))
      const windowBuckets = buckets(rows, window.start, window.end + 1)
      const limit = UNUSUAL_SIGMAS * Math.max(baselineSd, NOISE_FLOOR_G)
      const one = windowBuckets.some((b) => Math.abs(b.activity - baselineMean) > limit)
      const two = unusualActivity({ baselineBuckets: base.length, baselineMean, baselineSd, windowBuckets })
      const which = device.index === 0 ? 'restless' : 'quiet'
      if (one) flagged[`${which}One`]++
      if (two) flagged[`${which}Two`]++
    }
  }
  results.push({
    interval: `${intervalSeconds} s`,
    'quiet pen, one bucket': `${flagged.quietOne}/${FARMS}`,
    'quiet pen, two in a row': `${flagged.quietTwo}/${FARMS}`,
    'restless pen, one bucket': `${flagged.restlessOne}/${FARMS}`,
    'restless pen, two in a row': `${flagged.restlessTwo}/${FARMS}`,
  })
}
console.table(results)
