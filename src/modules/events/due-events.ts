// Due dates from the farm records as events: farrowing due, pregnancy check due, a weaned sow not served. They
// come from the sow-cycle rules (cycle.rules.ts dueItems), the same items as the herd's due lists, with the
// farm's gestation length and check days. The events job opens them once their day has come; a record that
// settles one (her state moves on, so the item is gone) resolves it, at once when the record is written
// (records call this for the animal) or at the next run.
import type { Kysely } from 'kysely'
import type { DB } from '../../db/schema.ts'
import type { App } from '../../types.ts'
import { femalesWithEvents } from '../cycle/cycle.repository.ts'
import {
  cycleSettingsOf,
  cycleState,
  dateOf,
  dayOf,
  dayOfInstant,
  dueItems,
  type DueItem,
} from '../cycle/cycle.rules.ts'
import { SERVICE_ACTOR } from './actors.rules.ts'
import type { AlertRules } from './alert-rules.rules.ts'
import { alertRulesOf, emitEvent, resolveOpenEvents, type EventRow } from './events.repository.ts'
import { DUE_EVENT_TYPES, DUE_WINDOW_DAYS, dueEventDay, dueEventOpensOn } from './events.rules.ts'

export const DUE_KINDS = Object.values(DUE_EVENT_TYPES)

/** The episode key of a due item: its kind and the record that made it due. */
const keyOf = (item: DueItem) =>
  `${DUE_EVENT_TYPES[item.kind]}:${item.cause === 'service' ? 'insemination' : 'weaning'}:${item.causeId}`

/**
 * Opens the due events whose day has come and resolves those no longer due, for the account or one animal.
 * The account's run reads the records from a horizon (what can still open an event, with a margin), and
 * resolves only the open events whose cause lies within it; one animal's run reads all her records.
 */
export async function deriveDueEvents(
  db: Kysely<DB>,
  uid: string,
  rules: AlertRules,
  now: number,
  animalId?: number,
): Promise<EventRow[]> {
  const t = rules.thresholds
  const settings = cycleSettingsOf(t)
  const today = dayOfInstant(now)
  const horizon =
    animalId === undefined
      ? today - (Math.max(t.gestationDays, t.pregnancyCheckDays, t.weanedNotServedDays) + DUE_WINDOW_DAYS + 30)
      : undefined
  const females = (await femalesWithEvents(db, uid, { animalId, from: horizon })).filter(
    (f) => f.events.length > 0 || animalId !== undefined,
  )
  if (females.length === 0) return []
  let known = db
    .selectFrom('events')
    .select(['animal_id', 'episode_key', 'event_type', 'status', 'evidence'])
    .where('uid', '=', uid)
    .where('event_type', 'in', DUE_KINDS)
  if (animalId !== undefined) known = known.where('animal_id', '=', animalId)
  const stored = new Set<string>()
  const open = new Map<number, { key: string; type: string; causeDay: number | undefined }[]>()
  for (const e of await known.execute()) {
    stored.add(e.episode_key)
    if (e.status === 'resolved' || e.animal_id === null) continue
    const causeDay = dayOf(String((e.evidence as { recordDate?: unknown }).recordDate))
    const list = open.get(Number(e.animal_id)) ?? []
    list.push({ key: e.episode_key, type: e.event_type, causeDay })
    open.set(Number(e.animal_id), list)
  }
  const created: EventRow[] = []
  for (const female of females) {
    const items = dueItems(cycleState(female.events, today, female.registered, settings), settings)
    const due = new Set(items.map(keyOf))
    for (const event of open.get(female.id) ?? []) {
      if (due.has(event.key)) continue
      if (horizon !== undefined && (event.causeDay === undefined || event.causeDay < horizon)) continue
      const target = { animalId: female.id, mac: female.mac }
      await resolveOpenEvents(db, uid, target, [event.type], SERVICE_ACTOR, now, event.key)
    }
    for (const item of items) {
      const key = keyOf(item)
      const day = dueEventDay(item, t.farrowingLeadDays)
      if (item.causeId === undefined || stored.has(key) || !dueEventOpensOn(day, today, item.causeDay)) continue
      const event = await db.transaction().execute((trx) =>
        emitEvent(trx, rules, {
          uid,
          type: DUE_EVENT_TYPES[item.kind],
          mac: female.mac,
          animalId: female.id,
          group: female.group,
          value: today - item.causeDay,
          t: day * 86_400_000,
          evidence: {
            record: item.cause === 'service' ? 'insemination' : 'weaning',
            recordId: String(item.causeId),
            recordDate: dateOf(item.causeDay),
            dueDate: dateOf(day),
            ...(item.kind === 'farrowing'
              ? { expectedFarrowingDate: dateOf(item.dueDate), gestationDays: settings.gestationDays }
              : {}),
          },
          episodeKey: key,
          createdAt: now,
        }),
      )
      if (event) created.push(event)
    }
  }
  return created
}

/**
 * After a farm record of an animal was written: resolves the due events it settles (and opens any it makes
 * due), and announces what was created. A failure here never fails the record's write; the events job
 * catches up at its next run.
 */
export async function settleDueEvents(app: App, uid: string, animalId: number): Promise<void> {
  if (!app.events.derive) return
  try {
    const db = app.database.db
    app.events.announce(await deriveDueEvents(db, uid, await alertRulesOf(db, uid), app.clock(), animalId))
  } catch (err) {
    app.log.warn({ err, uid }, 'due events not derived after a record; the events job catches up')
  }
}
