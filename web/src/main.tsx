// The farm app: signs the user in, then shows one screen at a time, chosen by the address's #fragment so a
// screen can be bookmarked, shared and reopened offline. Every datum comes from the public API (api.ts).
import './app.css'
import { render } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import { currentSession, get, onSessionChange, signOut, userPath, type Session, type User } from './api.ts'
import {
  announce,
  deviceAlertState,
  onDeviceAlertsChange,
  worthAnnouncing,
  type AnnouncedEvent,
} from './device-alerts.ts'
import { language, setLanguage, t, type TextKey } from './i18n.ts'
import { listenToEvents } from './live-events.ts'
import { renewClosedAppAlerts } from './web-push.ts'
import { AnimalPage } from './pages/animal.tsx'
import { AttentionPage, subjectNames } from './pages/attention.tsx'
import { DevicesPage } from './pages/devices.tsx'
import { HerdPage } from './pages/herd.tsx'
import { PerformancePage } from './pages/performance.tsx'
import { SettingsPage } from './pages/settings.tsx'
import { SharingPage } from './pages/sharing.tsx'
import { SignInPage } from './pages/sign-in.tsx'

interface Route {
  screen: 'attention' | 'herd' | 'animal' | 'performance' | 'devices' | 'sharing' | 'settings'
  mac?: string
}

const NAVIGATION: { screen: Route['screen']; label: TextKey; icon: string }[] = [
  { screen: 'attention', label: 'tab_attention', icon: '!' },
  { screen: 'herd', label: 'tab_herd', icon: '▦' },
  { screen: 'performance', label: 'tab_performance', icon: '▲' },
  { screen: 'devices', label: 'tab_devices', icon: '◉' },
  { screen: 'sharing', label: 'tab_sharing', icon: '⇄' },
  { screen: 'settings', label: 'tab_settings', icon: '⚙' },
]

export function routeOf(hash: string): Route {
  const [screen, ...rest] = hash.replace(/^#\/?/, '').split('/')
  if (screen === 'animal' && rest[0]) return { screen: 'animal', mac: decodeURIComponent(rest[0]) }
  const known = NAVIGATION.find((item) => item.screen === screen)
  return { screen: known?.screen ?? 'attention' }
}

function useRoute(): Route {
  const [route, setRoute] = useState(() => routeOf(location.hash))
  useEffect(() => {
    const follow = () => setRoute(routeOf(location.hash))
    addEventListener('hashchange', follow)
    return () => removeEventListener('hashchange', follow)
  }, [])
  return route
}

function useOnline(): boolean {
  const [online, setOnline] = useState(navigator.onLine)
  useEffect(() => {
    const update = () => setOnline(navigator.onLine)
    addEventListener('online', update)
    addEventListener('offline', update)
    return () => {
      removeEventListener('online', update)
      removeEventListener('offline', update)
    }
  }, [])
  return online
}

function App() {
  const [session, setSession] = useState<Session | undefined>(currentSession)
  const [user, setUser] = useState<User | undefined>()
  const [, setLanguageVersion] = useState(0)
  const route = useRoute()
  const online = useOnline()

  useEffect(() => onSessionChange(setSession), [])
  useEffect(() => {
    if (!session) return
    get<User>(userPath())
      .then(({ data }) => {
        setUser(data)
        changeLanguage(data.Language ?? navigator.language)
      })
      .catch(() => undefined)
  }, [session?.uid])

  // This device's alerts: new events that need attention as notifications, while the app is open (and, where this
  // browser is registered for Web Push, its registration checked: web-push.ts).
  const [alertsOn, setAlertsOn] = useState(() => deviceAlertState() === 'on')
  useEffect(() => onDeviceAlertsChange(() => setAlertsOn(deviceAlertState() === 'on')), [])
  useEffect(() => {
    if (!session || !alertsOn) return
    void renewClosedAppAlerts().catch(() => undefined)
    // What a stockperson calls each tag; an event that comes before they are read waits for them (or their failure).
    const names = subjectNames().catch(() => new Map<string, string>())
    return listenToEvents({
      onEvent: (data) => {
        const event = data as AnnouncedEvent
        if (!event || typeof event.ID !== 'string' || !worthAnnouncing(event, Date.now())) return
        void names.then((known) => announce(event, event.MAC ? known.get(event.MAC) : undefined))
      },
    })
  }, [session?.uid, alertsOn])

  const changeLanguage = (tag: string) => {
    setLanguage(tag)
    document.documentElement.lang = language()
    setLanguageVersion((n) => n + 1)
  }

  if (!session) return <SignInPage />
  return (
    <div class="shell">
      <header class="top">
        <a class="brand" href="#/attention">
          <img src="./icon.svg" alt="" width="28" height="28" />
          <span>{user?.Name ?? t('appName')}</span>
        </a>
        <button type="button" class="quiet" onClick={() => void signOut()}>
          {t('signOut')}
        </button>
      </header>
      {!online && (
        <p class="banner" role="status">
          {t('offline')}
        </p>
      )}
      <nav class="tabs" aria-label={t('appName')}>
        {NAVIGATION.map((item) => (
          <a
            key={item.screen}
            href={`#/${item.screen}`}
            aria-current={route.screen === item.screen ? 'page' : undefined}
          >
            <span class="tab-icon" aria-hidden="true">
              {item.icon}
            </span>
            <span class="tab-label">{t(item.label)}</span>
          </a>
        ))}
      </nav>
      <main id="main">
        {route.screen === 'attention' && <AttentionPage />}
        {route.screen === 'herd' && <HerdPage />}
        {route.screen === 'animal' && route.mac && <AnimalPage mac={route.mac} />}
        {route.screen === 'performance' && <PerformancePage />}
        {route.screen === 'devices' && <DevicesPage />}
        {route.screen === 'sharing' && <SharingPage />}
        {route.screen === 'settings' && <SettingsPage user={user} onLanguage={changeLanguage} />}
      </main>
    </div>
  )
}

setLanguage(navigator.language)
document.documentElement.lang = language()
render(<App />, document.getElementById('root')!)

if ('serviceWorker' in navigator) {
  addEventListener('load', () => {
    navigator.serviceWorker.register('./sw.js', { scope: './' }).catch(() => undefined)
  })
}
