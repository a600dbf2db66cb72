// Alerts on this device: while the app is open, a new event that needs attention shows as a system notification
// (the Notification API), so that a stockperson with the app in another tab or behind another window hears of it.
// The choice is this device's (localStorage) until the session ends, and needs the browser's permission.
import { eventSummary } from '../../src/modules/events/event-summaries.ts'
import { eventTitle } from '../../src/modules/events/event-texts.ts'
import { DEVICE_ALERTS_KEY } from './storage-keys.ts'
import { language } from './i18n.ts'
import { alertNotification } from './push.rules.ts'

const CHANGED = 'livestock:device-alerts'
/** An event older than this when it arrives (a stream resuming after a long drop) is listed, not announced. */
export const ANNOUNCE_WITHIN_MS = 15 * 60_000

export type DeviceAlertState = 'on' | 'off' | 'denied' | 'unsupported'

export interface AnnouncedEvent {
  ID: string
  EventType: string
  MAC?: string
  Group?: string
  status?: string
  severity?: string
  createdAt?: number
  evidence?: Record<string, unknown>
}

/** Whether an event that arrives live is one to announce: it needs attention and it is new. */
export function worthAnnouncing(event: AnnouncedEvent, now: number): boolean {
  if (event.status === 'resolved' || event.severity === 'info') return false
  return event.createdAt === undefined || now - event.createdAt <= ANNOUNCE_WITHIN_MS
}

/**
 * The notification's title and body: the kind in the user's language; the animal or device, its group and why
 * (eventSummary, times in that language), as the service's push messages say it.
 */
export function announcement(event: AnnouncedEvent, subject: string | undefined, tag: string) {
  const time = (ms: number) => new Date(ms).toLocaleString(tag, { dateStyle: 'short', timeStyle: 'short' })
  return {
    title: eventTitle(event.EventType, tag),
    body: [subject ?? event.MAC, event.Group, eventSummary(event, tag, time)].filter(Boolean).join(' · '),
  }
}

export function deviceAlertState(): DeviceAlertState {
  if (typeof Notification === 'undefined') return 'unsupported'
  if (Notification.permission === 'denied') return 'denied'
  return localStorage.getItem(DEVICE_ALERTS_KEY) === 'on' && Notification.permission === 'granted' ? 'on' : 'off'
}

/** Turns this device's alerts on (asking the browser's permission) or off; the new state. */
export async function setDeviceAlerts(on: boolean): Promise<DeviceAlertState> {
  if (on && typeof Notification !== 'undefined') {
    if ((await Notification.requestPermission()) === 'granted') localStorage.setItem(DEVICE_ALERTS_KEY, 'on')
  } else {
    localStorage.removeItem(DEVICE_ALERTS_KEY)
  }
  dispatchEvent(new Event(CHANGED))
  return deviceAlertState()
}

/** Calls `changed` whenever this device's choice changes; returns the function that stops it. */
export function onDeviceAlertsChange(changed: () => void): () => void {
  addEventListener(CHANGED, changed)
  return () => removeEventListener(CHANGED, changed)
}

/**
 * Shows the event as a notification; one per event (its ID as the tag, as the service's Web Push of the same event
 * has: one replaces the other), clicking it opens the attention screen. Through the service worker where one
 * controls the page: a phone's browser (Chrome on Android) has no `new Notification` in a page, only the worker's
 * `showNotification` (its click: service-worker.ts).
 */
export function announce(event: AnnouncedEvent, subject: string | undefined) {
  const { title, options } = alertNotification({
    ...announcement(event, subject, language()),
    tag: `event-${event.ID}`,
    lang: language(),
  })
  if (navigator.serviceWorker?.controller) {
    void navigator.serviceWorker.ready.then((registration) => registration.showNotification(title, options))
    return
  }
  const notification = new Notification(title, options)
  notification.onclick = () => {
    focus()
    location.hash = '#/attention'
    notification.close()
  }
}
