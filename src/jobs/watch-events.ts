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
import type { AlertRules } from '../modules/events/alert-rules.rules.ts'
import {
  emitEvent,
  resolveOpenEvents,
  subjectStates,
  transition,
  type EventRow,
  type EventTarget,
  type NewEvent,
} from '../modules/events/events.repository.ts'
import type { EventType } from '../modules/events/event-kinds.ts'
import { isSilent, minutesBetween } from '../modules/events/events.rules.ts'

/** Changes a subject's state and stores the event of the change, in one transaction; undefined when another run made it. */
async function changeState(
  db: Kysely<DB>,
  rules: AlertRules,
  key: { uid: string; subject: string; rule: string },
  expected: string | undefined,
  next: string,
  since: number,
  event: NewEvent | undefined,
): Promise<EventRow | undefined> {
  return db.transaction().execute(async (trx) => {
    if (!(await transition(trx, key, expected, next, since))) return undefined
    return event && (await emitEvent(trx, rules, event))
  })
}

/** Ends a subject's episode, in one transaction: its state moves back and the open events of the kind are resolved. */
async function endEpisode(
  db: Kysely<DB>,
  key: { uid: string; subject: string; rule: string },
  states: { from: string; to: string },
  target: EventTarget,
  type: EventType,
  now: number,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    if (await transition(trx, key, states.from, states.to, now))
      await resolveOpenEvents(trx, key.uid, target, [type], 'service', now)
  })
}

/** Ear tags that sent no sensor reading for tagSilentMinutes: one tag-silent event per silence. */
export async function deriveSilenceEvents(
  db: Kysely<DB>,
  uid: string,
  rules: AlertRules,
  now: number,
): Promise<EventRow[]> {
  const minutes = rules.thresholds.tagSilentMinutes
  const animals = await db
    .selectFrom('animals')
    .select(['id', 'mac', 'group_name', 'last_sensor_t'])
    .where('uid', '=', uid)
    .where('active', '=', true)
    .where('last_sensor_t', 'is not', null)
    .where('last_sensor_t', '<=', now - minutes * 60_000)
    .execute()
  const states = await subjectStates(db, uid, 'silence')
  const created: EventRow[] = []
  for (const a of animals) {
    const subject = `animal:${a.id}`
    const lastHeard = Number(a.last_sensor_t)
    const state = states.get(subject)
    if (state?.state === 'silent' || !isSilent(lastHeard, now, minutes)) continue
    const event = await changeState(db, rules, { uid, subject, rule: 'silence' }, state?.state, 'silent', lastHeard, {
      uid,
      type: 'tag-silent',
      mac: a.mac,
      animalId: Number(a.id),
      group: a.group_name,
      value: minutesBetween(lastHeard, now),
      t: lastHeard + minutes * 60_000,
      evidence: { lastHeard, silentMinutes: minutesBetween(lastHeard, now), thresholdMinutes: minutes },
      episodeKey: `tag-silent:${subject}:${lastHeard}`,
      createdAt: now,
    })
    if (event) created.push(event)
  }
  return created
}

/** Ear tags whose Battery is below batteryPercent: one event until the battery is back above it (a new tag). */
export async function deriveBatteryEvents(
  db: Kysely<DB>,
  uid: string,
  rules: AlertRules,
  now: number,
): Promise<EventRow[]> {
  const percent = rules.thresholds.batteryPercent
  const animals = await db
    .selectFrom('animals')
    .select(['id', 'mac', 'group_name', 'battery'])
    .where('uid', '=', uid)
    .where('battery', 'is not', null)
    .execute()
  const states = await subjectStates(db, uid, 'battery')
  const created: EventRow[] = []
  for (const a of animals) {
    const subject = `animal:${a.id}`
    const battery = Number(a.battery)
    const state = states.get(subject)?.state
    if (battery < percent && state !== 'low') {
      const event = await changeState(db, rules, { uid, subject, rule: 'battery' }, state, 'low', now, {
        uid,
        type: 'tag-battery-low',
        mac: a.mac,
        animalId: Number(a.id),
        group: a.group_name,
        value: battery,
        t: now,
        evidence: { battery, thresholdPercent: percent },
        episodeKey: `tag-battery-low:${subject}:${now}`,
        createdAt: now,
      })
      if (event) created.push(event)
    } else if (battery >= percent && state === 'low') {
      const target = { animalId: Number(a.id), mac: a.mac }
      await endEpisode(db, { uid, subject, rule: 'battery' }, { from: 'low', to: 'ok' }, target, 'tag-battery-low', now)
    }
  }
  return created
}

/** Litter devices without a reading for litterOfflineMinutes: one litter-offline event per outage. */
export async function deriveOfflineEvents(
  db: Kysely<DB>,
  uid: string,
  rules: AlertRules,
  now: number,
): Promise<EventRow[]> {
  const minutes = rules.thresholds.litterOfflineMinutes
  const devices = await db
    .selectFrom('litterguards')
    .select(['mac', 'last_seen'])
    .where('uid', '=', uid)
    .where('last_seen', 'is not', null)
    .where('last_seen', '<=', Math.floor((now - minutes * 60_000) / 1000))
    .execute()
  const states = await subjectStates(db, uid, 'offline')
  const created: EventRow[] = []
  for (const d of devices) {
    const subject = `device:${d.mac}`
    const lastSeen = Number(d.last_seen) * 1000
    const state = states.get(subject)?.state
    if (state === 'offline' || !isSilent(lastSeen, now, minutes)) continue
    const event = await changeState(db, rules, { uid, subject, rule: 'offline' }, state, 'offline', lastSeen, {
      uid,
      type: 'litter-offline',
      mac: d.mac,
      value: minutesBetween(lastSeen, now),
      t: lastSeen + minutes * 60_000,
      evidence: { lastSeen, offlineMinutes: minutesBetween(lastSeen, now), thresholdMinutes: minutes },
      episodeKey: `litter-offline:${subject}:${lastSeen}`,
      createdAt: now,
    })
    if (event) created.push(event)
  }
  return created
}

/** The largest deviation of the window's buckets from the baseline, in baseline standard deviations. */
function deviationSigmas(s: BucketStats): number {
  if (s.baselineMean === null) return 0
  const sd = Math.max(s.baselineSd ?? 0, NOISE_FLOOR_G)
  return Math.max(0, ...s.windowBuckets.map((b) => Math.abs(b.activity - s.baselineMean!) / sd))
}

/** Unusual activity (the analytics rule) over the last hour of each device: one event per episode. */
export async function deriveActivityEvents(
  db: Kysely<DB>,
  uid: string,
  rules: AlertRules,
  now: number,
): Promise<EventRow[]> {
  const window = deviceWindow('1h', now)
  const aggregates = await activityAggregates(db, uid, window, baselineWindow(window).start)
  const states = await subjectStates(db, uid, 'activity')
  const created: EventRow[] = []
  for (const a of aggregates) {
    const subject = `device:${a.mac}`
    const state = states.get(subject)?.state
    const unusual = unusualActivity(a)
    if (unusual && state !== 'unusual') {
      const sigmas = Math.round(deviationSigmas(a) * 10) / 10
      const event = await changeState(db, rules, { uid, subject, rule: 'activity' }, state, 'unusual', now, {
        uid,
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
        episodeKey: `litter-unusual-activity:${subject}:${window.end}`,
        createdAt: now,
      })
      if (event) created.push(event)
    } else if (!unusual && state === 'unusual') {
      const key = { uid, subject, rule: 'activity' }
      await endEpisode(db, key, { from: 'unusual', to: 'usual' }, { mac: a.mac }, 'litter-unusual-activity', now)
    }
  }
  return created
}
