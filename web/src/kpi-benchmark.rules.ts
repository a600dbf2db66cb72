// A KPI's figure and its published benchmark in the app's language: the numbers through Intl ("5,6–7 Tage",
// "83–88 %"), the words some benchmarks carry from the app's texts, the figures in them from the service's own
// declaration (BENCHMARK_FIGURES). The API gives the benchmark's range in the KPI's unit and its words in English
// only (docs/farm-app.md).
import { BENCHMARK_FIGURES } from '../../src/modules/herd/kpi.rules.ts'
import { fillPlaceholders } from './farm.rules.ts'

export type KpiUnit = '%' | 'days' | 'count'

/** The unit of each KPI's value as the Kpis schema defines it (a count or a ratio: 'count'). */
export const KPI_UNITS: Record<string, KpiUnit> = {
  females: 'count',
  matedFemaleDays: 'days',
  farrowingRate: '%',
  littersPerMatedFemaleYear: 'count',
  pigsWeanedPerMatedFemaleYear: 'count',
  nonProductiveDays: 'days',
  weanToServiceInterval: 'days',
  returnRate: '%',
  bornAlivePerLitter: 'count',
  stillbornPerLitter: 'count',
  preWeaningMortality: '%',
}

/** The figures a benchmark's words name beyond its range: the API gives them only within its English text. */
const FIGURES: Record<string, Record<string, { value: number; unit: KpiUnit }>> = BENCHMARK_FIGURES

function numberFormat(unit: KpiUnit, tag: string, digits = 2): Intl.NumberFormat {
  const rounding = { maximumFractionDigits: digits }
  if (unit === '%') return new Intl.NumberFormat(tag, { style: 'unit', unit: 'percent', ...rounding })
  if (unit === 'days')
    return new Intl.NumberFormat(tag, { style: 'unit', unit: 'day', unitDisplay: 'long', ...rounding })
  return new Intl.NumberFormat(tag, rounding)
}

/**
 * An amount in `unit` as the language of `tag` writes it, to `digits` decimals at most: "85.2%", "10,23 Tage",
 * "1 day", "2,3".
 */
export function amountText(value: number, unit: KpiUnit, tag: string, digits = 2): string {
  return numberFormat(unit, tag, digits).format(value)
}

/** From `low` to `high` in `unit`: "83–88 %" (de), "83% – 88%" (en), "5,6–7 días" (es). */
export function rangeText(low: number, high: number, unit: KpiUnit, tag: string): string {
  const format = numberFormat(unit, tag)
  if (low === high) return format.format(low)
  // formatRange came late to some browsers (Firefox 116): there the two ends with a dash.
  if (typeof format.formatRange !== 'function') return `${format.format(low)}–${format.format(high)}`
  return format.formatRange(low, high)
}

/** The app's words for benchmarks, in its language. */
export interface BenchmarkWords {
  /** "below {high}": a benchmark with an upper bound only. */
  below: string
  /** "above {low}": a benchmark with a lower bound only. */
  above: string
  /** The KPI's own words around its benchmark ("{benchmark}, most of them regular"), when it has any. */
  kpi: string | undefined
}

const numberOrNull = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : null)

/**
 * A KPI's benchmark (`{ text, low, high }` as the API gives it) in the language of `tag`. The API's text for a KPI
 * the app does not know (it cannot tell its unit), or whose benchmark the app's words cannot say; '' for none.
 */
export function benchmarkText(name: string, benchmark: unknown, tag: string, words: BenchmarkWords): string {
  if (!benchmark || typeof benchmark !== 'object') return ''
  const given = benchmark as { text?: unknown; low?: unknown; high?: unknown }
  const apiText = typeof given.text === 'string' ? given.text : ''
  const unit = KPI_UNITS[name]
  if (unit === undefined) return apiText
  const low = numberOrNull(given.low)
  const high = numberOrNull(given.high)
  const values: Record<string, string | undefined> = {
    low: low === null ? undefined : amountText(low, unit, tag),
    high: high === null ? undefined : amountText(high, unit, tag),
  }
  if (low !== null && high !== null) values.benchmark = rangeText(low, high, unit, tag)
  else if (high !== null) values.benchmark = fillPlaceholders(words.below, values, String, () => false)
  else if (low !== null) values.benchmark = fillPlaceholders(words.above, values, String, () => false)
  for (const [figure, { value, unit: figureUnit }] of Object.entries(FIGURES[name] ?? {}))
    values[figure] = amountText(value, figureUnit, tag)
  return fillPlaceholders(words.kpi ?? '{benchmark}', values, String, () => false) ?? apiText
}
