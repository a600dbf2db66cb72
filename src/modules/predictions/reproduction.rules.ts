// What the farm's records say about an animal's reproductive cycle at an hour, and what its movement between nodes
// adds: the move into the farrowing crate, weanings the farm did not record.
import { DAY_HOURS, DAY_MS, HOUR_MS, type HourSummary } from './hour-summaries.rules.ts'
import { MOVEMENT_FLOOR, newTagDayBlock, usualDayBlock } from './baselines.rules.ts'
import { CYCLE } from '../cycle/cycle.rules.ts'

/** What the farm recorded of an animal, ms since epoch: the rules only look at records dated before the hour they score. */
export interface AnimalRecords {
  services: number[]
  weanings: number[]
  births: number[]
  /** Services her records showed had not held, and from when (failedServices): a negative check, a return. */
  failedServices?: FailedService[]
}

/** A service that did not hold (its instant, as in `services`), known from `from` on, until a later scan found otherwise. */
export interface FailedService {
  service: number
  from: number
  until?: number
}

/**
 * A return to heat recorded for a day makes the service before it a failed one from this long after its noon: the
 * heat itself is over by then, and the farm has seen it (its record says so), so the return window's bars hold
 * through it as they would without the record.
 */
export const RETURN_CLOSES_AFTER_MS = 2 * DAY_MS

/**
 * A service this close before a check or a return is no service it can refer to: a service of the return's own heat
 * (the services of one heat, as the cycle state counts them).
 */
const SAME_HEAT_MS = CYCLE.sameHeatDays * DAY_MS

/** A pregnancy check (its result) or a return to heat, at its instant. */
export type ServiceOutcome = { kind: 'check'; result: string; at: number } | { kind: 'return'; at: number }

/**
 * The services a negative pregnancy check or a return shows failed, and from when: the latest service at least
 * SAME_HEAT_MS before the record (a re-service of the return's own heat stays), from the check's instant or from
 * RETURN_CLOSES_AFTER_MS after the return's; a later check of the same service that finds her pregnant ends it (the
 * earlier scan was wrong), as it does in the cycle state. A recheck says nothing.
 */
export function failedServices(outcomes: readonly ServiceOutcome[], services: readonly number[]): FailedService[] {
  const out: FailedService[] = []
  for (const outcome of [...outcomes].sort((a, b) => a.at - b.at)) {
    const service = latestBefore(services, outcome.at - SAME_HEAT_MS)
    if (service === undefined) continue
    const failed = out.find((f) => f.service === service && f.until === undefined)
    if (outcome.kind === 'check' && outcome.result === 'pregnant') {
      if (failed) failed.until = outcome.at
    } else if (outcome.kind === 'return') {
      if (!failed) out.push({ service, from: outcome.at + RETURN_CLOSES_AFTER_MS })
    } else if (outcome.result === 'open' && !failed) {
      out.push({ service, from: outcome.at })
    }
  }
  return out
}

export const NO_RECORDS: AnimalRecords = { services: [], weanings: [], births: [] }

export const latestBefore = (times: readonly number[], t: number) =>
  times.reduce<number | undefined>(
    (latest, x) => (x <= t && (latest === undefined || x > latest) ? x : latest),
    undefined,
  )

/**
 * What the records say about the animal at t, in days since each event (undefined: none recorded before t).
 * `sinceFoundOpen`: days since her records showed her latest service had failed, while no service followed (open).
 */
export function reproductiveState(records: AnimalRecords, t: number) {
  const service = latestBefore(records.services, t)
  const weaning = latestBefore(records.weanings, t)
  const birth = latestBefore(records.births, t)
  const days = (x: number | undefined) => (x === undefined ? undefined : (t - x) / DAY_MS)
  // A service counts while nothing followed it: a later farrowing or weaning closes it, and so does a negative
  // check or a return (she is open: not pregnant, so neither her heats nor a farrowing follow that service's days).
  const latest =
    service !== undefined && (birth === undefined || service > birth) && (weaning === undefined || service > weaning)
  const found = latest
    ? records.failedServices?.find(
        (f) => f.service === service && f.from <= t && !(f.until !== undefined && f.until <= t),
      )
    : undefined
  const openService = latest && found === undefined ? days(service) : undefined
  const lactatingDays =
    birth !== undefined && (weaning === undefined || weaning < birth) && days(birth)! < 35 ? days(birth) : undefined
  return {
    sinceService: openService,
    sinceWeaning: days(weaning),
    sinceBirth: days(birth),
    lactatingDays,
    sinceFoundOpen: found === undefined ? undefined : days(found.from),
    sinceFailedService: found === undefined ? undefined : days(found.service),
  }
}

/**
 * When the animal's current phase of life began, by its records: the latest weaning or farrowing; undefined
 * without any. A baseline never reaches back past it: a nursing sow is less active, a weaned one more, and
 * none of that is a heat or a lameness.
 */
export function phaseStart(records: AnimalRecords, t: number): number | undefined {
  const starts = [latestBefore(records.weanings, t), latestBefore(records.births, t)].filter(
    (x): x is number => x !== undefined,
  )
  return starts.length === 0 ? undefined : Math.max(...starts)
}

/** Days after a service in which a sow may be moved into the farrowing crate (farrowing comes 112-118 days after). */
export const CRATE_WINDOW_DAYS = { from: 100, to: 125 } as const

/**
 * The move into the crate, read from the data rather than assumed: the last day block in the crate window whose
 * movement between nodes fell below half its usual (days 2-8 before it); undefined without one. `movement` holds
 * day blocks per hour index; returns the index of the first hour of that block.
 */
export function crateMoveIndex(
  movement: readonly (number | undefined)[],
  fromIndex: number,
  toIndex: number,
): number | undefined {
  for (let e = toIndex; e >= Math.max(fromIndex, 8 * DAY_HOURS); e--) {
    const now = movement[e]
    if (now === undefined) continue
    const usual = usualDayBlock(movement, e)
    if (usual !== undefined && usual > 0 && now < 0.5 * usual) return e - DAY_HOURS + 1
  }
  return undefined
}

/**
 * A day block's usual movement (usualDayBlock), or on a new tag (`newTagFirst`: the index of its first hour with data;
 * undefined: not a new tag) before that exists, its blocks since the tag went on (newTagDayBlock).
 */
export function movementUsual(
  movement: readonly (number | undefined)[],
  e: number,
  newTagFirst?: number,
): number | undefined {
  const usual = usualDayBlock(movement, e)
  return usual !== undefined || newTagFirst === undefined ? usual : newTagDayBlock(movement, e, newTagFirst)
}

/** The first block end a move can be read at: 8 days in, or on a new tag two days after its first hour. */
const firstMoveBlock = (fromIndex: number, newTagFirst?: number) =>
  Math.max(
    fromIndex,
    newTagFirst === undefined ? 8 * DAY_HOURS : Math.min(8 * DAY_HOURS, newTagFirst + 2 * DAY_HOURS - 1),
  )

/**
 * The move into the crate as soon as it shows: the first day block (24 h ending at an hour) from `fromIndex` whose
 * movement between nodes fell below half its usual (days 2-8 before it; on a new tag, `newTagFirst`, its days since
 * the tag went on until those exist: movementUsual). A block falls below half once most of it lies in the crate, so
 * the move is dated half a day before the block's end. Undefined without one.
 */
export function crateEntryIndex(
  movement: readonly (number | undefined)[],
  fromIndex: number,
  toIndex: number,
  newTagFirst?: number,
): number | undefined {
  for (let e = firstMoveBlock(fromIndex, newTagFirst); e <= toIndex; e++) {
    const now = movement[e]
    if (now === undefined) continue
    const usual = movementUsual(movement, e, newTagFirst)
    if (usual !== undefined && usual > 0 && now < 0.5 * usual) return e - DAY_HOURS / 2 + 1
  }
  return undefined
}

/**
 * Weanings the records do not hold, read from the data: the first day block (the 24 h ending at an hour) of a rise
 * of movement between nodes to `rise` x its usual (days 2-8 before it), as when a sow leaves the farrowing crate.
 * Dated at the end of that block (when it shows), none within 14 days of another, none where a weaning was recorded
 * in the 30 days before nor while a recorded service may have held (125 days, no farrowing since). Returns
 * the records with these weanings added.
 */
export function withInferredWeanings(
  records: AnimalRecords,
  movement: readonly (number | undefined)[],
  hours: readonly HourSummary[],
  from: number,
  to: number,
  rise: number,
): AnimalRecords {
  const inferred: number[] = []
  for (let e = Math.max(from, 8 * DAY_HOURS); e <= to; e++) {
    const now = movement[e]
    if (now === undefined) continue
    const usual = usualDayBlock(movement, e)
    if (usual === undefined || now + MOVEMENT_FLOOR < rise * (usual + MOVEMENT_FLOOR)) continue
    const t = hours[e]!.hour + HOUR_MS
    const last = inferred.at(-1)
    if (last !== undefined && t - last < 14 * DAY_MS) continue
    if (records.weanings.some((w) => w <= t && t - w < 30 * DAY_MS)) continue
    const service = latestBefore(records.services, t)
    const birth = latestBefore(records.births, t)
    if (service !== undefined && t - service < 125 * DAY_MS && (birth === undefined || birth < service)) continue
    inferred.push(t)
  }
  return inferred.length === 0
    ? records
    : { ...records, weanings: [...records.weanings, ...inferred].sort((a, b) => a - b) }
}

/** A move into the farrowing crate read from the data alone: dated `entry` (as crateEntryIndex), known from `shows`. */
export interface CrateMove {
  entry: number
  shows: number
}

/**
 * Moves into the crate of a sow whose service no record gives, read from the data alone: a day block (24 h ending at
 * an hour) whose movement between nodes fell below `drop` x its usual (days 2-8 before it) and the block `heldHours`
 * later still below that usual (a move, not a quiet day), both with MOVEMENT_FLOOR added (a crate's few node changes
 * halving again while she nurses is no second move), while `groupRatio` (her group's movement against its usual
 * at that block; undefined: not known) stayed at `groupKept` or more (not the pen's gateway or the pen itself).
 * Dated half a day before the block's end, as crateEntryIndex, and known only once the later block has ended; none
 * within `gapHours` of the previous (she stays in the crate through lactation, then leaves it). No move either from a
 * block whose ear is shifted (earShifted, over `earShiftC`; null: not read): a fever lowers her movement too, a tag
 * off the skin reads a day she did not have; a move into the crate does neither to the ear. The later block's ear is
 * not read: a late move's day after is her last before farrowing, when her ear warms. On a new tag (`newTagFirst`),
 * until its blocks 2-8 days back exist, the usual is its blocks since the tag went on (movementUsual).
 */
export function unrecordedCrateMoves(
  movement: readonly (number | undefined)[],
  groupRatio: readonly (number | undefined)[],
  temperature: readonly (number | undefined)[],
  fromIndex: number,
  toIndex: number,
  rule: { drop: number; heldHours: number; groupKept: number; earShiftC: number | null },
  gapHours: number,
  newTagFirst?: number,
): CrateMove[] {
  const moves: CrateMove[] = []
  for (let e = firstMoveBlock(fromIndex, newTagFirst); e + rule.heldHours <= toIndex; e++) {
    const now = movement[e]
    const later = movement[e + rule.heldHours]
    if (now === undefined || later === undefined) continue
    const usual = movementUsual(movement, e, newTagFirst)
    if (usual === undefined) continue
    const bar = rule.drop * (usual + MOVEMENT_FLOOR)
    if (now + MOVEMENT_FLOOR >= bar || later + MOVEMENT_FLOOR >= bar) continue
    const group = groupRatio[e]
    if (group !== undefined && group < rule.groupKept) continue
    if (rule.earShiftC !== null && earShifted(temperature, e, rule.earShiftC)) continue
    moves.push({ entry: e - DAY_HOURS / 2 + 1, shows: e + rule.heldHours })
    e += gapHours
  }
  return moves
}

/**
 * Whether the day block ending at `e` reads the ear (its mean temperature against the group's, °C; undefined without
 * readings) more than `maxShiftC` warmer or cooler than her usual, the median of the blocks 2-8 days before it (as
 * usualDayBlock): warmer, a sickness; cooler, a tag off the skin. Without a reading or a usual, not shifted.
 */
export function earShifted(temperature: readonly (number | undefined)[], e: number, maxShiftC: number): boolean {
  const now = temperature[e]
  const usual = usualDayBlock(temperature, e)
  return now !== undefined && usual !== undefined && Math.abs(now - usual) > maxShiftC
}

/**
 * Her farrowing read from the data after a move into the crate: the first day block (24 h ending at an hour, from
 * `fromIndex`) whose activity fell below `drop` x the highest of the blocks 1-3 days before it that lie wholly in the
 * crate (from `crateFrom`), `floor` added to both (a crate's few moving samples make near-zero days whose ratios are
 * noise): a sow lying to nurse is far less active than on the day she built her nest. Returns the index at which it
 * shows; undefined without one.
 */
export function lactationIndex(
  activity: readonly (number | undefined)[],
  crateFrom: number,
  fromIndex: number,
  toIndex: number,
  drop: number,
  floor: number,
): number | undefined {
  for (let e = Math.max(fromIndex, crateFrom + 2 * DAY_HOURS - 1); e <= toIndex; e++) {
    const now = activity[e]
    if (now === undefined) continue
    const before: number[] = []
    for (let d = 1; d <= 3; d++) {
      const b = e - d * DAY_HOURS
      if (b - DAY_HOURS + 1 >= crateFrom && activity[b] !== undefined) before.push(activity[b])
    }
    if (before.length > 0 && now + floor < drop * (Math.max(...before) + floor)) return e
  }
  return undefined
}
