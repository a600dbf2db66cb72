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
  /**
   * Only what the rules need from before a day: each female's records from her last farrowing dated before
   * `before` (with `served`, the last one followed by a service before `before`), and all her culls. A farrowing
   * settles everything the cycle state and the matings carried (but the parity); a service after it starts a
   * mating whatever came before. A female without one is read whole.
   */
  bound?: ReadBound | undefined
  /** Only the records dated up to this day (and all culls): the cycle state on it sees no later ones. */
  until?: Day | undefined
}

/**
 * Where a female's records may start: her last farrowing before `before` (and before a service, with `served`);
 * with `after`, where they may end: her first farrowing after that day.
 */
export interface ReadBound {
  before: Day
  served: boolean
  after?: Day | undefined
}

/**
 * What the cycle state on `day` needs (cycleState, dueEntries, dueItems): her records from her last farrowing
 * on or before it up to it, and her culls. Her parity is not known from them: only the litters read.
 */
export const stateBound = (day: Day): Pick<FemaleCriteria, 'bound' | 'until'> => ({
  bound: { before: day + 1, served: false },
  until: day,
})

/**
 * What the KPIs of the period `from`-`to` need (herdKpis, with `lagDays` its farrowing-rate lag): nothing counts
 * before the farrowing-rate cohort (from - lagDays), and a mating there is one whatever came before her last
 * farrowing that a service follows, but for the weaning it followed: a service before that day is the first
 * mating after that farrowing, so the one whose weaning may be unknown is never counted. After the period, her
 * first farrowing settles every mating before it, and ends the litters weaned in the period.
 */
export const kpiBound = (from: Day, to: Day, lagDays: number): Pick<FemaleCriteria, 'bound'> => ({
  bound: { before: from - lagDays, served: true, after: to },
})

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
    .select(['id', 'mac', 'group_name'])
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
      // The id is the creation time (a time id); `t` is the tag's latest reading once it has sent one.
      registered: dayOfInstant(Number(a.id)),
      events: [],
    })
  if (byId.size === 0) return []
  // Only the records of the animals asked for: one, or a group's (the rest would be read and dropped).
  const one =
    criteria.animalId !== undefined
      ? sql`AND x.animal_id = ${criteria.animalId}`
      : criteria.group !== undefined
        ? sql`AND x.animal_id IN (SELECT id FROM animals WHERE uid = ${uid} AND group_name = ${criteria.group})`
        : sql``
  type DateColumn = 'start_date' | 'check_date' | 'return_date' | 'weaning_date' | 'movement_date'
  const from = (column: DateColumn) =>
    criteria.from === undefined ? sql`` : sql`AND ${sql.ref(`x.${column}`)} >= ${dateOf(criteria.from)}`
  const fromT = criteria.from === undefined ? sql`` : sql`AND x.t >= ${criteria.from * 86_400_000}`
  const until = (column: DateColumn) =>
    criteria.until === undefined ? sql`` : sql`AND ${sql.ref(`x.${column}`)} <= ${dateOf(criteria.until)}`
  const { bound } = criteria
  // Bounded: each female's records from her anchor farrowing's day ('' without one: all), read female by female
  // (LATERAL, kept apart by OFFSET 0) so that each is one index scan of (uid, animal_id) whatever the planner
  // knows of the tables (the embedded store is never analysed, and a join planned blind is quadratic).
  const records = (table: string, columns: ReturnType<typeof sql>, column: DateColumn) =>
    bound === undefined
      ? sql`SELECT ${columns} FROM ${sql.table(table)} x WHERE x.uid = ${uid} ${one} ${from(column)}`
      : sql`SELECT y.* FROM females f, LATERAL (SELECT ${columns} FROM ${sql.table(table)} x
          WHERE x.uid = ${uid} AND x.animal_id = f.id AND ${sql.ref(`x.${column}`)} >= f.anchor_day
          ${bound.after === undefined ? sql`` : sql`AND ${sql.ref(`x.${column}`)} <= f.last_day`}
          ${from(column)} ${until(column)} OFFSET 0) y`
  // The anchor: her last farrowing before the day; with `served`, the last one on or before her last service
  // before it (a service on the farrowing's day comes after it).
  const before = bound === undefined ? '' : dateOf(bound.before)
  const served = bound?.served
    ? sql`AND b.start_date <= (SELECT MAX(i.start_date) FROM inseminations i
        WHERE i.uid = ${uid} AND i.animal_id = f.id AND i.start_date < ${before})`
    : sql``
  const females =
    bound === undefined
      ? sql``
      : sql`WITH females AS MATERIALIZED (
          SELECT f.id, COALESCE((SELECT MAX(b.start_date) FROM births b
            WHERE b.uid = ${uid} AND b.animal_id = f.id AND b.start_date < ${before} ${served}), '') AS anchor_day
          ${
            bound.after === undefined
              ? sql``
              : sql`, COALESCE((SELECT MIN(b.start_date) FROM births b
                  WHERE b.uid = ${uid} AND b.animal_id = f.id AND b.start_date > ${dateOf(bound.after)}), '9999-12-31') AS last_day`
          }
          FROM animals f WHERE f.uid = ${uid} AND f.sex = 'female'
          ${criteria.animalId === undefined ? sql`` : sql`AND f.id = ${criteria.animalId}`}
          ${criteria.group === undefined ? sql`` : sql`AND f.group_name = ${criteria.group}`})`
  const { rows } = await sql<EventRow>`${females}
    ${records(
      'inseminations',
      sql`'service' AS kind, x.animal_id, x.id, x.start_date AS day, NULL::bigint AS at, NULL::text AS result,
        NULL::float8 AS a, NULL::float8 AS b, NULL::float8 AS c`,
      'start_date',
    )}
    UNION ALL ${records(
      'pregnancy_checks',
      sql`'check', x.animal_id, x.id, x.check_date, NULL::bigint, x.result, NULL::float8, NULL::float8, NULL::float8`,
      'check_date',
    )}
    UNION ALL ${records(
      'return_to_estrus',
      sql`'return', x.animal_id, x.id, x.return_date, NULL::bigint, NULL::text, NULL::float8, NULL::float8,
        NULL::float8`,
      'return_date',
    )}
    UNION ALL ${records(
      'births',
      sql`'farrowing', x.animal_id, x.id, x.start_date, NULL::bigint, NULL::text, x.living, x.dead, NULL::float8`,
      'start_date',
    )}
    UNION ALL ${records(
      'weanings',
      sql`'weaning', x.animal_id, x.id, x.weaning_date, NULL::bigint, NULL::text, x.count_weaned, x.foster_in,
        x.foster_out`,
      'weaning_date',
    )}
    -- Culls, all of them: the first ends her cycle, however long ago.
    UNION ALL SELECT 'cull', x.animal_id, x.id, x.movement_date, NULL, NULL, NULL, NULL, NULL
      FROM movements x WHERE x.uid = ${uid} AND x.to_stage = 'cull' ${one} ${from('movement_date')}
    UNION ALL SELECT 'cull', x.animal_id, x.id, NULL, x.t, NULL, NULL, NULL, NULL
      FROM general_events x WHERE x.uid = ${uid} AND x.diagnose = 'Death' ${one} ${fromT}`.execute(db)
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
  const [females, settings] = await Promise.all([
    femalesWithEvents(db, uid, stateBound(today)),
    farmCycleSettings(db, uid),
  ])
  return females.filter((f) => cycleState(f.events, today, f.registered, settings).state === state).map((f) => f.id)
}
