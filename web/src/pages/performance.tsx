// Herd performance: the farm's key figures over a period and month by month, its due lists, and how the alarms
// have done on this farm with the scorer's per-class setting for it (both as the API gives them).
import type { FunctionComponent } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import type { operations } from '../../../clients/typescript/src/schema.d.ts'
import { get, userPath } from '../api.ts'
import type { LineChartProps } from '../charts.tsx'
import { baseRateWords, dueLine, fillPlaceholders, humanize, localDate } from '../farm.rules.ts'
import { amountText, benchmarkText, KPI_UNITS } from '../kpi-benchmark.rules.ts'
import { monthText } from '../chart-axis.rules.ts'
import { language, t, textOr, type TextKey } from '../i18n.ts'
import { Failure, formatNumber, Loading, Section, useApi } from '../ui.tsx'
import { subjectNames } from './attention.tsx'

type Figures = Record<string, unknown>

/** A KPI as the API gives it: a number, or an object with a value (and perhaps a benchmark). */
export function kpiValue(figure: unknown): number | undefined {
  if (typeof figure === 'number') return figure
  if (figure && typeof figure === 'object' && typeof (figure as { value?: unknown }).value === 'number') {
    return (figure as { value: number }).value
  }
  return undefined
}

/** A KPI's value with its unit in the user's language ("85.2%", "10,23 Tage", "1 day"). */
const kpiText = (name: string, value: number) => amountText(value, KPI_UNITS[name] ?? 'count', language())

/** A count or a day of a KPI's basis as the user's language writes it (1,234; 3 Sep 2025). */
function basisValue(value: unknown): string {
  if (typeof value === 'number') return value.toLocaleString(language())
  const day = typeof value === 'string' ? /^(\d{4})-(\d{2})-(\d{2})$/.exec(value) : null
  if (day) {
    const date = new Date(Number(day[1]), Number(day[2]) - 1, Number(day[3]))
    return date.toLocaleDateString(language(), { day: 'numeric', month: 'short', year: 'numeric' })
  }
  return String(value)
}

/**
 * What a KPI was counted from, in words (its counts as the API gives them): a farmer can tell a figure of three
 * litters from one of three hundred, and why a figure is missing (no mating in its cohort yet).
 */
function kpiBasis(name: string, figure: unknown): string {
  const template = textOr(`kpiBasis_${name}`, '')
  if (!template || !figure || typeof figure !== 'object') return ''
  const plural = new Intl.PluralRules(language())
  return (
    fillPlaceholders(template, figure as Record<string, unknown>, basisValue, (n) => plural.select(n) === 'one') ?? ''
  )
}

/** A KPI's or a due list's name in the user's language (API names the app has no words for read as words). */
const kpiName = (name: string) => textOr(`kpi_${name}`, humanize(name))
const dueListName = (name: string) => textOr(`due_${name}`, humanize(name))

/** A KPI's published benchmark, as the API gives it beside the figure, in the user's language. */
function kpiBenchmark(name: string, figure: unknown): string {
  const benchmark = figure && typeof figure === 'object' ? (figure as { benchmark?: unknown }).benchmark : undefined
  const kpiWords = textOr(`kpiBenchmark_${name}`, '')
  return benchmarkText(name, benchmark, language(), {
    below: t('benchmarkBelow'),
    above: t('benchmarkAbove'),
    kpi: kpiWords === '' ? undefined : kpiWords,
  })
}

function monthStarts(count: number, now: Date): Date[] {
  return Array.from({ length: count }, (_, i) => new Date(now.getFullYear(), now.getMonth() - (count - 1 - i), 1))
}

async function loadMonthly(path: string): Promise<{ month: Date; figures: Figures }[]> {
  const months = monthStarts(6, new Date())
  return Promise.all(
    months.map(async (month) => {
      const end = new Date(month.getFullYear(), month.getMonth() + 1, 0)
      const { data } = await get<Figures>(`${path}?from=${localDate(month)}&to=${localDate(end)}`)
      return { month, figures: (data.kpis as Figures | undefined) ?? data }
    }),
  )
}

const COLORS = ['#1f5135', '#b23a48', '#d17a00', '#2f6690', '#6a4c93']

function MonthlyChart({ monthly }: { monthly: { month: Date; figures: Figures }[] }) {
  const [Chart, setChart] = useState<FunctionComponent<LineChartProps> | undefined>()
  useEffect(() => {
    void import('../charts.tsx').then((module) => setChart(() => module.LineChart))
  }, [])
  // The rates in %, on one axis: a count (females, mated female days) beside them flattened every line to zero.
  const chosen = Object.keys(monthly[0]?.figures ?? {}).filter(
    (name) => KPI_UNITS[name] === '%' && monthly.some((m) => kpiValue(m.figures[name]) !== undefined),
  )
  if (!Chart || chosen.length === 0) return null
  return (
    <Chart
      label={t('kpis')}
      unit="%"
      timeLabel={t('chartMonth')}
      tickEachPoint
      timeText={(seconds) => monthText(seconds, language())}
      times={monthly.map((m) => Math.floor(m.month.getTime() / 1000))}
      series={chosen.map((name, i) => ({
        label: kpiName(name),
        stroke: COLORS[i % COLORS.length]!,
        values: monthly.map((m) => kpiValue(m.figures[name]) ?? null),
      }))}
    />
  )
}

type Accuracy = operations['getPredictionAccuracy']['responses'][200]['content']['application/json']['data']
type Settings = operations['getPredictionSettings']['responses'][200]['content']['application/json']['data']
const CLASSES = ['heat', 'birth', 'lameness'] as const
const ACCURACY_DAYS = 90

/** A number as the app's language writes it, to 3 decimals at most (a threshold's factor: 1, 1,108). */
const formatAmount = (value: number) => amountText(value, 'count', language(), 3)

/** What a setting was learned or fitted from, in words: its counts of the farm's recorded events. */
function recordedBasis(template: TextKey, counts: { events: number; detected?: number }): string {
  if (counts.events === 0) return t('settingNoEvents')
  const plural = new Intl.PluralRules(language())
  return (
    fillPlaceholders(
      t(template),
      counts,
      (n) => formatAmount(Number(n)),
      (n) => plural.select(n) === 'one',
    ) ?? ''
  )
}

/** Per class, the alarms of the last 90 days against the farm's records, then the scorer's setting and why. */
function FarmAlarms() {
  const now = new Date()
  const from = localDate(new Date(now.getFullYear(), now.getMonth(), now.getDate() - (ACCURACY_DAYS - 1)))
  const accuracy = useApi<Accuracy>(userPath(`/predictions/accuracy?from=${from}&to=${localDate(now)}`))
  const settings = useApi<Settings>(userPath('/predictions/settings'))
  const rows: { label: TextKey; value: (figures: Accuracy[(typeof CLASSES)[number]]) => string }[] = [
    { label: 'alarmsConfirmed', value: (c) => `${c.confirmed} / ${c.alarms}` },
    { label: 'eventsMissed', value: (c) => `${c.missed} / ${c.events}` },
    { label: 'medianLead', value: (c) => (c.leadHours ? `${formatNumber(c.leadHours.median)} h` : '–') },
    { label: 'falseAlarmsPerAnimalMonth', value: (c) => formatNumber(c.falseAlarmsPerAnimalMonth, 2) },
  ]
  return (
    <Section title={t('farmAlarms')}>
      <p class="muted">{t('lastDays').replace('{days}', String(ACCURACY_DAYS))}</p>
      <Loading when={accuracy.loading} />
      <Failure error={accuracy.error} retry={accuracy.reload} />
      {accuracy.data && (
        <table class="figures accuracy">
          <thead>
            <tr>
              <td />
              {CLASSES.map((kind) => (
                <th key={kind} scope="col">
                  {t(`class_${kind}`)}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row.label}>
                <th scope="row">{t(row.label)}</th>
                {CLASSES.map((kind) => (
                  <td key={kind}>{row.value(accuracy.data![kind])}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h3>{t('scorerSetting')}</h3>
      <Loading when={settings.loading} />
      <Failure error={settings.error} retry={settings.reload} />
      {settings.data && (
        <dl class="scorer-settings">
          {CLASSES.map((kind) => {
            const setting = settings.data![kind]
            const { calibration } = setting
            const prior = calibration.prior
            return (
              <div key={kind}>
                <dt>{t(`class_${kind}`)}</dt>
                <dd>
                  {t('thresholdFactor').replace('{factor}', formatAmount(setting.factor))} ·{' '}
                  {recordedBasis('thresholdBasis', setting)}
                </dd>
                <dd>
                  {t('calibration')}: {t(calibration.inUse === 'farm' ? 'calibrationFarm' : 'calibrationGlobal')} ·{' '}
                  {recordedBasis('calibrationBasis', calibration)}
                </dd>
                {prior && (
                  <dd>
                    {t('baseRate')}: {t(baseRateWords(prior))}
                  </dd>
                )}
                <dd>
                  <details>
                    <summary>{t('scorerWhy')}</summary>
                    <p>{setting.reason}</p>
                    <p>{calibration.reason}</p>
                    {prior && <p>{prior.reason}</p>}
                  </details>
                </dd>
              </div>
            )
          })}
        </dl>
      )}
    </Section>
  )
}

export function PerformancePage() {
  const now = new Date()
  const from = localDate(new Date(now.getFullYear() - 1, now.getMonth(), now.getDate()))
  const kpis = useApi<Figures>(userPath(`/kpis?from=${from}&to=${localDate(now)}`))
  const monthly = useApi(userPath('/kpis'), loadMonthly)
  const due = useApi<Record<string, unknown>>(userPath('/due-lists'))
  // Each due sow by her ID, as the stockperson knows her (the lists give her tag's MAC).
  const names = useApi(userPath('/animals'), subjectNames)
  const figures = (kpis.data?.kpis as Figures | undefined) ?? kpis.data ?? {}
  return (
    <>
      <Section title={t('kpis')}>
        <Loading when={kpis.loading} />
        <Failure error={kpis.error} retry={kpis.reload} />
        <table class="figures">
          <tbody>
            {/* Every figure, those with nothing to count yet as "–" with their basis: a hidden one read as missing. */}
            {Object.entries(figures)
              .filter(([, figure]) => typeof figure === 'number' || (figure !== null && typeof figure === 'object'))
              .map(([name, figure]) => {
                const value = kpiValue(figure)
                const basis = kpiBasis(name, figure)
                return (
                  <tr key={name}>
                    <th scope="row">
                      {kpiName(name)}
                      {basis && <small class="kpi-basis">{basis}</small>}
                    </th>
                    <td>{value === undefined ? '–' : kpiText(name, value)}</td>
                    <td class="muted">{kpiBenchmark(name, figure)}</td>
                  </tr>
                )
              })}
          </tbody>
        </table>
        {monthly.data && <MonthlyChart monthly={monthly.data} />}
      </Section>
      <Section title={t('dueLists')}>
        <Loading when={due.loading} />
        <Failure error={due.error} retry={due.reload} />
        {Object.entries(due.data ?? {})
          .filter(([, list]) => Array.isArray(list))
          .map(([name, list]) => (
            <div key={name} class="due-list">
              <h3>
                {dueListName(name)} ({(list as unknown[]).length})
              </h3>
              <ul>
                {(list as Record<string, unknown>[]).map((item, i) => (
                  <li key={i}>
                    {typeof item.MAC === 'string' ? (
                      <a href={`#/animal/${encodeURIComponent(item.MAC)}`}>{names.data?.get(item.MAC) ?? item.MAC}</a>
                    ) : null}{' '}
                    <span class="muted">
                      {dueLine(
                        item,
                        {
                          state: typeof item.state === 'string' ? textOr(`cycle_${item.state}`, item.state) : undefined,
                          days: (n) => t(n === 1 ? 'dayInState' : 'daysInState'),
                          due: t('dueDate'),
                        },
                        language(),
                      )}
                    </span>
                  </li>
                ))}
              </ul>
            </div>
          ))}
      </Section>
      <FarmAlarms />
    </>
  )
}
