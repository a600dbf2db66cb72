// Alerts while the app is closed (Web Push): this browser's push subscription registered with the service for the
// role chosen in Settings, and removed again. The service pushes each event to it as it does to the account's
// phones, by role and the alert rules; the app's service worker shows it (service-worker.ts).
import { ApiError, get, request, userPath, type WebPushSubscription } from './api.ts'
import { t } from './i18n.ts'
import { browserKind, sameKey } from './push.rules.ts'
import { heldSubscription, pushSupported, subscribeBrowser, unsubscribeBrowser } from './push-subscription.ts'
import { WEB_PUSH_SUBSCRIPTION_KEY } from './storage-keys.ts'

export type Rank = 1 | 2 | 3
export const RANKS: Rank[] = [1, 2, 3]
/** A browser gets the Worker's alerts unless another role is chosen, as a phone registered without one would not. */
export const DEFAULT_RANK: Rank = 3

/** Whether alerts reach this device while the app is closed, or why they do not. */
export type ClosedAppAlerts = 'on' | 'pending' | 'unsupported' | 'not-configured' | 'failed' | 'off'

export interface ClosedAppAttempt {
  state: ClosedAppAlerts
  /** The service's refusal of the registration (409: the account holds the most browsers), to show as it says. */
  error?: ApiError
}

/** The id of this browser's subscription on the service, once registered. */
export function registeredSubscriptionId(): string | undefined {
  return localStorage.getItem(WEB_PUSH_SUBSCRIPTION_KEY) ?? undefined
}

/** What this browser is called in the account's list: its browser and platform, as its user agent names them. */
export function thisBrowserName(): string {
  const { browser, platform } = browserKind(navigator.userAgent)
  const name = browser ?? t('aBrowser')
  return platform ? t('browserOn').replace('{browser}', name).replace('{platform}', platform) : name
}

const subscriptionPath = (id: string) => userPath(`/web-push-subscriptions/${encodeURIComponent(id)}`)

async function register(subscription: PushSubscription, rank: Rank): Promise<void> {
  const { endpoint, keys } = subscription.toJSON()
  const { data } = await request<WebPushSubscription>('POST', userPath('/web-push-subscriptions'), {
    endpoint,
    keys: { p256dh: keys?.p256dh, auth: keys?.auth },
    rank,
    name: thisBrowserName().slice(0, 100),
  })
  localStorage.setItem(WEB_PUSH_SUBSCRIPTION_KEY, data.id)
}

/**
 * Subscribes this browser through its push service and registers it with the service for `rank`'s alerts. The
 * notification permission is granted already. Where anything is missing (the Push API, the service's key, a push
 * service within reach) the device keeps the alerts of the open app, and the answer says why.
 */
export async function startClosedAppAlerts(rank: Rank): Promise<ClosedAppAttempt> {
  if (!pushSupported()) return { state: 'unsupported' }
  let publicKey: string
  try {
    publicKey = (await get<{ publicKey: string }>('/web-push/key')).data.publicKey
  } catch (err) {
    return { state: err instanceof ApiError && err.status === 404 ? 'not-configured' : 'failed' }
  }
  let subscription: PushSubscription
  try {
    subscription = await subscribeBrowser(publicKey)
  } catch {
    return { state: 'failed' }
  }
  try {
    await register(subscription, rank)
    return { state: 'on' }
  } catch (err) {
    return { state: 'failed', error: err instanceof ApiError && err.status > 0 ? err : undefined }
  }
}

/** The role whose alerts this browser gets: registered again, the service updates its entry (same endpoint). */
export async function changeClosedAppRank(rank: Rank): Promise<ClosedAppAttempt> {
  const held = await heldSubscription()
  if (!held) return startClosedAppAlerts(rank)
  await register(held, rank)
  return { state: 'on' }
}

/**
 * On opening the app with this browser registered: the registration still holds. It is made again, for the role it
 * had, where the browser no longer holds a subscription with the service's key (the operator replaced the key: its
 * push service now refuses the service's alerts), where the browser's subscription is not the one the account lists
 * (a browser may replace its subscription on its own), or where the account no longer lists it (the service drops a
 * subscription its push service called gone); the old entry is removed.
 */
export async function renewClosedAppAlerts(): Promise<void> {
  const id = registeredSubscriptionId()
  if (!id || !pushSupported()) return
  const { publicKey } = (await get<{ publicKey: string }>('/web-push/key')).data
  const held = await heldSubscription()
  const listed = (await get<WebPushSubscription[]>(userPath('/web-push-subscriptions'))).data.find((s) => s.id === id)
  if (held && sameKey(held.options.applicationServerKey, publicKey) && listed?.endpoint === held.endpoint) return
  if (listed) await request('DELETE', subscriptionPath(id)).catch(() => undefined)
  localStorage.removeItem(WEB_PUSH_SUBSCRIPTION_KEY)
  await startClosedAppAlerts((listed?.rank ?? DEFAULT_RANK) as Rank)
}

/** Ends this browser's subscription and removes it from the account; the removal is best effort (offline). */
export async function stopClosedAppAlerts(): Promise<void> {
  const id = registeredSubscriptionId()
  localStorage.removeItem(WEB_PUSH_SUBSCRIPTION_KEY)
  await unsubscribeBrowser()
  if (id) await request('DELETE', subscriptionPath(id)).catch(() => undefined)
}

/** Removes a browser from the account's list (one already gone counts); this browser's entry also unsubscribes it. */
export async function removeBrowser(id: string): Promise<void> {
  await request('DELETE', subscriptionPath(id)).catch((err: unknown) => {
    if (!(err instanceof ApiError && err.status === 404)) throw err
  })
  if (id !== registeredSubscriptionId()) return
  localStorage.removeItem(WEB_PUSH_SUBSCRIPTION_KEY)
  await unsubscribeBrowser()
}
