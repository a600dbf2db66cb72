// Charts (uPlot, loaded with the first chart, not with the app): prediction probabilities over time, one line
// per class (a prediction's point is its highest probability over the hours it forecasts), and figures over time.
import { useEffect, useRef } from 'preact/hooks'
import uPlot from 'uplot'
import type { Prediction } from './api.ts'
import { t } from './i18n.ts'

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
}

export function LineChart({ label, times, series, fraction, unit }: LineChartProps) {
  const box = useRef<HTMLDivElement>(null)
  useEffect(() => {
    const element = box.current
    if (!element) return
    const width = () => Math.max(280, element.clientWidth)
    const chart = new uPlot(
      {
        width: width(),
        height: 220,
        scales: fraction ? { y: { range: [0, 1] } } : {},
        series: [{}, ...series.map((s) => ({ label: s.label, stroke: s.stroke, width: 2, spanGaps: true }))],
        axes: [
          {},
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
    const resize = () => chart.setSize({ width: width(), height: 220 })
    addEventListener('resize', resize)
    return () => {
      removeEventListener('resize', resize)
      chart.destroy()
    }
  }, [times, series, fraction, unit])
  return <div ref={box} class="chart" role="img" aria-label={label} />
}

export function PredictionChart({ predictions }: { predictions: Prediction[] }) {
  const [times, ...values] = seriesOf(predictions)
  return (
    <LineChart
      label={t('predictions')}
      times={times as number[]}
      fraction
      series={CLASSES.map((c, i) => ({ label: t(c.label), stroke: c.stroke, values: values[i] as (number | null)[] }))}
    />
  )
}
