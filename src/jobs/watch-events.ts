// Events that come from time passing rather than from a reading: an ear tag silent for N minutes, a litter
// device offline, a tag's battery low, unusual activity in a litter. The events job (src/jobs/events.ts)
// runs these for each account on a schedule; each state change is its own short transaction, so a
// second process running the same check at once changes nothing (transition) and stores nothing twice.
import type { Kysely } from 'kysely'
import type { DB } from '../db/schema.ts'
import { activityAggregates } from '../modules/litterguards/litterguards.repository.ts'
import {
  baselineWindow,
  deviceWindow,
  NOISE_FLOOR_G,
  unusualActivity,
  type BucketStats,
} from '../modules/litterguards/litterguards.rules.ts'
import { SERVICE_ACTOR } from '../modules/events/actors.rules.ts'
import type { AlertRules } from '../modules/events/alert-rules.rules.ts'
import {
  resolveOpenEvents,
  subjectStates,
  transition,
  transitionWithEvent,
  type EventRow,
  type EventTarget,
  type NewEvent,
} from '../modules/events/events.repository.ts'
import type { EventType } from '../modules/events/event-kinds.ts'
import { isSilent, minutesBetween } from '../modules/events/events.rules.ts'

/** A check the events job runs for one account (as deriveDueEvents): the events it stored. */
type Derivation = (db: Kysely<DB>, uid: string, rules: AlertRules, now: number) => Promise<EventRow[]>

/** A check's event, less what checkSubjects adds: the account, the episode key and the creation time. */
type CheckEvent = Omit<NewEvent, 'uid' | 'episodeKey' | 'createdAt'>

/** What a check decides for one subject in this run, from the subject's stored state; undefined: nothing. */
type Change =
  /** An episode starts: the state moves to `start` as of `since`; its event, keyed by `episodeAt`, is stored. */
  | { start: string; since: number; episodeAt: number; event: CheckEvent }
  /** The episode ends: the state moves to `end` and the subject's open events of `type` are resolved. */
  | { end: string; target: EventTarget; type: EventType }
  | undefined

/**
 * Runs one rule's check over its subjects (`animal:<id>` or `device:<MAC>`): `decide` sees each subject's stored
 * state and says what changes. Each change is its own short transaction, made only while the state is still the
 * one seen (transition), so a second run at once changes nothing. Returns the events stored.
 */
async function checkSubjects<T>(
  db: Kysely<DB>,
  rules: AlertRules,
  run: { uid: string; rule: string; now: number },
  items: readonly T[],
  subjectOf: (item: T) => string,
  decide: (item: T, state: string | undefined) => Change,
): Promise<EventRow[]> {
  const states = await subjectStates(db, run.uid, run.rule)
  const created: EventRow[] = []
  for (const item of items) {
    const subject = subjectOf(item)
    const key = { uid: run.uid, subject, rule: run.rule }
    const state = states.get(subject)?.state
    const change = decide(item, state)
    if (change === undefined) continue
    if ('start' in change) {
      const event: NewEvent = {
        uid: run.uid,
        ...change.event,
        episodeKey: `${change.event.type}:${subject}:${change.episodeAt}`,
        createdAt: run.now,
      }
      const stored = await transitionWithEvent(db, rules, key, state, change.start, change.since, event)
      if (stored) created.push(stored)
    } else {
      await db.transaction().execute(async (trx) => {
        if (await transition(trx, key, state, change.end, run.now))
          await resolveOpenEvents(trx, run.uid, change.target, [change.type], SERVICE_ACTOR, run.now)
      })
    }
  }
  return created
}

/** The subject of an animal's states (its tag's, whatever the tag), and of a litter device's. */
const animalSubject = (a: { id: number }) => `animal:${a.id}`
const deviceSubject = (d: { mac: string }) => `device:${d.mac}`

/** Ear tags that sent no sensor reading for tagSilentMinutes: one tag-silent event per silence. */
export const deriveSilenceEvents: Derivation = async (db, uid, rules, now) => {
  const minutes = rules.thresholds.tagSilentMinutes
  const tags = await db
    .selectFrom('animals')
    .select(['id', 'mac', 'group_name', 'last_sensor_t'])
    .where('uid', '=', uid)
    .where('active', '=', true)
    .where('last_sensor_t', 'is not', null)
    .where('last_sensor_t', '<=', now - minutes * 60_000)
    .execute()
  return checkSubjects(db, rules, { uid, rule: 'silence', now }, tags, animalSubject, (a, state) => {
    const lastHeard = Number(a.last_sensor_t)
    if (state === 'silent' || !isSilent(lastHeard, now, minutes)) return undefined
    const event: CheckEvent = {
      type: 'tag-silent',
      mac: a.mac,
      animalId: Number(a.id),
      group: a.group_name,
      value: minutesBetween(lastHeard, now),
      t: lastHeard + minutes * 60_000,
      evidence: { lastHeard, silentMinutes: minutesBetween(lastHeard, now), thresholdMinutes: minutes },
    }
    return { start: 'silent', since: lastHeard, episodeAt: lastHeard, event }
  })
}

/** Ear tags whose Battery is below batteryPercent: one event until the battery is back above it (a new tag). */
export const deriveBatteryEvents: Derivation = async (db, uid, rules, now) => {
  const percent = rules.thresholds.batteryPercent
  const tags = await db
    .selectFrom('animals')
    .select(['id', 'mac', 'group_name', 'battery'])
    .where('uid', '=', uid)
    .where('battery', 'is not', null)
    .execute()
  return checkSubjects(db, rules, { uid, rule: 'battery', now }, tags, animalSubject, (a, state) => {
    const battery = Number(a.battery)
    if (battery < percent && state !== 'low') {
      const event: CheckEvent = {
        type: 'tag-battery-low',
        mac: a.mac,
        animalId: Number(a.id),
        group: a.group_name,
        value: battery,
        t: now,
        evidence: { battery, thresholdPercent: percent },
      }
      return { start: 'low', since: now, episodeAt: now, event }
    }
    if (battery >= percent && state === 'low')
      return { end: 'ok', target: { animalId: Number(a.id), mac: a.mac }, type: 'tag-battery-low' }
    return undefined
  })
}

/** Litter devices without a reading for litterOfflineMinutes: one litter-offline event per outage. */
export const deriveOfflineEvents: Derivation = async (db, uid, rules, now) => {
  const minutes = rules.thresholds.litterOfflineMinutes
  const devices = await db
    .selectFrom('litterguards')
    .select(['mac', 'last_seen'])
    .where('uid', '=', uid)
    .where('last_seen', 'is not', null)
    .where('last_seen', '<=', Math.floor((now - minutes * 60_000) / 1000))
    .execute()
  return checkSubjects(db, rules, { uid, rule: 'offline', now }, devices, deviceSubject, (d, state) => {
    const lastSeen = Number(d.last_seen) * 1000
    if (state === 'offline' || !isSilent(lastSeen, now, minutes)) return undefined
    const event: CheckEvent = {
      type: 'litter-offline',
      mac: d.mac,
      value: minutesBetween(lastSeen, now),
      t: lastSeen + minutes * 60_000,
      evidence: { lastSeen, offlineMinutes: minutesBetween(lastSeen, now), thresholdMinutes: minutes },
    }
    return { start: 'offline', since: lastSeen, episodeAt: lastSeen, event }
  })
}

/** The largest deviation of the window's buckets from the baseline, in baseline standard deviations. */
function deviationSigmas(s: BucketStats): number {
  if (s.baselineMean === null) return 0
  const sd = Math.max(s.baselineSd ?? 0, NOISE_FLOOR_G)
  return Math.max(0, ...s.windowBuckets.map((b) => Math.abs(b.activity - s.baselineMean!) / sd))
}

/** Unusual activity (the analytics rule) over the last hour of each device: one event per episode. */
export const deriveActivityEvents: Derivation = async (db, uid, rules, now) => {
  const window = deviceWindow('1h', now)
  const aggregates = await activityAggregates(db, uid, window, baselineWindow(window).start)
  return checkSubjects(db, rules, { uid, rule: 'activity', now }, aggregates, deviceSubject, (a, state) => {
    const unusual = unusualActivity(a)
    if (unusual && state !== 'unusual') {
      const sigmas = Math.round(deviationSigmas(a) * 10) / 10
      const event: CheckEvent = {
        type: 'litter-unusual-activity',
        mac: a.mac,
        value: sigmas,
        t: now,
        evidence: {
          windowStart: window.start,
          windowEnd: window.end,
          baselineMean: a.baselineMean,
          baselineSd: a.baselineSd,
          windowActivity: a.windowActivity,
          deviationSigmas: sigmas,
        },
      }
      return { start: 'unusual', since: now, episodeAt: window.end, event }
    }
    if (!unusual && state === 'unusual')
      return { end: 'usual', target: { mac: a.mac }, type: 'litter-unusual-activity' }
    return undefined
  })
}
