// Web Push (RFC 8030) to the browsers an account registered: the farm app on a phone, closed. Each message is
// encrypted for its browser (RFC 8291, aes128gcm) and signed with the service's VAPID key (RFC 8292) by the
// `web-push` library, then POSTed to the browser's push service through the same guard as a webhook
// (outbound.ts): https and public addresses only, unless WEBHOOK_ALLOW_INSECURE.
import type { EventRow } from '../events/events.repository.ts'
import { post, type OutboundOptions } from './outbound.ts'
import { webPushPublicKey } from '../../web-push-key.ts'

export interface WebPushTarget {
  endpoint: string
  keys: { p256dh: string; auth: string }
}

export interface WebPushMessage {
  /** The JSON the farm app's service worker shows (web/src/service-worker.ts). */
  payload: string
  /** Seconds the push service keeps a message for a browser that is offline. */
  ttlSeconds: number
  urgency: 'normal' | 'high'
  /** A pending message of the same topic is replaced at the push service (a redelivery of one event). */
  topic: string
}

/** ok; gone: the subscription has ended (404, 410), remove it; retry: later; invalid: drop this message. */
export type WebPushResult =
  { kind: 'ok' } | { kind: 'gone' } | { kind: 'retry'; error: string } | { kind: 'invalid'; error: string }

export interface WebPushSender {
  send(target: WebPushTarget, message: WebPushMessage): Promise<WebPushResult>
}

/** What a push service's answer means for the message and the subscription. */
export function webPushResultOf(answer: { status?: number; error?: string }): WebPushResult {
  const { status, error } = answer
  if (status === undefined) return { kind: 'retry', error: error ?? 'no answer' }
  if (status >= 200 && status < 300) return { kind: 'ok' }
  if (status === 404 || status === 410) return { kind: 'gone' }
  if (status === 429 || status >= 500) return { kind: 'retry', error: `HTTP ${status}` }
  return { kind: 'invalid', error: `HTTP ${status}` }
}

export function createWebPushSender(options: {
  privateKey: string
  contact: string
  outbound: OutboundOptions
}): WebPushSender {
  const publicKey = webPushPublicKey(options.privateKey)
  return {
    async send(target, message) {
      // web-push is loaded with the first message, not at start (docs/runtime.md: the service's memory).
      const { default: webpush } = await import('web-push')
      let body: Buffer
      let headers: Record<string, string>
      try {
        const encrypted = webpush.encrypt(target.keys.p256dh, target.keys.auth, message.payload, 'aes128gcm')
        const vapid = webpush.getVapidHeaders(
          new URL(target.endpoint).origin,
          options.contact,
          publicKey,
          options.privateKey,
          'aes128gcm',
        )
        body = encrypted.cipherText
        headers = {
          'content-type': 'application/octet-stream',
          'content-encoding': 'aes128gcm',
          ttl: String(message.ttlSeconds),
          urgency: message.urgency,
          topic: message.topic,
          authorization: vapid.Authorization,
        }
      } catch (err) {
        // A subscription whose keys the browser did not make (they are checked when registered, so rare).
        return { kind: 'invalid', error: (err as Error).message }
      }
      return webPushResultOf(await post(target.endpoint, body, headers, options.outbound))
    },
  }
}

/** How long a push service keeps an alert for a browser that is offline: a day-old alert is on the attention screen. */
export const WEB_PUSH_TTL_SECONDS = 24 * 3600

/** What the farm app's service worker shows for an event: its tag is the one the open app's alerts use. */
export function webPushPayload(event: EventRow, title: string, body: string, language: string | null): string {
  return JSON.stringify({
    title,
    body,
    tag: `event-${event.id}`,
    eventId: String(event.id),
    eventType: event.event_type,
    mac: event.mac,
    userId: event.uid,
    lang: language ?? 'en',
    createdAt: Number(event.created_at),
  })
}
