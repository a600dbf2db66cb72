// Our own scorer in the service (rules in modules/predictions/scorer.rules.ts). Every hour, a few minutes
// past the hour, it scores each active animal of each user for the hours completed since its last run (at
// most CATCH_UP_HOURS back) and stores one AIPrediction per animal, class and hour. The readings are summed
// up per hour in SQL; the rules run in Node on those summaries and the farm's records. One process runs it
// at a time (withSingleRunner); a second run for the same hour stores nothing new (a unique index).
import type { Kysely } from 'kysely'
import type { DB } from '../db/schema.ts'
import type { App } from '../types.ts'
import { activeAnimalsOf, setCurrentActivities, uidsWithAnimals } from '../modules/animals/animals.repository.ts'
import {
  insertScoredPredictions,
  lastScoredAt,
  type NewPrediction,
} from '../modules/predictions/predictions.repository.ts'
import { herdHourlySummaries } from '../modules/readings/readings.summaries.ts'
import { recordDaysOf } from '../modules/records/records.repository.ts'
import { births } from '../modules/records/births/births.ts'
import { inseminations } from '../modules/records/inseminations/inseminations.ts'
import { weanings } from '../modules/records/weanings/weanings.ts'
import { pregnancyChecks } from '../modules/records/pregnancy-checks/pregnancy-checks.ts'
import { returnToEstrus } from '../modules/records/return-to-estrus/return-to-estrus.ts'
import { CLASSIFICATION_TYPES, recordInstant } from '../modules/predictions/predictions.rules.ts'
import {
  HOUR_MS,
  SUMMARY_THRESHOLDS,
  alignHours,
  hasData,
  heardFrom,
  type HourSummary,
} from '../modules/predictions/hour-summaries.rules.ts'
import { LOOKBACK_HOURS, SCORER, settingsWithFactors } from '../modules/predictions/scorer-settings.rules.ts'
import { alarmLevel, uncalibrate } from '../modules/predictions/calibration.rules.ts'
import { failedServices, type AnimalRecords, type ServiceOutcome } from '../modules/predictions/reproduction.rules.ts'
import { scoreHerd, type AnimalHours } from '../modules/predictions/scorer.rules.ts'
import { runJobOnce, startSchedule, type ScheduledJob } from './scheduler.ts'
import type { EventHub } from '../modules/events/event-hub.ts'
import { alertRulesOf } from '../modules/events/events.repository.ts'
import { derivePredictionEvents } from '../modules/events/prediction-events.ts'
import { MATCH_WINDOWS, mergeMoments } from '../modules/predictions/accuracy.rules.ts'
import { alarmsAndEvents } from '../modules/predictions/predictions.accuracy.ts'
import {
  DEFAULT_FACTORS,
  DEFAULT_GESTATION,
  LEARNING,
  learnGestationFromRecords,
  type ClassLearning,
  type FarmFactors,
  type GestationLearning,
  learnClassFromPeriod,
} from '../modules/predictions/farm-learning.rules.ts'
import {
  farmCalibrationMaps,
  findFarmSettings,
  saveFarmSettings,
  scorerDayPeaks,
  scorerBirthHours,
  scorerHourCells,
} from '../modules/predictions/farm-settings.repository.ts'
import {
  DEFAULT_DUE_BAR_LEARNING,
  DUE_BAR_LEARNING,
  dueWindowOf,
  learnDueBarFromScores,
  type DueBar,
  type DueBarLearning,
} from '../modules/predictions/due-bar.rules.ts'
import {
  FIT_WINDOWS,
  eventsInFitPeriod,
  fitFarmCalibration,
  farmProbability,
  lamenessPrior,
  phaseRecordsIn,
  type FarmCalibrationFit,
} from '../modules/predictions/farm-calibration.rules.ts'

/** pg_try_advisory_lock key of this job (distinct from the reference-temperature job's). */
export const PREDICTIONS_LOCK = 6_105_002
/** A run scores at most this many hours back; a first run scores this many. */
export const CATCH_UP_HOURS = 24
/** Minutes past the hour of the scheduled run: gateways send the hour's last readings a little late. */
export const RUN_MINUTES_PAST = 5
const DAY_MS = 24 * HOUR_MS
/** Rows per insert statement. */
const INSERT_BATCH = 1000
/** Animals whose hourly summaries one statement reads: one round trip for a pen, a bounded answer for a large farm. */
const SUMMARY_BATCH = 100

export interface PredictionRunOptions {
  /** The run's time: it scores the hours that ended by then. */
  now: number
  /** Only this user's animals. */
  uid?: string | undefined
  /** Where the prediction alarms go: derived when the hub derives, announced after each user's run. */
  events?: EventHub | undefined
}

export interface PredictionRunOutcome {
  users: number
  animals: number
  hours: number
  stored: number
}

/** The end of each hour to score for a user, oldest first: those completed after its last scored hour, at most CATCH_UP_HOURS. */
export function hoursToScore(now: number, lastScored: number | undefined): number[] {
  const lastEnd = Math.floor(now / HOUR_MS) * HOUR_MS
  const earliest = lastEnd - (CATCH_UP_HOURS - 1) * HOUR_MS
  const first = lastScored === undefined ? earliest : Math.max(earliest, lastScored + HOUR_MS)
  const ends: number[] = []
  for (let end = first; end <= lastEnd; end += HOUR_MS) ends.push(end)
  return ends
}

/** Scores every active animal (of one user, or of all) and stores the predictions. */
export async function scorePredictions(db: Kysely<DB>, options: PredictionRunOptions): Promise<PredictionRunOutcome> {
  const outcome: PredictionRunOutcome = { users: 0, animals: 0, hours: 0, stored: 0 }
  for (const uid of await uidsWithAnimals(db, { activeOnly: true, uid: options.uid })) {
    const result = await scoreUser(db, uid, options.now, options.events)
    outcome.users++
    outcome.animals += result.animals
    outcome.hours = Math.max(outcome.hours, result.hours)
    outcome.stored += result.stored
  }
  return outcome
}

async function scoreUser(
  db: Kysely<DB>,
  uid: string,
  now: number,
  events: EventHub | undefined,
): Promise<{ animals: number; hours: number; stored: number }> {
  const ends = hoursToScore(now, await lastScoredAt(db, uid))
  if (ends.length === 0) return { animals: 0, hours: 0, stored: 0 }
  const firstHour = ends[0]! - HOUR_MS - LOOKBACK_HOURS * HOUR_MS
  const lastHour = ends.at(-1)! - HOUR_MS
  const animals = await activeAnimalsOf(db, uid)
  const records = await recordsOf(db, uid)
  const herd: AnimalHours<number>[] = []
  const summaries = new Map<string, HourSummary[]>()
  for (let i = 0; i < animals.length; i += SUMMARY_BATCH) {
    const macs = animals.slice(i, i + SUMMARY_BATCH).map((a) => a.mac)
    for (const [mac, hours] of await herdHourlySummaries(
      db,
      uid,
      macs,
      firstHour,
      lastHour + HOUR_MS,
      SUMMARY_THRESHOLDS,
    ))
      summaries.set(mac, hours)
  }
  for (const animal of animals) {
    const hours = summaries.get(animal.mac) ?? []
    herd.push({
      key: animal.id,
      group: animal.group_name,
      hours: alignHours(hours, firstHour, lastHour),
      records: records.get(animal.id) ?? { services: [], weanings: [], births: [] },
    })
  }
  const from = (ends[0]! - HOUR_MS - firstHour) / HOUR_MS
  const to = (lastHour - firstHour) / HOUR_MS
  // The farm's factors move its thresholds (which hours alarm); its calibration maps then re-map each hour's global
  // probability, strictly rising, so an hour alarms where its global probability reaches the class's alarm level.
  const learned = await learnFarmSettings(db, uid, now, records)
  const scores = scoreHerd(
    herd,
    from,
    to,
    settingsWithFactors(learned.factors, SCORER, learned.gestation.days, dueBarOf(learned.dueBar)),
  )
  const maps = await farmCalibrationMaps(db, uid)
  const levels = { birth: alarmLevel('birth'), heat: alarmLevel('heat'), lameness: alarmLevel('lameness') }
  const rows: NewPrediction[] = []
  herd.forEach((animal, k) => {
    scores[k]!.forEach((score, n) => {
      const i = from + n
      if (!heardFrom(animal.hours, i)) return
      const predictedAt = animal.hours[i]!.hour + HOUR_MS
      const timestamp = new Date(predictedAt).toISOString()
      for (const type of CLASSIFICATION_TYPES) {
        const probability = farmProbability(maps[type], score[type], levels[type])
        rows.push({
          animalId: animal.key,
          classificationType: type,
          predictedAt,
          results: [{ timestamp, probability }],
          peakProbability: probability,
          globalProbability: score[type],
        })
      }
    })
  })
  let stored = 0
  for (let i = 0; i < rows.length; i += INSERT_BATCH)
    stored += await insertScoredPredictions(db, uid, rows.slice(i, i + INSERT_BATCH))
  // Each Animal's CurrentActivity: its share of time moving in the last hour scored, where its tag was heard then.
  const lastHeard = herd.filter((animal) => hasData(animal.hours[to]))
  const activity = (animal: AnimalHours<number>) => Math.round(animal.hours[to]!.activity * 1000) / 1000
  await setCurrentActivities(
    db,
    uid,
    lastHeard.map((animal) => ({ id: animal.key, activity: activity(animal) })),
  )
  if (events?.derive && stored > 0) {
    const tags = new Map(animals.map((a) => [a.id, a]))
    const scores = rows.map((p) => ({
      animalId: p.animalId,
      mac: tags.get(p.animalId)!.mac,
      group: tags.get(p.animalId)!.group_name,
      classificationType: p.classificationType,
      predictedAt: p.predictedAt,
      // Alert rules compare the global probability: their thresholds keep the scale they were set on, which the
      // farm's weekly refit does not move, and an alert fires where it did.
      probability: p.globalProbability ?? p.peakProbability,
    }))
    events.announce(await derivePredictionEvents(db, uid, await alertRulesOf(db, uid), scores, now))
  }
  return {
    animals: herd.filter((a) => a.hours.some((_, i) => i >= from && heardFrom(a.hours, i))).length,
    hours: ends.length,
    stored,
  }
}

/** What the scorer uses for a farm: its threshold factors, its gestation and its due bar (per-farm learning). */
export interface LearnedFarm {
  factors: FarmFactors
  gestation: GestationLearning
  dueBar: DueBarLearning
}

const dueBarOf = (learned: DueBarLearning): DueBar => ({
  factor: learned.factor,
  fromDay: learned.fromDay,
  toDay: learned.toDay,
})

/**
 * The farm's threshold factors and gestation, learned again from its records when the last learning is
 * LEARNING.everyDays old (farm-learning.rules.ts): the events of the last LEARNING.periodDays, matched as the accuracy
 * route matches them, against the scorer's daily peaks; the farrowings of the same days against their services; and
 * with them its calibration maps (farm-calibration.rules.ts), from the same events against every scored hour's global
 * probability. Before anything was scored, the defaults. `records`: the farm's, when the caller has read them.
 */
export async function learnFarmSettings(
  db: Kysely<DB>,
  uid: string,
  now: number,
  records?: Map<number, AnimalRecords>,
): Promise<LearnedFarm> {
  const stored = await findFarmSettings(db, uid)
  const storedFarm = stored && {
    factors: stored.factors,
    gestation: stored.basis.gestation ?? DEFAULT_GESTATION,
    dueBar: stored.basis.dueBar ?? DEFAULT_DUE_BAR_LEARNING,
  }
  if (storedFarm && now - stored.learnedAt < LEARNING.everyDays * DAY_MS) return storedFarm
  const current = stored?.factors ?? DEFAULT_FACTORS
  const from = now - LEARNING.periodDays * DAY_MS
  // Stored probabilities are calibrated; learning reasons in raw scores (p = s / (s + f T)).
  const calibrated = await scorerDayPeaks(db, uid, from, now)
  const peaks = {} as typeof calibrated
  for (const kind of CLASSIFICATION_TYPES)
    peaks[kind] = calibrated[kind].map((d) => ({ ...d, peak: uncalibrate(SCORER.calibration?.[kind], d.peak) }))
  if (CLASSIFICATION_TYPES.every((kind) => peaks[kind].length === 0))
    return storedFarm ?? { factors: current, gestation: DEFAULT_GESTATION, dueBar: DEFAULT_DUE_BAR_LEARNING }
  const { events } = await alarmsAndEvents(db, uid, from, now)
  const classes = {} as Record<(typeof CLASSIFICATION_TYPES)[number], ClassLearning>
  const factors = { ...current }
  for (const kind of CLASSIFICATION_TYPES) {
    classes[kind] = learnClassFromPeriod(kind, peaks[kind], events[kind], { from, to: now }, current[kind])
    factors[kind] = classes[kind].factor
  }
  // The records, not the scores, say when the farm's sows farrow: read afresh each learning, nothing fed back.
  const farmRecords = records ?? (await recordsOf(db, uid))
  const gestation = learnGestationFromRecords(farmRecords.values(), from, now)
  const dueBar = await learnFarmDueBar(
    db,
    uid,
    farmRecords,
    { from, to: now },
    gestation.days,
    dueBarOf(storedFarm?.dueBar ?? DEFAULT_DUE_BAR_LEARNING),
  )
  // Lameness's map starts from the farm's own base rate: its animal-days in a sustained alarm (global probabilities),
  // on a farm whose farrowings and weanings give the lameness rule its phases.
  const prior = lamenessPrior(
    calibrated.lameness,
    alarmLevel('lameness'),
    phaseRecordsIn(farmRecords.values(), from, now),
  )
  const calibration = {} as Record<(typeof CLASSIFICATION_TYPES)[number], FarmCalibrationFit>
  for (const kind of CLASSIFICATION_TYPES) {
    const window = FIT_WINDOWS[kind]
    const records = events[kind].filter((e) => e.at <= now)
    const inPeriod = eventsInFitPeriod(kind, mergeMoments(records, MATCH_WINDOWS[kind].eventMergeMs), from, now)
    const cells = window ? await scorerHourCells(db, uid, kind, { from, to: now }, records, window) : []
    calibration[kind] = fitFarmCalibration(kind, cells, inPeriod, kind === 'lameness' ? prior : null)
  }
  await saveFarmSettings(db, uid, {
    factors,
    learnedAt: now,
    basis: { from, to: now, classes, gestation, dueBar },
    calibration,
  })
  return { factors, gestation, dueBar }
}

/**
 * Birth's bar in the farm's due days (due-bar.rules.ts), from the birth hours the scorer stored around each recorded
 * service's due window in the period (read back through the bar in force) and the farrowings recorded after them.
 */
async function learnFarmDueBar(
  db: Kysely<DB>,
  uid: string,
  records: Map<number, AnimalRecords>,
  period: { from: number; to: number },
  gestationDays: number,
  inForce: DueBar,
): Promise<DueBarLearning> {
  const spans = [...records].flatMap(([animalId, r]) =>
    r.services.map((service) => {
      const window = dueWindowOf(service, gestationDays, DUE_BAR_LEARNING)
      return {
        animalId,
        from: window.from - DUE_BAR_LEARNING.beforeDays * DAY_MS,
        to: window.to + DUE_BAR_LEARNING.afterDays * DAY_MS,
      }
    }),
  )
  const hours = await scorerBirthHours(
    db,
    uid,
    spans.filter((s) => s.from >= period.from && s.to <= period.to),
  )
  const sows = [...records].map(([animalId, r]) => ({ records: r, hours: hours.get(animalId) ?? [] }))
  return learnDueBarFromScores(sows, period, gestationDays, inForce)
}

/** Where the scorer finds each kind of record: the collection, and the fields of its day and time of day. */
const SCORED_RECORDS = [
  { kind: 'services', collection: inseminations, fields: { day: 'StartDate', time: 'StartTime' } },
  { kind: 'weanings', collection: weanings, fields: { day: 'weaningDate' } },
  { kind: 'births', collection: births, fields: { day: 'StartDate', time: 'StartTime' } },
] as const satisfies readonly { kind: keyof AnimalRecords; collection: unknown; fields: unknown }[]

/** Where the scorer finds what became of a service (failedServices): pregnancy checks with their result, returns. */
const SERVICE_OUTCOMES = [
  {
    collection: pregnancyChecks,
    fields: { day: 'checkDate', value: 'result' },
    outcome: (at: number, result: string | null): ServiceOutcome => ({ kind: 'check', result: result ?? '', at }),
  },
  {
    collection: returnToEstrus,
    fields: { day: 'returnDate' },
    outcome: (at: number): ServiceOutcome => ({ kind: 'return', at }),
  },
] as const

/**
 * The user's inseminations, weanings and farrowings per animal id, as instants (archived records too: they
 * happened), and the services a negative pregnancy check or a return showed had failed (failedServices).
 */
async function recordsOf(db: Kysely<DB>, uid: string): Promise<Map<number, AnimalRecords>> {
  const out = new Map<number, AnimalRecords>()
  const recordsOfAnimal = (animalId: number) => {
    let records = out.get(animalId)
    if (!records) out.set(animalId, (records = { services: [], weanings: [], births: [] }))
    return records
  }
  for (const { kind, collection, fields } of SCORED_RECORDS) {
    for (const r of await recordDaysOf(db, collection, uid, fields)) {
      const at = recordInstant(r.day, r.time)
      if (at !== undefined) recordsOfAnimal(r.animalId)[kind].push(at)
    }
  }
  const outcomes = new Map<number, ServiceOutcome[]>()
  for (const { collection, fields, outcome } of SERVICE_OUTCOMES) {
    for (const r of await recordDaysOf(db, collection, uid, fields)) {
      const at = recordInstant(r.day, r.time)
      if (at === undefined) continue
      const list = outcomes.get(r.animalId) ?? []
      list.push(outcome(at, r.value))
      outcomes.set(r.animalId, list)
    }
  }
  for (const [animalId, animalOutcomes] of outcomes) {
    const records = out.get(animalId)
    const failed = records ? failedServices(animalOutcomes, records.services) : []
    if (records && failed.length > 0) records.failedServices = failed
  }
  return out
}

/** The hourly job: RUN_MINUTES_PAST past each hour, and at start for the hours missed; its alarms go to `events`. */
export function predictionsJobOf(events?: EventHub): ScheduledJob<PredictionRunOutcome> {
  return {
    name: 'predictions',
    lockKey: PREDICTIONS_LOCK,
    firstRunAt: (now) => now,
    nextRunAt: (now) => nextRunAt(now),
    run: (conn, at) => scorePredictions(conn, { now: at, events }),
    done: 'predictions scored',
  }
}

/** The scheduled run: every process may call it; one scores, the others skip. */
export async function runScheduledPredictions(app: App, now: number): Promise<PredictionRunOutcome | undefined> {
  return runJobOnce(app, predictionsJobOf(app.events), now)
}

/** When the next scheduled run is due: RUN_MINUTES_PAST past the next hour (or this one, if still ahead). */
export function nextRunAt(now: number): number {
  const thisHour = Math.floor(now / HOUR_MS) * HOUR_MS + RUN_MINUTES_PAST * 60_000
  return thisHour > now ? thisHour : thisHour + HOUR_MS
}

/** Starts the hourly schedule, with a run at start for the hours missed. Returns the stop function. */
export function startPredictionSchedule(app: App): () => void {
  return startSchedule(app, predictionsJobOf(app.events))
}
