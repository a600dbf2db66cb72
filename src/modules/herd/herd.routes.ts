// The herd's reproduction from its records: one female's cycle state, the due lists, and the KPIs over a
// period. Rules in cycle.rules.ts and kpi.rules.ts; docs/herd-performance.md.
import Type from 'typebox'
import { defineModule } from '../../http/api-module.ts'
import { Envelope, ok } from '../../http/envelope.ts'
import { validationFailed, type FieldProblem } from '../../http/errors.ts'
import { BoundedString, EXAMPLE, Integer } from '../../http/schema-types.ts'
import type { App } from '../../types.ts'
import { AnimalMacPath, UserPath } from '../animals/animals.resource.ts'
import {
  CYCLE,
  DUE_LISTS,
  cycleState,
  expectedHeatOf,
  dateOf,
  dayOf,
  dayOfInstant,
  dueEntries,
  type CycleSettings,
  type Day,
  type DueListName,
} from '../cycle/cycle.rules.ts'
import { farmCycleSettings, femalesWithEvents, kpiBound, stateBound, type Female } from '../cycle/cycle.repository.ts'
import { Cycle, DueLists, Kpis, type DueAnimalBody } from './herd.schemas.ts'
import { KPI, herdKpis, withBenchmarks } from './kpi.rules.ts'
import { DATE_PATTERN } from '../../http/input-patterns.ts'

/** The longest KPI period: ten years. */
export const KPI_PERIOD_MAX_DAYS = 3660

const DateQuery = (description: string, example: string) =>
  Type.Optional(
    Type.String({
      pattern: DATE_PATTERN,
      maxLength: 10,
      description: `${description}, YYYY-MM-DD`,
      examples: [example],
    }),
  )
const GroupQuery = Type.Optional(BoundedString(200, 'Only the females of this group (exact match)', 'Sows A'))

const FIRST_DAY = dayOf('2000-01-01')!

/** The days of the named date parameters that were sent, or a 400 naming each that is not a real date. */
function daysOf<K extends string>(query: Partial<Record<K, string>>, names: K[]): Partial<Record<K, Day>> {
  const problems: FieldProblem[] = []
  const out: Partial<Record<K, Day>> = {}
  for (const name of names) {
    const value = query[name]
    if (value === undefined) continue
    const day = dayOf(value)
    if (day === undefined) problems.push({ field: `query:${name}`, message: 'is not a real date' })
    else if (value < '2000-01-01' || value > '2099-12-31')
      problems.push({ field: `query:${name}`, message: 'must lie in the years 2000-2099' })
    else out[name] = day
  }
  if (problems.length > 0) throw validationFailed(problems)
  return out
}

/** The due lists on `date` of the females (each list by due date, then MAC). */
export function dueListsOf(
  females: readonly Female[],
  date: Day,
  settings: CycleSettings,
): Record<DueListName, DueAnimalBody[]> {
  const lists = Object.fromEntries(DUE_LISTS.map((name) => [name, [] as DueAnimalBody[]])) as Record<
    DueListName,
    DueAnimalBody[]
  >
  for (const female of females) {
    const cycle = cycleState(female.events, date, female.registered, settings)
    for (const entry of dueEntries(cycle, date, settings)) {
      lists[entry.list].push({
        MAC: female.mac,
        Group: female.group,
        state: cycle.state,
        daysInState: cycle.days ?? null,
        dueDate: dateOf(entry.dueDate),
        daysFromDue: entry.daysFromDue,
      })
    }
  }
  for (const list of Object.values(lists))
    list.sort((a, b) => a.dueDate.localeCompare(b.dueDate) || a.MAC.localeCompare(b.MAC))
  return lists
}

export const herdModule = defineModule({
  tag: 'herd',
  description:
    "The herd's reproduction from its farm records: each female's cycle state, the due lists and the KPIs " +
    '(docs/herd-performance.md).',
  routes: herdRoutes,
})

async function herdRoutes(app: App) {
  const db = app.database.db
  const today = () => dayOfInstant(app.clock())

  app.get(
    '/users/:userId/animals/:animalMac/cycle',
    {
      schema: {
        operationId: 'getAnimalCycle',
        summary: "A female's reproductive cycle state",
        description:
          'Her state on `date` (today unless asked) from her records (inseminations, pregnancy checks, returns to ' +
          'estrus, births, weanings, movements to the cull stage, deaths), the day it began and the days in it. ' +
          `Services up to ${CYCLE.sameHeatDays} days apart are one mating; records dated after \`date\` are not seen. ` +
          'A male has no cycle: state null.',
        params: AnimalMacPath,
        querystring: Type.Object({ date: DateQuery('The day to give the state for (default today)', EXAMPLE.date) }),
        response: { 200: Envelope(Cycle) },
      },
      config: { access: 'own', animal: 'path' },
    },
    async (req) => {
      const date = daysOf(req.query, ['date']).date ?? today()
      const animal = req.pathAnimal
      const female =
        animal.sex === 'female'
          ? (await femalesWithEvents(db, req.params.userId, { animalId: Number(animal.id) }))[0]
          : undefined
      const none = {
        state: null,
        since: null,
        days: null,
        lastService: null,
        expectedFarrowing: null,
        expectedHeat: null,
        parity: 0,
      }
      if (!female) return ok({ MAC: animal.mac, ...none, date: dateOf(date) })
      const settings = await farmCycleSettings(db, req.params.userId)
      const cycle = cycleState(female.events, date, female.registered, settings)
      const heat = expectedHeatOf(cycle, date, settings)
      return ok({
        MAC: animal.mac,
        state: cycle.state,
        since: cycle.since === undefined ? null : dateOf(cycle.since),
        days: cycle.days ?? null,
        lastService: cycle.service === undefined ? null : dateOf(cycle.service),
        expectedFarrowing: cycle.expectedFarrowing === undefined ? null : dateOf(cycle.expectedFarrowing),
        expectedHeat: heat === undefined ? null : { from: dateOf(heat.from), to: dateOf(heat.to) },
        parity: cycle.parity,
        date: dateOf(date),
      })
    },
  )

  app.get(
    '/users/:userId/due-lists',
    {
      schema: {
        operationId: 'getDueLists',
        summary: 'Sows due for something: farrowing, a pregnancy check, a service, a return to watch',
        description:
          'Four lists on `date` (today unless asked), each sorted by due date then MAC, from the cycle state of every ' +
          "female (of `group`, when given), with the farm's gestation length, pregnancy-check and weaned-not-served " +
          'days from its alert rules (GET /users/{userId}/alert-rules). See each list for its rule. An expensive request.',
        params: UserPath,
        querystring: Type.Object({
          date: DateQuery('The day (default today)', EXAMPLE.date),
          weanedDays: Type.Optional(
            Integer({
              minimum: 1,
              maximum: 365,
              description:
                'weanedNotServed lists sows weaned at least this many days ago and not served since (default: the ' +
                `alert rules' weanedNotServedDays, ${CYCLE.weanedNotServedDays} unless the farm set it)`,
              examples: [7],
            }),
          ),
          group: GroupQuery,
        }),
        response: { 200: Envelope(DueLists) },
      },
      // Each female's records since her last farrowing.
      config: { access: 'own', cost: 'expensive' },
    },
    async (req) => {
      const date = daysOf(req.query, ['date']).date ?? today()
      const farm = await farmCycleSettings(db, req.params.userId)
      const settings = { ...farm, weanedNotServedDays: req.query.weanedDays ?? farm.weanedNotServedDays }
      const females = await femalesWithEvents(db, req.params.userId, {
        group: req.query.group,
        ...stateBound(date),
      })
      const lists = dueListsOf(females, date, settings)
      return ok({ date: dateOf(date), weanedDays: settings.weanedNotServedDays, ...lists })
    },
  )

  app.get(
    '/users/:userId/kpis',
    {
      schema: {
        operationId: 'getHerdKpis',
        summary: "The herd's reproductive KPIs over a period",
        description:
          'From the records of every female (of `group`, when given), over `from` to `to` (both inclusive; default ' +
          `the 365 days to today; at most ${KPI_PERIOD_MAX_DAYS} days). Each KPI has its value (null when there is ` +
          'nothing to count), the counts it comes from, its definition and the published benchmark. An expensive request.',
        params: UserPath,
        querystring: Type.Object({
          from: DateQuery('First day (default: 364 days before `to`, not before 2000-01-01)', '2026-01-01'),
          to: DateQuery('Last day, inclusive (default today)', '2026-12-31'),
          group: GroupQuery,
        }),
        response: { 200: Envelope(Kpis) },
      },
      // Each female's records from her last farrowing before the period to her first after it.
      config: { access: 'own', cost: 'expensive' },
    },
    async (req) => {
      const sent = daysOf(req.query, ['from', 'to'])
      const to = sent.to ?? today()
      // The default year starts no earlier than the first day a date parameter may name.
      const from = sent.from ?? Math.max(to - 364, FIRST_DAY)
      if (from > to) throw validationFailed([{ field: 'query:from', message: 'must not be after to' }])
      if (to - from + 1 > KPI_PERIOD_MAX_DAYS)
        throw validationFailed([
          { field: 'query:from', message: `the period must be at most ${KPI_PERIOD_MAX_DAYS} days` },
        ])
      const females = await femalesWithEvents(db, req.params.userId, {
        group: req.query.group,
        ...kpiBound(from, to, KPI.farrowingRateLagDays),
      })
      const report = withBenchmarks(herdKpis(females, { from, to }))
      const { farrowingRate } = report
      return ok({
        from: dateOf(from),
        to: dateOf(to),
        group: req.query.group ?? null,
        ...report,
        farrowingRate: {
          ...farrowingRate,
          servedFrom: dateOf(farrowingRate.servedFrom),
          servedTo: dateOf(farrowingRate.servedTo),
        },
      })
    },
  )
}
