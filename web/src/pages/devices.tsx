// Litter-monitoring devices: the summary, and each device online or offline with its last data.
import type { operations } from '../../../clients/typescript/src/schema.d.ts'
import { eventTitle } from '../../../src/modules/events/event-texts.ts'
import { eventsNeedingAttention, getAll, userPath, type Litterguard } from '../api.ts'
import { kindsByMac } from '../farm.rules.ts'
import { language, t } from '../i18n.ts'
import { Failure, Loading, Section, formatDateTime, formatMeasure, useApi } from '../ui.tsx'

type DeviceSummary = operations['litterguardSummary']['responses'][200]['content']['application/json']['data']

/** Unix seconds (the API's LastSeen.seconds and lastDataReceived, null before any data) as a date and time. */
function secondsText(seconds: number | null | undefined): string {
  return typeof seconds === 'number' ? formatDateTime(seconds * 1000) : t('noDataYet')
}

export function DevicesPage() {
  const summary = useApi<DeviceSummary>(userPath('/litterguards/summary'))
  const devices = useApi<Litterguard[]>(userPath('/litterguards'), (path) => getAll<Litterguard>(path))
  // What each device has open, as the attention screen lists it: "Unusual activity in the litter" beside its pen.
  const alerts = useApi(userPath('/events'), () =>
    eventsNeedingAttention<{ MAC?: string; EventType: string }>().then(kindsByMac),
  )
  const s = summary.data
  return (
    <>
      <Section title={t('devices')}>
        <Loading when={summary.loading} />
        <Failure error={summary.error} retry={summary.reload} />
        {s && (
          <dl class="facts">
            <div>
              <dt>{t('devicesTotal')}</dt>
              <dd>{s.totalDevices}</dd>
            </div>
            <div>
              <dt>{t('devicesActive')}</dt>
              <dd>{s.activeDevices}</dd>
            </div>
            <div>
              <dt>{t('devicesInactive')}</dt>
              <dd>{s.inactiveDevices}</dd>
            </div>
            <div>
              <dt>{t('temperature')}</dt>
              <dd>{formatMeasure(s.averageTemperature, '°C')}</dd>
            </div>
            <div>
              <dt>{t('unusualActivity')}</dt>
              <dd>{s.devicesWithUnusualActivity}</dd>
            </div>
            <div>
              <dt>{t('lastData')}</dt>
              <dd>{secondsText(s.lastDataReceived)}</dd>
            </div>
          </dl>
        )}
      </Section>
      <Section title={devices.data ? `${t('devicesTotal')} (${devices.data.length})` : t('devicesTotal')}>
        <Loading when={devices.loading && !devices.data} />
        <Failure error={devices.error} retry={devices.reload} />
        <ul class="devices">
          {(devices.data ?? []).map((device) => (
            <li key={device.MAC}>
              <span class={device.Active ? 'dot on' : 'dot'} aria-hidden="true" />
              <strong>{device.Name}</strong> <span class="mac">{device.MAC}</span>{' '}
              <span>{device.Active ? t('online') : t('offlineDevice')}</span>{' '}
              <span class="muted">
                {formatMeasure(device.CurrentTemperature, '°C')} · {t('lastData')}{' '}
                {secondsText(device.LastSeen?.seconds)}
              </span>
              {(alerts.data?.get(device.MAC) ?? []).map((type) => (
                <a key={type} class="pill warning" href="#/attention">
                  {eventTitle(type, language())}
                </a>
              ))}
            </li>
          ))}
        </ul>
      </Section>
    </>
  )
}
