// One animal: its predictions over time per class, its events, its farm records as one timeline across the
// collections, and quick entry forms for the records made in the barn.
import type { FunctionComponent } from 'preact'
import { useEffect, useMemo, useState } from 'preact/hooks'
import type { ApiError } from '../api.ts'
import { get, request, userPath, type Animal, type Prediction } from '../api.ts'
import { bandOf, deltaOf, lastReadingAt } from '../farm.rules.ts'
import { t, type TextKey } from '../i18n.ts'
import { RecordForm } from '../record-form.tsx'
import { RECORD_KINDS, collectionPath, timelineTime, type FarmRecord, type RecordKind } from '../records.ts'
import {
  Failure,
  Loading,
  Section,
  formatDateTime,
  formatDays,
  formatMeasure,
  formatNumber,
  formatShare,
  useApi,
} from '../ui.tsx'
import { EventItem, type FarmEvent } from './attention.tsx'

type ChartProps = { predictions: Prediction[] }

/** The probability at which each class raises its alarm on this farm: the alert rules' thresholds. */
const ALARM_THRESHOLDS = [
  { label: 'class_birth', threshold: 'birthProbability' },
  { label: 'class_heat', threshold: 'heatProbability' },
  { label: 'class_lameness', threshold: 'lamenessProbability' },
] as const

/** Where the chart's lines raise an alarm, so a farrowing at 40 % reads as the alarm it is. */
function AlarmLevels({ thresholds }: { thresholds: Record<string, number> }) {
  const levels = ALARM_THRESHOLDS.filter((c) => typeof thresholds[c.threshold] === 'number').map(
    (c) => `${t(c.label)} ${Math.round(thresholds[c.threshold]! * 100)} %`,
  )
  return levels.length > 0 ? (
    <p class="muted">
      {t('alarmsAt')}: {levels.join(', ')}
    </p>
  ) : null
}

/** The chart library loads with the first chart, not with the app. */
function PredictionChart(props: ChartProps) {
  const [Chart, setChart] = useState<FunctionComponent<ChartProps> | undefined>()
  useEffect(() => {
    void import('../charts.tsx').then((module) => setChart(() => module.PredictionChart))
  }, [])
  return Chart ? <Chart {...props} /> : <Loading when={true} />
}

interface TimelineEntry {
  kind: RecordKind
  record: FarmRecord
  at: number
}

async function loadTimeline(mac: string): Promise<TimelineEntry[]> {
  const lists = await Promise.all(
    RECORD_KINDS.map(async (kind) => {
      const path = kind.userLevel
        ? userPath(`/${kind.segment}/search?mac=${encodeURIComponent(mac)}&limit=100`)
        : userPath(`${collectionPath(kind, mac)}?limit=100`)
      const { data } = await get<FarmRecord[]>(path)
      return data.map((record) => ({ kind, record, at: timelineTime(kind, record) }))
    }),
  )
  return lists.flat().sort((a, b) => b.at - a.at || b.record.t - a.record.t)
}

async function loadPredictions(mac: string): Promise<Prediction[]> {
  const classes = ['birth', 'heat', 'lameness'] as const
  const lists = await Promise.all(
    classes.map((type) =>
      get<Prediction[]>(
        userPath(`/animals/${encodeURIComponent(mac)}/predictions?classificationType=${type}&limit=100`),
      )
        .then(({ data }) => data)
        .catch(() => [] as Prediction[]),
    ),
  )
  return lists.flat()
}

export function AnimalPage({ mac }: { mac: string }) {
  const animals = useApi<Animal[]>(userPath(`/animals/search?mac=${encodeURIComponent(mac)}`))
  const animal = animals.data?.[0]
  const cycle = useApi<{
    state: string | null
    days?: number | null
    expectedHeat?: { from: string; to: string } | null
    expectedFarrowing?: string | null
  }>(userPath(`/animals/${encodeURIComponent(mac)}/cycle`))
  const predictions = useApi<Prediction[]>(mac, loadPredictions)
  const alertRules = useApi<{ thresholds: Record<string, number> }>(userPath('/alert-rules'))
  const events = useApi<FarmEvent[]>(userPath(`/animals/${encodeURIComponent(mac)}/events?limit=20`))
  const timeline = useApi<TimelineEntry[]>(mac, loadTimeline)
  const [entering, setEntering] = useState<RecordKind | undefined>()
  const [correcting, setCorrecting] = useState<TimelineEntry | undefined>()
  const [notice, setNotice] = useState<string | undefined>()
  const [archiveError, setArchiveError] = useState<ApiError | undefined>()
  const quickKinds = useMemo(() => RECORD_KINDS.filter((kind) => kind.quickEntry), [])

  const saved = () => {
    setEntering(undefined)
    setCorrecting(undefined)
    setNotice(t('saved'))
    timeline.reload()
    // A record moves her cycle (a service, a farrowing, a weaning): the state shown follows it at once.
    cycle.reload()
  }
  const archive = async (entry: TimelineEntry) => {
    setArchiveError(undefined)
    try {
      const path = `${collectionPath(entry.kind, mac)}/${encodeURIComponent(entry.record.ID)}`
      await request('PATCH', userPath(path), { Archived: true })
      timeline.reload()
      cycle.reload()
    } catch (err) {
      setArchiveError(err as ApiError)
    }
  }
  const band = animal ? bandOf(animal.CurrentTemperature, animal.ReferenceTemperature) : 'none'
  const delta = animal ? deltaOf(animal.CurrentTemperature, animal.ReferenceTemperature) : undefined

  // A tag this farm does not have (mistyped, another farm's, a litter device's): said once, where every section
  // below said "Not available on this service yet".
  if (animals.data && animals.data.length === 0) {
    return (
      <>
        <p>
          <a href="#/herd">← {t('herd')}</a>
        </p>
        <Section title={mac}>
          <p class="muted">{t('noSuchAnimal')}</p>
        </Section>
      </>
    )
  }
  return (
    <>
      <p>
        <a href="#/herd">← {t('herd')}</a>
      </p>
      <Section title={animal ? `${animal.ID} · ${animal.MAC}` : mac}>
        <Loading when={animals.loading && !animal} />
        <Failure error={animals.error} retry={animals.reload} />
        {animal && (
          <dl class="facts">
            <div>
              <dt>{t('temperature')}</dt>
              <dd>{formatMeasure(animal.CurrentTemperature, '°C')}</dd>
            </div>
            <div>
              <dt>{t('reference')}</dt>
              <dd>{formatMeasure(animal.ReferenceTemperature, '°C')}</dd>
            </div>
            <div>
              <dt>{t('delta')}</dt>
              <dd>
                <span class={`band band-${band}`}>{delta === undefined ? '–' : formatNumber(delta, 2)}</span>{' '}
                {t(`band_${band}`)}
              </dd>
            </div>
            <div>
              <dt>{t('activity')}</dt>
              <dd>{formatShare(animal.CurrentActivity)}</dd>
            </div>
            <div>
              <dt>{t('group')}</dt>
              <dd>{animal.Group ?? '–'}</dd>
            </div>
            {cycle.data?.state && (
              <div>
                <dt>{t('cycleState')}</dt>
                <dd>
                  {t(`cycle_${cycle.data.state}` as TextKey)}
                  {typeof cycle.data.days === 'number' &&
                    ` · ${cycle.data.days} ${t(cycle.data.days === 1 ? 'dayInState' : 'daysInState')}`}
                </dd>
              </div>
            )}
            {cycle.data?.expectedHeat && (
              <div>
                <dt>{t('heatExpected')}</dt>
                <dd>{formatDays(cycle.data.expectedHeat.from, cycle.data.expectedHeat.to)}</dd>
              </div>
            )}
            {cycle.data?.expectedFarrowing && (
              <div>
                <dt>{t('farrowingExpected')}</dt>
                <dd>{formatDays(cycle.data.expectedFarrowing)}</dd>
              </div>
            )}
            <div>
              <dt>{t('lastReading')}</dt>
              <dd>{formatDateTime(lastReadingAt(animal))}</dd>
            </div>
          </dl>
        )}
      </Section>

      <Section title={t('predictions')}>
        <Loading when={predictions.loading} />
        {predictions.data && predictions.data.length > 0 && <PredictionChart predictions={predictions.data} />}
        {predictions.data && predictions.data.length === 0 && <p class="muted">{t('noPredictions')}</p>}
        {alertRules.data && <AlarmLevels thresholds={alertRules.data.thresholds} />}
      </Section>

      <Section title={t('events')}>
        <Loading when={events.loading && !events.data} />
        <Failure error={events.error} />
        {events.data && events.data.length === 0 && <p class="muted">{t('noEvents')}</p>}
        <ul class="events">
          {(events.data ?? []).map((event) => (
            <EventItem key={event.ID} event={event} onChange={() => events.reload()} />
          ))}
        </ul>
      </Section>

      <Section title={t('records')}>
        <div class="quick-entry" role="group" aria-label={t('newRecord')}>
          {quickKinds.map((kind) => (
            <button
              type="button"
              key={kind.key}
              aria-pressed={entering?.key === kind.key}
              onClick={() => {
                setNotice(undefined)
                setCorrecting(undefined)
                setEntering(kind)
              }}
            >
              + {t(kind.label)}
            </button>
          ))}
        </div>
        {notice && (
          <p class="notice" role="status">
            {notice}
          </p>
        )}
        {entering && (
          <RecordForm
            key={entering.key}
            kind={entering}
            mac={mac}
            onSaved={saved}
            onCancel={() => setEntering(undefined)}
          />
        )}
        {correcting && (
          <RecordForm
            key={`${correcting.kind.key}-${correcting.record.ID}`}
            kind={correcting.kind}
            mac={mac}
            record={correcting.record}
            onSaved={saved}
            onCancel={() => setCorrecting(undefined)}
          />
        )}
        <Failure error={archiveError} />
        <Loading when={timeline.loading && !timeline.data} />
        <Failure error={timeline.error} retry={timeline.reload} />
        {timeline.data && timeline.data.length === 0 && <p class="muted">{t('noRecords')}</p>}
        <ol class="timeline" aria-label={t('records')}>
          {(timeline.data ?? []).map((entry) => (
            <li key={`${entry.kind.key}-${entry.record.ID}`} class={entry.record.Archived ? 'archived' : undefined}>
              <div>
                <span class="when">{formatDateTime(entry.at)}</span>
                <strong>{t(entry.kind.label)}</strong> <span>{entry.kind.summary(entry.record)}</span>
              </div>
              {!entry.record.Archived && (
                <span class="row-actions">
                  <button
                    type="button"
                    class="link"
                    onClick={() => {
                      setEntering(undefined)
                      setCorrecting(entry)
                    }}
                  >
                    {t('correct')}
                  </button>
                  <button type="button" class="link" onClick={() => void archive(entry)}>
                    {t('archive')}
                  </button>
                </span>
              )}
            </li>
          ))}
        </ol>
      </Section>
    </>
  )
}
