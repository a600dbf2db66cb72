// A fixture herd whose cycle states, due lists and KPIs are computed by hand (in herd-kpi-rules.test.ts and
// herd-routes.test.ts). Days are offsets from 2026-01-01 (day 0); the KPI period is 2026-01-01 to 2026-03-31
// (days 0-89, 90 days) and "today" is 2026-03-31 (day 89). The farrowing-rate cohort is the matings of days
// -120 to -31 (2025-09-03 to 2025-12-01).
import { dateOf, dayOf, type CycleEvent } from '../../src/modules/cycle/cycle.rules.ts'

export type FixtureEvent =
  | ['service', number]
  | ['check', number, 'pregnant' | 'open' | 'recheck']
  | ['return', number]
  | ['farrowing', number, number, number]
  | ['weaning', number, number, number, number]
  | ['cull', number]

export const DAY0 = dayOf('2026-01-01')!
export const PERIOD = { from: '2026-01-01', to: '2026-03-31' }
export const TODAY = '2026-03-31'
export const dateAt = (offset: number) => dateOf(DAY0 + offset)

/** Seven females (A-G) and what happened to each; comments give each one's share of the hand computation. */
export const FIXTURE_HERD: Record<string, FixtureEvent[]> = {
  // Mated days 0-89 (90), productive: gestation to day 15 (15) + lactation 15-43 (28) + gestation from 48 (42) = 85.
  // Cohort mating -100 farrowed. Litter 12 + 1 dead, weaned 11 of 13 nursed (1 fostered in): 2 died. WSI 48 - 43 = 5.
  // Today: served 41 days ago: due for her pregnancy check (from day 28 after service: 13 days overdue).
  A: [
    ['service', -100],
    ['service', -99],
    ['farrowing', 15, 12, 1],
    ['weaning', 43, 11, 1, 0],
    ['service', 48],
  ],
  // Mated 90 days, all productive (gestation from -68 to 47, lactating since). Cohort: -90 returned (regular,
  // 21 days), -68 farrowed. Litter 14 + 2 dead, not weaned. Today: lactating since day 47 (42 days), parity 1.
  B: [
    ['service', -90],
    ['return', -69],
    ['service', -68],
    ['check', -40, 'pregnant'],
    ['farrowing', 47, 14, 2],
  ],
  // A gilt served on day 10: mated days 10-89 (80); productive only from the mating of day 66 (24). Matings in
  // the period: 10 (returned day 31: regular, 21 days), 31 (returned day 65: irregular, 34 days), 66.
  // Today: served 23 days ago: a return to watch (window from day 84: 5 days in).
  C: [
    ['service', 10],
    ['return', 31],
    ['service', 31],
    ['return', 65],
    ['service', 66],
  ],
  // Culled on day 40: mated days 0-39 (40), productive: gestation to day 5 (5) + lactation 5-30 (25). Cohort mating
  // -110 farrowed. Litter 10 + 0 dead, 9 weaned of 9 nursed (1 fostered away).
  D: [
    ['service', -110],
    ['farrowing', 5, 10, 0],
    ['weaning', 30, 9, 0, 1],
    ['cull', 40],
  ],
  // Cohort mating -50 checked open, served again -20 (pending: productive all 90 days). Today: 109 days after the
  // service, due to farrow since day 88 (1 day), expected on day 95 (in 6 days).
  E: [
    ['service', -50],
    ['check', -25, 'open'],
    ['service', -20],
  ],
  // No records: a gilt, no mated days.
  F: [],
  // Bought in pregnant, farrowed on day 50: mated a gestation before (day -65), so mated days 0-89 (90),
  // productive: gestation to day 50 (50) + lactation 50-78 (28) = 78. Litter 11 + 1 dead, 10 weaned of 11: 1 died.
  // Today: weaned 11 days ago, not served (overdue 4 days with N = 7).
  G: [
    ['farrowing', 50, 11, 1],
    ['weaning', 78, 10, 0, 0],
  ],
}

export function cycleEventsOf(events: readonly FixtureEvent[]): CycleEvent[] {
  return events.map((e): CycleEvent => {
    const day = DAY0 + e[1]
    switch (e[0]) {
      case 'service':
        return { kind: 'service', day }
      case 'check':
        return { kind: 'check', day, result: e[2] }
      case 'return':
        return { kind: 'return', day }
      case 'farrowing':
        return { kind: 'farrowing', day, bornAlive: e[2], stillborn: e[3] }
      case 'weaning':
        return { kind: 'weaning', day, weaned: e[2], fosterIn: e[3], fosterOut: e[4] }
      case 'cull':
        return { kind: 'cull', day }
    }
  })
}

/** The KPIs of the fixture herd over PERIOD, by hand (the comments above give each sow's share). */
export const FIXTURE_KPIS = {
  females: 7,
  // 90 + 90 + 80 + 40 + 90 + 0 + 90
  matedFemaleDays: 480,
  // Cohort matings A -100, B -90, B -68, D -110, E -50; farrowed A, B -68, D: 3 of 5
  farrowingRate: { value: 60, matings: 5, farrowed: 3, servedFrom: '2025-09-03', servedTo: '2025-12-01' },
  // Litters A, B, D, G = 4: 4 x 365 / 480 = 3.0417
  littersPerMatedFemaleYear: { value: 3.04, litters: 4 },
  // Weaned A 11 + D 9 + G 10 = 30: 30 x 365 / 480 = 22.8125
  pigsWeanedPerMatedFemaleYear: { value: 22.81, weaned: 30 },
  // Productive 85 + 90 + 24 + 30 + 90 + 78 = 397 of 480: 83 days, x 365 / 480 = 63.115
  nonProductiveDays: { value: 63.11, days: 83 },
  // A: weaned day 43, served day 48
  weanToServiceInterval: { value: 5, services: 1, days: 5 },
  // Matings in the period: A 48, C 10, C 31, C 66; returns C 10 (21 days, regular), C 31 (34 days, irregular)
  returnRate: {
    value: 50,
    regular: 25,
    irregular: 25,
    matings: 4,
    returns: 2,
    regularReturns: 1,
    irregularReturns: 1,
  },
  // (12 + 14 + 10 + 11) / 4 and (1 + 2 + 0 + 1) / 4
  bornAlivePerLitter: { value: 11.75, bornAlive: 47, litters: 4 },
  stillbornPerLitter: { value: 1, stillborn: 4, litters: 4 },
  // Litters weaned in the period: A 13 nursed (12 + 1 fostered in) 11 weaned, D 9 (10 - 1) 9, G 11 10: 3 of 33
  preWeaningMortality: { value: 9.09, died: 3, nursed: 33, litters: 3 },
}

/** The state of each female on TODAY (day 89), by hand. */
export const FIXTURE_STATES: Record<string, { state: string; days: number | null }> = {
  A: { state: 'served', days: 41 },
  B: { state: 'lactating', days: 42 },
  C: { state: 'served', days: 23 },
  D: { state: 'culled', days: 49 },
  E: { state: 'due-to-farrow', days: 1 },
  F: { state: 'gilt', days: null },
  G: { state: 'weaned', days: 11 },
}

/** The due lists on TODAY with N = 7: sow, due date, days from it. */
export const FIXTURE_DUE = {
  dueToFarrow: [['E', dateAt(95), -6]],
  pregnancyCheck: [['A', dateAt(76), 13]],
  weanedNotServed: [['G', dateAt(85), 4]],
  returnsToWatch: [['C', dateAt(84), 5]],
}
