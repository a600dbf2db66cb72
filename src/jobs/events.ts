// The events that come from time passing (watch-events.ts here, modules/events/due-events.ts): every minute, for
// each account with animals or litter devices, silent tags, offline devices, low batteries and due dates;
// unusual litter activity every ACTIVITY_EVERY_MS (it reads each device's week of readings). One process
// runs it at a time (scheduler.ts); were two to run at once, their state changes still make each event once.
import { sql, type Kysely } from 'kysely'
import type { DB } from '../db/schema.ts'
import type { App } from '../types.ts'
import { alertRulesOf } from '../modules/events/events.repository.ts'
import type { EventRow } from '../modules/events/events.repository.ts'
import { deriveDueEvents } from '../modules/events/due-events.ts'
import { deriveActivityEvents, deriveBatteryEvents, deriveOfflineEvents, deriveSilenceEvents } from './watch-events.ts'
import { startSchedule, type ScheduledJob } from './scheduler.ts'
import type { EventHub } from '../modules/events/event-hub.ts'

/** pg_try_advisory_lock key of this job (distinct from the other jobs'). */
export const EVENTS_LOCK = 6_105_005
export const EVENTS_EVERY_MS = 60_000
export const ACTIVITY_EVERY_MS = 10 * 60_000

export interface EventRunOptions {
  now: number
  /** Only this user's animals and devices. */
  uid?: string | undefined
  /** Also check the litter devices' activity. */
  activity: boolean
}

/** Derives the scheduled events of every account (or one) and returns those created. */
export async function deriveScheduledEvents(db: Kysely<DB>, options: EventRunOptions): Promise<EventRow[]> {
  const { rows } = await sql<{ uid: string }>`
    SELECT uid FROM animals ${options.uid === undefined ? sql`` : sql`WHERE uid = ${options.uid}`}
    UNION SELECT uid FROM litterguards ${options.uid === undefined ? sql`` : sql`WHERE uid = ${options.uid}`}
    ORDER BY uid`.execute(db)
  const created: EventRow[] = []
  for (const { uid } of rows) {
    const rules = await alertRulesOf(db, uid)
    created.push(...(await deriveSilenceEvents(db, uid, rules, options.now)))
    created.push(...(await deriveBatteryEvents(db, uid, rules, options.now)))
    created.push(...(await deriveOfflineEvents(db, uid, rules, options.now)))
    created.push(...(await deriveDueEvents(db, uid, rules, options.now)))
    if (options.activity) created.push(...(await deriveActivityEvents(db, uid, rules, options.now)))
  }
  return created
}

/** Whether the run at `at` checks the litter devices' activity: the first run after each ACTIVITY_EVERY_MS boundary. */
export function checksActivity(at: number): boolean {
  return Math.floor(at / ACTIVITY_EVERY_MS) !== Math.floor((at - EVENTS_EVERY_MS) / ACTIVITY_EVERY_MS)
}

/** The job: at start, then every minute; the events it creates are announced on `events`. */
export function eventsJobOf(events: EventHub): ScheduledJob<{ created: number }> {
  return {
    name: 'events',
    lockKey: EVENTS_LOCK,
    firstRunAt: (now) => now,
    nextRunAt: (now) => now + EVENTS_EVERY_MS,
    run: async (conn, at) => {
      const created = await deriveScheduledEvents(conn, { now: at, activity: checksActivity(at) })
      events.announce(created)
      return { created: created.length }
    },
    done: 'events derived',
    quiet: (outcome) => outcome.created === 0,
  }
}

/** Starts the schedule. Returns the stop function. */
export function startEventSchedule(app: App): () => void {
  return startSchedule(app, eventsJobOf(app.events))
}
