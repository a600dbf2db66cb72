// Charts (uPlot, loaded with the first chart, not with the app): prediction probabilities over time, one line
// per class (a prediction's point is its highest probability over the hours it forecasts), and figures over time.
import { useEffect, useRef } from 'preact/hooks'
import uPlot from 'uplot'
import type { Prediction } from './api.ts'
import { timeAxisLabels } from './chart-axis.rules.ts'
import { language, t } from './i18n.ts'
import { formatDateTime, formatShare } from './ui.tsx'

const CLASSES = [
  { type: 'birth', label: 'class_birth', stroke: '#b23a48' },
  { type: 'heat', label: 'class_heat', stroke: '#d17a00' },
  { type: 'lameness', label: 'class_lameness', stroke: '#2f6690' },
] as const

export function seriesOf(predictions: Prediction[]): uPlot.AlignedData {
  const byTime = new Map<number, (number | null)[]>()
  for (const prediction of predictions) {
    const index = CLASSES.findIndex((c) => c.type === prediction.classificationType)
    const seconds = Math.floor(Date.parse(prediction.timestamp) / 1000)
    if (index < 0 || !Number.isFinite(seconds)) continue
    const probability = Math.max(0, ...prediction.results.map((r) => r.probability))
    const row = byTime.get(seconds) ?? CLASSES.map(() => null)
    row[index] = probability
    byTime.set(seconds, row)
  }
  const times = [...byTime.keys()].sort((a, b) => a - b)
  return [times, ...CLASSES.map((_, i) => times.map((time) => byTime.get(time)![i] ?? null))]
}

export interface LineChartProps {
  label: string
  /** Unix seconds. */
  times: number[]
  series: { label: string; stroke: string; values: (number | null)[] }[]
  /** Values are fractions shown as percent, from 0 to 1. */
  fraction?: boolean
  /** The values' unit, on the axis. */
  unit?: string
  /** What the times are ("Time", "Month"), and a time in words, in the legend. */
  timeLabel: string
  timeText: (seconds: number) => string
  /** A tick at each point (the months of a monthly chart) rather than where uPlot spaces them. */
  tickEachPoint?: boolean
}

/** A value in the legend: a fraction in %, else with its unit; a dash where the line has no point. */
function valueText(value: number | null | undefined, fraction: boolean | undefined, unit: string | undefined): string {
  if (fraction) return formatShare(value)
  if (typeof value !== 'number' || !Number.isFinite(value)) return '–'
  return unit
    ? `${new Intl.NumberFormat(language(), { maximumFractionDigits: 2 }).format(value)} ${unit}`
    : String(value)
}

/** Shows the last point's values in the legend. */
function latest(u: uPlot) {
  const last = u.data[0].length - 1
  if (last >= 0) u.setLegend({ idx: last }, false)
}

export function LineChart(props: LineChartProps) {
  const { label, times, series, fraction, unit, timeLabel, timeText, tickEachPoint } = props
  const box = useRef<HTMLDivElement>(null)
  useEffect(() => {
    const element = box.current
    if (!element) return
    const width = () => Math.max(280, element.clientWidth)
    const pointSpacing = Math.min(...times.slice(1).map((time, i) => time - times[i]!))
    const chart = new uPlot(
      {
        width: width(),
        height: 220,
        scales: fraction ? { y: { range: [0, 1] } } : {},
        series: [
          { label: timeLabel, value: (_u, v) => (v === null ? '–' : timeText(v)) },
          ...series.map((s) => ({
            label: s.label,
            stroke: s.stroke,
            width: 2,
            spanGaps: true,
            value: (_u: uPlot, v: number | null) => valueText(v, fraction, unit),
          })),
        ],
        // The legend reads the latest point until the pointer is over the chart, and again once it leaves (it
        // read "--" for every line).
        hooks: {
          setCursor: [(u) => u.cursor.idx == null && latest(u)],
        },
        axes: [
          {
            values: (_u, ticks, _axis, _space, increment) =>
              timeAxisLabels(ticks, tickEachPoint ? pointSpacing : increment, language()),
            ...(tickEachPoint ? { splits: () => times } : {}),
          },
          // Wide enough for "100 %", which the default width cut.
          fraction
            ? { size: 56, values: (_u, ticks) => ticks.map((v) => `${Math.round(v * 100)} %`) }
            : unit
              ? { size: 56, values: (_u, ticks) => ticks.map((v) => `${v} ${unit}`) }
              : {},
        ],
      },
      [times, ...series.map((s) => s.values)],
      element,
    )
    latest(chart)
    const resize = () => chart.setSize({ width: width(), height: 220 })
    addEventListener('resize', resize)
    return () => {
      removeEventListener('resize', resize)
      chart.destroy()
    }
  }, [times, series, fraction, unit, timeLabel, timeText, tickEachPoint])
  return <div ref={box} class="chart" role="img" aria-label={label} />
}

export function PredictionChart({ predictions }: { predictions: Prediction[] }) {
  const [times, ...values] = seriesOf(predictions)
  return (
    <LineChart
      label={t('predictions')}
      times={times as number[]}
      timeLabel={t('chartTime')}
      timeText={(seconds) => formatDateTime(seconds * 1000)}
      fraction
      series={CLASSES.map((c, i) => ({ label: t(c.label), stroke: c.stroke, values: values[i] as (number | null)[] }))}
    />
  )
}
