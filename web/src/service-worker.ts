// The app's service worker: the shell (page, script, style, icon) is precached, so the app opens in a barn
// without coverage; API reads go to the network first and fall back to the last answer seen, marked with
// X-Served-From-Cache so the app can say it is offline. Writes are never cached or replayed. A Web Push from the
// service (an alert while the app is closed, web-push.ts) shows as a notification, and a click on one of the app's
// notifications (these, and the open app's: device-alerts.ts) brings the app forward at the screen it names.
import { pushNotification } from './push.rules.ts'

interface ExtendableEvent extends Event {
  waitUntil(promise: Promise<unknown>): void
}
interface FetchEvent extends ExtendableEvent {
  request: Request
  respondWith(response: Promise<Response> | Response): void
}
interface PushEvent extends ExtendableEvent {
  data: { text(): string } | null
}
interface NotificationEvent extends ExtendableEvent {
  notification: { close(): void; data?: { hash?: string } }
}
interface WindowClient {
  url: string
  focus(): Promise<WindowClient>
  navigate(url: string): Promise<WindowClient | null>
}
interface WorkerScope {
  __PRECACHE: string[]
  __VERSION: string
  registration: { scope: string; showNotification(title: string, options: object): Promise<void> }
  skipWaiting(): Promise<void>
  clients: {
    claim(): Promise<void>
    matchAll(options: { type: 'window'; includeUncontrolled: boolean }): Promise<WindowClient[]>
    openWindow(url: string): Promise<WindowClient | null>
  }
  addEventListener(type: 'install' | 'activate', listener: (event: ExtendableEvent) => void): void
  addEventListener(type: 'fetch', listener: (event: FetchEvent) => void): void
  addEventListener(type: 'push', listener: (event: PushEvent) => void): void
  addEventListener(type: 'notificationclick', listener: (event: NotificationEvent) => void): void
}

const scope = self as unknown as WorkerScope
const SHELL = `farm-app-shell-${scope.__VERSION}`
const DATA = 'farm-app-data'

scope.addEventListener('install', (event) => {
  event.waitUntil(
    caches
      .open(SHELL)
      .then((cache) => cache.addAll(scope.__PRECACHE))
      .then(() => scope.skipWaiting()),
  )
})

scope.addEventListener('activate', (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((names) =>
        Promise.all(names.filter((n) => n.startsWith('farm-app-shell-') && n !== SHELL).map((n) => caches.delete(n))),
      )
      .then(() => scope.clients.claim()),
  )
})

async function networkFirst(request: Request): Promise<Response> {
  const cache = await caches.open(DATA)
  try {
    const response = await fetch(request)
    if (response.ok) await cache.put(request, response.clone())
    return response
  } catch (err) {
    const cached = await cache.match(request, { ignoreVary: true })
    if (!cached) throw err
    const headers = new Headers(cached.headers)
    headers.set('x-served-from-cache', '1')
    return new Response(cached.body, { status: cached.status, headers })
  }
}

scope.addEventListener('fetch', (event) => {
  const request = event.request
  if (request.method !== 'GET') return
  const url = new URL(request.url)
  if (url.origin !== location.origin) return
  if (url.pathname.startsWith('/api/v1/')) {
    if (url.pathname.endsWith('/stream') || request.headers.get('accept') === 'text/event-stream') return
    event.respondWith(networkFirst(request))
    return
  }
  if (url.pathname.startsWith('/app/')) {
    event.respondWith(caches.match(request, { ignoreSearch: true }).then((cached) => cached ?? fetch(request)))
  }
})

scope.addEventListener('push', (event) => {
  let payload: string | undefined
  try {
    payload = event.data?.text()
  } catch {
    // unreadable: the generic notification
  }
  const { title, options } = pushNotification(payload, navigator.language)
  event.waitUntil(scope.registration.showNotification(title, options))
})

scope.addEventListener('notificationclick', (event) => {
  event.notification.close()
  const target = new URL(`./${event.notification.data?.hash ?? '#/attention'}`, scope.registration.scope).href
  event.waitUntil(
    scope.clients.matchAll({ type: 'window', includeUncontrolled: true }).then(async (windows) => {
      const open = windows[0]
      if (!open) return void (await scope.clients.openWindow(target))
      await open.navigate(target)
      await open.focus()
    }),
  )
})
