// Farms with long histories for the herd reads: each female's cycles over years, written straight into the
// record tables (hundreds of thousands of rows in seconds). Mostly regular cycles, with what real record books
// hold now and then: repeat services (some at the edge of one heat), returns regular and not, open checks and
// rechecks, farrowings or weanings never recorded, split weanings, bought-in sows whose first record is a
// farrowing or a weaning, gilts never served, culls and deaths (a few with records after them), and stray
// records in any order. Used by bounded-reads.test.ts and bench/herd-reads.ts.
import { createHash } from 'node:crypto'
import { sql, type Kysely } from 'kysely'
import type { DB } from '../../src/db/schema.ts'
import { dateOf, dayOf, type Day } from '../../src/modules/cycle/cycle.rules.ts'
import { prng } from '../../src/simulation/random.ts'

export interface LongHerdOptions {
  seed: string
  females: number
  /** The first and last day records may carry. */
  from: Day
  to: Day
  /** Groups the females are spread over, round robin. */
  groups?: readonly string[]
  /** Share of stray records (any kind, any day of the history): 0 for a clean record book. */
  noise?: number
  /** Share of the females coming in over the years, the others there from the start (0.5 unless given). */
  replacements?: number
  /** Share of weanings after which the sow is culled (0.08 unless given). */
  cullRate?: number
}

type Row = { table: keyof typeof COLUMNS; animal: number; values: (string | number | boolean)[] }

const COLUMNS = {
  inseminations: ['start_date', 'boar', 'occupied'],
  pregnancy_checks: ['check_date', 'result', 'check_number', 'method'],
  return_to_estrus: ['return_date', 'return_type', 'days_since_service'],
  births: ['start_date', 'living', 'dead'],
  weanings: ['weaning_date', 'count_weaned', 'foster_in', 'foster_out'],
  movements: ['movement_date', 'from_stage', 'to_stage'],
  general_events: ['t', 'diagnose', 'description'],
} as const

/** The records of one female's life between `from` and `to`. */
function femaleRows(random: () => number, animal: number, options: LongHerdOptions): Row[] {
  const { from, to } = options
  const noise = options.noise ?? 0.02
  const rows: Row[] = []
  const int = (min: number, max: number) => min + Math.floor(random() * (max - min + 1))
  const chance = (p: number) => random() < p
  const put = (table: Row['table'], day: Day, ...rest: (string | number | boolean)[]) => {
    if (day >= from && day <= to) rows.push({ table, animal, values: [dateOf(day), ...rest] })
  }
  const service = (day: Day) => put('inseminations', day, 'Duroc DK-4471', true)
  const check = (day: Day, result: string) => put('pregnancy_checks', day, result, 1, 'ultrasound')
  const farrowing = (day: Day) => put('births', day, int(8, 18), int(0, 3))
  const weaning = (day: Day) => put('weanings', day, int(6, 14), int(0, 2), int(0, 2))
  const cull = (day: Day) =>
    chance(0.8)
      ? put('movements', day, 'weaned', 'cull')
      : day >= from &&
        day <= to &&
        rows.push({
          table: 'general_events',
          animal,
          values: [day * 86_400_000 + int(0, 86_399_999), 'Death', 'found dead'],
        })
  const stray = () => {
    const day = int(from, to)
    const kind = int(0, 5)
    if (kind === 0) service(day)
    if (kind === 1) check(day, ['pregnant', 'open', 'recheck'][int(0, 2)]!)
    if (kind === 2) put('return_to_estrus', day, 'irregular', 30)
    if (kind === 3) farrowing(day)
    if (kind === 4) weaning(day)
    if (kind === 5) cull(day)
  }
  if (chance(0.04)) return rows // a gilt never served
  // Part of the herd there from the start, the rest replacements coming in over the years.
  let day = chance(options.replacements ?? 0.5) ? int(from, to) : from + int(-400, 300)
  const start = random()
  // Bought in: her first record a farrowing (pregnant) or a weaning (with her litter).
  let phase: 'service' | 'farrowing' | 'weaning' = start < 0.1 ? 'farrowing' : start < 0.15 ? 'weaning' : 'service'
  let culled = false
  while (day <= to + 30) {
    if (phase === 'weaning') {
      if (chance(0.92)) weaning(day)
      if (chance(0.06)) weaning(day + int(1, 6)) // a split weaning
      if (chance(options.cullRate ?? 0.08)) {
        cull(day + int(0, 2))
        culled = true
        if (!chance(0.15)) break // most culled sows have no more records
      }
      day += chance(0.9) ? int(3, 7) : int(8, 60)
      phase = 'service'
      continue
    }
    if (phase === 'farrowing') {
      if (chance(0.95)) farrowing(day)
      day += int(18, 32)
      phase = 'weaning'
      continue
    }
    service(day)
    if (chance(0.55)) service(day + int(0, 1))
    if (chance(0.05)) service(day + int(3, 5)) // the edge of one heat
    const outcome = random()
    if (outcome < 0.8) {
      if (chance(0.8)) check(day + int(28, 35), 'pregnant')
      if (chance(0.05)) check(day + int(25, 30), 'recheck')
      if (chance(0.02)) check(day + int(36, 50), 'open') // a wrong check, the litter comes anyway
      day += int(112, 118)
      phase = 'farrowing'
    } else if (outcome < 0.9) {
      const back = chance(0.7) ? int(18, 24) : int(25, 60)
      if (chance(0.8)) put('return_to_estrus', day + back, back <= 24 ? 'regular' : 'irregular', back)
      day += back + int(0, 1)
    } else if (outcome < 0.97) {
      const at = int(28, 35)
      check(day + at, 'open')
      day += at + int(1, 20)
    } else {
      cull(day + int(10, 90))
      culled = true
      if (!chance(0.2)) break
      day += int(20, 120)
    }
    if (chance(noise)) stray()
  }
  if (!culled && chance(0.03)) cull(to - int(0, 200))
  for (let i = 0; i < 5 && chance(Math.min(0.9, noise * 10)); i++) stray()
  return rows
}

/**
 * Registers `females` females for the user (MACs 02:...) and writes their records; returns their ids. Record ids
 * are their creation time (increasing), `t` the same.
 */
export async function seedLongHerd(db: Kysely<DB>, uid: string, options: LongHerdOptions): Promise<number[]> {
  const seedOf = (what: string) => createHash('sha256').update(`${options.seed}:${what}`).digest().readUInt32BE(0)
  const ids: number[] = []
  const registered = (options.from - 30) * 86_400_000
  for (let i = 0; i < options.females; i += 500) {
    const batch = Array.from({ length: Math.min(500, options.females - i) }, (_, j) => {
      const index = i + j
      const id = registered + index
      ids.push(id)
      const bytes = createHash('sha256').update(`${options.seed}:${uid}:mac:${index}`).digest().subarray(0, 5)
      const mac = ['02', ...[...bytes].map((b) => b.toString(16).padStart(2, '0'))].join(':').toUpperCase()
      const group = options.groups?.[index % options.groups.length] ?? null
      return { uid, id, t: id, mac, sex: 'female' as const, group_name: group }
    })
    await db.insertInto('animals').values(batch).execute()
  }
  const rows = ids.flatMap((id, index) => femaleRows(prng(seedOf(`female:${index}`)), id, options))
  let next = Date.parse('2026-01-01T00:00:00Z')
  for (const table of Object.keys(COLUMNS) as (keyof typeof COLUMNS)[]) {
    const ofTable = rows.filter((r) => r.table === table)
    for (let i = 0; i < ofTable.length; i += 1000) {
      const values = ofTable.slice(i, i + 1000).map((r) => {
        const id = next++
        // general_events keep their own t (the death's instant); the others their creation time.
        const head = table === 'general_events' ? [uid, id, r.animal] : [uid, id, r.animal, id]
        return sql`(${sql.join([...head, ...r.values])})`
      })
      const columns = ['uid', 'id', 'animal_id', ...(table === 'general_events' ? [] : ['t']), ...COLUMNS[table]]
      await sql`INSERT INTO ${sql.table(table)} (${sql.join(columns.map((c) => sql.ref(c)))}) VALUES ${sql.join(values)}`.execute(
        db,
      )
    }
  }
  return ids
}

/** The records written (for the docs' figures). */
export async function recordCount(db: Kysely<DB>, uid: string): Promise<number> {
  let total = 0
  for (const table of Object.keys(COLUMNS)) {
    const { rows } = await sql<{ n: string }>`SELECT count(*) AS n FROM ${sql.table(table)} WHERE uid = ${uid}`.execute(
      db,
    )
    total += Number(rows[0]!.n)
  }
  return total
}

export const day = (date: string): Day => dayOf(date)!

/** The rows a farm would get, without writing them (to size a farm). */
export function longHerdRows(options: LongHerdOptions): number {
  const seedOf = (what: string) => createHash('sha256').update(`${options.seed}:${what}`).digest().readUInt32BE(0)
  let n = 0
  for (let index = 0; index < options.females; index++)
    n += femaleRows(prng(seedOf(`female:${index}`)), index, options).length
  return n
}
