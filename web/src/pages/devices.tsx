// Litter-monitoring devices: the summary, and each device online or offline with its last data.
import { getAll, userPath, type Litterguard } from '../api.ts'
import { t } from '../i18n.ts'
import { Failure, Loading, Section, formatDateTime, formatNumber, useApi } from '../ui.tsx'

interface DeviceSummary {
  totalDevices: number
  activeDevices: number
  inactiveDevices: number
  averageTemperature: number
  devicesWithUnusualActivity: number
  lastDataReceived: number
}

function lastSeenOf(device: Litterguard): number | undefined {
  const seen = (device as { LastSeen?: unknown }).LastSeen
  if (typeof seen === 'number') return seen < 1e11 ? seen * 1000 : seen
  if (typeof seen === 'string') return Date.parse(seen)
  if (seen && typeof seen === 'object' && typeof (seen as { _seconds?: unknown })._seconds === 'number') {
    return (seen as { _seconds: number })._seconds * 1000
  }
  return undefined
}

export function DevicesPage() {
  const summary = useApi<DeviceSummary>(userPath('/litterguards/summary'))
  const devices = useApi<Litterguard[]>(userPath('/litterguards'), (path) => getAll<Litterguard>(path))
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
              <dd>{formatNumber(s.averageTemperature)} °C</dd>
            </div>
            <div>
              <dt>{t('unusualActivity')}</dt>
              <dd>{s.devicesWithUnusualActivity}</dd>
            </div>
            <div>
              <dt>{t('lastData')}</dt>
              <dd>{formatDateTime(s.lastDataReceived < 1e11 ? s.lastDataReceived * 1000 : s.lastDataReceived)}</dd>
            </div>
          </dl>
        )}
      </Section>
      <Section title={`${t('devicesTotal')} (${devices.data?.length ?? 0})`}>
        <Loading when={devices.loading && !devices.data} />
        <Failure error={devices.error} retry={devices.reload} />
        <ul class="devices">
          {(devices.data ?? []).map((device) => (
            <li key={device.MAC}>
              <span class={device.Active ? 'dot on' : 'dot'} aria-hidden="true" />
              <strong>{device.Name}</strong> <span class="mac">{device.MAC}</span>{' '}
              <span>{device.Active ? t('online') : t('offlineDevice')}</span>{' '}
              <span class="muted">
                {formatNumber(device.CurrentTemperature)} °C · {formatDateTime(lastSeenOf(device))}
              </span>
            </li>
          ))}
        </ul>
      </Section>
    </>
  )
}
