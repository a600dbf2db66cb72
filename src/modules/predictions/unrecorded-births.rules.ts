// On a farm that records no service, what the records would have said of each sow's farrowing, read from the data
// alone: her move into the crate (due from when it shows) and her farrowing (she lies to nurse from then).
import { DAY_HOURS, HOUR_MS, type HourSummary } from './hour-summaries.rules.ts'
import { usualDayBlock } from './baselines.rules.ts'
import { lactationIndex, reproductiveState, unrecordedCrateMoves, type AnimalRecords } from './reproduction.rules.ts'
import { pregnancyUnrecorded, unrecordedBirthState } from './birth.rules.ts'
import { presumedService } from './heat.rules.ts'
import { groupMedians } from './group-levels.rules.ts'
import type { ScorerSettings } from './scorer-settings.rules.ts'

/** Day blocks (the 24 h ending at each hour index) of every animal, over the indices `dayFrom`-`to`. */
export interface HerdDays {
  dayActivity: readonly (readonly (number | undefined)[])[]
  dayMovement: readonly (readonly (number | undefined)[])[]
  /** Each block's mean ear temperature against the group's (°C). */
  dayTemperature: readonly (readonly (number | undefined)[])[]
  dayFrom: number
  to: number
}

/**
 * Per animal and hour index: the index of the latest move into the crate known by then (`moveAt`), and of her
 * farrowing read after it (`lactationAt`: the first day block in its due days far less active than her nest-building
 * day); undefined without one, and everywhere when `unrecorded` is null (a farm that keeps records).
 */
export function unrecordedBirths(
  herd: readonly { group: string | null }[],
  { dayActivity, dayMovement, dayTemperature, dayFrom, to }: HerdDays,
  /**
   * Whose farrowings are read from their data and by which rule (birthDataReaders; `rule` null: none, a farm that
   * keeps records), each new tag's first hour for its move into the crate (see movementUsual).
   */
  readers: {
    rule: ScorerSettings['birth']['unrecorded']
    moveFirst: readonly (number | undefined)[]
    sows: readonly boolean[]
  },
  settleHours: number,
  settings: ScorerSettings,
): { moveAt: (number | undefined)[][]; lactationAt: (number | undefined)[][] } {
  const unrecorded = readers.rule
  const none = () => herd.map(() => new Array<number | undefined>(to + 1))
  if (!unrecorded) return { moveAt: none(), lactationAt: none() }
  // A drop the whole group shares is the pen's gateway or the pen itself, not one sow's move.
  const groupMovement = groupMedians(
    herd,
    dayFrom,
    to,
    (k, e) => {
      const now = dayMovement[k]![e]
      const usual = usualDayBlock(dayMovement[k]!, e)
      return now === undefined || usual === undefined || usual <= 0 ? undefined : now / usual
    },
    settings,
    undefined,
    0.5,
  )
  const moveAt = herd.map((_, k) => {
    const out = new Array<number | undefined>(to + 1)
    if (!readers.sows[k]) return out
    const moves = unrecordedCrateMoves(
      dayMovement[k]!,
      groupMovement[k]!,
      dayTemperature[k]!,
      dayFrom,
      to,
      unrecorded,
      unrecorded.quietDays * DAY_HOURS,
      readers.moveFirst[k],
    )
    for (const move of moves) for (let i = Math.max(0, move.shows); i <= to; i++) out[i] = move.entry
    return out
  })
  const lactationAt = herd.map((_, k) => {
    const out = new Array<number | undefined>(to + 1)
    if (unrecorded.lactationDrop === null) return out
    let entry: number | undefined
    let lactation: number | undefined
    for (let i = 0; i <= to; i++) {
      const now = moveAt[k]![i]
      if (now === undefined) continue
      if (now !== entry) {
        entry = now
        const dueTo = Math.min(to, now + unrecorded.dueDays * DAY_HOURS)
        const drop = unrecorded.lactationDrop
        lactation = lactationIndex(dayActivity[k]!, now + settleHours, i, dueTo, drop, settings.activityFloor)
      }
      if (lactation !== undefined && i >= lactation) out[i] = lactation
    }
    return out
  })
  return { moveAt, lactationAt }
}

/**
 * Her farrowings read from the data, as the hour index at which each shows: per move into the crate (`moveAt`, as
 * unrecordedBirths gives it), the farrowing read after it (`lactationAt`), or where none was read, the hour after her
 * due days (`dueHours` after the move) ended: a sow moved into the crate farrows there within them.
 */
export function unrecordedBirthIndices(
  moveAt: readonly (number | undefined)[],
  lactationAt: readonly (number | undefined)[],
  dueHours: number,
): number[] {
  const out: number[] = []
  let done: number | undefined
  for (let i = 0; i < moveAt.length; i++) {
    const entry = moveAt[i]
    if (entry === undefined || entry === done) continue
    const lactation = lactationAt[i]
    if (lactation !== undefined && lactation >= entry) out.push(lactation)
    else if (i - entry > dueHours) out.push(i)
    else continue
    done = entry
  }
  return out
}

/** Heat's view of a sow's cycle on a farm that records no service (unrecordedCycle). */
export interface UnrecordedCycle {
  /** Her records with the farrowings read from the data (unrecordedBirthIndices), dated when each shows. */
  records: AnimalRecords
  /** Those records at t, with a service presumed after a weaning (presumedService). */
  at: (t: number) => AnimalRecords
  /** Whether a move into the crate read from the data makes her due at hour index i (ending at t): no heat then. */
  due: (i: number, t: number) => boolean
}

/**
 * What heat reads of a sow's cycle where the farm records no service (`unrecorded`, birth's rule, null on a farm that
 * keeps records) and SCORER.heat.unrecordedCycle is set: her farrowings read from the data (animal k's in
 * unrecordedBirths' answer) as records, a service presumed after a weaning, and while a move into the crate
 * makes her due. Elsewhere her records as they are, never due.
 */
export function unrecordedCycle(
  records: AnimalRecords,
  hours: readonly HourSummary[],
  k: number,
  { moveAt: moves, lactationAt: lactations }: ReturnType<typeof unrecordedBirths>,
  unrecorded: ScorerSettings['birth']['unrecorded'],
  settings: ScorerSettings,
): UnrecordedCycle {
  const moveAt = moves[k]!
  const lactationAt = lactations[k]!
  const rule = unrecorded ? settings.heat.unrecordedCycle : null
  if (!unrecorded || !rule) return { records, at: () => records, due: () => false }
  const births = rule.births ? unrecordedBirthIndices(moveAt, lactationAt, unrecorded.dueDays * DAY_HOURS) : []
  const read =
    births.length === 0
      ? records
      : {
          ...records,
          births: [...records.births, ...births.map((i) => hours[i]!.hour + HOUR_MS)].sort((a, b) => a - b),
        }
  return {
    records: read,
    at: (t) => presumedService(read, t, rule.servedDay),
    due: (i, t) => {
      if (!rule.births) return false
      const { sinceWeaning } = reproductiveState(records, t)
      return unrecordedBirthState(moveAt[i], i, sinceWeaning, unrecorded, lactationAt[i]) === 'due'
    },
  }
}

/**
 * Whose farrowings are read from their data (unrecordedBirths): on a farm that records nothing, every sow's; in a farm's
 * first weeks (SCORER.birth.newTag: a tag first heard, `firstData`, within tagDays before `from`, the first hour
 * scored), on a farm that keeps records, a new tag's sow while her records hold no service or farrowing (`reads`; her
 * past not entered). `moveFirst`: on a farm that keeps records, each new tag's first hour, for reading her move into
 * the crate before her usual days exist (movementUsual); `rule`: SCORER.birth.unrecorded where any sow is read so, else null.
 */
export function birthDataReaders(
  herd: readonly { records: AnimalRecords }[],
  firstData: readonly (number | undefined)[],
  from: number,
  farmKeepsRecords: boolean,
  settings: ScorerSettings,
) {
  const rule = settings.birth.newTag
  const newTag = firstData.map((f) =>
    rule !== null && f !== undefined && f + rule.tagDays * DAY_HOURS > from ? f : undefined,
  )
  const sows = newTag.map((f) => !farmKeepsRecords || (rule?.unrecordedSows === true && f !== undefined))
  return {
    // Only where the farm keeps records: recording nothing, a move read on a new tag's few days raised birth's false
    // alarms more than it caught (coldbirth, coldbirth2).
    moveFirst: newTag.map((f) => (rule?.moves && farmKeepsRecords ? f : undefined)),
    rule: sows.some(Boolean) ? settings.birth.unrecorded : null,
    sows,
    reads: (k: number, t: number) => !farmKeepsRecords || (sows[k]! && pregnancyUnrecorded(herd[k]!.records, t)),
  }
}
