// The user's females and the records the cycle rules read, as events per animal: services (inseminations),
// pregnancy checks, returns to estrus, farrowings (births), weanings, and culls (a move to the cull stage, or a
// death recorded as a general event). Archived records count too: they happened. And the farm's own cycle
// figures, from its alert rules.
import { sql, type Kysely } from 'kysely'
import type { DB } from '../../db/schema.ts'
import {
  cycleSettingsOf,
  cycleState,
  dateOf,
  dayOf,
  dayOfInstant,
  type CycleEvent,
  type CycleSettings,
  type CycleStateName,
  type Day,
} from './cycle.rules.ts'

export interface Female {
  id: number
  mac: string
  group: string | null
  /** The day she was registered (her animal record's creation). */
  registered: Day
  events: CycleEvent[]
}

export interface FemaleCriteria {
  animalId?: number | undefined
  group?: string | undefined
  /** Only the records of this day or later (the events job's horizon). */
  from?: Day | undefined
}

interface EventRow {
  kind: CycleEvent['kind']
  animal_id: number | string
  id: number | string
  day: string | null
  at: number | string | null
  result: string | null
  a: number | null
  b: number | null
  c: number | null
}

/** The user's females (of one group, or one animal), oldest first, each with her events. */
export async function femalesWithEvents(db: Kysely<DB>, uid: string, criteria: FemaleCriteria = {}): Promise<Female[]> {
  let query = db
    .selectFrom('animals')
    .select(['id', 'mac', 'group_name', 't'])
    .where('uid', '=', uid)
    .where('sex', '=', 'female')
  if (criteria.animalId !== undefined) query = query.where('id', '=', criteria.animalId)
  if (criteria.group !== undefined) query = query.where('group_name', '=', criteria.group)
  const animals = await query.orderBy('id').execute()
  const byId = new Map<number, Female>()
  for (const a of animals)
    byId.set(Number(a.id), {
      id: Number(a.id),
      mac: a.mac,
      group: a.group_name,
      registered: dayOfInstant(Number(a.t)),
      events: [],
    })
  if (byId.size === 0) return []
  // Only the records of the animals asked for: one, or a group's (the rest would be read and dropped).
  const one =
    criteria.animalId !== undefined
      ? sql`AND animal_id = ${criteria.animalId}`
      : criteria.group !== undefined
        ? sql`AND animal_id IN (SELECT id FROM animals WHERE uid = ${uid} AND group_name = ${criteria.group})`
        : sql``
  const from = (column: 'start_date' | 'check_date' | 'return_date' | 'weaning_date' | 'movement_date') =>
    criteria.from === undefined ? sql`` : sql`AND ${sql.ref(column)} >= ${dateOf(criteria.from)}`
  const fromT = criteria.from === undefined ? sql`` : sql`AND t >= ${criteria.from * 86_400_000}`
  const { rows } = await sql<EventRow>`
    SELECT 'service' AS kind, animal_id, id, start_date AS day, NULL::bigint AS at, NULL::text AS result,
      NULL::float8 AS a, NULL::float8 AS b, NULL::float8 AS c
      FROM inseminations WHERE uid = ${uid} ${one} ${from('start_date')}
    UNION ALL SELECT 'check', animal_id, id, check_date, NULL, result, NULL, NULL, NULL
      FROM pregnancy_checks WHERE uid = ${uid} ${one} ${from('check_date')}
    UNION ALL SELECT 'return', animal_id, id, return_date, NULL, NULL, NULL, NULL, NULL
      FROM return_to_estrus WHERE uid = ${uid} ${one} ${from('return_date')}
    UNION ALL SELECT 'farrowing', animal_id, id, start_date, NULL, NULL, living, dead, NULL
      FROM births WHERE uid = ${uid} ${one} ${from('start_date')}
    UNION ALL SELECT 'weaning', animal_id, id, weaning_date, NULL, NULL, count_weaned, foster_in, foster_out
      FROM weanings WHERE uid = ${uid} ${one} ${from('weaning_date')}
    UNION ALL SELECT 'cull', animal_id, id, movement_date, NULL, NULL, NULL, NULL, NULL
      FROM movements WHERE uid = ${uid} AND to_stage = 'cull' ${one} ${from('movement_date')}
    UNION ALL SELECT 'cull', animal_id, id, NULL, t, NULL, NULL, NULL, NULL
      FROM general_events WHERE uid = ${uid} AND diagnose = 'Death' ${one} ${fromT}`.execute(db)
  for (const r of rows) {
    const female = byId.get(Number(r.animal_id))
    const day = r.day !== null ? dayOf(r.day) : r.at !== null ? dayOfInstant(Number(r.at)) : undefined
    if (!female || day === undefined) continue
    const event = eventOf(r, day)
    if (event) female.events.push(event)
  }
  return [...byId.values()]
}

function eventOf(r: EventRow, day: Day): CycleEvent | undefined {
  const id = Number(r.id)
  switch (r.kind) {
    case 'service':
    case 'return':
    case 'cull':
      return { kind: r.kind, day, id }
    case 'check':
      return r.result === 'pregnant' || r.result === 'open' || r.result === 'recheck'
        ? { kind: 'check', day, result: r.result, id }
        : undefined
    case 'farrowing':
      return { kind: 'farrowing', day, bornAlive: r.a ?? 0, stillborn: r.b ?? 0, id }
    case 'weaning':
      return { kind: 'weaning', day, weaned: r.a ?? 0, fosterIn: r.b ?? 0, fosterOut: r.c ?? 0, id }
  }
}

/**
 * The farm's cycle settings: the gestation length, pregnancy-check and weaned-not-served days of its alert rules
 * (the events' thresholds) over the defaults, so that its due lists, cycle states and due events agree.
 */
export async function farmCycleSettings(db: Kysely<DB>, uid: string): Promise<CycleSettings> {
  const row = await db.selectFrom('alert_rules').select('rules').where('uid', '=', uid).executeTakeFirst()
  return cycleSettingsOf(row?.rules.thresholds ?? {})
}

/** The ids of the user's females in the state on `today` (the herd list's cycleState filter). */
export async function femaleIdsInState(
  db: Kysely<DB>,
  uid: string,
  state: CycleStateName,
  today: Day,
): Promise<number[]> {
  const [females, settings] = await Promise.all([femalesWithEvents(db, uid), farmCycleSettings(db, uid)])
  return females.filter((f) => cycleState(f.events, today, f.registered, settings).state === state).map((f) => f.id)
}
