// The herd's reproductive KPIs over a period, from its females' records: pure arithmetic on UTC days, each
// figure with the counts it comes from. Definitions and published benchmarks: docs/herd-performance.md.
import { CYCLE, sortEvents, type CycleEvent, type CycleSettings, type Day } from '../cycle/cycle.rules.ts'

/** A mating (the first service of a heat) and what came of it. */
export interface Mating {
  day: Day
  /** The farrowing it led to. */
  farrowing?: Day
  /** The next heat: a recorded return, or else the next mating. */
  returned?: Day
  /** It did not hold: a return, a negative check, another mating or a cull before any farrowing. */
  failed: boolean
  /** The weaning it followed (the latest weaning since the previous mating), for the wean-to-service interval. */
  afterWeaning?: Day
}

/** A female's matings, oldest first, with the same reading of repeated services as cycleState. */
export function matingsOf(events: readonly CycleEvent[], settings: CycleSettings = CYCLE): Mating[] {
  const matings: Mating[] = []
  let current: Mating | undefined
  let weaning: Day | undefined
  for (const e of sortEvents(events)) {
    // live: not yet resolved by a farrowing; holding: and nothing said it failed.
    const live = current !== undefined && current.farrowing === undefined ? current : undefined
    const holding = live !== undefined && !live.failed
    if (e.kind === 'service') {
      if (holding && e.day - live.day <= settings.sameHeatDays) continue
      if (live && live.returned === undefined) {
        live.failed = true
        live.returned = e.day
      }
      current = { day: e.day, failed: false, ...(weaning === undefined ? {} : { afterWeaning: weaning }) }
      weaning = undefined
      matings.push(current)
    } else if (e.kind === 'weaning') weaning = e.day
    else if (!live || live.returned !== undefined) continue
    else if (e.kind === 'farrowing') {
      live.farrowing = e.day
      live.failed = false
    } else if (e.kind === 'return') {
      live.failed = true
      live.returned = e.day
    } else if (e.kind === 'check') {
      if (e.result !== 'recheck') live.failed = e.result === 'open'
    } else live.failed = true // culled before farrowing
  }
  return matings
}

export interface KpiSettings extends CycleSettings {
  /** Farrowing rate: the matings counted are those this many days before the period (time to farrow). */
  farrowingRateLagDays: number
}

export const KPI: KpiSettings = { ...CYCLE, farrowingRateLagDays: 120 }

/** A published benchmark of a KPI: in words, and the ends of its range in the KPI's unit (null where it has none). */
export interface Benchmark {
  text: string
  low: number | null
  high: number | null
}

/**
 * The figures some benchmarks' words name beyond their range, each with its unit: declared once, for the API's
 * English text below and for the farm app, which writes them in the user's language.
 */
export const BENCHMARK_FIGURES = {
  pigsWeanedPerMatedFemaleYear: { best: { value: 33, unit: 'count' } },
  stillbornPerLitter: { about: { value: 1, unit: 'count' }, shareOfBorn: { value: 7, unit: '%' } },
} as const satisfies Record<string, Record<string, { value: number; unit: '%' | 'days' | 'count' }>>

const { best } = BENCHMARK_FIGURES.pigsWeanedPerMatedFemaleYear
const { about, shareOfBorn } = BENCHMARK_FIGURES.stillbornPerLitter

/**
 * The published benchmarks of the KPIs (docs/herd-performance.md has the sources): typical herds' figures, for
 * orientation, shown beside each KPI by the API.
 */
export const KPI_BENCHMARKS = {
  farrowingRate: { text: '83-88 %', low: 83, high: 88 },
  littersPerMatedFemaleYear: { text: '2.3-2.5', low: 2.3, high: 2.5 },
  pigsWeanedPerMatedFemaleYear: {
    text: `26-30 (the best Danish herds above ${best.value})`,
    low: 26,
    high: 30,
  },
  nonProductiveDays: { text: '31-36 days', low: 31, high: 36 },
  weanToServiceInterval: { text: '5.6-7 days', low: 5.6, high: 7 },
  returnRate: { text: 'below 10-12 %, most of them regular', low: null, high: 12 },
  bornAlivePerLitter: { text: '13-15', low: 13, high: 15 },
  stillbornPerLitter: {
    text: `about ${about.value} (below ${shareOfBorn.value} % of the total born)`,
    low: null,
    high: null,
  },
  preWeaningMortality: { text: '10-15 %', low: 10, high: 15 },
} as const satisfies Record<string, Benchmark>

export type KpiName = keyof typeof KPI_BENCHMARKS

/** Each KPI of a report with its published benchmark beside it. */
export function withBenchmarks<R extends Record<KpiName, object>>(
  report: R,
): { [K in keyof R]: K extends KpiName ? R[K] & { benchmark: Benchmark } : R[K] } {
  const out: Record<string, unknown> = { ...report }
  for (const name of Object.keys(KPI_BENCHMARKS) as KpiName[])
    out[name] = { ...report[name], benchmark: KPI_BENCHMARKS[name] }
  return out as { [K in keyof R]: K extends KpiName ? R[K] & { benchmark: Benchmark } : R[K] }
}

export interface Period {
  /** First and last day, both inclusive. */
  from: Day
  to: Day
}

const within = (day: Day, p: Period) => day >= p.from && day <= p.to
const round2 = (value: number) => Math.round(value * 100) / 100
const ratio = (numerator: number, denominator: number, scale = 1) =>
  denominator > 0 ? round2((numerator / denominator) * scale) : null

/** Days of [from, to) that lie in the period. */
function overlap(from: Day, to: Day, p: Period): number {
  return Math.max(0, Math.min(to, p.to + 1) - Math.max(from, p.from))
}

/** One female's days in the period as a mated female, and how many of them were productive (gestating or lactating). */
export function femaleDays(events: readonly CycleEvent[], p: Period, settings: CycleSettings = CYCLE) {
  const sorted = sortEvents(events)
  // A mated female from her first service to her cull. Where her first record is a farrowing, she was mated a
  // gestation before it (a sow bought in pregnant, or services never recorded); where it is a weaning, from then.
  const first = sorted.find((e) => e.kind === 'service' || e.kind === 'farrowing' || e.kind === 'weaning')
  if (!first) return { mated: 0, productive: 0 }
  const impliedMating = first.kind === 'farrowing' ? first.day - settings.gestationDays : undefined
  const cull = sorted.find((e) => e.kind === 'cull')?.day ?? Infinity
  const end = Math.min(cull, p.to + 1)
  const start = Math.max(impliedMating ?? first.day, p.from)
  if (end <= start) return { mated: 0, productive: 0 }
  const range: Period = { from: start, to: end - 1 }
  // Productive: a mating that held (or may still hold) until its farrowing, and each farrowing until its weaning
  // (or the next mating when the weaning was not recorded).
  const intervals: [Day, Day][] = impliedMating === undefined ? [] : [[impliedMating, first.day]]
  const matings = matingsOf(sorted, settings)
  for (const m of matings) {
    if (m.farrowing !== undefined) intervals.push([m.day, m.farrowing])
    else if (!m.failed) intervals.push([m.day, Infinity])
  }
  for (const f of sorted.filter((e) => e.kind === 'farrowing')) {
    const weaning = sorted.find((e) => e.kind === 'weaning' && e.day >= f.day)?.day
    const nextMating = matings.find((m) => m.day > f.day)?.day
    intervals.push([f.day, Math.min(weaning ?? Infinity, nextMating ?? Infinity)])
  }
  // The intervals do not overlap (a farrowing ends its mating's interval and starts its own).
  const productive = intervals.reduce((sum, [from, to]) => sum + overlap(from, to, range), 0)
  return { mated: end - start, productive }
}

export interface KpiReport {
  females: number
  matedFemaleDays: number
  farrowingRate: { value: number | null; matings: number; farrowed: number; servedFrom: Day; servedTo: Day }
  littersPerMatedFemaleYear: { value: number | null; litters: number }
  pigsWeanedPerMatedFemaleYear: { value: number | null; weaned: number }
  nonProductiveDays: { value: number | null; days: number }
  weanToServiceInterval: { value: number | null; services: number; days: number }
  returnRate: {
    value: number | null
    regular: number | null
    irregular: number | null
    matings: number
    returns: number
    regularReturns: number
    irregularReturns: number
  }
  bornAlivePerLitter: { value: number | null; bornAlive: number; litters: number }
  stillbornPerLitter: { value: number | null; stillborn: number; litters: number }
  preWeaningMortality: { value: number | null; died: number; nursed: number; litters: number }
}

/** A female as the KPIs read her: her records, and the day she was registered. */
export interface KpiFemale {
  events: readonly CycleEvent[]
  registered: Day
}

/**
 * Whether a female was in the herd during the period: there by its last day (registered then, or a record of hers
 * dated then: a sow registered with her history), and not culled before its first day.
 */
export function inHerdDuring(female: KpiFemale, p: Period): boolean {
  const arrived = Math.min(female.registered, ...female.events.map((e) => e.day))
  const culled = Math.min(...female.events.filter((e) => e.kind === 'cull').map((e) => e.day))
  return arrived <= p.to && culled >= p.from
}

/** The KPIs of a herd (each female's events and registration) over the period. */
export function herdKpis(females: readonly KpiFemale[], p: Period, settings: KpiSettings = KPI): KpiReport {
  const cohort: Period = { from: p.from - settings.farrowingRateLagDays, to: p.to - settings.farrowingRateLagDays }
  let matedFemaleDays = 0
  let productiveDays = 0
  let cohortMatings = 0
  let cohortFarrowed = 0
  let litters = 0
  let bornAlive = 0
  let stillborn = 0
  let weaned = 0
  let wsiServices = 0
  let wsiDays = 0
  let matings = 0
  let regularReturns = 0
  let irregularReturns = 0
  let mortalityLitters = 0
  let nursed = 0
  let died = 0
  let inHerd = 0
  for (const female of females) {
    if (inHerdDuring(female, p)) inHerd++
    const sorted = sortEvents(female.events)
    const days = femaleDays(sorted, p, settings)
    matedFemaleDays += days.mated
    productiveDays += days.productive
    for (const m of matingsOf(sorted, settings)) {
      if (within(m.day, cohort)) {
        cohortMatings++
        if (m.farrowing !== undefined) cohortFarrowed++
      }
      if (!within(m.day, p)) continue
      matings++
      if (m.returned !== undefined) {
        const since = m.returned - m.day
        if (since >= settings.returnFromDays && since <= settings.returnToDays) regularReturns++
        else irregularReturns++
      }
      if (m.afterWeaning !== undefined) {
        wsiServices++
        wsiDays += m.day - m.afterWeaning
      }
    }
    for (const [i, e] of sorted.entries()) {
      if (e.kind === 'farrowing' && within(e.day, p)) {
        litters++
        bornAlive += e.bornAlive
        stillborn += e.stillborn
      }
      if (e.kind === 'weaning' && within(e.day, p)) weaned += e.weaned
      // A litter's pre-weaning mortality, counted in the period of its (first) weaning; split weanings add up.
      if (e.kind !== 'farrowing') continue
      const next = sorted.findIndex((later, j) => j > i && later.kind === 'farrowing')
      const litterWeanings = sorted
        .slice(i + 1, next === -1 ? undefined : next)
        .filter((later) => later.kind === 'weaning')
      if (litterWeanings.length === 0 || !within(litterWeanings[0]!.day, p)) continue
      const alive = e.bornAlive + litterWeanings.reduce((sum, w) => sum + w.fosterIn - w.fosterOut, 0)
      const weanedOfLitter = litterWeanings.reduce((sum, w) => sum + w.weaned, 0)
      mortalityLitters++
      nursed += alive
      died += Math.max(0, alive - weanedOfLitter)
    }
  }
  const returns = regularReturns + irregularReturns
  const nonProductive = matedFemaleDays - productiveDays
  return {
    females: inHerd,
    matedFemaleDays,
    farrowingRate: {
      value: ratio(cohortFarrowed, cohortMatings, 100),
      matings: cohortMatings,
      farrowed: cohortFarrowed,
      servedFrom: cohort.from,
      servedTo: cohort.to,
    },
    littersPerMatedFemaleYear: { value: ratio(litters, matedFemaleDays, 365), litters },
    pigsWeanedPerMatedFemaleYear: { value: ratio(weaned, matedFemaleDays, 365), weaned },
    nonProductiveDays: { value: ratio(nonProductive, matedFemaleDays, 365), days: nonProductive },
    weanToServiceInterval: { value: ratio(wsiDays, wsiServices), services: wsiServices, days: wsiDays },
    returnRate: {
      value: ratio(returns, matings, 100),
      regular: ratio(regularReturns, matings, 100),
      irregular: ratio(irregularReturns, matings, 100),
      matings,
      returns,
      regularReturns,
      irregularReturns,
    },
    bornAlivePerLitter: { value: ratio(bornAlive, litters), bornAlive, litters },
    stillbornPerLitter: { value: ratio(stillborn, litters), stillborn, litters },
    preWeaningMortality: { value: ratio(died, nursed, 100), died, nursed, litters: mortalityLitters },
  }
}
