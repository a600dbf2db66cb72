// The app's only way to the service: the public API under /api/v1 with the signed-in user's own token.
// The session (access and refresh token) lives in localStorage so the app opens signed in, offline too.
// Refresh tokens rotate and a reused one revokes the whole session, so a renewal runs under a Web Lock:
// two tabs never present the same refresh token.
import type { components } from '../../clients/typescript/src/schema.d.ts'
import { parseEventBlock } from './event-stream.ts'
import { t } from './i18n.ts'
import { unsubscribeBrowser } from './push-subscription.ts'
import { createGate, EXPENSIVE_READS_AT_ONCE, isExpensiveRead } from './read-gate.ts'
import { DEVICE_ALERTS_KEY, SESSION_KEY, WEB_PUSH_SUBSCRIPTION_KEY } from './storage-keys.ts'

export type Animal = components['schemas']['Animal']
export type User = components['schemas']['User']
export type UserPhone = components['schemas']['UserPhone']
export type Prediction = components['schemas']['AIPrediction']
export type Litterguard = components['schemas']['Litterguard']
export type UsageRecord = components['schemas']['UsageRecord']
export type LinkedIntegrator = components['schemas']['LinkedIntegrator']
export type ErrorDetail = components['schemas']['ErrorDetail']
/** A browser registered for Web Push (the farm app's alerts while it is closed). */
export type WebPushSubscription = components['schemas']['WebPushSubscription']

export const API = '/api/v1'
/** The service worker's cache of API answers (service-worker.ts). */
const DATA_CACHE = 'farm-app-data'
const RENEW_MARGIN_MS = 60_000

export interface Session {
  uid: string
  accessToken: string
  refreshToken: string | undefined
  expiresAt: number
}

export interface Envelope<T> {
  success: true
  data: T
  message?: string
  pagination?: { page: number; limit: number; total: number; totalPages: number }
  timestamp: string
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly details: ErrorDetail[] = [],
  ) {
    super(message)
  }
}

type Listener = (session: Session | undefined) => void
const listeners = new Set<Listener>()

export function onSessionChange(listener: Listener): () => void {
  listeners.add(listener)
  return () => listeners.delete(listener)
}

export function currentSession(): Session | undefined {
  try {
    const stored = localStorage.getItem(SESSION_KEY)
    return stored ? (JSON.parse(stored) as Session) : undefined
  } catch {
    return undefined
  }
}

let endedWithoutSignOut = false

/** Whether the last session ended without a sign-out here (revoked elsewhere, or expired and not renewed). */
export function sessionEnded(): boolean {
  return endedWithoutSignOut
}

/** The service no longer accepts the session: it goes, and the sign-in screen says why. */
function endSession() {
  endedWithoutSignOut = true
  saveSession(undefined)
}

function saveSession(session: Session | undefined) {
  if (session) localStorage.setItem(SESSION_KEY, JSON.stringify(session))
  else {
    localStorage.removeItem(SESSION_KEY)
    // However the session ends (signed out, revoked, expired), the farm's answers kept for offline use go with it,
    // and so does this device's choice of alerts: the next user of a shared device chooses again (device-alerts.ts).
    // Its Web Push subscription ends too, so that the account's alerts stop reaching this browser even where the
    // service could not be told (signOut tells it): the push service refuses them, and the service then drops it.
    if ('caches' in self) void caches.delete(DATA_CACHE).catch(() => false)
    localStorage.removeItem(DEVICE_ALERTS_KEY)
    localStorage.removeItem(WEB_PUSH_SUBSCRIPTION_KEY)
    void unsubscribeBrowser()
  }
  for (const listener of listeners) listener(session)
}

interface TokenData {
  accessToken: string
  refreshToken?: string
  expiresAt: number
  uid?: string
  integratorUID?: string
}

/** fetch, with a failure to reach the service (offline, no route) as an ApiError in the user's words. */
async function reach(url: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init)
  } catch {
    throw new ApiError(0, t('noConnection'))
  }
}

async function readEnvelope<T>(response: Response): Promise<Envelope<T>> {
  const text = await response.text()
  let body: unknown
  try {
    body = text ? JSON.parse(text) : undefined
  } catch {
    body = undefined
  }
  if (response.ok && body && typeof body === 'object' && (body as { success?: unknown }).success === true) {
    return body as Envelope<T>
  }
  const failure = (body ?? {}) as { error?: string; details?: ErrorDetail[] }
  throw new ApiError(response.status, failure.error ?? response.statusText ?? 'Request failed', failure.details ?? [])
}

function sessionOf(data: TokenData, uid: string): Session {
  // expiresAt is on the service's clock; a renewal margin of a minute absorbs ordinary skew.
  return { uid, accessToken: data.accessToken, refreshToken: data.refreshToken, expiresAt: data.expiresAt }
}

export async function signIn(email: string, password: string): Promise<Session> {
  const response = await reach(`${API}/tokens/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  })
  const { data } = await readEnvelope<TokenData>(response)
  const session = sessionOf(data, data.uid ?? '')
  endedWithoutSignOut = false
  saveSession(session)
  return session
}

export async function signOut(): Promise<void> {
  const session = currentSession()
  const webPushSubscription = localStorage.getItem(WEB_PUSH_SUBSCRIPTION_KEY)
  saveSession(undefined)
  if ('caches' in self) await caches.delete(DATA_CACHE).catch(() => false)
  if (!session) return
  // This browser leaves the account's Web Push list, then the token and its refresh family are revoked on the
  // service; the app is signed out already, whatever the service answers (or if it cannot be reached).
  const headers = { authorization: `Bearer ${session.accessToken}` }
  if (webPushSubscription) {
    const path = `/users/${encodeURIComponent(session.uid)}/web-push-subscriptions/${encodeURIComponent(webPushSubscription)}`
    await fetch(`${API}${path}`, { method: 'DELETE', headers }).catch(() => undefined)
  }
  await fetch(`${API}/tokens/logout`, { method: 'POST', headers }).catch(() => undefined)
}

async function withRenewalLock<T>(work: () => Promise<T>): Promise<T> {
  if ('locks' in navigator) return navigator.locks.request('livestock-session-renewal', work)
  return work()
}

/** A valid access token, renewed first when it is about to expire. */
async function accessToken(force = false): Promise<string> {
  const session = currentSession()
  if (!session) throw new ApiError(401, 'Not signed in')
  if (!force && session.expiresAt - Date.now() > RENEW_MARGIN_MS) return session.accessToken
  return withRenewalLock(async () => {
    // Another tab may have renewed while this one waited for the lock.
    const latest = currentSession()
    if (!latest) throw new ApiError(401, 'Not signed in')
    if (latest.accessToken !== session.accessToken && latest.expiresAt - Date.now() > RENEW_MARGIN_MS) {
      return latest.accessToken
    }
    if (!latest.refreshToken) {
      endSession()
      throw new ApiError(401, 'Token has expired')
    }
    const response = await reach(`${API}/tokens/refresh`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ refreshToken: latest.refreshToken }),
    })
    if (response.status === 401) {
      endSession()
      throw new ApiError(401, 'Token has expired')
    }
    const { data } = await readEnvelope<TokenData>(response)
    const renewed = sessionOf(data, latest.uid)
    saveSession(renewed)
    return renewed.accessToken
  })
}

/**
 * A read the service answers 429 with a short Retry-After (one caller's expensive reads, the KPIs, due lists and
 * accuracy of the Performance screen among them, run a few at a time) is sent again after it, for up to this long.
 */
const READ_RETRY_BUDGET_MS = 60_000
const READ_RETRY_AFTER_MAX_S = 5

export async function request<T>(method: string, path: string, body?: unknown): Promise<Envelope<T>> {
  for (let waited = 0; ;) {
    const response = await answer(method, path, body)
    const retryAfter = Number(response.headers.get('retry-after') ?? NaN)
    const retry =
      method === 'GET' &&
      response.status === 429 &&
      retryAfter >= 0 &&
      retryAfter <= READ_RETRY_AFTER_MAX_S &&
      waited < READ_RETRY_BUDGET_MS
    if (!retry) return readEnvelope<T>(response)
    // Jittered, so that the reads refused together do not all come back together.
    const pause = Math.max(250, retryAfter * 1000) * (0.5 + Math.random())
    waited += pause
    await new Promise((resolve) => setTimeout(resolve, pause))
  }
}

async function answer(method: string, path: string, body: unknown): Promise<Response> {
  const send = async (token: string) =>
    reach(`${API}${path}`, {
      method,
      // Never into the browser's HTTP cache, where a farm's answers would outlive the session on a shared device:
      // what is kept for offline use is the service worker's, cleared when the session ends.
      cache: 'no-store',
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(method === 'POST' ? { 'idempotency-key': crypto.randomUUID() } : {}),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
  let response = await send(await accessToken())
  if (response.status === 401) {
    // Renewed elsewhere or revoked: one renewal, then the answer stands.
    response = await send(await accessToken(true))
    if (response.status === 401) endSession()
  }
  return response
}

const expensiveReads = createGate(EXPENSIVE_READS_AT_ONCE)

export const get = <T>(path: string) =>
  isExpensiveRead(path) ? expensiveReads(() => request<T>('GET', path)) : request<T>('GET', path)

/** Every page of a list (limit 100 each), for the herd and the timeline: the first, then the rest two at a time. */
export async function getAll<T>(path: string, maxPages = 20): Promise<T[]> {
  const separator = path.includes('?') ? '&' : '?'
  const page = (n: number) => get<T[]>(`${path}${separator}limit=100&page=${n}`)
  const first = await page(1)
  const pages = Math.min(maxPages, first.pagination?.totalPages ?? 1)
  const answers = [first]
  // Two at a time: a filtered list (by cycle state) is an expensive request, of which a caller may run two at once.
  for (let n = 2; n <= pages; n += 2) {
    answers.push(...(await Promise.all([n, n + 1].filter((k) => k <= pages).map(page))))
  }
  return answers.flatMap((answer) => answer.data)
}

/** The account's events that still need attention: open and acknowledged, at most 500 of each (the attention list). */
export async function eventsNeedingAttention<T>(): Promise<T[]> {
  const path = userPath('/events')
  const lists = await Promise.all([getAll<T>(`${path}?status=open`, 5), getAll<T>(`${path}?status=acknowledged`, 5)])
  return lists.flat()
}

export function userPath(suffix = ''): string {
  const session = currentSession()
  if (!session) throw new ApiError(401, 'Not signed in')
  return `/users/${encodeURIComponent(session.uid)}${suffix}`
}

export interface StreamHandlers {
  onEvent: (data: unknown, id: string | undefined, type: string) => void
  onState?: (connected: boolean) => void
}

/**
 * Follows a Server-Sent Events stream with the bearer token (EventSource cannot send one), resuming with
 * Last-Event-ID after a drop, until the returned function is called.
 */
export function followStream(path: string, handlers: StreamHandlers): () => void {
  let stopped = false
  let lastEventId: string | undefined
  let controller: AbortController | undefined
  const run = async () => {
    let backoffMs = 1000
    while (!stopped) {
      controller = new AbortController()
      try {
        const response = await fetch(`${API}${path}`, {
          headers: {
            authorization: `Bearer ${await accessToken()}`,
            accept: 'text/event-stream',
            ...(lastEventId ? { 'last-event-id': lastEventId } : {}),
          },
          signal: controller.signal,
        })
        if (!response.ok || !response.body) throw new ApiError(response.status, 'stream refused')
        handlers.onState?.(true)
        backoffMs = 1000
        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader()
        let buffer = ''
        for (;;) {
          const { value, done } = await reader.read()
          if (done) break
          buffer += value
          let end: number
          while ((end = buffer.search(/\r?\n\r?\n/)) >= 0) {
            const block = buffer.slice(0, end)
            buffer = buffer.slice(end).replace(/^\r?\n\r?\n/, '')
            const message = parseEventBlock(block)
            if (message.id !== undefined) lastEventId = message.id
            if (message.data !== undefined) {
              let data: unknown = message.data
              try {
                data = JSON.parse(message.data)
              } catch {
                // a text payload stays text
              }
              handlers.onEvent(data, message.id, message.event)
            }
          }
        }
      } catch (err) {
        if (stopped) return
        if (err instanceof ApiError && err.status === 401) return
      }
      handlers.onState?.(false)
      await new Promise((resolve) => setTimeout(resolve, backoffMs))
      backoffMs = Math.min(backoffMs * 2, 30_000)
    }
  }
  void run()
  return () => {
    stopped = true
    controller?.abort()
  }
}
