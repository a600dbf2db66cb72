// This browser's Web Push subscription (the Push API), apart from the service: web-push.ts registers it with the
// service, api.ts ends it with the session. The subscription belongs to the browser's push service (Google's for
// Chrome, Mozilla's for Firefox, Apple's for Safari): its endpoint is where the service sends each alert, encrypted
// for this browser, and the push service wakes the app's service worker with it.
import { base64urlToBytes, sameKey } from './push.rules.ts'

/** How long the app waits for its service worker or the browser's push service before it says it cannot reach it. */
const PUSH_SERVICE_WAIT_MS = 20_000

export function pushSupported(): boolean {
  return 'serviceWorker' in navigator && typeof PushManager !== 'undefined'
}

function within<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timed out')), ms)
  })
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer))
}

/** The app's service worker registration once its worker is active; undefined where none is registered. */
async function activeRegistration(): Promise<ServiceWorkerRegistration | undefined> {
  if (!('serviceWorker' in navigator)) return undefined
  // `ready` alone would wait forever where the worker is not registered (blocked, or its script refused).
  if (!(await navigator.serviceWorker.getRegistration())) return undefined
  return within(navigator.serviceWorker.ready, PUSH_SERVICE_WAIT_MS)
}

/** The subscription this browser holds, if any. */
export async function heldSubscription(): Promise<PushSubscription | null> {
  return (await activeRegistration())?.pushManager.getSubscription() ?? null
}

/** This browser's subscription with the service's key: the one it holds already, else a new one from its push service. */
export async function subscribeBrowser(publicKey: string): Promise<PushSubscription> {
  const registration = await activeRegistration()
  if (!registration) throw new Error('no service worker')
  const held = await registration.pushManager.getSubscription()
  if (held && sameKey(held.options.applicationServerKey, publicKey)) return held
  // A subscription is bound to one key: one made with another (an operator's earlier key) cannot be reused.
  await held?.unsubscribe()
  return within(
    registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: base64urlToBytes(publicKey) }),
    PUSH_SERVICE_WAIT_MS,
  )
}

/** Ends this browser's subscription, if it holds one: its push service then refuses the service's alerts for it. */
export async function unsubscribeBrowser(): Promise<void> {
  try {
    const registration = await navigator.serviceWorker?.getRegistration()
    await (await registration?.pushManager?.getSubscription())?.unsubscribe()
  } catch {
    // best effort: the service drops a subscription once its push service answers that it is gone
  }
}
