// Small pieces every screen uses: loading a path of the API, showing its failure, a section card.
import type { ComponentChildren } from 'preact'
import { useCallback, useEffect, useState } from 'preact/hooks'
import { ApiError, get, type Envelope } from './api.ts'
import { language, t } from './i18n.ts'

export interface Loaded<T> {
  data: T | undefined
  error: ApiError | undefined
  loading: boolean
  reload: () => void
}

/** GETs `path` (relative to /api/v1) when it changes; undefined path waits. */
export function useApi<T>(path: string | undefined, load?: (path: string) => Promise<T>): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: ApiError; loading: boolean }>({ loading: true })
  const [round, setRound] = useState(0)
  const reload = useCallback(() => setRound((n) => n + 1), [])
  useEffect(() => {
    if (path === undefined) return
    let live = true
    setState((previous) => ({ ...previous, loading: true }))
    const loading = load ? load(path) : get<T>(path).then((answer: Envelope<T>) => answer.data)
    loading.then(
      (data) => live && setState({ data, loading: false }),
      (err: unknown) =>
        live &&
        setState((previous) => ({
          ...previous,
          loading: false,
          error: err instanceof ApiError ? err : new ApiError(0, String(err)),
        })),
    )
    return () => {
      live = false
    }
  }, [path, round])
  return { data: state.data, error: state.error, loading: state.loading, reload }
}

export function Failure({ error, retry }: { error: ApiError | undefined; retry?: () => void }) {
  if (!error) return null
  const message = error.status === 429 ? t('tooManyRequests') : error.status === 404 ? t('notAvailable') : error.message
  return (
    <p class="failure" role="alert">
      {message}{' '}
      {retry && (
        <button type="button" class="link" onClick={retry}>
          {t('retry')}
        </button>
      )}
    </p>
  )
}

export function Section({
  title,
  children,
  actions,
}: {
  title: string
  children: ComponentChildren
  actions?: ComponentChildren
}) {
  return (
    <section class="card" aria-label={title}>
      <header class="card-head">
        {/* focusable by script: where focus goes when what held it is gone (an event resolved) */}
        <h2 tabIndex={-1}>{title}</h2>
        {actions}
      </header>
      {children}
    </section>
  )
}

export function Loading({ when }: { when: boolean }) {
  return when ? (
    <p class="muted" role="status">
      {t('loading')}
    </p>
  ) : null
}

/** A date and time in the app's language (a German farm reads 29.11.26, 02:10 whatever its browser's locale). */
export function formatDateTime(ms: number | string | undefined): string {
  if (ms === undefined || ms === '') return '–'
  const date = typeof ms === 'number' ? new Date(ms) : new Date(ms)
  if (Number.isNaN(date.getTime())) return String(ms)
  return date.toLocaleString(language(), { dateStyle: 'short', timeStyle: 'short' })
}

/** Calendar days (YYYY-MM-DD) in the app's language: one day ("3 Nov 2026"), or a span ("22–28 Nov 2026"). */
export function formatDays(from: string, to = from): string {
  const [a, b] = [Date.parse(`${from}T00:00:00Z`), Date.parse(`${to}T00:00:00Z`)]
  if (Number.isNaN(a) || Number.isNaN(b)) return from
  const options = { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' } as const
  const format = new Intl.DateTimeFormat(language(), options)
  return a === b ? format.format(a) : format.formatRange(a, b)
}

/** A number to `digits` decimals with the app's language's decimal mark (37.3 °C, 37,3 °C). */
export function formatNumber(value: number | null | undefined, digits = 1): string {
  if (typeof value !== 'number' || !Number.isFinite(value)) return '–'
  const options = { minimumFractionDigits: digits, maximumFractionDigits: digits, useGrouping: false }
  return new Intl.NumberFormat(language(), options).format(value)
}

/** A share (0-1: an animal's CurrentActivity) as a whole percentage; another number, an integrator's own, as it is. */
export function formatShare(value: number | null | undefined): string {
  if (typeof value !== 'number' || !Number.isFinite(value)) return '–'
  return value >= 0 && value <= 1 ? `${Math.round(value * 100)} %` : formatNumber(value, 2)
}

/** A measurement with its unit, or a dash alone where there is none yet (never "– °C"). */
export function formatMeasure(value: number | null | undefined, unit: string, digits = 1): string {
  const number = formatNumber(value, digits)
  return number === '–' ? number : `${number} ${unit}`
}
