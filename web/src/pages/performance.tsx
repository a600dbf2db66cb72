// Herd performance: the farm's key figures over a period and month by month, and its due lists.
import type { FunctionComponent } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import { get, userPath } from '../api.ts'
import type { LineChartProps } from '../charts.tsx'
import { localDate } from '../farm.rules.ts'
import { t } from '../i18n.ts'
import { Failure, Loading, Section, useApi } from '../ui.tsx'
import { text } from '../records.ts'
import { humanize } from './attention.tsx'

type Figures = Record<string, unknown>

/** A KPI as the API gives it: a number, or an object with a value (and perhaps a benchmark). */
export function kpiValue(figure: unknown): number | undefined {
  if (typeof figure === 'number') return figure
  if (figure && typeof figure === 'object' && typeof (figure as { value?: unknown }).value === 'number') {
    return (figure as { value: number }).value
  }
  return undefined
}

function kpiBenchmark(figure: unknown): string {
  const benchmark = figure && typeof figure === 'object' ? (figure as { benchmark?: unknown }).benchmark : undefined
  if (!benchmark) return ''
  if (typeof benchmark === 'string') return benchmark
  const { min, max } = benchmark as { min?: number; max?: number }
  return min !== undefined || max !== undefined ? `${min ?? ''}–${max ?? ''}` : ''
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
  const names = Object.keys(monthly[0]?.figures ?? {}).filter((name) =>
    monthly.some((m) => kpiValue(m.figures[name]) !== undefined),
  )
  if (!Chart || names.length === 0) return null
  const chosen = names.slice(0, 5)
  return (
    <Chart
      label={t('kpis')}
      times={monthly.map((m) => Math.floor(m.month.getTime() / 1000))}
      series={chosen.map((name, i) => ({
        label: humanize(name),
        stroke: COLORS[i % COLORS.length]!,
        values: monthly.map((m) => kpiValue(m.figures[name]) ?? null),
      }))}
    />
  )
}

export function PerformancePage() {
  const now = new Date()
  const from = localDate(new Date(now.getFullYear() - 1, now.getMonth(), now.getDate()))
  const kpis = useApi<Figures>(userPath(`/kpis?from=${from}&to=${localDate(now)}`))
  const monthly = useApi(userPath('/kpis'), loadMonthly)
  const due = useApi<Record<string, unknown>>(userPath('/due-lists'))
  const figures = (kpis.data?.kpis as Figures | undefined) ?? kpis.data ?? {}
  return (
    <>
      <Section title={t('kpis')}>
        <Loading when={kpis.loading} />
        <Failure error={kpis.error} retry={kpis.reload} />
        <table class="figures">
          <tbody>
            {Object.entries(figures)
              .filter(([, figure]) => kpiValue(figure) !== undefined)
              .map(([name, figure]) => (
                <tr key={name}>
                  <th scope="row">{humanize(name)}</th>
                  <td>{Math.round(kpiValue(figure)! * 100) / 100}</td>
                  <td class="muted">{kpiBenchmark(figure)}</td>
                </tr>
              ))}
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
                {humanize(name)} ({(list as unknown[]).length})
              </h3>
              <ul>
                {(list as Record<string, unknown>[]).map((item, i) => (
                  <li key={i}>
                    {typeof item.MAC === 'string' ? (
                      <a href={`#/animal/${encodeURIComponent(item.MAC)}`}>{text(item.ID) || item.MAC}</a>
                    ) : null}{' '}
                    <span class="muted">
                      {Object.entries(item)
                        .filter(
                          ([key, value]) =>
                            !['MAC', 'ID'].includes(key) && (typeof value !== 'object' || value === null),
                        )
                        .map(([key, value]) => `${humanize(key)}: ${text(value)}`)
                        .join(' · ')}
                    </span>
                  </li>
                ))}
              </ul>
            </div>
          ))}
      </Section>
    </>
  )
}
