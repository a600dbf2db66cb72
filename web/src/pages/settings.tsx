// Settings: the farm's alert rules, this device's alerts (while the app is open, and through Web Push while it is
// closed), the phones and browsers registered for push notifications, and the language.
import { useState } from 'preact/hooks'
import type { ApiError, WebPushSubscription } from '../api.ts'
import { request, userPath, type User, type UserPhone } from '../api.ts'
import { AlertRulesForm } from '../alert-rules-form.tsx'
import { deviceAlertState, setDeviceAlerts, type DeviceAlertState } from '../device-alerts.ts'
import { LANGUAGES, language, t, type TextKey } from '../i18n.ts'
import { pushSupported } from '../push-subscription.ts'
import {
  DEFAULT_RANK,
  RANKS,
  changeClosedAppRank,
  registeredSubscriptionId,
  removeBrowser,
  startClosedAppAlerts,
  stopClosedAppAlerts,
  type ClosedAppAlerts,
  type ClosedAppAttempt,
  type Rank,
} from '../web-push.ts'
import { Failure, Loading, Section, formatDateTime, useApi, type Loaded } from '../ui.tsx'

const CLOSED_APP_REASON: Partial<Record<ClosedAppAlerts, TextKey>> = {
  unsupported: 'closedAppUnsupported',
  'not-configured': 'closedAppNotConfigured',
  failed: 'closedAppFailed',
}

const rankText = (rank: number | null) => (rank ? t(`rank_${rank}` as TextKey) : '–')

/**
 * Whether alerts reach this device while the app is closed: this browser registered, and (once the account's list
 * is read) still listed, since the service drops a subscription its push service ended; else the last attempt's why.
 */
function closedAppAlerts(attempt: ClosedAppAttempt | undefined, listed: WebPushSubscription[] | undefined) {
  if (attempt?.state === 'pending') return 'pending'
  if (!pushSupported()) return 'unsupported'
  const id = registeredSubscriptionId()
  if (id && (attempt?.state === 'on' || !listed || listed.some((browser) => browser.id === id))) return 'on'
  return attempt && attempt.state !== 'on' ? attempt.state : 'off'
}

/** This device's alerts: a switch, the role whose alerts it gets while closed, and whether they reach it then. */
function DeviceAlerts({ browsers }: { browsers: Loaded<WebPushSubscription[]> }) {
  const [state, setState] = useState<DeviceAlertState>(deviceAlertState)
  const [attempt, setAttempt] = useState<ClosedAppAttempt | undefined>()
  const [chosenRank, setChosenRank] = useState<Rank>(DEFAULT_RANK)
  const [error, setError] = useState<ApiError | undefined>()
  const closedApp = closedAppAlerts(attempt, browsers.data)
  const registered = browsers.data?.find((browser) => browser.id === registeredSubscriptionId())
  const rank = (registered?.rank ?? chosenRank) as Rank

  const toggle = async (on: boolean) => {
    setError(undefined)
    const next = await setDeviceAlerts(on)
    setState(next)
    if (on && next === 'on') {
      setAttempt({ state: 'pending' })
      setAttempt(await startClosedAppAlerts(rank))
    } else if (!on) {
      setAttempt(undefined)
      await stopClosedAppAlerts()
    }
    browsers.reload()
  }
  const chooseRank = async (next: Rank) => {
    setChosenRank(next)
    setError(undefined)
    if (state !== 'on' || closedApp !== 'on') return
    try {
      setAttempt(await changeClosedAppRank(next))
    } catch (err) {
      setError(err as ApiError)
    }
    browsers.reload()
  }
  const reason = CLOSED_APP_REASON[closedApp]
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
            disabled={state === 'denied' || closedApp === 'pending'}
            onChange={(e) => void toggle(e.currentTarget.checked)}
          />{' '}
          {t('deviceAlertsOn')}
        </label>
      )}
      {state !== 'unsupported' && pushSupported() && (
        <div class="inline">
          <label for="alerts-role">{t('alertsForRole')}</label>{' '}
          <select
            id="alerts-role"
            value={rank}
            disabled={closedApp === 'pending'}
            onChange={(e) => void chooseRank(Number(e.currentTarget.value) as Rank)}
          >
            {RANKS.map((each) => (
              <option key={each} value={each}>
                {rankText(each)}
              </option>
            ))}
          </select>
        </div>
      )}
      {state === 'on' && (
        <p class="muted" role="status">
          {closedApp === 'pending'
            ? t('closedAppPending')
            : closedApp === 'on'
              ? t('closedAppOn')
              : `${t('closedAppOff')}${reason ? ` ${t(reason)}` : ''}`}
        </p>
      )}
      <Failure error={attempt?.error ?? error} />
      {state === 'denied' && (
        <p class="failure" role="alert">
          {t('deviceAlertsDenied')}
        </p>
      )}
    </Section>
  )
}

/** The account's browsers registered for Web Push, each with what it gets and when it last got an alert. */
function WebPushBrowsers({ browsers }: { browsers: Loaded<WebPushSubscription[]> }) {
  const [error, setError] = useState<ApiError | undefined>()
  const [busy, setBusy] = useState(false)
  const thisBrowser = registeredSubscriptionId()
  const remove = async (id: string) => {
    setBusy(true)
    setError(undefined)
    try {
      await removeBrowser(id)
    } catch (err) {
      setError(err as ApiError)
    } finally {
      setBusy(false)
      browsers.reload()
    }
  }
  return (
    <Section title={t('webPushBrowsers')}>
      <Loading when={browsers.loading && !browsers.data} />
      <Failure error={browsers.error ?? error} retry={browsers.reload} />
      {browsers.data && browsers.data.length === 0 && <p class="muted">{t('noWebPushBrowsers')}</p>}
      <ul class="phones" aria-label={t('webPushBrowsers')}>
        {(browsers.data ?? []).map((browser) => {
          const name = browser.name ?? browser.pushService
          return (
            <li key={browser.id}>
              <div class="browser">
                <strong>{name}</strong> <span class="pill">{rankText(browser.rank)}</span>{' '}
                {browser.id === thisBrowser && <span class="pill">{t('thisBrowser')}</span>}
                <div class="muted">
                  {browser.pushService} · {t('registeredWhen').replace('{when}', formatDateTime(browser.createdAt))} ·{' '}
                  {browser.lastDeliveredAt === null
                    ? t('noAlertYet')
                    : t('lastAlertWhen').replace('{when}', formatDateTime(browser.lastDeliveredAt))}
                </div>
              </div>
              <button
                type="button"
                disabled={busy}
                aria-label={`${t('remove')}: ${name}`}
                onClick={() => void remove(browser.id)}
              >
                {t('remove')}
              </button>
            </li>
          )
        })}
      </ul>
    </Section>
  )
}

export function SettingsPage({ user, onLanguage }: { user: User | undefined; onLanguage: (tag: string) => void }) {
  const phones = useApi<UserPhone[]>(userPath('/push-tokens'))
  const browsers = useApi<WebPushSubscription[]>(userPath('/web-push-subscriptions'))
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
      <DeviceAlerts browsers={browsers} />
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
      <WebPushBrowsers browsers={browsers} />
    </>
  )
}
