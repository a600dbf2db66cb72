// A third family of simulated pig herds, written apart from the other two and from the alarm scorer: sows living whole
// reproductive cycles in a batch system, gilts cycling until served, a few boars, and the farm's routines, weather and
// tag faults that the alarms must tell apart from births, heats and lameness. Behaviour reaches the ear tag through one
// quantity, the chance that the head is moving at an instant; body heat reaches it through the ear skin, which follows
// the room's air in part.
import type { AnimalTruth, Span } from './ground-truth.ts'
import { gaussian, prng, seedOf, tieredUniform, uniform, type Tiers } from './random.ts'

/** The herd to simulate: its seed (the same seed gives the same herd), its size, its window [start, end) in ms, and
 * the tag's sampling interval. */
export type BarnOptions = { seed: string; animals: number; start: number; end: number; intervalMs: number }

/** One animal: who she is, what truly happened in the window, the farm's records and her tag's readings. */
export interface BarnAnimal extends AnimalTruth {
  records: BarnRecords
  /** One sample per interval, oldest first: ear-skin temperature (°C) and acceleration (g). */
  sensor: { t: number; c: number; x: number; y: number; z: number }[]
  /** The receiver node that heard the tag, every few minutes, oldest first. */
  locations: { t: number; rssi: number; nodeuid: string }[]
}

/** The farm's records: instants (ms) of services, weanings, births (farrowing onsets), return heats seen without
 * service and lameness treatments, and the results of pregnancy scans. */
export type BarnRecords = Record<'services' | 'weanings' | 'births' | 'returns' | 'treatments', number[]> & {
  checks: { at: number; result: 'pregnant' | 'open' }[]
}

type Random = () => number
type Records = BarnRecords
type Role = 'sow' | 'gilt' | 'boar'
type Housing = 'stall' | 'pen' | 'crate' | 'boar-pen'
type Vector = readonly [number, number, number]
type Fever = Span & { rise: number }
type Stay = { from: number; room: string; housing: Housing; slot: number; mixing: boolean }
type Heat = { onset: number; end: number; silent: boolean; amplitude: number }
type Lameness = { onset: number; severity: number; rampMs: number; recovery: Span; inflamed: boolean }
type Farrowing = ReturnType<typeof planFarrowing>['farrowing']
type Life = { stays: Stay[]; heats: Heat[]; farrowings: Farrowing[]; fevers: Fever[]; records: Records; leftAt: number }
type Member = { index: number; role: Role; batch: number; parity: number; gestationOffset: number }
type Farm = ReturnType<typeof planFarm>
type AnimalPlan = ReturnType<typeof planAnimal>
type Moment = ReturnType<typeof momentAt>

const MINUTE_MS = 60_000
const HOUR_MS = 60 * MINUTE_MS
const DAY_MS = 24 * HOUR_MS
const DETECTION_MS = 5 * MINUTE_MS
const SLOTS = 24
const minutes = (n: number) => Math.round(n * MINUTE_MS)
const hours = (n: number) => Math.round(n * HOUR_MS)
const days = (n: number) => Math.round(n * DAY_MS)
const dayStart = (t: number) => Math.floor(t / DAY_MS) * DAY_MS
const clamp = (value: number, low: number, high: number) => Math.min(high, Math.max(low, value))
const ramp = (t: number, from: number, to: number) => (t <= from ? 0 : t >= to ? 1 : (t - from) / (to - from))
const chance = (random: Random, share: number) => random() < share
const within = (t: number, span: Span) => t >= span.from && t < span.to
const round = (value: number, decimals: number) => Math.round(value * 10 ** decimals) / 10 ** decimals
const pick = <T>(random: Random, items: readonly T[]) => items[Math.floor(random() * items.length)]!
/** Tiers for tieredUniform, written row by row: share up to, min, max. */
const tiers = (...rows: [upTo: number, min: number, max: number][]): Tiers => rows
const noRecords = (): Records => ({ services: [], weanings: [], births: [], checks: [], returns: [], treatments: [] })
function newLife(): Life {
  return { stays: [], heats: [], farrowings: [], fevers: [], records: noRecords(), leftAt: Infinity }
}
const BOAR_PEN: Stay = { from: -Infinity, room: 'Boars', housing: 'boar-pen', slot: 0, mixing: false }

/** A slowly wandering level (AR(1)), one value a day. */
function wandering(random: Random, length: number, keep: number, step: number): number[] {
  const levels: number[] = []
  for (let level = 0; levels.length < length; level = keep * level + step * gaussian(random)) levels.push(level)
  return levels
}

const windowDays = (start: number, end: number) => Math.ceil((end - start) / DAY_MS) + 1
function withRise(random: Random, span: Span, low: number, high: number): Fever {
  return { ...span, rise: uniform(random, low, high) }
}

/** A shape through keyframes (instants in order, a value at each), straight between them, zero outside them. */
function keyframes(t: number, instants: readonly number[], values: readonly number[]): number {
  const next = instants.findIndex((instant) => instant > t)
  if (next <= 0) return 0
  return values[next - 1]! + (values[next]! - values[next - 1]!) * ramp(t, instants[next - 1]!, instants[next]!)
}

/** One span starting at random in [start, end), lasting a number of days in [minDays, maxDays). */
function spanOf(random: Random, start: number, end: number, minDays: number, maxDays: number): Span {
  const from = start + days(random() * Math.max(0, (end - start) / DAY_MS - minDays))
  return { from, to: from + days(uniform(random, minDays, maxDays)) }
}

/** Rare interruptions: one every `everyDays` on average, lasting hours drawn from tiers. */
function interruptions(random: Random, start: number, end: number, everyDays: number, lengths: Tiers): Span[] {
  const starts = Array.from({ length: windowDays(start, end) }, (_, day) => start + days(day + random()))
  const lasting = (from: number) => ({ from, to: from + hours(tieredUniform(random, lengths)) })
  return starts.filter(() => chance(random, 1 / everyDays)).map(lasting)
}

// ---------------------------------------------------------------- the farm

const FARROWING_LETTERS = 'ABCDE'
const ROOM_SETPOINTS: Record<string, number> = { Service: 20, Gestation: 18.5, Farrowing: 22.5, Gilts: 17.5, Boars: 17 }
const OUTAGE_HOURS = tiers([0.6, 1, 3], [0.95, 3, 10], [1, 10, 30])

/** A room's gateway outages, its ventilation faults, and how late each of its meals comes, day by day. */
function planRoom(seed: string, room: string, start: number, end: number, meals: number) {
  const random = prng(seedOf(seed, 'barn-room', room))
  const outages = interruptions(random, start, end, 25, OUTAGE_HOURS)
  const overheats = chance(random, 0.25) ? [withRise(random, spanOf(random, start, end, 1, 3), 3, 7)] : []
  const late = () => minutes(chance(random, 0.85) ? 3 * gaussian(random) : uniform(random, 15, 90))
  const mealDelays = Array.from({ length: windowDays(start, end) }, () => Array.from({ length: meals }, late))
  return { outages, overheats, mealDelays, setpoint: ROOM_SETPOINTS[room.split(' ')[0]!] ?? 19 }
}

function planFarm(seed: string, start: number, end: number) {
  const random = prng(seedOf(seed, 'barn-farm'))
  const weekly = chance(random, 0.3)
  const rhythm = { batchDays: weekly ? 7 : 21, cycleDays: 147, farrowingRooms: weekly ? 5 : 2 }
  const anchor = dayStart(start) - days(rhythm.cycleDays + Math.floor(random() * 7)) + hours(9)
  const mealMinutes = chance(random, 0.5) ? [450, 930] : [390, 720, 1080]
  const checkMinutes = [uniform(random, 450, 510), uniform(random, 870, 930)]
  const serviceHousing: Housing = chance(random, 0.6) ? 'stall' : 'pen'
  const husbandry = { serviceHousing, gestationDays: uniform(random, 114.3, 116), moveLeadDays: uniform(random, 2, 7) }
  const weather = wandering(random, windowDays(start, end) + 1, 0.75, 2.2)
  const warmSpell = chance(random, 0.35) ? withRise(random, spanOf(random, start, end, 3, 6), 6, 10) : undefined
  const farrowing = [...FARROWING_LETTERS.slice(0, rhythm.farrowingRooms)].map((letter) => `Farrowing ${letter}`)
  const names = ['Service', 'Gestation 1', 'Gestation 2', ...farrowing, 'Gilts', 'Boars']
  const rooms = new Map(names.map((room) => [room, planRoom(seed, room, start, end, mealMinutes.length)]))
  const outbreakRoom = pick(random, names.slice(0, 3))
  const outbreak = chance(random, 0.3) ? { room: outbreakRoom, ...spanOf(random, start, end, 3, 3) } : undefined
  const routine = { mealMinutes, checkMinutes, weaningRecordShare: uniform(random, 0.9, 1) }
  const identity = { seed, start, end, nodeUids: new Map<string, string>() }
  return { ...identity, anchor, ...rhythm, ...husbandry, ...routine, weather, warmSpell, rooms, outbreak }
}

/** The latest instant of the farm's batch rhythm (anchor + offset + k batch intervals) at or before t. */
const batchInstantBefore = (farm: Farm, t: number, offsetMs: number) =>
  farm.anchor + offsetMs + Math.floor((t - farm.anchor - offsetMs) / days(farm.batchDays)) * days(farm.batchDays)

/** Room air: the ventilation's setpoint, pulled by the weather outside, plus any fault that overheats the room. */
function ambientTemperature(farm: Farm, room: string, t: number): number {
  const position = clamp((t - farm.start) / DAY_MS, 0, farm.weather.length - 1.001)
  const day = Math.floor(position)
  const swing = farm.weather[day]! + (farm.weather[day + 1]! - farm.weather[day]!) * (position - day)
  const diurnal = 4 * Math.cos((2 * Math.PI * (t - hours(15))) / DAY_MS)
  const outdoor = 3 + swing + diurnal + (farm.warmSpell && within(t, farm.warmSpell) ? farm.warmSpell.rise : 0)
  const { overheats, setpoint } = farm.rooms.get(room)!
  const overheat = overheats.find((fault) => within(t, fault))
  const fault = overheat ? overheat.rise * ramp(t, overheat.from, overheat.from + hours(6)) : 0
  return setpoint + 0.15 * (outdoor - 3) + fault
}

// ---------------------------------------------------------------- one female's life

// The last tier of weaning-to-oestrus days stands for sows that do not come into heat at all (anoestrus).
const WEANING_TO_OESTRUS_DAYS = tiers([0.8, 3.5, 5.5], [0.92, 5.5, 8], [0.97, 8, 20], [1, 90, 90])
const CYCLE_DAYS = tiers([0.85, 19, 23], [1, 17, 26])
const EXPULSION_HOURS = tiers([0.8, 2, 5], [1, 5, 9])
const RETURN_DAYS = tiers([0.7, 18, 24], [0.9, 25, 45], [1, 50, 70])

/** A standing heat: its length, and how much restlessness shows (a silent heat hardly any). */
function planHeat(random: Random, onset: number, kind: 'weaning' | 'return' | 'gilt', weaningDays: number): Heat {
  // Heats after a short weaning-to-oestrus interval last longer.
  const [shortest, longest] = kind === 'gilt' ? [32, 50] : weaningDays < 4.5 ? [50, 68] : [38, 56]
  const silent = chance(random, kind === 'gilt' ? 0.22 : 0.08)
  const amplitude = silent ? uniform(random, 1, 1.12) : tieredUniform(random, tiers([0.3, 1.3, 1.7], [1, 1.7, 2.8]))
  return { onset, end: onset + hours(uniform(random, shortest, longest)), silent, amplitude }
}

/** The inseminations of a heat: at the first boar check that shows her standing, and often again a day later. */
function inseminations(farm: Farm, random: Random, heat: Heat): number[] {
  if (!chance(random, heat.silent ? 0.5 : 0.95)) return []
  const seen = heat.onset + hours(uniform(random, 0, 8))
  const checks = [0, 1].flatMap((day) => farm.checkMinutes.map((m) => dayStart(seen) + days(day) + minutes(m)))
  const first = checks.find((check) => check >= seen)! + minutes(uniform(random, 10, 120))
  if (first >= heat.end) return []
  const second = first + hours(uniform(random, 22, 26))
  return second < heat.end + hours(6) && chance(random, 0.75) ? [first, second] : [first]
}

/** A farrowing after a service that held: when the first piglet comes (mostly evening or night), when she is moved
 * into a crate (with her batch, or late), how she builds her nest, and when her litter is weaned. */
function planFarrowing(farm: Farm, random: Random, servedAt: number, gestationOffset: number) {
  const gestation = clamp(farm.gestationDays + gestationOffset + 0.6 * gaussian(random), 112, 118)
  const onset = dayStart(servedAt + days(gestation)) + hours(tieredUniform(random, tiers([0.6, 16, 28], [1, 4, 16])))
  const expected = servedAt + days(farm.gestationDays)
  const batchMove = batchInstantBefore(farm, expected - days(1), days(5 + farm.gestationDays - farm.moveLeadDays))
  let movedAt = expected - batchMove > days(11) ? expected - days(uniform(random, 3, 7)) : batchMove
  if (movedAt > onset - hours(4) || chance(random, 0.06)) movedAt = onset - hours(uniform(random, 2, 30))
  const nestHours = tieredUniform(random, tiers([0.7, 14, 28], [0.9, 8, 14], [1, 3, 8]))
  const nestStrength = tieredUniform(random, tiers([0.15, 0.04, 0.12], [1, 0.12, 0.45]))
  const batchWeaning = batchInstantBefore(farm, onset + days(21), 0) + days(farm.batchDays)
  const weanedAt = batchWeaning - onset > days(35) ? onset + days(uniform(random, 24, 28)) : batchWeaning
  const [calmMs, expulsionMs] = [hours(uniform(random, 0.5, 3)), hours(tieredUniform(random, EXPULSION_HOURS))]
  const weak = nestStrength < 0.12 || nestHours < 8
  const farrowing = { onset, weak, nestFrom: onset - hours(nestHours), nestStrength, calmMs, expulsionMs, weanedAt }
  const letter = FARROWING_LETTERS[Math.floor((movedAt - farm.anchor) / days(farm.batchDays)) % farm.farrowingRooms]
  return { farrowing, movedAt, room: `Farrowing ${letter}` }
}

/** A female's cycles from a weaning (sows) or a heat (gilts) before the window until she leaves or the window ends. */
function liveFemale(farm: Farm, member: Member, attempt: number): Life {
  const random = prng(seedOf(farm.seed, 'barn-life', member.index, attempt))
  const life = newLife()
  const { records } = life
  const enter = (from: number, room: string, housing: Housing, mixing: boolean) =>
    life.stays.push({ from, room, housing, mixing, slot: Math.floor(random() * SLOTS) })
  const enterService = (at: number) => enter(at, 'Service', farm.serviceHousing, farm.serviceHousing === 'pen')
  const leave = (at: number): undefined => void (life.leftAt = Math.min(life.leftAt, at))
  const gilt = member.role === 'gilt'
  const servableFrom = !gilt ? -Infinity : chance(random, 0.55) ? farm.start + days(uniform(random, 0, 60)) : Infinity
  let parity = member.parity

  const serveUntilPregnant = (firstOnset: number, weaningDays: number): number | undefined => {
    let onset = firstOnset
    let kind: 'weaning' | 'return' | 'gilt' = gilt ? 'gilt' : 'weaning'
    let openScan = Infinity
    for (let failures = 0; onset < Math.min(farm.end, life.leftAt); kind = kind === 'gilt' ? kind : 'return') {
      if (openScan < onset) {
        records.checks.push({ at: openScan, result: 'open' })
        // Found open: most get another chance; open a third time, she is culled.
        if (chance(random, failures >= 3 ? 1 : 0.25)) return leave(openScan + days(uniform(random, 1, 7)))
        openScan = Infinity
      }
      const heat = planHeat(random, onset, kind, weaningDays)
      life.heats.push(heat)
      const served = onset >= servableFrom ? inseminations(farm, random, heat) : []
      onset = heat.onset + days(tieredUniform(random, CYCLE_DAYS))
      if (served.length === 0) continue
      const servedAt = served[0]!
      if (kind === 'return' && chance(random, 0.12)) {
        records.returns.push(servedAt)
        if (chance(random, 0.3)) leave(servedAt + days(uniform(random, 1, 5)))
        continue
      }
      records.services.push(...served)
      const scanAt = servedAt + days(uniform(random, 24, 35))
      const conception = 0.87 - (parity <= 1 ? 0.05 : 0) - (heat.silent ? 0.1 : 0) - (served.length === 1 ? 0.05 : 0)
      openScan = Infinity
      if (!chance(random, conception)) {
        failures++
        openScan = scanAt
        onset = heat.onset + days(tieredUniform(random, RETURN_DAYS))
        continue
      }
      if (chance(random, 0.93)) records.checks.push({ at: scanAt, result: 'pregnant' })
      const gestationRoom = `Gestation ${1 + (Math.floor(servedAt / days(farm.batchDays)) % 2)}`
      enter(servedAt + days(uniform(random, 27, 35)), gestationRoom, 'pen', true)
      // A few lose the litter after the scan and come back in heat weeks later.
      if (!chance(random, 0.025)) return servedAt
      onset = servedAt + days(uniform(random, 40, 65))
    }
    if (openScan < farm.end) records.checks.push({ at: openScan, result: 'open' })
    return undefined
  }

  let weanedAt = farm.anchor + days(member.batch * farm.batchDays)
  let weaningDays = gilt ? 5 : tieredUniform(random, WEANING_TO_OESTRUS_DAYS)
  let onset = gilt ? farm.start - days(uniform(random, 0, 21)) : weanedAt + days(weaningDays)
  if (gilt) {
    enter(farm.anchor, 'Gilts', 'pen', false)
    if (servableFrom < farm.end) enterService(servableFrom)
  } else {
    records.births.push(weanedAt - days(uniform(random, 20, 28)))
    records.weanings.push(weanedAt)
    enterService(weanedAt)
  }
  for (;;) {
    // Anoestrous after weaning: the farm gives up on her.
    if (weaningDays > 30) return leave(weanedAt + days(uniform(random, 35, 50))) ?? life
    const servedAt = serveUntilPregnant(onset, weaningDays)
    if (servedAt === undefined) return life
    const { farrowing, movedAt, room } = planFarrowing(farm, random, servedAt, member.gestationOffset)
    if (movedAt >= Math.min(farm.end, life.leftAt)) return life
    enter(movedAt, room, 'crate', false)
    if (farrowing.onset >= farm.end) return life
    life.farrowings.push(farrowing)
    records.births.push(farrowing.onset)
    const puerperium = spanOf(random, farrowing.onset + hours(4), farrowing.onset + days(2), 1, 3)
    if (chance(random, 0.1)) life.fevers.push(withRise(random, puerperium, 0.8, 1.6))
    weanedAt = farrowing.weanedAt
    if (weanedAt >= farm.end) return life
    if (chance(random, farm.weaningRecordShare)) records.weanings.push(weanedAt)
    if (chance(random, ++parity >= 7 ? 0.35 : 0.04)) return leave(weanedAt + hours(uniform(random, 2, 48))) ?? life
    enterService(weanedAt)
    weaningDays = tieredUniform(random, WEANING_TO_OESTRUS_DAYS) + (parity <= 1 ? 0.5 : 0)
    onset = weanedAt + days(weaningDays)
  }
}

// ---------------------------------------------------------------- health, tag and temperament

const DROPOUT_HOURS = tiers([0.7, 1, 4], [0.95, 4, 12], [1, 12, 36])
// Gravity in the tag's frame (unit vectors) as the sow holds her head.
const STANDING: Vector = [0.15, -0.25, 0.96]
const ON_CHEST: Vector = [0.35, -0.55, 0.76]
const ON_SIDE: Vector = [0.92, 0.2, 0.34]

/** The tag's flaws: temperature bias and noise, accelerometer noise and gain, glitches, and its spells of trouble. */
function planTag(farm: Farm, index: number) {
  const random = prng(seedOf(farm.seed, 'barn-tag', index))
  const { start, end } = farm
  const odd = (share: number, low: number, high: number) => (chance(random, share) ? uniform(random, low, high) : 0)
  const torn = spanOf(random, start, end, 1, 10)
  const bias = 0.3 * gaussian(random) + (chance(random, 0.5) ? -1 : 1) * odd(0.06, 1, 2.5)
  const temperatureNoise = odd(0.06, 0.15, 0.35) + uniform(random, 0.04, 0.08)
  const accelerationNoise = odd(0.06, 0.025, 0.045) + uniform(random, 0.008, 0.015)
  const gain = 1 + 0.01 * gaussian(random) + odd(0.03, -0.08, 0.08)
  const flaws = { bias, temperatureNoise, accelerationNoise, gain, glitchShare: uniform(random, 0.0005, 0.003) }
  const loose = chance(random, 0.07) ? [withRise(random, spanOf(random, start, end, 3, 25), 0.06, 0.14)] : []
  const spells = { loose, torn: chance(random, 0.04) ? [chance(random, 0.3) ? { ...torn, to: end } : torn] : [] }
  const dropouts = interruptions(random, start, end, 15, DROPOUT_HOURS)
  return { ...flaws, ...spells, dropouts, rssiOffset: 3 * gaussian(random) }
}

/** The animal's temperament and build: how busy she is, how she takes meals, how warm her ear runs. */
function planTraits(farm: Farm, member: Member) {
  const random = prng(seedOf(farm.seed, 'barn-traits', member.index))
  const stereotypy = chance(random, 0.2) ? uniform(random, 0.1, 0.25) : 0
  const busyness = { level: Math.exp(0.3 * gaussian(random)), mealSensitivity: uniform(random, 0.5, 1.4), stereotypy }
  const movement = { vigour: uniform(random, 0.15, 0.3), boutMs: minutes(uniform(random, 2, 7)) }
  const coreOffset = 0.15 * gaussian(random) - (member.role === 'boar' ? 0.2 : 0)
  const dayFactors = wandering(random, farm.weather.length, 0.6, 0.12).map(Math.exp)
  return { ...busyness, ...movement, coupling: uniform(random, 0.82, 0.92), coreOffset, dayFactors }
}

/** Lameness (gradual, sometimes treated, sometimes culled), background fevers and a room's outbreak. */
function planHealth(farm: Farm, member: Member, life: Life): Lameness[] {
  const random = prng(seedOf(farm.seed, 'barn-health', member.index))
  const { start, end, outbreak } = farm
  if (chance(random, 0.12)) life.fevers.push(withRise(random, spanOf(random, start, end, 1, 4), 0.9, 1.8))
  const stay = outbreak && life.stays.findLast((candidate) => candidate.from <= outbreak.from)
  if (outbreak && stay?.room === outbreak.room && chance(random, 0.6))
    life.fevers.push(withRise(random, spanOf(random, outbreak.from, outbreak.to, 1, 3), 0.8, 1.6))
  if (member.role === 'boar' || !chance(random, 0.1)) return []
  const onset = start + days(random() * ((end - start) / DAY_MS - 1))
  const severe = chance(random, 0.4)
  const treatedAt = chance(random, 0.6) ? onset + days(uniform(random, 1, 6)) : undefined
  if (treatedAt !== undefined) life.records.treatments.push(treatedAt)
  const recoveryFrom = treatedAt ?? (chance(random, 0.4) ? onset + days(uniform(random, 7, 20)) : Infinity)
  if (severe && chance(random, 0.25)) life.leftAt = Math.min(life.leftAt, onset + days(uniform(random, 5, 14)))
  const recovery = { from: recoveryFrom + days(1), to: recoveryFrom + days(uniform(random, 5, 13)) }
  const severity = severe ? uniform(random, 0.4, 0.65) : uniform(random, 0.72, 0.88)
  return [{ onset, severity, rampMs: days(uniform(random, 1, 5)), recovery, inflamed: chance(random, 0.3) }]
}

/** Times with no rows: the tag's own dropouts and the outages of the gateways of the rooms she stays in. */
function offlineSpansOf(farm: Farm, life: Life, tag: AnimalPlan['tag']): Span[] {
  const outages = life.stays.flatMap((stay, i) => {
    const to = life.stays[i + 1]?.from ?? Infinity
    return (farm.rooms.get(stay.room)?.outages ?? [])
      .filter((outage) => outage.to > stay.from && outage.from < to)
      .map((outage) => ({ from: Math.max(outage.from, stay.from), to: Math.min(outage.to, to) }))
  })
  return [...tag.dropouts, ...outages]
}

/** Mostly sows spread over the batches, some gilts, a few boars. */
function planRoster(farm: Farm, animals: number): Member[] {
  const random = prng(seedOf(farm.seed, 'barn-roster'))
  const role = (index: number): Role => (index % 29 === 13 ? 'boar' : index % 8 === 3 ? 'gilt' : 'sow')
  let sows = 0
  return Array.from({ length: animals }, (_, index) => ({
    ...{ index, role: role(index), batch: role(index) === 'sow' ? sows++ % (farm.cycleDays / farm.batchDays) : 0 },
    ...{ parity: role(index) === 'sow' ? 1 + Math.floor(random() * 6) : 0, gestationOffset: 0.9 * gaussian(random) },
  }))
}

/** A female culled before the window is replaced in her place by another, so every place holds an animal at start. */
function lifeOf(farm: Farm, member: Member): Life {
  if (member.role === 'boar') return { ...newLife(), stays: [BOAR_PEN] }
  for (let attempt = 0; ; attempt++) {
    const life = liveFemale(farm, member, attempt)
    if (life.leftAt > farm.start + days(2)) return { ...life, stays: life.stays.sort((a, b) => a.from - b.from) }
  }
}

function planAnimal(farm: Farm, member: Member) {
  const life = lifeOf(farm, member)
  const lameness = planHealth(farm, member, life)
  const tag = planTag(farm, member.index)
  const offlineSpans = offlineSpansOf(farm, life, tag)
  const offline = (t: number) => offlineSpans.some((span) => within(t, span))
  const stayOf = (t: number) => life.stays.findLast((stay) => stay.from <= t) ?? life.stays[0]!
  return { member, life, lameness, tag, traits: planTraits(farm, member), offlineSpans, offline, stayOf }
}

// ---------------------------------------------------------------- behaviour and body heat

const HOUSING_ACTIVITY: Record<Housing, number> = { pen: 0.2, stall: 0.14, crate: 0.11, 'boar-pen': 0.22 }
const EATING_MS = minutes(20)

/** Pigs rest through the night and are busiest in daylight, when people, feed and light come. */
const DAY_SHAPE = [0.3, 0.3, 0.3, 0.3, 0.3, 0.45, 0.8, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0.9, 0.7, 0.55, 0.4, 0.3, 0.3]
const dayShape = (t: number) => DAY_SHAPE[Math.floor((t - dayStart(t)) / HOUR_MS)]!

/** The meals of t's day in a room: when each was due and when the feed came. */
function mealsOf(farm: Farm, room: string, t: number): { due: number; fed: number }[] {
  const delays = farm.rooms.get(room)?.mealDelays[Math.floor((t - farm.start) / DAY_MS)]
  const dues = farm.mealMinutes.map((meal) => dayStart(t) + minutes(meal))
  return dues.map((due, m) => ({ due, fed: due + (delays?.[m] ?? 0) }))
}

/** Anticipation before a meal (growing while it is late), eating, and for some sows bar-biting after it. */
function mealActivity(farm: Farm, room: string, t: number, traits: AnimalPlan['traits']): number {
  let activity = 0
  for (const { due, fed } of mealsOf(farm, room, t)) {
    const waiting = t >= due - minutes(40) && t < fed
    if (waiting) activity += 0.12 + 0.28 * ramp(t, due - minutes(40), due) + 0.1 * ramp(t, due, due + HOUR_MS)
    else if (t >= fed && t < fed + EATING_MS) activity += 0.5
    else if (t >= fed + EATING_MS && t < fed + minutes(90)) activity += traits.stereotypy
  }
  return activity * traits.mealSensitivity
}

/** Boar exposure at the heat checks: everyone in the service area gets up; the boar walks the aisle. */
function checkActivity(farm: Farm, stay: Stay, t: number): number {
  const minute = (t - dayStart(t)) / MINUTE_MS
  if (!farm.checkMinutes.some((start) => minute >= start && minute < start + 25)) return 0
  return stay.housing === 'boar-pen' ? 0.5 : stay.room === 'Service' || stay.room === 'Gilts' ? 0.25 : 0
}

/** Moving to a new room, and the fights of mixing that follow for a day or two. */
const settlingActivity = (stay: Stay, t: number) =>
  (t - stay.from < HOUR_MS ? 0.5 : 0) + (stay.mixing ? 0.35 : 0.08) * Math.exp(-(t - stay.from) / hours(16))

/** Restlessness around a heat: rising through pro-oestrus, highest early in standing heat, fading after. */
function oestrusOf(heats: readonly Heat[], t: number): { shape: number; heat?: Heat } {
  const heat = heats.find((candidate) => t >= candidate.onset - hours(36) && t < candidate.end + hours(12))
  if (!heat) return { shape: 0 }
  const { onset, end } = heat
  const instants = [onset - hours(36), onset, onset + hours(6), (onset + end) / 2, end, end + hours(12)]
  return { shape: keyframes(t, instants, [0, 0.6, 1, 1, 0.5, 0]), heat }
}

/** Around a farrowing: nest building (strongest in its second half, calming as expulsion nears), the stillness of
 * expulsion and the first day, the warmth of lactation. */
function farrowingEffects(farrowings: Life['farrowings'], t: number) {
  const farrowing = farrowings.find((candidate) => t >= candidate.nestFrom - days(1) && t < candidate.weanedAt)
  if (!farrowing) return { nest: 0, stillness: 1, warmth: 0 }
  const { onset, nestFrom, calmMs, expulsionMs } = farrowing
  const since = t - onset
  const calmFrom = onset - calmMs
  const nest = keyframes(t, [nestFrom, (nestFrom + calmFrom) / 2, calmFrom, onset], [0.2, 1, 1, 0.3])
  const stillness = since < 0 ? 1 : since < expulsionMs ? 0.35 : 0.35 + 0.65 * ramp(since, 0, days(1))
  const warmth = since < 0 ? 0.4 * ramp(since, -days(1), 0) : 0.35 + 0.55 * Math.exp(-since / days(2))
  return { nest: farrowing.nestStrength * nest, stillness, warmth }
}

/** Fevers come on over hours and break over half a day. */
function feverOf(fevers: readonly Fever[], t: number): number {
  const { from, to, rise } = fevers.find((candidate) => within(t, candidate)) ?? { from: t, to: t, rise: 0 }
  return rise * keyframes(t, [from, from + hours(6), to - hours(12), to], [0, 1, 1, 0])
}

const NEVER: Span = { from: Infinity, to: Infinity }
const SOUND: Lameness = { onset: Infinity, severity: 1, rampMs: 1, recovery: NEVER, inflamed: false }

function lamenessOf(lameness: readonly Lameness[], t: number): { loss: number; inflammation: number } {
  const { onset, rampMs, recovery, severity, inflamed } = lameness.find((candidate) => t >= candidate.onset) ?? SOUND
  const shape = ramp(t, onset, onset + rampMs) * (1 - ramp(t, recovery.from, recovery.to))
  return { loss: (1 - severity) * shape, inflammation: inflamed ? 0.3 * shape : 0 }
}

/** What the animal is doing and how warm she is at t: the chance her head is moving, her core temperature. */
function momentAt(farm: Farm, plan: AnimalPlan, stay: Stay, t: number) {
  const { traits, life } = plan
  const ambient = ambientTemperature(farm, stay.room, t)
  const day = clamp(Math.floor((t - farm.start) / DAY_MS), 0, traits.dayFactors.length - 1)
  const base = traits.level * HOUSING_ACTIVITY[stay.housing] * dayShape(t) * traits.dayFactors[day]!
  const routine = mealActivity(farm, stay.room, t, traits) + checkActivity(farm, stay, t) + settlingActivity(stay, t)
  const { shape, heat } = oestrusOf(life.heats, t)
  const rise = heat ? (heat.amplitude - 1) * (stay.housing === 'stall' ? 0.75 : 1) * shape : 0
  const birth = farrowingEffects(life.farrowings, t)
  const fever = feverOf(life.fevers, t)
  const lame = lamenessOf(plan.lameness, t)
  const heatStress = clamp(1 - 0.04 * (ambient - 25), 0.6, 1)
  const damping = (1 - lame.loss) * clamp(1 - 0.3 * fever, 0.4, 1) * heatStress
  const behaviour = ((base + routine) * (1 + rise) + 0.06 * rise) * birth.stillness + birth.nest
  const activity = clamp(behaviour * damping, 0.005, 0.92)
  const circadian = 0.18 * Math.cos((2 * Math.PI * (t - hours(16))) / DAY_MS)
  const oestrusWarmth = heat && !heat.silent ? 0.25 * shape : 0
  const stress = Math.max(0, 0.1 * (ambient - 24))
  const core = 38.6 + traits.coreOffset + circadian + oestrusWarmth + birth.warmth + fever + lame.inflammation + stress
  return { stay, ambient, activity, oestrus: heat?.silent ? 0 : shape, core }
}

// ---------------------------------------------------------------- the tag's readings

/** One accelerometer sample: gravity in the head's posture, plus the head's own acceleration while it moves. */
function accelerationOf(random: Random, tag: AnimalPlan['tag'], posture: Vector, vigour: number): Vector {
  const spread = Math.hypot(vigour, tag.accelerationNoise)
  const [x, y, z] = posture.map((gravity) => round(tag.gain * gravity + spread * gaussian(random), 3))
  return [x!, y!, z!]
}

const PEN_AREAS = ['lying', 'lying', 'feeder', 'dung']
const NODES_PER_ROW = 6
const GLITCH_TEMPERATURES = [-1, 0, 70, 85]

/** Where a pen-housed animal goes next: to the trough when fed, to the boar's side in heat, else about the pen. */
function nextArea(random: Random, farm: Farm, moment: Moment, t: number, area: string): string {
  const { stay, activity, oestrus } = moment
  const eating = mealsOf(farm, stay.room, t).some(({ fed }) => t >= fed && t < fed + EATING_MS)
  if (eating && chance(random, 0.8)) return 'feeder'
  if (!chance(random, Math.min(0.7, 1.3 * activity))) return area
  const boarSide = stay.room === 'Service' || stay.room === 'Gilts'
  return boarSide && chance(random, 0.15 + 0.5 * oestrus) ? 'boar' : pick(random, PEN_AREAS)
}

/** Which node hears the tag and how strongly: its own area's node (a crate row's, or a pen area's), now and then out-
 * heard by a neighbour (more often at a crate between two nodes); a boar at the heat check is heard along the aisle. */
function detectionOf(random: Random, farm: Farm, plan: AnimalPlan, moment: Moment, t: number, area: string) {
  const torn = plan.tag.torn.some((span) => within(t, span))
  const walked = moment.stay.housing === 'boar-pen' && checkActivity(farm, moment.stay, t) > 0
  const place = walked ? { room: 'Service', housing: 'stall', slot: Math.floor(random() * SLOTS) } : moment.stay
  const { room, slot } = place
  const inPen = place.housing === 'pen' || place.housing === 'boar-pen'
  const [pen, row] = [`${room}/pen-${slot % 3}`, Math.floor(slot / (SLOTS / NODES_PER_ROW))]
  const nextRow = (row + (slot % 2 ? 1 : NODES_PER_ROW - 1)) % NODES_PER_ROW
  const own = inPen ? `${pen}/${torn ? 'dung' : area}` : `${room}/row-${row}`
  const neighbour = inPen ? `${pen}/${pick(random, PEN_AREAS)}` : `${room}/row-${nextRow}`
  const gap = inPen ? 7 : slot % 4 < 2 ? 3 : 9
  const loss = torn ? 12 : plan.tag.loose.some((span) => within(t, span)) ? 4 : 0
  const heard = -66 + plan.tag.rssiOffset - loss + 4 * gaussian(random)
  const overheard = heard - gap + 4 * Math.SQRT2 * gaussian(random)
  return torn || heard >= overheard ? { rssi: heard, node: own } : { rssi: overheard, node: neighbour }
}

/** The tag's rows: a sensor sample every interval, and a detection by a node every few minutes. */
function readingsOf(farm: Farm, plan: AnimalPlan, intervalMs: number, until: number) {
  const random = prng(seedOf(farm.seed, 'barn-readings', plan.member.index))
  const { tag, traits } = plan
  const smoothing = 1 - Math.exp(-intervalMs / minutes(30))
  const leaving = Math.min(1, intervalMs / traits.boutMs)
  const readings = { sensor: [] as BarnAnimal['sensor'], locations: [] as BarnAnimal['locations'] }
  let [moving, posture, exertion, skin, area, detectAt] = [false, ON_SIDE, 0, Number.NaN, 'lying', 0]
  for (let t = farm.start; t < until; t += intervalMs) {
    const moment = momentAt(farm, plan, plan.stayOf(t), t)
    // Bouts: the chance of moving stays moment.activity, but a moving head tends to keep moving a few minutes.
    if (chance(random, moving ? leaving : Math.min(1, (moment.activity * leaving) / (1 - moment.activity)))) {
      moving = !moving
      const standing = chance(random, clamp(2.5 * moment.activity, 0.05, 0.7))
      if (!moving) posture = standing ? STANDING : chance(random, 0.35) ? ON_CHEST : ON_SIDE
    }
    exertion += smoothing * ((moving ? 1 : 0) - exertion)
    const torn = tag.torn.some((span) => within(t, span))
    const loose = tag.loose.find((span) => within(t, span))
    const coupling = traits.coupling - (loose?.rise ?? 0)
    const ear = moment.ambient + coupling * (moment.core + 0.4 * exertion - moment.ambient) + tag.bias
    const target = torn ? moment.ambient + 1.5 : ear
    skin = Number.isNaN(skin) ? target : skin + smoothing * (target - skin)
    const detecting = t >= detectAt
    if (detecting) [detectAt, area] = [t + DETECTION_MS, nextArea(random, farm, moment, t, area)]
    if (plan.offline(t)) continue
    const vigour = torn ? 0 : moving ? traits.vigour : loose && chance(random, 0.12) ? 0.12 : 0
    const [x, y, z] = accelerationOf(random, tag, torn ? [0, 0, 1] : posture, vigour)
    const glitch = chance(random, tag.glitchShare)
    const c = glitch ? pick(random, GLITCH_TEMPERATURES) : round(skin + tag.temperatureNoise * gaussian(random), 2)
    readings.sensor.push({ t: t + Math.floor(random() * Math.min(5000, intervalMs / 10)), c, x, y, z })
    if (!detecting || !chance(random, 0.92)) continue
    const { rssi, node } = detectionOf(random, farm, plan, moment, t, area)
    const heardAt = Math.min(until - 1, t + 5000 + Math.floor(random() * 30_000))
    readings.locations.push({ t: heardAt, rssi: Math.round(rssi), nodeuid: nodeUid(farm, node) })
  }
  return readings
}

const nodeUid = (farm: Farm, node: string) =>
  farm.nodeUids.get(node) ?? farm.nodeUids.set(node, `n${(seedOf(farm.seed, node) % 0xffffff).toString(16)}`).get(node)!

// ---------------------------------------------------------------- the herd

function recordsBefore({ checks, ...instants }: Records, until: number): Records {
  const kept = Object.entries(instants).map(([kind, list]) => [kind, list.filter((t) => t < until)])
  return { ...(Object.fromEntries(kept) as typeof instants), checks: checks.filter((check) => check.at < until) }
}

/** Spans when alarms are not counted as false: loose or torn tags, fevers, no readings. */
function confoundersOf(farm: Farm, plan: AnimalPlan, until: number): Span[] {
  return [...plan.tag.loose, ...plan.tag.torn, ...plan.life.fevers, ...plan.offlineSpans]
    .sort((a, b) => a.from - b.from)
    .map((span) => ({ from: Math.max(span.from, farm.start), to: Math.min(span.to, until) }))
    .filter((span) => span.to > span.from)
}

/** The herd one animal at a time (so 150 animals' readings never sit in memory together). */
export function* barnHerd(options: BarnOptions): Generator<BarnAnimal> {
  const farm = planFarm(options.seed, options.start, options.end)
  for (const member of planRoster(farm, options.animals)) {
    const plan = planAnimal(farm, member)
    const { life, lameness } = plan
    const until = Math.min(farm.end, life.leftAt)
    const inside = ({ onset }: { onset: number }) => onset >= farm.start && onset < until
    yield {
      index: member.index,
      sex: member.role === 'boar' ? 'male' : 'female',
      group: { sow: `Batch ${member.batch + 1}`, gilt: 'Gilts', boar: 'Boars' }[member.role],
      truth: {
        farrowings: life.farrowings.filter(inside).map(({ onset, weak }) => ({ onset, weak })),
        heats: life.heats.filter(inside).map(({ onset, end, silent }) => ({ onset, end, silent })),
        lameness: lameness.filter(inside).map(({ onset }) => ({ onset })),
      },
      confounders: confoundersOf(farm, plan, until),
      records: recordsBefore(life.records, until),
      ...readingsOf(farm, plan, options.intervalMs, until),
    }
  }
}
