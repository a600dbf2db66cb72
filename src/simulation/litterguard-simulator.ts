// Litter-monitoring devices for the simulated farm (`livestock-api simulate`): a device in the creep area
// of each of two farrowing pens, so that the farm shows device summaries and analytics through the API.
// - temperature: the creep area under its heat lamp, 31-33 °C, a little warmer in the afternoon, with noise;
// - acceleration: gravity (1 g, the device's tilt) and the litter's stirring, more by day, a little more
//   while it suckles (bouts of 3-9 minutes about every 50 minutes);
// - pen 1 turns restless in its last 3 hours (activity well beyond its own baseline: high, unusual);
// - pen 2's gateway dropped out 40 minutes before the end, so the device shows as inactive.
// Deterministic per (user, device index): a re-run produces the same devices and overlapping readings.
import { createHash } from 'node:crypto'
import { gaussian, prng } from './random.ts'
import type { DeviceRow } from '../modules/readings/readings.schemas.ts'

export interface SimulatedLitterguard {
  index: number
  MAC: string
  Name: string
}

const MINUTE = 60
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR
/** Pen 1 is restless for its last hours; pen 2 is silent for its last minutes. */
const RESTLESS_SECONDS = 3 * HOUR
const DROPOUT_SECONDS = 40 * MINUTE

function seedOf(...parts: (string | number)[]): number {
  return createHash('sha256').update(parts.join(':')).digest().readUInt32BE(0)
}

const round = (value: number, digits: number) => Math.round(value * 10 ** digits) / 10 ** digits

/** The farm's devices: locally administered unicast MACs (06:...) derived from the user and the index. */
export function simulatedLitterguards(uid: string, count = 2): SimulatedLitterguard[] {
  return Array.from({ length: count }, (_, index) => {
    const bytes = createHash('sha256').update(`${uid}:litterguard:${index}`).digest().subarray(0, 5)
    const MAC = ['06', ...[...bytes].map((b) => b.toString(16).padStart(2, '0'))].join(':').toUpperCase()
    return { index, MAC, Name: `Farrowing pen ${index + 1} litter` }
  })
}

export interface DeviceSimulationWindow {
  uid: string
  /** Unix seconds. */
  start: number
  end: number
  intervalSeconds: number
  /** Rows per yielded batch. */
  batchSize: number
}

/** One device's readings over the window (t in Unix seconds), in batches of at most batchSize rows, oldest first. */
export function* simulateLitterguardReadings(
  device: SimulatedLitterguard,
  window: DeviceSimulationWindow,
): Generator<DeviceRow[]> {
  const random = prng(seedOf(window.uid, 'litterguard-readings', device.index))
  const base = 31.5 + random() * 1.0
  const tilt = [0.05 + gaussian(random) * 0.03, -0.04 + gaussian(random) * 0.03]
  const restVector = [tilt[0]!, tilt[1]!, Math.sqrt(1 - tilt[0]! ** 2 - tilt[1]! ** 2)]
  const restlessFrom = device.index === 0 ? window.end - RESTLESS_SECONDS : Infinity
  const silentFrom = device.index === 1 ? window.end - DROPOUT_SECONDS : Infinity
  const offset = (device.index * 17) % window.intervalSeconds
  const perStep = (perMinute: number) => 1 - (1 - Math.min(perMinute, 1)) ** (window.intervalSeconds / MINUTE)

  let boutLeft = 0
  let batch: DeviceRow[] = []
  const first = Math.ceil((window.start - offset) / window.intervalSeconds) * window.intervalSeconds + offset
  for (let t = first; t <= window.end; t += window.intervalSeconds) {
    const hour = (t % DAY) / HOUR
    // The litter stirs more by day (peak mid-afternoon) and suckles about every 50 minutes: gentle bouts of 3-9 minutes.
    const daytime = (1 + Math.cos(((hour - 14) / 24) * 2 * Math.PI)) / 2
    if (boutLeft <= 0 && random() < perStep(1 / 50)) boutLeft = (3 + random() * 6) * MINUTE
    const suckling = boutLeft > 0
    boutLeft -= window.intervalSeconds
    const restless = t >= restlessFrom && random() < 0.8
    const spread = restless ? 0.4 : 0.02 + 0.02 * daytime + (suckling ? 0.02 : 0)
    const [x, y, z] = restVector.map((v) => v + gaussian(random) * spread) as [number, number, number]
    const c = base + 0.6 * Math.cos(((hour - 15) / 24) * 2 * Math.PI) + gaussian(random) * 0.2
    if (t < silentFrom) batch.push({ t, c: round(c, 2), x: round(x, 3), y: round(y, 3), z: round(z, 3) })
    if (batch.length >= window.batchSize) {
      yield batch
      batch = []
    }
  }
  if (batch.length > 0) yield batch
}
