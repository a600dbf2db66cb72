// A second herd generator, written apart from herd-simulator.ts so that the scorer can be tuned on one family of
// herds and measured on another. Where herd-simulator.ts scales one activity level, this one follows an ethogram:
// each animal moves through behaviours (lying, standing, feeding, exploring, nest building, fighting) in bouts drawn
// from a time budget that changes with the hour, the feeding times, the ambient temperature and the animal's state,
// and its tag turns each behaviour into samples through the tag's own bias, noise and fit. Sows are managed in
// batches (a batch is weaned on one day and farrows within a few days, in one room), which gives groups in which
// many animals share an event. docs/predictions.md describes both families and their figures. Deterministic per
// seed and animal index.
import { createHash } from 'node:crypto'
import type { LocationRow, SensorRow } from '../modules/readings/readings.schemas.ts'
import { gaussian, prng } from './random.ts'

const MINUTE = 60_000
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR
const LOCATION_EVERY_MS = 5 * MINUTE

const seedOf = (...parts: (string | number)[]) => createHash('sha256').update(parts.join(':')).digest().readUInt32BE(0)
const between = (random: () => number, min: number, max: number) => min + random() * (max - min)
const round = (value: number, digits: number) => Math.round(value * 10 ** digits) / 10 ** digits

export type Behaviour = 'lie' | 'stand' | 'feed' | 'explore' | 'nest' | 'fight'
const BEHAVIOURS: readonly Behaviour[] = ['lie', 'stand', 'feed', 'explore', 'nest', 'fight']
/** Mean bout length per behaviour, minutes (lognormal around it). */
const BOUT_MINUTES: Record<Behaviour, number> = { lie: 35, stand: 5, feed: 12, explore: 4, nest: 6, fight: 2 }
/** Chance that a sample in this behaviour shows the tag moving beyond the scorer's 0.1 g, for a well-fitted tag. */
const MOVING_CHANCE: Record<Behaviour, number> = {
  lie: 0.02,
  stand: 0.2,
  feed: 0.55,
  explore: 0.8,
  nest: 0.75,
  fight: 0.95,
}

export interface EthogramAnimal {
  index: number
  MAC: string
  Sex: 'male' | 'female'
  /** The batch a sow belongs to (its farrowing group), `Gilts`, or `Boars`. */
  Group: string
  gilt: boolean
  batch: number
}

/** The herd: seven batches of sows (a three-week batch system), a gilt pen of about one in eight, a boar in forty. */
export function ethogramHerd(seed: string, count: number): EthogramAnimal[] {
  return Array.from({ length: count }, (_, index) => {
    const bytes = createHash('sha256').update(`${seed}:etho-mac:${index}`).digest().subarray(0, 5)
    const MAC = ['06', ...[...bytes].map((b) => b.toString(16).padStart(2, '0'))].join(':').toUpperCase()
    const boar = index % 40 === 39
    const gilt = !boar && index % 8 === 5
    const batch = index % 7
    return {
      index,
      MAC,
      Sex: boar ? 'male' : 'female',
      Group: boar ? 'Boars' : gilt ? 'Gilts' : `Batch ${batch + 1}`,
      gilt,
      batch,
    }
  })
}

export interface Span {
  from: number
  to: number
}
export interface EthogramFarrowing {
  onset: number
  /** Nest building: its start, its peak and its strength (the share of her time spent nesting at the peak). */
  nestFrom: number
  nestPeak: number
  nestShare: number
  weak: boolean
}
export interface EthogramHeat {
  onset: number
  end: number
  /** Extra share of the non-lying behaviours at the heat's height: 0.3 = 1.3x as active. */
  rise: number
  /** Too weak to see in activity (rise below 0.1): counted apart, not tuned to. */
  silent: boolean
}
export interface EthogramLameness {
  onset: number
  /** Days until the full loss. */
  days: number
  /** Share of the active behaviours lost at full severity. */
  loss: number
}

/** Ground truth, confounders and the farm's records of one animal. */
export interface EthogramPlan {
  farrowings: EthogramFarrowing[]
  heats: EthogramHeat[]
  lameness: EthogramLameness[]
  /** In a farrowing crate (moved 1-9 days before farrowing, out at weaning). */
  crated: Span[]
  /** Fever: less active, warmer ears. */
  fevers: Span[]
  /** Mixed into a new group after weaning: fights for a day or two. */
  mixing: Span[]
  /** The tag hangs loose (swings with every head movement), or was torn off and lies on the floor. */
  looseTag: Span[]
  tornTag: Span[]
  /** The tag sent nothing: hours-long dropouts, and nights when its battery gives out in the cold. */
  dropouts: Span[]
  /** `openChecks`: pregnancy checks that found her open (the missed-returns profile only). */
  records: {
    services: number[]
    weanings: number[]
    births: number[]
    lamenessTreatments: number[]
    openChecks: number[]
  }
}

/** Farm-wide: feeding times, ambient temperature, gateway outages per room. */
export interface EthogramFarm {
  /** Feeding hours (UTC, fractional); the pigs get restless in the half hour before. */
  feedings: number[]
  /** UTC day → minutes the day's feedings came late. */
  lateMinutes: Map<number, number>
  /** UTC day → the day's mean ambient temperature, °C, and its daily swing. */
  ambient: Map<number, { mean: number; swing: number }>
  /** Gateway outages: every tag of the room sends nothing. Rooms: `farrowing`, `service`, `gestation`. */
  outages: { room: string; span: Span }[]
}

export const ETHOGRAM_PROFILES = ['default', 'weak-nesters', 'missed-returns'] as const
export type EthogramProfile = (typeof ETHOGRAM_PROFILES)[number]

export interface EthogramWindow {
  seed: string
  start: number
  end: number
  /**
   * A farm unlike the defaults: every sow a weak nest builder (for per-farm learning); or one where a third of the
   * services fail and nearly half of the returns pass unseen until a scan finds the sow open (for the rules that read
   * a negative check).
   */
  profile?: EthogramProfile
}

export function planEthogramFarm(window: EthogramWindow): EthogramFarm {
  const random = prng(seedOf(window.seed, 'etho-farm'))
  const feedings = random() < 0.5 ? [6.5, 14.5] : [5.5, 11, 16.5]
  const lateMinutes = new Map<number, number>()
  const ambient = new Map<number, { mean: number; swing: number }>()
  let weather = 0
  let wave = 0
  for (let day = Math.floor(window.start / DAY); day <= Math.floor(window.end / DAY) + 1; day++) {
    weather = 0.8 * weather + 1.2 * gaussian(random)
    if (wave <= 0 && random() < 0.03) wave = Math.round(between(random, 2, 5))
    const hot = wave > 0 ? between(random, 5, 9) : 0
    wave--
    ambient.set(day, { mean: 21 + weather + hot, swing: between(random, 2, 7) })
    if (random() < 0.12) lateMinutes.set(day, Math.round(between(random, 30, 180)))
  }
  const outages: { room: string; span: Span }[] = []
  for (const room of ['farrowing', 'service', 'gestation']) {
    for (let t = window.start + between(random, 0, 25) * DAY; t < window.end; t += between(random, 5, 25) * DAY) {
      outages.push({ room, span: { from: t, to: t + between(random, 1, 8) * HOUR } })
    }
  }
  return { feedings, lateMinutes, ambient, outages }
}

/** A batch's farrowing days repeat every 147 days (7 batches x 21 days); batch b farrows 21 b days after batch 0. */
const BATCH_CYCLE_DAYS = 147

export function planEthogramAnimal(animal: EthogramAnimal, window: EthogramWindow): EthogramPlan {
  const random = prng(seedOf(window.seed, 'etho-plan', animal.index))
  const plan: EthogramPlan = {
    farrowings: [],
    heats: [],
    lameness: [],
    crated: [],
    fevers: [],
    mixing: [],
    looseTag: [],
    tornTag: [],
    dropouts: [],
    records: { services: [], weanings: [], births: [], lamenessTreatments: [], openChecks: [] },
  }
  // The farm records every service and farrowing, but four weanings in five (and a birth's hour two times in three).
  const recordsWeanings = random() < 0.8
  const missed =
    window.profile === 'missed-returns' ? prng(seedOf(window.seed, 'etho-missed-returns', animal.index)) : undefined
  const heat = (onset: number, gilt: boolean) => {
    const strength = random()
    const rise = strength < 0.12 ? between(random, 0, 0.08) : between(random, 0.2, gilt ? 0.5 : 0.8)
    const h = { onset, end: onset + between(random, 36, gilt ? 56 : 72) * HOUR, rise, silent: rise < 0.1 }
    plan.heats.push(h)
    return h
  }
  const serve = (h: EthogramHeat) => {
    // One or two inseminations, 12-30 h into the heat (a silent heat is found by the boar, later).
    const first = h.onset + between(random, 12, 30) * HOUR
    plan.records.services.push(first)
    if (random() < 0.6) plan.records.services.push(first + between(random, 12, 20) * HOUR)
    return first
  }
  if (animal.Sex === 'female') {
    // A sow's cycles follow her batch; a gilt cycles every 19-23 days until served at her second or third heat.
    const base = Date.UTC(2025, 0, 1) + animal.batch * 21 * DAY + between(random, -2, 2) * DAY
    let farrowing = animal.gilt
      ? Infinity
      : base + Math.ceil((window.start - 120 * DAY - base) / (BATCH_CYCLE_DAYS * DAY)) * BATCH_CYCLE_DAYS * DAY
    if (animal.gilt) {
      let onset = window.start - between(random, 0, 21) * DAY
      const served = random() < 0.5 ? 2 : 3
      for (let n = 1; n <= served && onset < window.end + 3 * DAY; n++) {
        const h = heat(onset, true)
        if (n === served) {
          farrowing = serve(h) + between(random, 112, 118) * DAY
          break
        }
        onset += between(random, 19, 23) * DAY
      }
    }
    while (farrowing < window.end + 3 * DAY) {
      farrowing += between(random, -1.5, 1.5) * DAY
      const weak = window.profile === 'weak-nesters' || random() < 0.2
      const short = random() < 0.15
      const length = short ? between(random, 4, 8) : between(random, 8, 22)
      const lead = between(random, 2, Math.min(16, length))
      plan.farrowings.push({
        onset: farrowing,
        nestFrom: farrowing - lead * HOUR - (length - Math.min(length, lead)) * HOUR,
        nestPeak: farrowing - lead * HOUR + Math.min(length, lead) * 0.4 * HOUR,
        nestShare:
          window.profile === 'weak-nesters'
            ? between(random, 0.08, 0.2)
            : weak
              ? between(random, 0.06, 0.15)
              : between(random, 0.2, 0.55),
        weak,
      })
      plan.records.births.push(random() < 2 / 3 ? farrowing : Math.floor(farrowing / DAY) * DAY + 12 * HOUR)
      // Crates: the whole batch moves 1-9 days before its first farrowing is due (late moves included).
      plan.crated.push({ from: farrowing - between(random, 1, 9) * DAY, to: farrowing + between(random, 24, 28) * DAY })
      const weaning = plan.crated.at(-1)!.to
      if (recordsWeanings) plan.records.weanings.push(weaning)
      plan.mixing.push({ from: weaning + between(random, 0, 1) * DAY, to: weaning + between(random, 1.5, 3) * DAY })
      let onset = weaning + between(random, 3.5, 7) * DAY
      for (;;) {
        const h = heat(onset, false)
        const service = serve(h)
        if (random() < (missed ? 0.65 : 0.86)) {
          farrowing = service + between(random, 112, 118) * DAY
          break
        }
        onset = service + between(random, 18, 24) * DAY
        if (missed && missed() < 0.45) {
          // Her return passed unseen: not served; the scan finds her open before her next heat.
          heat(onset, false)
          plan.records.openChecks.push(Math.floor(service / DAY) * DAY + Math.round(between(missed, 26, 31)) * DAY)
          onset += between(random, 19, 23) * DAY
        }
        if (onset > window.end + 3 * DAY) {
          farrowing = Infinity
          break
        }
      }
    }
  }
  // Lameness: mostly gradual (1-3 weeks to its worst), some acute (a day or two); treated 2-8 days after onset.
  if (random() < 0.35) {
    const acute = random() < 0.2
    const onset = between(random, window.start, window.end)
    plan.lameness.push({
      onset,
      days: acute ? between(random, 1, 2) : between(random, 6, 20),
      loss: between(random, 0.25, 0.6),
    })
    plan.records.lamenessTreatments.push(onset + between(random, 2, 8) * DAY)
  }
  if (random() < 0.08) {
    const from = between(random, window.start, window.end)
    plan.fevers.push({ from, to: from + between(random, 2, 5) * DAY })
  }
  // Tags: one in twelve comes loose for days; one in forty is torn off and lies on the floor until replaced.
  if (random() < 1 / 12) {
    const from = between(random, window.start, window.end)
    plan.looseTag.push({ from, to: from + between(random, 2, 10) * DAY })
  }
  if (random() < 1 / 40) {
    const from = between(random, window.start, window.end)
    plan.tornTag.push({ from, to: from + between(random, 1, 4) * DAY })
  }
  // Dropouts: hours-long gaps for one tag in four; nights without data for a week for one in fifteen.
  if (random() < 0.25) {
    const from = between(random, window.start, window.end)
    plan.dropouts.push({ from, to: from + between(random, 3, 20) * HOUR })
  }
  if (random() < 1 / 15) {
    const first = Math.floor(between(random, window.start, window.end) / DAY) * DAY
    for (let d = 0; d < 7; d++) plan.dropouts.push({ from: first + d * DAY - 2 * HOUR, to: first + d * DAY + 5 * HOUR })
  }
  return plan
}

const inSpan = (t: number, spans: readonly Span[]) => spans.some((s) => t >= s.from && t < s.to)

/** The ambient temperature at t: the day's mean plus a swing peaking at 15:00 UTC. */
export function ambientAt(farm: EthogramFarm, t: number): number {
  const day = farm.ambient.get(Math.floor(t / DAY)) ?? { mean: 21, swing: 4 }
  return day.mean + (day.swing / 2) * Math.cos((((t % DAY) / HOUR - 15) / 24) * 2 * Math.PI)
}

/** The time budget at t: the weight of each behaviour (they need not sum to 1), and the ear's warming, °C. */
export function budgetAt(
  plan: EthogramPlan,
  farm: EthogramFarm,
  t: number,
  personal: { dayShare: number; nightShare: number },
): { weights: Record<Behaviour, number>; warming: number } {
  const hour = (t % DAY) / HOUR
  const day = Math.floor(t / DAY)
  const night = hour < 5 || hour >= 21
  let active = night ? personal.nightShare : personal.dayShare
  const weights: Record<Behaviour, number> = { lie: 0, stand: 0.45, feed: 0, explore: 0.55, nest: 0, fight: 0 }
  let warming = 0
  const crated = inSpan(t, plan.crated)
  // Feeding: about 40 minutes at each feeding time, restlessness in the half hour before it (longer when late).
  const late = (farm.lateMinutes.get(day) ?? 0) / 60
  for (const f of farm.feedings) {
    const since = hour - f - late
    if (since >= 0 && since < 0.7) weights.feed = 2.5
    else if (since >= -0.5 - late && since < 0) active *= 1.8
  }
  const ambient = ambientAt(farm, t)
  if (ambient > 25) active *= Math.max(0.5, 1 - 0.06 * (ambient - 25))
  warming += 0.12 * (ambient - 21)
  if (crated) {
    weights.explore = 0.1
    active *= 0.8
  }
  for (const h of plan.heats) {
    if (t < h.onset - 6 * HOUR || t >= h.end) continue
    // Restlessness builds over the 6 h before and the first 12 h, then eases towards the end.
    const level = Math.min(1, (t - h.onset + 6 * HOUR) / (18 * HOUR), (h.end - t) / (12 * HOUR))
    active *= 1 + h.rise * level
    warming += 0.2 * level
  }
  let nest = 0
  for (const f of plan.farrowings) {
    if (t >= f.nestFrom && t < f.onset) {
      const rising = t < f.nestPeak
      const phase = rising ? (t - f.nestFrom) / (f.nestPeak - f.nestFrom) : (f.onset - t) / (f.onset - f.nestPeak)
      nest = Math.max(nest, f.nestShare * Math.max(0, Math.min(1, phase)) ** 0.7)
    }
    if (t >= f.onset - DAY && t < f.onset) warming += 0.4 * (1 - (f.onset - t) / DAY)
    if (t >= f.onset && t < f.onset + 6 * HOUR) {
      active *= 0.3
      warming += 0.4
    } else if (t >= f.onset && inSpan(t, plan.crated)) {
      active *= 0.55 + 0.35 * Math.min(1, (t - f.onset) / (25 * DAY))
    }
  }
  for (const l of plan.lameness) {
    if (t >= l.onset) active *= 1 - l.loss * Math.min(1, (t - l.onset) / (l.days * DAY))
  }
  if (inSpan(t, plan.fevers)) {
    active *= 0.6
    warming += 1.3
  }
  if (inSpan(t, plan.mixing)) weights.fight = night ? 0.02 : 0.08
  const moving = Math.min(0.85, active)
  weights.stand *= moving
  weights.explore *= moving
  weights.feed *= moving > 0 ? Math.min(1, 0.06 + moving) : 0
  // Nest building replaces lying and standing: her share of time nesting is at least `nest`.
  weights.nest = nest
  weights.lie = Math.max(0.05, 1 - moving - nest - weights.feed * 0.1)
  return { weights, warming }
}

/** The share of time each behaviour takes is its weight; a bout's next behaviour is drawn by weight / bout length. */
function nextBehaviour(random: () => number, weights: Record<Behaviour, number>): Behaviour {
  let total = 0
  for (const b of BEHAVIOURS) total += weights[b] / BOUT_MINUTES[b]
  let pick = random() * total
  for (const b of BEHAVIOURS) {
    pick -= weights[b] / BOUT_MINUTES[b]
    if (pick <= 0) return b
  }
  return 'lie'
}

export interface EthogramReadingsOptions {
  seed: string
  start: number
  end: number
  intervalMs: number
}

/** The room a sow is in at t (its gateway): farrowing while crated, service after weaning until served, else gestation. */
function roomAt(plan: EthogramPlan, t: number): string {
  if (inSpan(t, plan.crated)) return 'farrowing'
  const service = plan.records.services.filter((s) => s <= t).at(-1)
  return service === undefined || t - service < 28 * DAY ? 'service' : 'gestation'
}

/** One animal's sensor and location rows over the window, oldest first. */
export function ethogramReadings(
  animal: EthogramAnimal,
  plan: EthogramPlan,
  farm: EthogramFarm,
  options: EthogramReadingsOptions,
): { sensor: SensorRow[]; locations: LocationRow[] } {
  const random = prng(seedOf(options.seed, 'etho-readings', animal.index))
  const personal = { dayShare: between(random, 0.15, 0.3), nightShare: between(random, 0.03, 0.08) }
  // The tag: its accelerometer's rest vector and noise, its temperature offset (a tag off the skin reads low).
  const tilt = [gaussian(random) * 0.08, gaussian(random) * 0.08]
  const rest = [
    tilt[0]!,
    tilt[1]!,
    Math.sqrt(Math.max(0, 1 - tilt[0]! ** 2 - tilt[1]! ** 2)) * between(random, 0.98, 1.03),
  ]
  const noise = random() < 0.1 ? between(random, 0.025, 0.04) : between(random, 0.004, 0.015)
  const tempBias = random() < 0.15 ? between(random, -2.5, -0.8) : between(random, -0.4, 0.4)
  const looseGap = -between(random, 0.8, 2)
  const core = 38.3 + between(random, -0.3, 0.3)
  const sensor: SensorRow[] = []
  const locations: LocationRow[] = []
  let behaviour: Behaviour = 'lie'
  let boutEnds = options.start
  let nextLocation = options.start
  for (let t = options.start; t < options.end; t += options.intervalMs) {
    const { weights, warming } = budgetAt(plan, farm, t, personal)
    if (t >= boutEnds) {
      behaviour = nextBehaviour(random, weights)
      boutEnds = t + BOUT_MINUTES[behaviour] * MINUTE * Math.exp(0.6 * gaussian(random) - 0.18)
    }
    const room = roomAt(plan, t)
    if (inSpan(t, plan.dropouts) || farm.outages.some((o) => o.room === room && t >= o.span.from && t < o.span.to))
      continue
    const torn = inSpan(t, plan.tornTag)
    const loose = inSpan(t, plan.looseTag)
    let chance = torn ? 0.005 : MOVING_CHANCE[behaviour]
    if (loose) chance = Math.min(0.97, chance * 2.5 + 0.12)
    const moving = random() < chance
    const [x, y, z] = moving
      ? [gaussian(random) * 0.3, gaussian(random) * 0.3, 1 + gaussian(random) * 0.3]
      : [rest[0]! + gaussian(random) * noise, rest[1]! + gaussian(random) * noise, rest[2]! + gaussian(random) * noise]
    // The ear: core temperature less the skin gradient (wider when cold), plus the tag's offset; a torn tag reads the air.
    const ambient = ambientAt(farm, t)
    let c = torn
      ? ambient + gaussian(random) * 0.3
      : core -
        2 +
        0.1 * (ambient - 21) +
        warming +
        tempBias +
        (loose ? looseGap : 0) +
        (behaviour === 'lie' ? 0.1 : 0) +
        gaussian(random) * 0.2
    if (random() < 0.001) c = random() < 0.5 ? -1 : 60 + random() * 20
    sensor.push({ t, c: round(c, 2), x: round(x, 3), y: round(y, 3), z: round(z, 3) })
    if (t >= nextLocation) {
      nextLocation = t + LOCATION_EVERY_MS
      const roaming = behaviour === 'explore' || behaviour === 'fight' ? 0.35 : behaviour === 'feed' ? 0.5 : 0.06
      const lame = plan.lameness.reduce(
        (f, l) => (t >= l.onset ? f * (1 - l.loss * Math.min(1, (t - l.onset) / (l.days * DAY))) : f),
        1,
      )
      const away = random() < roaming * lame * (room === 'farrowing' ? 0.2 : 1)
      const node = `${room}-${away ? 'feeder' : animal.batch % 3}`
      locations.push({
        t,
        rssi: round(away ? -74 + gaussian(random) * 5 : -60 + gaussian(random) * 4, 0),
        nodeuid: node,
      })
    }
  }
  return { sensor, locations }
}
