// Schemas of the herd routes: a female's cycle, the due lists and the KPIs, each KPI with its definition and the
// published benchmark beside it (docs/herd-performance.md has the sources).
import Type, { type Static, type TSchema } from 'typebox'
import { StringEnum } from '../../http/list-params.ts'
import { Count, EXAMPLE, Integer } from '../../http/schema-types.ts'
import { MacString } from '../animals/animals.resource.ts'
import { CYCLE, CYCLE_STATES } from '../cycle/cycle.rules.ts'
import { KPI_BENCHMARKS, type KpiName } from './kpi.rules.ts'

const Nullable = <T extends TSchema>(schema: T, description: string) =>
  Type.Union([schema, Type.Null()], { description })
const DateString = (description: string, example: string) =>
  Type.String({ format: 'date', maxLength: 10, description, examples: [example] })
const Days = (description: string, example: number) =>
  Integer({ minimum: -1_000_000, maximum: 1_000_000, description, examples: [example] })
const Figure = (example: number) => Type.Number({ examples: [example] })
const Mac = MacString('Tag MAC')

export const CycleStateName = StringEnum(CYCLE_STATES, {
  description:
    'gilt (never served nor farrowed), served (from the first service of a heat), pregnant (a positive check after ' +
    'it), open (a return or a negative check after it), due-to-farrow (served or pregnant, from ' +
    `${CYCLE.dueToFarrowBeforeDays} days before the expected farrowing), lactating (from a farrowing), weaned (from a ` +
    'weaning), culled (a movement to the cull stage or a death recorded as a general event)',
})

export const Cycle = Type.Object(
  {
    MAC: Mac,
    state: Nullable(CycleStateName, "The female's state on `date`; null for a male (no cycle)"),
    since: Nullable(
      DateString('The day the state began', '2026-10-29'),
      'null for a gilt on a date before she was registered (not in the herd yet), and for males',
    ),
    days: Nullable(Days('Days in the state: date - since', 4), 'null when since is'),
    lastService: Nullable(
      DateString('The mating the state follows: the first service of that heat', '2026-07-11'),
      'Set while served, pregnant, open or due to farrow',
    ),
    expectedFarrowing: Nullable(
      DateString(
        `lastService + the farm's gestation length (alert rules' gestationDays, ${CYCLE.gestationDays} days unless set)`,
        '2026-11-03',
      ),
      'Set while served, pregnant or due to farrow',
    ),
    expectedHeat: Nullable(
      Type.Object(
        {
          from: DateString('The first day her next heat is expected', '2026-11-22'),
          to: DateString('The last day', '2026-11-28'),
        },
        { additionalProperties: false },
      ),
      `When her next heat is expected: weaned, ${CYCLE.weaningToHeatFromDays}-${CYCLE.weaningToHeatToDays} days after ` +
        `the weaning; served, ${CYCLE.returnFromDays}-${CYCLE.returnToDays} days after lastService (a return), until ` +
        `then; open, ${CYCLE.returnFromDays}-${CYCLE.returnToDays} days after the return she was seen in, or ` +
        `${2 * CYCLE.returnFromDays}-${2 * CYCLE.returnToDays} days after lastService when a negative check found it ` +
        `failed (the return passed unseen). A weaned or open sow's window passed without a record moves on ` +
        `${CYCLE.returnFromDays}-${CYCLE.returnToDays} days, once. null otherwise: a gilt (her cycle is not recorded), ` +
        'pregnant, due to farrow, lactating, culled, a male, or past those windows',
    ),
    parity: Count('Farrowings recorded', 3, 1_000),
    date: DateString('The day the state is for (today unless asked)', EXAMPLE.date),
  },
  { additionalProperties: false, title: 'SowCycle' },
)

export const DueAnimal = Type.Object(
  {
    MAC: Mac,
    Group: Nullable(Type.String({ maxLength: 200, examples: ['Farrowing 2'] }), "The animal's group"),
    state: CycleStateName,
    daysInState: Nullable(Days('Days in the state', 4), 'null for a gilt'),
    dueDate: DateString('When she is (or was) due', '2026-11-03'),
    daysFromDue: Days('date - dueDate: negative while ahead, positive when overdue', -1),
  },
  { additionalProperties: false, title: 'DueAnimal' },
)

export type DueAnimalBody = Static<typeof DueAnimal>

const DueList = (description: string) => Type.Array(DueAnimal, { maxItems: 1_000_000, description })

export const DueLists = Type.Object(
  {
    date: DateString('The day the lists are for', EXAMPLE.date),
    weanedDays: Integer({ minimum: 1, maximum: 365, description: 'N of weanedNotServed', examples: [7] }),
    dueToFarrow: DueList(
      `Served or pregnant sows whose expected farrowing (service + gestationDays, ${CYCLE.gestationDays} unless set) lies in the 7 days from ` +
        `date, or at most ${CYCLE.farrowingOverdueDays} days before it (overdue); dueDate = the expected farrowing`,
    ),
    pregnancyCheck: DueList(
      `Served sows that no check has found pregnant or open, nor returned, pregnancyCheckDays to pregnancyCheckDays + ` +
        `${CYCLE.pregnancyCheckToDays - CYCLE.pregnancyCheckFromDays} days after the service ` +
        `(${CYCLE.pregnancyCheckFromDays}-${CYCLE.pregnancyCheckToDays} unless set); dueDate = service + pregnancyCheckDays`,
    ),
    weanedNotServed: DueList('Weaned sows not served for weanedDays days or more; dueDate = weaning + weanedDays'),
    returnsToWatch: DueList(
      `Served or pregnant sows ${CYCLE.returnFromDays}-${CYCLE.returnToDays} days after the service, when a sow that did ` +
        `not conceive returns to heat; dueDate = service + ${CYCLE.returnFromDays} days`,
    ),
  },
  { additionalProperties: false, title: 'DueLists' },
)

const BenchmarkEnd = (end: 'low' | 'high', example: number | null) =>
  Type.Union([Type.Number(), Type.Null()], {
    description: `The range's ${end} end, in the KPI's unit; null where the benchmark has none`,
    examples: [example],
  })

/** A KPI's schema: its value, the counts it comes from and its benchmark; its title is its name's. */
const Kpi = <P extends Record<string, TSchema>>(name: KpiName, definition: string, value: number, counts: P) => {
  const benchmark = KPI_BENCHMARKS[name]
  return Type.Object(
    {
      value: Nullable(Figure(value), 'null when there is nothing to count'),
      ...counts,
      benchmark: Type.Object(
        {
          text: Type.String({ maxLength: 100, description: 'The benchmark in words', examples: [benchmark.text] }),
          low: BenchmarkEnd('low', benchmark.low),
          high: BenchmarkEnd('high', benchmark.high),
        },
        {
          additionalProperties: false,
          description: 'The published benchmark: typical herds, for orientation (docs/herd-performance.md)',
        },
      ),
    },
    {
      additionalProperties: false,
      title: name[0]!.toUpperCase() + name.slice(1),
      description: `${definition} Published benchmark: ${benchmark.text}.`,
    },
  )
}
const N = (description: string, example: number) => Count(description, example)

export const Kpis = Type.Object(
  {
    from: DateString('First day of the period', '2026-01-01'),
    to: DateString('Last day of the period (inclusive)', '2026-12-31'),
    group: Nullable(Type.String({ maxLength: 200, examples: ['Sows A'] }), 'The group asked for; null: the whole herd'),
    females: N(
      'Females (of the group) in the herd during the period: registered, or with a record, on or before `to`, and ' +
        'not culled before `from`',
      412,
    ),
    matedFemaleDays: N(
      'Days in the period that each female was a mated female (from her first service; where her first record is a ' +
        'farrowing, from 115 days before it; where a weaning, from it; until a cull), summed',
      140_080,
    ),
    farrowingRate: Kpi(
      'farrowingRate',
      'Of the matings (first services of a heat) dated 120 days before the period (from - 120 to to - 120 days: ' +
        'time to farrow), the share followed by a farrowing, in %.',
      85.2,
      {
        matings: N('Matings in the cohort', 412),
        farrowed: N('Of them, farrowed', 351),
        servedFrom: DateString('First day of the cohort', '2025-09-03'),
        servedTo: DateString('Last day of the cohort', '2026-09-02'),
      },
    ),
    littersPerMatedFemaleYear: Kpi(
      'littersPerMatedFemaleYear',
      'Farrowings in the period × 365 / matedFemaleDays.',
      2.38,
      { litters: N('Farrowings in the period', 913) },
    ),
    pigsWeanedPerMatedFemaleYear: Kpi(
      'pigsWeanedPerMatedFemaleYear',
      'Piglets weaned (countWeaned of the weanings in the period) × 365 / matedFemaleDays.',
      28.4,
      { weaned: N('Piglets weaned in the period', 10_900) },
    ),
    nonProductiveDays: Kpi(
      'nonProductiveDays',
      'Days of a mated female neither gestating (from a service that led to a farrowing, or one still pending) nor ' +
        'lactating (farrowing to weaning), per mated female per year: days × 365 / matedFemaleDays.',
      34.1,
      { days: N('Non-productive days in the period, summed', 13_087) },
    ),
    weanToServiceInterval: Kpi(
      'weanToServiceInterval',
      'Mean days from a weaning to the next mating, over the matings in the period that followed a weaning.',
      6.1,
      { services: N('Matings after a weaning in the period', 880), days: N('Their intervals, summed', 5_368) },
    ),
    returnRate: Kpi(
      'returnRate',
      'Of the matings in the period, the share followed by a return to heat (a return record, or else the next ' +
        `mating) before any farrowing, in %; regular: ${CYCLE.returnFromDays}-${CYCLE.returnToDays} days after the ` +
        'service, irregular: any other interval.',
      9.7,
      {
        regular: Nullable(Figure(7.1), 'Regular returns, % of the matings'),
        irregular: Nullable(Figure(2.6), 'Irregular returns, % of the matings'),
        matings: N('Matings in the period', 1_024),
        returns: N('Of them, returned', 99),
        regularReturns: N('Returned after 18-24 days', 73),
        irregularReturns: N('Returned after another interval', 26),
      },
    ),
    bornAlivePerLitter: Kpi('bornAlivePerLitter', 'Piglets born alive (Living) per farrowing in the period.', 14.2, {
      bornAlive: N('Born alive, summed', 12_965),
      litters: N('Farrowings in the period', 913),
    }),
    stillbornPerLitter: Kpi('stillbornPerLitter', 'Piglets born dead (Dead) per farrowing in the period.', 1.1, {
      stillborn: N('Born dead, summed', 1_004),
      litters: N('Farrowings in the period', 913),
    }),
    preWeaningMortality: Kpi(
      'preWeaningMortality',
      'Of the litters weaned in the period (their first weaning in it), the share of the piglets nursed (born alive + ' +
        'fostered in - fostered away) not weaned, in %.',
      12.4,
      {
        died: N('Piglets nursed and not weaned', 1_590),
        nursed: N('Piglets nursed', 12_820),
        litters: N('Litters weaned in the period', 905),
      },
    ),
  },
  { additionalProperties: false, title: 'HerdKpis' },
)
