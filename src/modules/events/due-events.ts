// Due dates from the farm records as events (rules in due-dates.rules.ts): farrowing due, pregnancy check due,
// a weaned sow not served. The events job opens them once their day has come; a record that settles one
// resolves it, at once when the record is created (records call this for the animal) or at the next run.
import { sql, type Kysely } from 'kysely'
import type { DB } from '../../db/schema.ts'
import type { App } from '../../types.ts'
import type { AlertRules } from './alert-rules.rules.ts'
import { addDays, daysBetween, dayOf, DUE_WINDOW_DAYS, dueItems, opensOn, type SowRecords } from './due-dates.rules.ts'
import { alertRulesOf, emitEvent, resolveOpenEvents, type EventRow } from './events.repository.ts'

export const DUE_KINDS = ['farrowing-due', 'pregnancy-check-due', 'weaned-not-served'] as const

/** Opens the due events whose day has come and resolves the settled ones, for the account or one animal. */
export async function deriveDueEvents(
  db: Kysely<DB>,
  uid: string,
  rules: AlertRules,
  now: number,
  animalId?: number,
): Promise<EventRow[]> {
  const t = rules.thresholds
  const today = dayOf(now)
  // Records old enough that nothing they make due can still open or be open are left out.
  const horizon = addDays(today, -(Math.max(t.gestationDays, t.pregnancyCheckDays) + DUE_WINDOW_DAYS + 30))
  const only = animalId === undefined ? sql`` : sql`AND animal_id = ${animalId}`
  const { rows } = await sql<{
    kind: keyof SowRecords
    animal_id: number
    id: number
    day: string
    result: string | null
  }>`
    SELECT 'services' AS kind, animal_id, id, start_date AS day, NULL AS result FROM inseminations WHERE uid = ${uid} AND start_date >= ${horizon} ${only}
    UNION ALL SELECT 'births', animal_id, id, start_date, NULL FROM births WHERE uid = ${uid} AND start_date >= ${horizon} ${only}
    UNION ALL SELECT 'pregnancyChecks', animal_id, id, check_date, result FROM pregnancy_checks WHERE uid = ${uid} AND check_date >= ${horizon} ${only}
    UNION ALL SELECT 'returnsToEstrus', animal_id, id, return_date, NULL FROM return_to_estrus WHERE uid = ${uid} AND return_date >= ${horizon} ${only}
    UNION ALL SELECT 'weanings', animal_id, id, weaning_date, NULL FROM weanings WHERE uid = ${uid} AND weaning_date >= ${horizon} ${only}`.execute(
    db,
  )
  const sows = new Map<number, SowRecords>()
  for (const r of rows) {
    const id = Number(r.animal_id)
    let records = sows.get(id)
    if (!records)
      sows.set(id, (records = { services: [], births: [], pregnancyChecks: [], returnsToEstrus: [], weanings: [] }))
    const record = { id: Number(r.id), day: r.day }
    if (r.kind === 'pregnancyChecks') records.pregnancyChecks.push({ ...record, result: r.result ?? '' })
    else records[r.kind].push(record)
  }
  if (sows.size === 0) return []
  let known = db
    .selectFrom('events')
    .select(['episode_key', 'status'])
    .where('uid', '=', uid)
    .where('event_type', 'in', DUE_KINDS)
  if (animalId !== undefined) known = known.where('animal_id', '=', animalId)
  const stored = new Map((await known.execute()).map((e) => [e.episode_key, e.status]))
  const animals = new Map(
    (
      await db
        .selectFrom('animals')
        .select(['id', 'mac', 'group_name'])
        .where('uid', '=', uid)
        .where('id', 'in', [...sows.keys()])
        .execute()
    ).map((a) => [Number(a.id), a]),
  )
  const settings = {
    gestationDays: t.gestationDays,
    pregnancyCheckDays: t.pregnancyCheckDays,
    weanedNotServedDays: t.weanedNotServedDays,
    farrowingLeadDays: t.farrowingLeadDays,
  }
  const created: EventRow[] = []
  for (const [id, records] of sows) {
    const animal = animals.get(id)
    if (!animal) continue
    for (const item of dueItems(records, settings)) {
      const key = `${item.kind}:${item.cause}:${item.causeId}`
      const status = stored.get(key)
      if (item.settledBy && status !== undefined && status !== 'resolved') {
        await resolveOpenEvents(db, uid, { animalId: id, mac: animal.mac }, [item.kind], 'service', now, key)
        continue
      }
      if (status !== undefined || !opensOn(item, today)) continue
      const event = await db.transaction().execute((trx) =>
        emitEvent(trx, rules, {
          uid,
          type: item.kind,
          mac: animal.mac,
          animalId: id,
          group: animal.group_name,
          value: daysBetween(item.causeDay, today),
          t: Date.parse(`${item.dueDay}T00:00:00Z`),
          evidence: {
            record: item.cause,
            recordId: String(item.causeId),
            recordDate: item.causeDay,
            dueDate: item.dueDay,
            ...(item.kind === 'farrowing-due'
              ? { expectedFarrowingDate: addDays(item.causeDay, t.gestationDays), gestationDays: t.gestationDays }
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
