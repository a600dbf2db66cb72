// Open events, most urgent first, each with its animal and why; acknowledge or resolve; new events arrive
// live from the event stream.
import { useEffect, useMemo, useRef, useState } from 'preact/hooks'
import type { ApiError } from '../api.ts'
import { eventsNeedingAttention, getAll, request, userPath, type Animal, type Litterguard } from '../api.ts'
import { listenToEvents } from '../live-events.ts'
import { byUrgency, eventHref, evidenceText } from '../farm.rules.ts'
import { EVENT_KINDS, type EventType } from '../../../src/modules/events/event-kinds.ts'
import { eventSummary } from '../../../src/modules/events/event-summaries.ts'
import { eventTitle } from '../../../src/modules/events/event-texts.ts'
import { language, t, type TextKey } from '../i18n.ts'
import { Failure, Loading, Section, formatDateTime, useApi } from '../ui.tsx'

export interface FarmEvent {
  ID: string
  EventType: string
  MAC?: string
  Group?: string
  Scale?: string
  Value?: number
  t: number
  severity?: string
  status?: string
  evidence?: Record<string, unknown>
}

/** The service resolves what a new event supersedes (back to green resolves red); the screen follows it. */
function supersedes(event: FarmEvent, open: FarmEvent): boolean {
  const kind = EVENT_KINDS[event.EventType as EventType] as { resolves?: readonly string[] } | undefined
  return open.MAC === event.MAC && (kind?.resolves ?? []).includes(open.EventType)
}

/** What is not resolved yet; "back to normal" notices (green again, heard again, online again) arrive resolved. */
function needsAttention(event: FarmEvent): boolean {
  return event.status !== 'resolved'
}

/**
 * What a stockperson calls each MAC: an animal's ID (her ear tag), a litter device's Name. Looked up once for the
 * list; a MAC the farm does not know (yet) is shown as it is.
 */
export async function subjectNames(): Promise<Map<string, string>> {
  const [animals, devices] = await Promise.all([
    getAll<Animal>(userPath('/animals')),
    getAll<Litterguard>(userPath('/litterguards')),
  ])
  return new Map([
    ...animals.filter((a) => a.ID).map((a) => [a.MAC, a.ID] as const),
    ...devices.filter((d) => d.Name).map((d) => [d.MAC, d.Name] as const),
  ])
}

export function EventItem({
  event,
  subject,
  onChange,
}: {
  event: FarmEvent
  /** The animal's ID or the device's Name, shown before its MAC. */
  subject?: string | undefined
  onChange?: (event: FarmEvent) => void
}) {
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<ApiError | undefined>()
  const item = useRef<HTMLLIElement>(null)
  const resolveButton = useRef<HTMLButtonElement>(null)
  const act = async (status: 'acknowledged' | 'resolved') => {
    setBusy(true)
    setError(undefined)
    try {
      const { data } = await request<FarmEvent>('PATCH', userPath(`/events/${encodeURIComponent(event.ID)}`), {
        status,
      })
      // The button pressed goes away; keyboard users keep their place: on Resolve once acknowledged, else on the
      // next event (or the previous one, or the section's heading once none is left).
      const neighbour = item.current?.nextElementSibling ?? item.current?.previousElementSibling
      const heading = item.current?.closest('section')?.querySelector('h2')
      onChange?.(data)
      requestAnimationFrame(() => {
        if (status === 'acknowledged') resolveButton.current?.focus()
        else (neighbour?.isConnected ? neighbour.querySelector('button') : heading)?.focus()
      })
    } catch (err) {
      setError(err as ApiError)
    } finally {
      setBusy(false)
    }
  }
  const severity = event.severity ?? 'info'
  const href = eventHref(event)
  return (
    <li class={`event severity-${severity}`} ref={item}>
      <div class="event-main">
        <span class="pill">{t(`severity_${severity}` as TextKey) ?? severity}</span>
        <strong>{eventTitle(event.EventType, language())}</strong>
        {href && (
          <a href={href}>
            {subject && <span class="subject">{subject} </span>}
            <span class="mac">{event.MAC}</span>
          </a>
        )}
        {event.Group && <span class="muted">{event.Group}</span>}
      </div>
      <div class="event-why">
        <span class="muted">{formatDateTime(event.t)}</span>{' '}
        {eventSummary(event, language(), formatDateTime) ?? evidenceText(event, formatDateTime)}
      </div>
      {event.status === 'resolved' && (
        <div class="event-actions">
          <span class="muted">{t('resolved')}</span>
        </div>
      )}
      {onChange && event.status !== 'resolved' && (
        <div class="event-actions">
          {event.status !== 'acknowledged' ? (
            <button type="button" disabled={busy} onClick={() => void act('acknowledged')}>
              {t('acknowledge')}
            </button>
          ) : (
            <span class="muted">{t('acknowledged')}</span>
          )}
          <button type="button" disabled={busy} ref={resolveButton} onClick={() => void act('resolved')}>
            {t('resolve')}
          </button>
        </div>
      )}
      <Failure error={error} />
    </li>
  )
}

export function AttentionPage() {
  const loaded = useApi<FarmEvent[]>(userPath('/events'), () => eventsNeedingAttention<FarmEvent>())
  const names = useApi(userPath('/animals'), subjectNames)
  const [events, setEvents] = useState<FarmEvent[]>([])
  const [live, setLive] = useState(false)
  useEffect(() => setEvents(loaded.data ?? []), [loaded.data])
  useEffect(
    () =>
      listenToEvents({
        onState: setLive,
        onEvent: (data) => {
          const event = data as FarmEvent
          if (!event || typeof event !== 'object' || typeof event.ID !== 'string') return
          setEvents((list) => [event, ...list.filter((item) => item.ID !== event.ID && !supersedes(event, item))])
        },
      }),
    [],
  )
  const open = useMemo(() => events.filter(needsAttention).sort(byUrgency), [events])
  const replace = (changed: FarmEvent) =>
    setEvents((list) => list.map((item) => (item.ID === changed.ID ? changed : item)))
  return (
    <Section
      title={t('attention')}
      actions={<span class={live ? 'live on' : 'live'}>{live ? t('live') : t('reconnecting')}</span>}
    >
      <Loading when={loaded.loading && events.length === 0} />
      <Failure error={loaded.error} retry={loaded.reload} />
      {!loaded.loading && open.length === 0 && !loaded.error && <p class="muted">{t('nothingNeedsAttention')}</p>}
      <ul class="events">
        {open.map((event) => (
          <EventItem
            key={event.ID}
            event={event}
            subject={event.MAC ? names.data?.get(event.MAC) : undefined}
            onChange={replace}
          />
        ))}
      </ul>
    </Section>
  )
}
