// A herd that looks real enough to explore the API with, and to measure the prediction scorer against: each
// animal's readings follow ground-truth episodes (production cycles, heats, farrowings, lameness) planned by
// planAnimal from the physiology the scorer's rules come from, with the confounders a plain threshold trips over.
// docs/predictions.md describes the herd and its figures. Deterministic per (seed, animal index): a re-run
// produces the same herd and readings.
import { createHash } from 'node:crypto'
import type { LocationRow, SensorRow } from '../modules/readings/readings.schemas.ts'
import { gaussian, prng, seedOf, tieredUniform, uniform, type Tiers } from './random.ts'
import type { AnimalPlan, FarrowingEpisode, Interval, PlanWindow, SimulatedAnimal } from './herd-plan.ts'
import { addRoughFarmTroubles } from './rough-farm.ts'

const MINUTE = 60_000
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR
/** Location detections at most this often (nodes report proximity less often than the tag samples). */
const LOCATION_EVERY_MS = 5 * MINUTE

/** A sow's heat, as a multiple of her usual activity: one in ten silent, the strongest one in seven. */
const SOW_HEAT_AMPLITUDES: Tiers = [
  [0.1, 1.05, 1.15],
  [0.85, 1.2, 1.6],
  [1, 1.6, 2],
]
/** A gilt's heat: one in ten silent, one in five weaker. */
const GILT_HEAT_AMPLITUDES: Tiers = [
  [0.1, 1.05, 1.15],
  [0.3, 1.15, 1.3],
  [1, 1.3, 1.8],
]
/**
 * A sow's heat on the weak-heats farm, as the literature describes a commercial herd's: one in ten silent, most a
 * modest rise, a minority stronger.
 */
const WEAK_HEAT_AMPLITUDES: Tiers = [
  [0.1, 1.05, 1.15],
  [0.8, 1.15, 1.45],
  [1, 1.45, 1.9],
]
/** The weak-heats farm's weaning-to-oestrus interval, days: most 3-8, a few prolonged. */
const WEAK_HEAT_INTERVALS: Tiers = [
  [0.92, 3, 8],
  [1, 8, 12],
]
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

/** What happens to the whole farm: feeding times that slip, the weather, hot days. */
export interface FarmPlan {
  /** UTC day number → how much warmer (or cooler) every ear is that day, °C. */
  weather: Map<number, number>
  /** UTC day number → hours the day's feedings came late. */
  lateFeedings: Map<number, number>
  hotDays: Set<number>
}

export const FEEDING_HOURS = [7, 15]
const FEEDING_MS = 40 * MINUTE
const HOT_FROM_HOUR = 10
const HOT_TO_HOUR = 20

/** The farm-wide confounders over the window: one day in ten fed 1-3 h late, one day in twenty hot. */
export function planFarm(window: PlanWindow): FarmPlan {
  const random = prng(seedOf(window.seed, 'farm'))
  const lateFeedings = new Map<number, number>()
  const hotDays = new Set<number>()
  const weather = new Map<number, number>()
  for (let day = Math.floor(window.start / DAY); day <= Math.floor(window.end / DAY); day++) {
    weather.set(day, 0.3 * gaussian(random))
    if (random() < 0.1) lateFeedings.set(day, Math.round(uniform(random, 1, 3)))
    if (random() < 0.05) hotDays.add(day)
  }
  return { lateFeedings, hotDays, weather }
}

/** Episodes and records of one animal over the window (and the production cycle leading into it). */
export function planAnimal(animal: SimulatedAnimal, window: PlanWindow): AnimalPlan {
  const random = prng(seedOf(window.seed, 'plan', animal.index))
  const dailyFactors = new Map<number, number>()
  const dailyWarmths = new Map<number, number>()
  const plan: AnimalPlan = {
    farrowings: [],
    heats: [],
    lameness: [],
    services: [],
    weanings: [],
    crated: [],
    crateActivity: 0.75,
    dropouts: [],
    disturbances: [],
    fevers: [],
    looseTags: [],
    tagOffsets: [],
    dailyFactor: (day) => {
      let factor = dailyFactors.get(day)
      if (factor === undefined)
        dailyFactors.set(day, (factor = Math.exp(0.1 * gaussian(prng(seedOf(window.seed, 'day', animal.index, day))))))
      return factor
    },
    dailyWarmth: (day) => {
      let warmth = dailyWarmths.get(day)
      if (warmth === undefined)
        dailyWarmths.set(day, (warmth = 0.15 * gaussian(prng(seedOf(window.seed, 'warmth', animal.index, day)))))
      return warmth
    },
  }
  // The profile's draws come from their own stream, so that its herd is the default's with the farrowing unit changed.
  const late =
    window.profile === 'late-crates' || window.profile === 'long-gestation' || window.profile === 'weak-nesters'
      ? prng(seedOf(window.seed, 'late-crates', animal.index))
      : undefined
  const weak = window.profile === 'weak-nesters' ? prng(seedOf(window.seed, 'weak-nesters', animal.index)) : undefined
  // The same draws as the default farm's, days later: the herd is the late-crates one with a longer gestation.
  const gestationShift = window.profile === 'long-gestation' ? 4 : 0
  // The weak-heats farm's heats, from their own stream; a sow's cycle runs `shift` later than the default farm's (her
  // weaning-to-oestrus intervals differ), and the cycle is followed as far as the default farm's, so that every other
  // draw of the default stream stays the same.
  const weakHeats = window.profile === 'weak-heats' ? prng(seedOf(window.seed, 'weak-heats', animal.index)) : undefined
  let shift = 0
  // The missed-returns farm: which returns go unseen, and the heats nobody saw, from their own stream.
  const missed =
    window.profile === 'missed-returns' ? prng(seedOf(window.seed, 'missed-returns', animal.index)) : undefined
  if (late) plan.crateActivity = 0.4
  if (animal.Sex === 'female') {
    // Start from a farrowing up to one cycle before the window, then follow the cycle past its end.
    let farrowing = window.start - uniform(random, 0, 150) * DAY
    while (farrowing - shift < window.end + 2 * DAY) {
      // One sow in ten builds a weak nest.
      const nestPeakShare = random() < 0.1 ? uniform(random, 0.12, 0.2) : uniform(random, 0.25, 0.5)
      const episode: FarrowingEpisode = {
        onset: farrowing,
        nestPeakLeadMs: Math.min(14, Math.max(5, 9 + 2 * gaussian(random))) * HOUR,
        nestDurationMs: uniform(random, 14, 17) * HOUR,
        nestPeakShare,
      }
      const crate = { from: farrowing - uniform(random, 3, 7) * DAY, to: farrowing + uniform(random, 21, 28) * DAY }
      if (late) {
        if (late() < 0.25) Object.assign(episode, { nestPeakShare: 0, nestFactor: uniform(late, 1.5, 2.5) })
        if (late() < 0.2) {
          episode.nestDurationMs = uniform(late, 5, 10) * HOUR
          episode.nestPeakLeadMs = Math.min(episode.nestPeakLeadMs, uniform(late, 2, 6) * HOUR)
        }
        crate.from = farrowing - (late() < 1 / 3 ? uniform(late, 0.5, 2) : uniform(late, 2, 9)) * DAY
      }
      if (weak) {
        // Drawn whatever the sow, so that each farrowing's draws stay the same however the others' came out.
        const [isWeak, factor, isShort, duration, peakLead] = [weak(), weak(), weak(), weak(), weak()]
        if (isWeak < 0.75) {
          Object.assign(episode, { nestPeakShare: 0, nestFactor: 1.3 + 0.7 * factor })
          if (isShort < 1 / 3) {
            episode.nestDurationMs = (4 + 4 * duration) * HOUR
            episode.nestPeakLeadMs = (1 + 4 * peakLead) * HOUR
          }
        } else {
          episode.nestPeakShare = 0.25 + 0.25 * factor
          delete episode.nestFactor
        }
      }
      plan.farrowings.push(episode)
      plan.crated.push(crate)
      const weaning = plan.crated.at(-1)!.to
      plan.weanings.push(weaning)
      let heat = weaning + uniform(random, 3.5, 6.5) * DAY
      if (weakHeats) {
        const onset = weaning + tieredUniform(weakHeats, WEAK_HEAT_INTERVALS) * DAY
        shift += onset - heat
        heat = onset
      }
      for (;;) {
        const length = uniform(random, 24, 48) * HOUR
        const amplitude = tieredUniform(random, SOW_HEAT_AMPLITUDES)
        plan.heats.push(
          weakHeats
            ? {
                onset: heat,
                end: heat + uniform(weakHeats, 36, 72) * HOUR,
                amplitude: tieredUniform(weakHeats, WEAK_HEAT_AMPLITUDES),
                edgeMs: uniform(weakHeats, 8, 12) * HOUR,
                nightShare: uniform(weakHeats, 0.2, 0.5),
              }
            : { onset: heat, end: heat + length, amplitude },
        )
        const service = heat + uniform(random, 12, 24) * HOUR
        plan.services.push(service)
        if (random() < (missed ? MISSED_RETURNS_HELD : 0.85)) {
          farrowing = service + (uniform(random, 113, 117) + gestationShift) * DAY
          break
        }
        heat = service + uniform(random, 18, 24) * DAY
        if (missed && missed() < UNSEEN_RETURN_SHARE) {
          // Nobody saw this heat: no service; she is served at her next one.
          const end = heat + uniform(missed, 24, 48) * HOUR
          plan.heats.push({ onset: heat, end, amplitude: tieredUniform(missed, SOW_HEAT_AMPLITUDES) })
          ;(plan.unseenReturns ??= []).push(heat)
          heat += uniform(missed, 18, 24) * DAY
        }
        if (heat - shift > window.end + 2 * DAY) {
          farrowing = Infinity
          break
        }
      }
    }
  }
  if (window.profile === 'gilts' && animal.Sex === 'female') addGiltsAndUnrecordedWeanings(plan, animal, window)
  // Far more lameness than a farm sees (a few % a year), so that an evaluation has enough episodes to count.
  if (random() < 0.5) {
    const mild = random() < 0.15
    plan.lameness.push({
      onset: uniform(random, window.start, window.end),
      declineMs: uniform(random, 10, 18) * DAY,
      activityFactor: mild ? uniform(random, 0.85, 0.9) : uniform(random, 0.45, 0.8),
      movementFactor: mild ? uniform(random, 0.8, 0.9) : uniform(random, 0.3, 0.7),
    })
  }
  // About one disturbance every 20 days, and one when a sow moves into the farrowing crate.
  for (let t = window.start + uniform(random, 0, 40) * DAY; t < window.end; t += uniform(random, 0, 40) * DAY) {
    plan.disturbances.push({ from: t, to: t + uniform(random, 1, 5) * HOUR, amplitude: uniform(random, 1.5, 3.5) })
  }
  for (const crate of plan.crated) plan.disturbances.push({ from: crate.from, to: crate.from + 3 * HOUR, amplitude: 3 })
  for (let gaps = random() < 0.25 ? (random() < 0.2 ? 2 : 1) : 0; gaps > 0; gaps--) {
    const from = uniform(random, window.start, window.end)
    plan.dropouts.push({ from, to: from + uniform(random, 2, 36) * HOUR })
  }
  if (window.profile === 'rough') addRoughFarmTroubles(plan, animal, window)
  return plan
}

/** The missed-returns farm's share of services that hold, and of returns nobody sees (herd-plan.ts). */
const MISSED_RETURNS_HELD = 2 / 3
const UNSEEN_RETURN_SHARE = 0.5

/** Share of the gilts profile's females that are gilts, and of its sows' weanings the farm did not record. */
const GILT_SHARE = 0.2
const UNRECORDED_WEANING_SHARE = 0.25

/**
 * The gilts profile, from its own random stream (so that the herd is otherwise the default farm's, and a sow's
 * lameness and disturbances stay hers when she is a gilt here): a gilt's cycle replaces the sow's; a sow keeps hers,
 * with some of her weanings unrecorded.
 */
function addGiltsAndUnrecordedWeanings(plan: AnimalPlan, animal: SimulatedAnimal, window: PlanWindow): void {
  const random = prng(seedOf(window.seed, 'gilts', animal.index))
  if (random() >= GILT_SHARE) {
    plan.unrecordedWeanings = plan.weanings.filter(() => random() < UNRECORDED_WEANING_SHARE)
    return
  }
  Object.assign(plan, { farrowings: [], heats: [], services: [], weanings: [], crated: [] })
  // Cycling already when the window starts (puberty at 5-7 months), served at her second to sixth heat here (farms
  // serve gilts at their second or a later oestrus, once old and heavy enough); a return is served again.
  const servedAtHeat = 1 + Math.floor(uniform(random, 1, 6))
  let heat = window.start - uniform(random, 0, 21) * DAY
  let served = false
  for (let n = 1; heat < window.end + 2 * DAY; n++) {
    const amplitude = tieredUniform(random, GILT_HEAT_AMPLITUDES)
    const end = heat + uniform(random, 36, 60) * HOUR
    plan.heats.push({ onset: heat, end, amplitude })
    if (n < servedAtHeat && !served) {
      heat += uniform(random, 18, 24) * DAY
      continue
    }
    served = true
    const service = heat + uniform(random, 12, 24) * HOUR
    plan.services.push(service)
    if (random() < 0.85) {
      // Pregnant: her first farrowing lies past most windows; where it does not, the plan ends at its weaning.
      const onset = service + uniform(random, 113, 117) * DAY
      if (onset < window.end + 2 * DAY) {
        const crate = { from: onset - uniform(random, 3, 7) * DAY, to: onset + uniform(random, 21, 28) * DAY }
        plan.farrowings.push({
          onset,
          nestPeakLeadMs: uniform(random, 5, 14) * HOUR,
          nestDurationMs: uniform(random, 14, 17) * HOUR,
          nestPeakShare: uniform(random, 0.25, 0.5),
        })
        plan.crated.push(crate)
        plan.weanings.push(crate.to)
      }
      break
    }
    heat = service + uniform(random, 18, 24) * DAY
  }
}

const within = (t: number, intervals: readonly Interval[]) => intervals.some((i) => t >= i.from && t < i.to)

/** 0 → 1 → 0 over [from, to], rising and falling over `edge` ms: a heat's envelope. */
function plateau(t: number, from: number, to: number, edge: number): number {
  if (t < from || t >= to) return 0
  return Math.min(1, (t - from) / edge, (to - t) / edge)
}

/** The animal's state at t, as multipliers of its normal behaviour. */
export interface Physiology {
  /** Multiplier of the share of its time the animal is active. */
  activity: number
  /** The least share of its time it is active (nest building), 0 otherwise. */
  restless: number
  /** Multiplier of the chance of being detected away from its home node. */
  movement: number
  /** Added to the pinna temperature, °C. */
  warming: number
  /** The node it lives at now (the farrowing room's while crated). */
  crated: boolean
}

export function physiologyAt(plan: AnimalPlan, farm: FarmPlan, t: number): Physiology {
  const day = Math.floor(t / DAY)
  const hour = (t % DAY) / HOUR
  let activity = plan.dailyFactor(day)
  let restless = 0
  let movement = 1
  let warming = plan.dailyWarmth(day) + (farm.weather.get(day) ?? 0)
  for (const d of plan.disturbances) if (t >= d.from && t < d.to) activity *= d.amplitude
  const late = (farm.lateFeedings.get(day) ?? 0) * HOUR
  for (const feeding of FEEDING_HOURS) {
    const since = t - day * DAY - feeding * HOUR - late
    if (since >= 0 && since < FEEDING_MS) activity *= 3
  }
  if (farm.hotDays.has(day) && hour >= HOT_FROM_HOUR && hour < HOT_TO_HOUR) {
    activity *= 0.6
    warming += 1.2
  }
  const daytime = hour >= 6 && hour < 18
  for (const heat of plan.heats) {
    const level = plateau(t, heat.onset, heat.end, heat.edgeMs ?? 6 * HOUR)
    activity *= 1 + (heat.amplitude - 1) * level * (daytime ? 1 : (heat.nightShare ?? 1))
    warming += 0.25 * level
  }
  const crated = within(t, plan.crated)
  if (crated) {
    activity *= plan.crateActivity
    movement *= 0.3
  }
  for (const f of plan.farrowings) {
    const toOnset = f.onset - t
    if (toOnset > 0 && toOnset < 2 * DAY) {
      // Nest building: a rounded bump peaking nestPeakLeadMs before onset, 60 % of it before the peak.
      const peak = f.onset - f.nestPeakLeadMs
      const from = peak - 0.6 * f.nestDurationMs
      const to = peak + 0.4 * f.nestDurationMs
      if (t >= from && t < to) {
        const phase = t < peak ? (t - from) / (peak - from) : (to - t) / (to - peak)
        restless = Math.max(restless, f.nestPeakShare * Math.sin((phase * Math.PI) / 2))
        if (f.nestFactor !== undefined) activity *= 1 + (f.nestFactor - 1) * Math.sin((phase * Math.PI) / 2)
      } else if (t >= to) {
        activity *= 0.7 // calm in the last hours
      }
      if (toOnset < DAY) warming += 0.5 * (1 - toOnset / DAY)
    } else if (toOnset <= 0 && toOnset > -5 * HOUR) {
      activity *= 0.5 // farrowing: lying on her side
      warming += 0.5
    } else if (toOnset <= -5 * HOUR && crated) {
      // Lactation: lying to nurse, gradually more active until weaning.
      activity *= Math.min(0.85, 0.55 + (-toOnset / (28 * DAY)) * 0.3)
      if (toOnset > -2 * DAY) warming += 0.3
    }
  }
  for (const fever of plan.fevers) {
    if (t < fever.from || t >= fever.to) continue
    activity *= fever.activity
    warming += fever.warmingC
  }
  for (const lame of plan.lameness) {
    if (t < lame.onset) continue
    const progress = Math.min(1, (t - lame.onset) / lame.declineMs)
    activity *= 1 - (1 - lame.activityFactor) * progress
    movement *= 1 - (1 - lame.movementFactor) * progress
  }
  return { activity, restless, movement, warming, crated }
}

export interface SimulationWindow {
  uid: string
  start: number
  end: number
  intervalMs: number
  /** Rows per yielded batch. */
  batchSize: number
  /** Seeds the plans and the noise; default the uid. An evaluation tunes on one seed and measures on another. */
  seed?: string
}

export type SimulatedBatch = { kind: 'sensordata'; rows: SensorRow[] } | { kind: 'locations'; rows: LocationRow[] }

const BOUT_END_PER_MINUTE = 1 / 3

/** The node of the farrowing room, where crated sows are detected. */
export const FARROWING_NODE = 'node-farrowing'

/** One animal's readings over the window, in batches of at most batchSize rows, oldest first. */
export function* simulateReadings(
  animal: SimulatedAnimal,
  window: SimulationWindow,
  plans?: { animal: AnimalPlan; farm: FarmPlan },
): Generator<SimulatedBatch> {
  const seed = window.seed ?? window.uid
  const planWindow = { seed, start: window.start, end: window.end }
  const plan = plans?.animal ?? planAnimal(animal, planWindow)
  const farm = plans?.farm ?? planFarm(planWindow)
  const random = prng(seedOf(seed, 'readings', animal.index))
  const base = 36.6 + random() * 0.8
  const amplitude = 0.5 + random() * 0.3
  const peakHour = 13 + random() * 3
  const stepMinutes = window.intervalMs / MINUTE
  const perStep = (perMinute: number) => 1 - (1 - Math.min(perMinute, 1)) ** stepMinutes
  // Gravity on a lying pig's tag, and the tag's own offset.
  const restVector = [0.05 + gaussian(random) * 0.05, 0.1 + gaussian(random) * 0.05, 0.98]
  const offset = (animal.index * 137) % window.intervalMs
  // A loose tag's swinging has its own stream, so that a herd without loose tags reads as it did.
  const swing = prng(seedOf(seed, 'loose-tag', animal.index))

  let active = false
  let nextLocation = 0
  let sensor: SensorRow[] = []
  let locations: LocationRow[] = []
  const first = Math.ceil((window.start - offset) / window.intervalMs) * window.intervalMs + offset
  for (let t = first; t <= window.end; t += window.intervalMs) {
    const hour = (t % DAY) / HOUR
    const daytime = hour >= 6 && hour < 18
    if (plan.culled !== undefined && t >= plan.culled) break
    const state = physiologyAt(plan, farm, t)

    // Bouts of activity last 3 minutes on average and start at the rate that makes the animal active for the
    // share of its time its state asks for: 12 % by day, 4 % by night, scaled by its state (at most 80 %).
    const share = Math.min(0.8, Math.max(state.restless, (daytime ? 0.12 : 0.04) * state.activity))
    active = active
      ? random() >= perStep(BOUT_END_PER_MINUTE)
      : random() < perStep((BOUT_END_PER_MINUTE * share) / (1 - share))
    if (within(t, plan.dropouts)) continue

    let c =
      base + amplitude * Math.cos(((hour - peakHour) / 24) * 2 * Math.PI) + gaussian(random) * 0.15 + state.warming
    if (active) c += 0.1
    const loose = plan.looseTags.find((l) => t >= l.from && t < l.to)
    if (loose) c -= loose.coolingC
    for (const tag of plan.tagOffsets) if (t >= tag.from) c += tag.offsetC
    c = Math.min(39.5, Math.max(35, c))
    const glitch = random()
    if (glitch < 0.002) c = glitch < 0.0007 ? 0 : glitch < 0.0014 ? 15 + random() * 8 : 44 + random() * 40

    const [x, y, z] = active
      ? [gaussian(random) * 0.25, gaussian(random) * 0.25, 1 + gaussian(random) * 0.25]
      : (restVector.map((v) => v + gaussian(random) * 0.01 + (loose ? gaussian(swing) * loose.jiggleG : 0)) as [
          number,
          number,
          number,
        ])
    sensor.push({ t, c: round(c, 2), x: round(x, 3), y: round(y, 3), z: round(z, 3) })
    if (sensor.length >= window.batchSize) {
      yield { kind: 'sensordata', rows: sensor }
      sensor = []
    }

    if (t >= nextLocation) {
      nextLocation = t + Math.max(LOCATION_EVERY_MS, window.intervalMs)
      const home = random() >= (active ? 0.4 : 0.1) * state.movement
      const homeNode = state.crated ? FARROWING_NODE : animal.homeNode
      locations.push({
        t,
        rssi: round(home ? -58 + gaussian(random) * 4 : -76 + gaussian(random) * 5, 0),
        nodeuid: home ? homeNode : animal.neighbourNode,
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
