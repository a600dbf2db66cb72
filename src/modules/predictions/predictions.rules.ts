// Pure rules of the prediction endpoints: the classification types, ISO 8601 instants of the query
// parameters and of posted predictions, and the probability a prediction is filtered by.
import { FUTURE_SKEW_MS, T_MAX, T_MIN } from '../readings/readings.rules.ts'
import { DATE_TIME_SHAPE, describedPattern, ISO_8601_WORDS } from '../../http/input-patterns.ts'

export const CLASSIFICATION_TYPES = ['heat', 'birth', 'lameness'] as const
export type ClassificationType = (typeof CLASSIFICATION_TYPES)[number]

const DAY_MS = 86_400_000

const ISO_8601 = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})?)?$/
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})?$/

/** startDate/endDate: a date, or a date and time (without an offset it is UTC). */
export const ISO_8601_PATTERN = describedPattern(ISO_8601.source, ISO_8601_WORDS)
/** A prediction's timestamps: a date and time (without an offset it is UTC). */
export const ISO_DATE_TIME_PATTERN = describedPattern(
  ISO_DATE_TIME.source,
  `must be an ISO 8601 date-time, ${DATE_TIME_SHAPE}`,
)

/**
 * The instant an ISO 8601 value names, in ms; undefined for a date or time that does not exist
 * (2026-02-30, 24:00). A bare date names its whole UTC day: its first millisecond as a start, its last
 * as an end, so that `endDate=2026-03-01` includes that day.
 */
export function instantOf(value: string, bound: 'start' | 'end'): number | undefined {
  const match = ISO_8601.exec(value)
  if (!match) return undefined
  const [, y, m, d, hh, mm, ss = '00', fraction = '', offset = 'Z'] = match
  const day = Date.parse(`${y}-${m}-${d}T00:00:00Z`)
  if (Number.isNaN(day) || new Date(day).toISOString().slice(0, 10) !== `${y}-${m}-${d}`) return undefined
  if (hh === undefined) return bound === 'start' ? day : day + DAY_MS - 1
  if (Number(hh) > 23 || Number(mm) > 59 || Number(ss) > 59) return undefined
  const instant = Date.parse(`${y}-${m}-${d}T${hh}:${mm}:${ss}${fraction.slice(0, 4)}${offset}`)
  return Number.isNaN(instant) ? undefined : instant
}

/** The highest probability of a prediction's results: what minProbability and maxProbability compare. */
export function peakProbability(results: readonly { probability: number }[]): number {
  return results.reduce((peak, r) => Math.max(peak, r.probability), 0)
}

export interface PostedPrediction {
  timestamp?: string | undefined
  classificationType: ClassificationType
  results: { timestamp: string; probability: number }[]
  userId?: string | undefined
  animal?: PostedAnimal | undefined
}

export interface PostedAnimal {
  id?: string | undefined
  mac?: string | undefined
  name?: string | undefined
  group?: string | null | undefined
  weight?: number | undefined
  userId?: string | undefined
}

/** The fields of a posted userId and animal that name another user or animal than the path's. */
export function mismatchesOfPath(
  body: Pick<PostedPrediction, 'userId' | 'animal'>,
  path: { uid: string; animalId: string; mac: string },
): { field: string; message: string }[] {
  const problems: { field: string; message: string }[] = []
  if (body.userId !== undefined && body.userId !== path.uid)
    problems.push({ field: 'userId', message: "must be the path's user" })
  const animal = body.animal
  if (animal?.userId !== undefined && animal.userId !== path.uid)
    problems.push({ field: 'animal.userId', message: "must be the path's user" })
  if (animal?.id !== undefined && animal.id !== path.animalId)
    problems.push({ field: 'animal.id', message: "must be the ID of the path's animal" })
  if (animal?.mac !== undefined && animal.mac.toUpperCase() !== path.mac.toUpperCase())
    problems.push({ field: 'animal.mac', message: "must be the MAC of the path's animal" })
  return problems
}

export interface ProblemOrValue<T> {
  problems: { field: string; message: string }[]
  value?: T
}

/**
 * A posted prediction as stored: timestamps normalized to UTC (ms precision), `timestamp` defaulting to
 * now. Problems: a time that does not exist, one outside 2000-2099, a prediction stamped in the future.
 */
export function normalizePosted(
  body: PostedPrediction,
  now: number,
): ProblemOrValue<{ predictedAt: number; results: { timestamp: string; probability: number }[] }> {
  const problems: { field: string; message: string }[] = []
  const instant = (value: string, field: string) => {
    const ms = instantOf(value, 'start')
    if (ms === undefined) problems.push({ field, message: 'is not a real date and time' })
    else if (ms < T_MIN || ms >= T_MAX) problems.push({ field, message: 'must lie in the years 2000-2099' })
    else return ms
    return undefined
  }
  const predictedAt = body.timestamp === undefined ? now : instant(body.timestamp, 'timestamp')
  if (predictedAt !== undefined && predictedAt > now + FUTURE_SKEW_MS) {
    problems.push({ field: 'timestamp', message: 'is in the future: it says when the prediction was made' })
  }
  const results = body.results.map((r, i) => {
    const ms = instant(r.timestamp, `results[${i}].timestamp`)
    return { timestamp: ms === undefined ? r.timestamp : new Date(ms).toISOString(), probability: r.probability }
  })
  if (problems.length > 0 || predictedAt === undefined) return { problems }
  return { problems, value: { predictedAt, results } }
}

/**
 * When a farm record happened, for the scorer: its date (YYYY-MM-DD) at its time (HH:mm[:ss]) in UTC, or at
 * noon when it has none; undefined for a date that does not parse (records keep what was sent).
 */
export function recordInstant(date: string, time?: string | null): number | undefined {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) return undefined
  const clock = time && /^\d{2}:\d{2}(:\d{2})?$/.test(time) ? (time.length === 5 ? `${time}:00` : time) : '12:00:00'
  const ms = Date.parse(`${date}T${clock}Z`)
  return Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== date ? undefined : ms
}

/** A count with its noun in the singular or plural: "1 day", "14 days" (the settings route's reasons). */
export const counted = (n: number, one: string, other = `${one}s`): string => `${n} ${n === 1 ? one : other}`
