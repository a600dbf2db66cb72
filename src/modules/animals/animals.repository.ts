// Animals as stored, and their mapping to the spec's Animal fields at this edge.
import { sql, type Kysely, type Selectable, type Updateable } from 'kysely'
import type { AnimalsTable, DB } from '../../db/schema.ts'
import { offsetOf, type FilterValue, type ListParams } from '../../http/list-params.ts'
import type { ApiAnimal, AnimalCreateBody, AnimalPatchBody } from './animals.schemas.ts'
import { normalizeMac } from './animals.rules.ts'

export type AnimalRow = Selectable<AnimalsTable>
type AnimalColumn = keyof AnimalsTable

/** API field → column, for sorting and filtering. */
export const ANIMAL_COLUMNS: Record<string, AnimalColumn> = {
  ID: 'id', MAC: 'mac', Uid: 'uid', Sex: 'sex', Active: 'active', Battery: 'battery',
  CurrentActivity: 'current_activity', CurrentTemperature: 'current_temperature',
  ReferenceTemperature: 'reference_temperature', ReferenceTemperatureUpdatedAt: 'reference_temperature_updated_at',
  ReferenceTemperatureWindowDays: 'reference_temperature_window_days', EartagStart: 'eartag_start',
  Father: 'father', Mother: 'mother', Group: 'group_name', Node: 'node', NodeWeight: 'node_weight',
  SignalStrength: 'signal_strength', WatchdogWeight: 'watchdog_weight', t: 't', Suspicious: 'suspicious',
  HealthScore: 'health_score',
}

/** Thrown when a MAC is already taken among the user's animals. */
export class DuplicateMacError extends Error {
  constructor(mac: string) {
    super(`An animal with MAC ${mac} already exists`)
    this.name = 'DuplicateMacError'
  }
}

export function toApiAnimal(row: AnimalRow): ApiAnimal {
  const optional = <K extends string, V>(key: K, value: V | null) => (value === null ? {} : { [key]: value } as Record<K, V>)
  return {
    ID: String(row.id),
    MAC: row.mac,
    Uid: row.uid,
    Sex: row.sex,
    Active: row.active,
    ...optional('Battery', row.battery),
    ...optional('CurrentActivity', row.current_activity),
    ...optional('CurrentTemperature', row.current_temperature),
    ReferenceTemperature: row.reference_temperature,
    ...optional('ReferenceTemperatureUpdatedAt', row.reference_temperature_updated_at),
    ...optional('ReferenceTemperatureWindowDays', row.reference_temperature_window_days),
    ...optional('EartagStart', row.eartag_start),
    ...optional('Father', row.father),
    ...optional('Mother', row.mother),
    ...optional('Group', row.group_name),
    ...optional('Node', row.node),
    ...optional('NodeWeight', row.node_weight),
    ...optional('SignalStrength', row.signal_strength),
    ...optional('WatchdogWeight', row.watchdog_weight),
    t: row.t,
    Suspicious: row.suspicious,
    ...optional('HealthScore', row.health_score),
    ...optional('Diagnosed', row.diagnosed),
  }
}

/** Body fields → columns (only the fields present; null clears). */
function toColumns(body: AnimalCreateBody | AnimalPatchBody): Updateable<AnimalsTable> {
  const columns: Updateable<AnimalsTable> = {}
  if (body.MAC !== undefined) columns.mac = normalizeMac(body.MAC)
  if (body.Sex !== undefined) columns.sex = body.Sex
  if (body.Active !== undefined) columns.active = body.Active
  if (body.Suspicious !== undefined) columns.suspicious = body.Suspicious
  if (body.Battery !== undefined) columns.battery = body.Battery
  if (body.CurrentActivity !== undefined) columns.current_activity = body.CurrentActivity
  if (body.EartagStart !== undefined) columns.eartag_start = body.EartagStart
  if (body.Father !== undefined) columns.father = body.Father
  if (body.Mother !== undefined) columns.mother = body.Mother
  if (body.Group !== undefined) columns.group_name = body.Group
  if (body.NodeWeight !== undefined) columns.node_weight = body.NodeWeight
  if (body.WatchdogWeight !== undefined) columns.watchdog_weight = body.WatchdogWeight
  if (body.HealthScore !== undefined) columns.health_score = body.HealthScore
  if (body.Diagnosed !== undefined) columns.diagnosed = body.Diagnosed === null ? null : JSON.stringify(body.Diagnosed)
  return columns
}

function isUniqueViolation(err: unknown, constraint: string): boolean {
  const e = err as { code?: unknown; constraint?: unknown; message?: unknown }
  return e.code === '23505' && (e.constraint === constraint || (typeof e.message === 'string' && e.message.includes(constraint)))
}

export async function findAnimalById(db: Kysely<DB>, uid: string, id: number): Promise<AnimalRow | undefined> {
  return db.selectFrom('animals').selectAll().where('uid', '=', uid).where('id', '=', id).executeTakeFirst()
}

export async function findAnimalByMac(db: Kysely<DB>, uid: string, mac: string): Promise<AnimalRow | undefined> {
  return db.selectFrom('animals').selectAll().where('uid', '=', uid).where('mac', '=', normalizeMac(mac)).executeTakeFirst()
}

export async function animalExists(db: Kysely<DB>, uid: string, mac: string): Promise<boolean> {
  const row = await db.selectFrom('animals').select('id').where('uid', '=', uid).where('mac', '=', normalizeMac(mac)).executeTakeFirst()
  return row !== undefined
}

export async function listAnimals(db: Kysely<DB>, uid: string, params: ListParams, filters: Record<string, FilterValue>): Promise<{ rows: AnimalRow[]; total: number }> {
  let query = db.selectFrom('animals').where('uid', '=', uid)
  for (const [field, value] of Object.entries(filters)) {
    const column = ANIMAL_COLUMNS[field]
    if (column) query = query.where(column, '=', field === 'MAC' && typeof value === 'string' ? normalizeMac(value) : value)
  }
  const column = ANIMAL_COLUMNS[params.sortBy] ?? 't'
  const direction = params.sortOrder === 'asc' ? sql`asc` : sql`desc`
  const [rows, count] = await Promise.all([
    query.selectAll()
      // Animals without the value come last either way; the id breaks ties so pages never overlap.
      .orderBy(sql`${sql.ref(column)} ${direction} nulls last`)
      .orderBy('id', params.sortOrder)
      .limit(params.limit).offset(offsetOf(params))
      .execute(),
    query.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
  ])
  return { rows, total: Number(count.total) }
}

export interface AnimalSearch { group?: string; sex?: string; active?: boolean; suspicious?: boolean; mac?: string }

export async function searchAnimals(db: Kysely<DB>, uid: string, criteria: AnimalSearch): Promise<AnimalRow[]> {
  let query = db.selectFrom('animals').selectAll().where('uid', '=', uid)
  if (criteria.group !== undefined) query = query.where('group_name', '=', criteria.group)
  if (criteria.sex !== undefined) query = query.where('sex', '=', criteria.sex as AnimalRow['sex'])
  if (criteria.active !== undefined) query = query.where('active', '=', criteria.active)
  if (criteria.suspicious !== undefined) query = query.where('suspicious', '=', criteria.suspicious)
  if (criteria.mac !== undefined) query = query.where('mac', '=', normalizeMac(criteria.mac))
  return query.orderBy('id').execute()
}

/**
 * Inserts an animal with the next id from `ids`. Another process may have taken that millisecond for
 * the same user: the insert then skips (ON CONFLICT on the key) and the next millisecond is tried.
 */
export async function insertAnimal(db: Kysely<DB>, uid: string, body: AnimalCreateBody, ids: { next: () => number; bump: (taken: number) => void }): Promise<AnimalRow> {
  const columns = toColumns(body)
  for (let attempt = 0; attempt < 1000; attempt++) {
    const id = ids.next()
    try {
      const row = await db.insertInto('animals')
        .values({ ...columns, uid, id, t: id, mac: columns.mac!, sex: columns.sex! })
        .onConflict((oc) => oc.columns(['uid', 'id']).doNothing())
        .returningAll()
        .executeTakeFirst()
      if (row) return row
      ids.bump(id)
    } catch (err) {
      if (isUniqueViolation(err, 'animals_uid_mac_key')) throw new DuplicateMacError(columns.mac!)
      throw err
    }
  }
  throw new Error('Could not find a free animal id')
}

/**
 * Applies a partial update. A new MAC carries the tag's readings along (same transaction), so the
 * animal keeps its history; a MAC taken by another of the user's animals is a DuplicateMacError.
 */
export async function updateAnimal(db: Kysely<DB>, uid: string, id: number, body: AnimalPatchBody, now: Date): Promise<AnimalRow | undefined> {
  const columns = toColumns(body)
  try {
    return await db.transaction().execute(async (trx) => {
      const current = await trx.selectFrom('animals').select('mac').where('uid', '=', uid).where('id', '=', id).forUpdate().executeTakeFirst()
      if (!current) return undefined
      const row = await trx.updateTable('animals').set({ ...columns, updated_at: now })
        .where('uid', '=', uid).where('id', '=', id).returningAll().executeTakeFirstOrThrow()
      if (row.mac !== current.mac) {
        for (const table of ['animal_sensor_readings', 'animal_location_readings'] as const) {
          await trx.updateTable(table).set({ mac: row.mac }).where('uid', '=', uid).where('mac', '=', current.mac).execute()
        }
      }
      return row
    })
  } catch (err) {
    if (isUniqueViolation(err, 'animals_uid_mac_key')) throw new DuplicateMacError(columns.mac ?? '')
    throw err
  }
}

/** Deletes an animal and its tag's readings; false when there was no such animal. */
export async function deleteAnimal(db: Kysely<DB>, uid: string, id: number): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const row = await trx.deleteFrom('animals').where('uid', '=', uid).where('id', '=', id).returning('mac').executeTakeFirst()
    if (!row) return false
    await trx.deleteFrom('animal_sensor_readings').where('uid', '=', uid).where('mac', '=', row.mac).execute()
    await trx.deleteFrom('animal_location_readings').where('uid', '=', uid).where('mac', '=', row.mac).execute()
    return true
  })
}
