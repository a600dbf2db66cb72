// Settings: the farm's alert rules, the phones registered for push notifications, and the language.
import { useState } from 'preact/hooks'
import type { ApiError } from '../api.ts'
import { request, userPath, type User, type UserPhone } from '../api.ts'
import { AlertRulesForm } from '../alert-rules-form.tsx'
import { deviceAlertState, setDeviceAlerts, type DeviceAlertState } from '../device-alerts.ts'
import { LANGUAGES, language, t, type TextKey } from '../i18n.ts'
import { Failure, Loading, Section, formatDateTime, useApi } from '../ui.tsx'

/** This device's alerts: a switch, and why it cannot be on where the browser says no. */
function DeviceAlerts() {
  const [state, setState] = useState<DeviceAlertState>(deviceAlertState)
  return (
    <Section title={t('deviceAlerts')}>
      <p class="muted">{t('deviceAlertsHint')}</p>
      {state === 'unsupported' ? (
        <p class="muted">{t('deviceAlertsUnsupported')}</p>
      ) : (
        <label class="switch">
          <input
            type="checkbox"
            checked={state === 'on'}
            disabled={state === 'denied'}
            onChange={(e) => void setDeviceAlerts(e.currentTarget.checked).then(setState)}
          />{' '}
          {t('deviceAlertsOn')}
        </label>
      )}
      {state === 'denied' && (
        <p class="failure" role="alert">
          {t('deviceAlertsDenied')}
        </p>
      )}
    </Section>
  )
}

export function SettingsPage({ user, onLanguage }: { user: User | undefined; onLanguage: (tag: string) => void }) {
  const phones = useApi<UserPhone[]>(userPath('/push-tokens'))
  const [error, setError] = useState<ApiError | undefined>()
  const chooseLanguage = async (tag: string) => {
    setError(undefined)
    onLanguage(tag)
    try {
      await request('PATCH', userPath(), { Language: tag })
    } catch (err) {
      setError(err as ApiError)
    }
  }
  return (
    <>
      <Section title={t('language')}>
        <select
          aria-label={t('language')}
          value={language()}
          onChange={(event) => void chooseLanguage(event.currentTarget.value)}
        >
          {Object.entries(LANGUAGES).map(([tag, { name }]) => (
            <option key={tag} value={tag}>
              {name}
            </option>
          ))}
        </select>
        <Failure error={error} />
        {user?.Email && <p class="muted">{user.Email}</p>}
      </Section>
      <DeviceAlerts />
      <AlertRulesForm />
      <Section title={t('phones')}>
        <Loading when={phones.loading && !phones.data} />
        <Failure error={phones.error} retry={phones.reload} />
        {phones.data && phones.data.length === 0 && <p class="muted">{t('noPhones')}</p>}
        <ul class="phones">
          {(phones.data ?? []).map((phone) => (
            <li key={phone.Token}>
              <strong>{phone.CustomName || phone.Name}</strong>{' '}
              <span class="pill">{phone.Rank ? t(`rank_${phone.Rank}` as TextKey) : '–'}</span>{' '}
              <span class="muted">{formatDateTime(phone.t)}</span>
            </li>
          ))}
        </ul>
      </Section>
    </>
  )
}
