// A herd that looks real enough to explore the API with: per-animal diurnal pinna temperature
// (35-39 °C) with noise and rare out-of-range glitches, resting/active acceleration, heat episodes
// every 21 days for the sows, a farrowing for some of them, and detections by a few gateway nodes.
// Deterministic per (user, animal index), so a re-run produces the same herd and overlapping readings.
import { createHash } from 'node:crypto'
import type { LocationRow, SensorRow } from './readings.schemas.ts'

const MINUTE = 60_000
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR
/** Location detections at most this often (nodes report proximity less often than the tag samples). */
const LOCATION_EVERY_MS = 5 * MINUTE

export interface SimulatedAnimal {
  index: number
  MAC: string
  Sex: 'male' | 'female'
  Group: string
  Battery: number
  HealthScore: number
  homeNode: string
  neighbourNode: string
}

function seedOf(...parts: (string | number)[]): number {
  return createHash('sha256').update(parts.join(':')).digest().readUInt32BE(0)
}

/** mulberry32: small, fast, good enough for simulated noise. */
export function prng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

export function gaussian(random: () => number): number {
  const u = Math.max(random(), Number.EPSILON)
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random())
}

const round = (value: number, digits: number) => Math.round(value * 10 ** digits) / 10 ** digits

/** The herd of `count` animals of user `uid`: ten to a pen, one node per pen (at most six nodes). */
export function simulatedHerd(uid: string, count: number): SimulatedAnimal[] {
  const nodes = Math.min(6, Math.max(2, Math.ceil(count / 10)))
  return Array.from({ length: count }, (_, index) => {
    const random = prng(seedOf(uid, 'animal', index))
    // Locally administered unicast MAC (02:...), derived from the user and the index.
    const bytes = createHash('sha256').update(`${uid}:mac:${index}`).digest().subarray(0, 5)
    const MAC = ['02', ...[...bytes].map((b) => b.toString(16).padStart(2, '0'))].join(':').toUpperCase()
    const pen = Math.floor(index / 10)
    return {
      index,
      MAC,
      Sex: index % 20 === 19 ? 'male' : 'female',
      Group: `Pen ${pen + 1}`,
      Battery: round(55 + random() * 45, 0),
      HealthScore: round(70 + random() * 30, 0),
      homeNode: `node-${(pen % nodes) + 1}`,
      neighbourNode: `node-${((pen + 1) % nodes) + 1}`,
    }
  })
}

export interface SimulationWindow {
  uid: string
  start: number
  end: number
  intervalMs: number
  /** Rows per yielded batch. */
  batchSize: number
}

export type SimulatedBatch = { kind: 'sensordata'; rows: SensorRow[] } | { kind: 'locations'; rows: LocationRow[] }

/** One animal's readings over the window, in batches of at most batchSize rows, oldest first. */
export function* simulateReadings(animal: SimulatedAnimal, window: SimulationWindow): Generator<SimulatedBatch> {
  const random = prng(seedOf(window.uid, 'readings', animal.index))
  const base = 36.6 + random() * 0.8
  const amplitude = 0.5 + random() * 0.3
  const peakHour = 13 + random() * 3
  const cycleOffset = random() * 21 * DAY
  // One sow in eight farrows inside the window.
  const farrowing = animal.Sex === 'female' && random() < 0.125 ? window.start + random() * (window.end - window.start) : undefined
  const stepMinutes = window.intervalMs / MINUTE
  const perStep = (perMinute: number) => 1 - (1 - Math.min(perMinute, 1)) ** stepMinutes
  // Gravity on a lying pig's tag, and the tag's own offset.
  const restVector = [0.05 + gaussian(random) * 0.05, 0.1 + gaussian(random) * 0.05, 0.98]
  const offset = (animal.index * 137) % window.intervalMs

  let active = false
  let nextLocation = 0
  let sensor: SensorRow[] = []
  let locations: LocationRow[] = []
  const first = Math.ceil((window.start - offset) / window.intervalMs) * window.intervalMs + offset
  for (let t = first; t <= window.end; t += window.intervalMs) {
    const hour = (t % DAY) / HOUR
    const daytime = hour >= 6 && hour < 18
    const inHeat = animal.Sex === 'female' && (t + cycleOffset) % (21 * DAY) < 36 * HOUR
    const toFarrowing = farrowing === undefined ? Infinity : farrowing - t
    const preFarrowing = toFarrowing > 0 && toFarrowing < 12 * HOUR
    const postFarrowing = toFarrowing <= 0 && toFarrowing > -24 * HOUR

    const startActive = (daytime ? 0.02 : 0.005) * (inHeat ? 4 : 1) * (preFarrowing ? 6 : 1)
    active = active ? random() >= perStep(0.1) : random() < perStep(startActive)

    let c = base + amplitude * Math.cos(((hour - peakHour) / 24) * 2 * Math.PI) + gaussian(random) * 0.15
    if (active) c += 0.1
    if (inHeat) c += 0.4
    if (preFarrowing) c += 0.7
    if (postFarrowing) c += 0.3
    c = Math.min(39, Math.max(35, c))
    const glitch = random()
    if (glitch < 0.002) c = glitch < 0.0007 ? 0 : glitch < 0.0014 ? 15 + random() * 8 : 44 + random() * 40

    const [x, y, z] = active
      ? [gaussian(random) * 0.25, gaussian(random) * 0.25, 1 + gaussian(random) * 0.25]
      : restVector.map((v) => v + gaussian(random) * 0.01) as [number, number, number]
    sensor.push({ t, c: round(c, 2), x: round(x, 3), y: round(y, 3), z: round(z, 3) })
    if (sensor.length >= window.batchSize) {
      yield { kind: 'sensordata', rows: sensor }
      sensor = []
    }

    if (t >= nextLocation) {
      nextLocation = t + Math.max(LOCATION_EVERY_MS, window.intervalMs)
      const home = random() < (active ? 0.6 : 0.9)
      locations.push({
        t,
        rssi: round(home ? -58 + gaussian(random) * 4 : -76 + gaussian(random) * 5, 0),
        nodeuid: home ? animal.homeNode : animal.neighbourNode,
      })
      if (locations.length >= window.batchSize) {
        yield { kind: 'locations', rows: locations }
        locations = []
      }
    }
  }
  if (sensor.length > 0) yield { kind: 'sensordata', rows: sensor }
  if (locations.length > 0) yield { kind: 'locations', rows: locations }
}
