// The pure side of the app's notifications: how an alert shows (the open app's device alerts and a Web Push the
// service worker receives alike), what a push message's payload becomes, and what a browser registered for Web Push
// is called. No browser API here, so that the rules are tested in node.
import { LANGUAGES, languageOf } from './i18n.ts'

export interface AlertNotification {
  title: string
  options: {
    body: string
    tag: string
    lang: string
    icon: string
    data: { hash: string }
  }
}

/** An alert as a notification: clicking it opens the attention screen (service-worker.ts's `notificationclick`). */
export function alertNotification(alert: {
  title: string
  body: string
  tag: string
  lang: string
}): AlertNotification {
  const { title, body, tag, lang } = alert
  return { title, options: { body, tag, lang, icon: './icon.svg', data: { hash: '#/attention' } } }
}

/** The tag of a push that says nothing readable: such pushes replace one another rather than pile up. */
export const GENERIC_PUSH_TAG = 'farm-alert'

const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined)

/**
 * What a Web Push message shows: the event as the service wrote it (its title already in the user's language, the tag
 * `event-<ID>` that the open app's notification of the same event has, so one replaces the other). A message without
 * a readable JSON title still shows something, in the browser's language: the push service delivers a push only for
 * a notification shown (`userVisibleOnly`).
 */
export function pushNotification(payload: string | undefined, browserLanguage: string): AlertNotification {
  let message: Record<string, unknown> = {}
  try {
    const parsed: unknown = payload === undefined ? undefined : JSON.parse(payload)
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) message = parsed as Record<string, unknown>
  } catch {
    // not JSON: the generic notification below
  }
  const title = text(message.title)
  const eventId = text(message.eventId)
  if (title === undefined) {
    const lang = languageOf(browserLanguage)
    const texts = LANGUAGES[lang]!.texts
    return alertNotification({
      title: texts.pushGenericTitle,
      body: texts.pushGenericBody,
      tag: GENERIC_PUSH_TAG,
      lang,
    })
  }
  return alertNotification({
    title,
    body: text(message.body) ?? '',
    tag: text(message.tag) ?? (eventId ? `event-${eventId}` : GENERIC_PUSH_TAG),
    lang: text(message.lang) ?? languageOf(browserLanguage),
  })
}

export interface BrowserKind {
  browser: string | undefined
  platform: string | undefined
}

const BROWSERS: [RegExp, string][] = [
  [/\bEdgA?\//, 'Edge'],
  [/\b(OPR|Opera)\//, 'Opera'],
  [/\bSamsungBrowser\//, 'Samsung Internet'],
  [/\b(Firefox|FxiOS)\//, 'Firefox'],
  [/\b(Chrome|Chromium|CriOS|HeadlessChrome)\//, 'Chrome'],
  [/\bVersion\/[\d.]+.*\bSafari\//, 'Safari'],
]
const PLATFORMS: [RegExp, string][] = [
  [/\bAndroid\b/, 'Android'],
  [/\biPhone\b/, 'iPhone'],
  [/\biPad\b/, 'iPad'],
  [/\bCrOS\b/, 'ChromeOS'],
  [/\bWindows\b/, 'Windows'],
  [/\bMac OS X\b/, 'macOS'],
  [/\bLinux\b/, 'Linux'],
]

/** The browser and platform a user agent names (first match: Edge and Opera also call themselves Chrome). */
export function browserKind(userAgent: string): BrowserKind {
  return {
    browser: BROWSERS.find(([pattern]) => pattern.test(userAgent))?.[1],
    platform: PLATFORMS.find(([pattern]) => pattern.test(userAgent))?.[1],
  }
}

/** Whether a subscription's `applicationServerKey` is the service's key (raw P-256 point, base64url). */
export function sameKey(subscribedWith: ArrayBuffer | null | undefined, publicKey: string): boolean {
  if (!subscribedWith) return false
  return bytesToBase64url(new Uint8Array(subscribedWith)) === publicKey.replace(/=+$/, '')
}

export function base64urlToBytes(value: string): Uint8Array<ArrayBuffer> {
  const base64 = value.replace(/-/g, '+').replace(/_/g, '/').replace(/=+$/, '')
  const binary = atob(base64 + '='.repeat((4 - (base64.length % 4)) % 4))
  return Uint8Array.from(binary, (char) => char.charCodeAt(0))
}

export function bytesToBase64url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '')
}
