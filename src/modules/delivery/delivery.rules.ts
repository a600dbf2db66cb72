// Pure rules of delivery: when to try again, when to give up, which addresses a webhook may reach, and which
// of a farm's phones hear of an event.
import { createHash } from 'node:crypto'
import { isIP } from 'node:net'
import { eventSummary } from '../events/event-summaries.ts'
import { eventLanguageOf } from '../events/event-texts.ts'

/** Retries spread over about three days; then the delivery has failed. */
export const GIVE_UP_AFTER_MS = 3 * 24 * 3_600_000
const SCHEDULE_MS = [
  5_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000, 7_200_000, 14_400_000, 28_800_000, 43_200_000,
]

/**
 * The wait before attempt `attempts + 1`: exponential along SCHEDULE_MS (12 h at most), with ±20 % jitter so a
 * receiver that comes back is not met by every queued delivery at once. `random` is Math.random's range.
 */
export function retryDelayMs(attempts: number, random: number): number {
  const base = SCHEDULE_MS[Math.min(Math.max(attempts, 1), SCHEDULE_MS.length) - 1]!
  return Math.round(base * (0.8 + 0.4 * random))
}

/** Retry-After as seconds or an HTTP date, in ms from now; undefined when absent or unreadable; at most a day. */
export function retryAfterMs(header: string | undefined, now: number): number | undefined {
  if (!header) return undefined
  const seconds = /^\d+$/.test(header.trim()) ? Number(header.trim()) * 1000 : Date.parse(header) - now
  if (!Number.isFinite(seconds) || seconds < 0) return undefined
  return Math.min(seconds, 86_400_000)
}

export type Outcome = { kind: 'delivered' } | { kind: 'gone' } | { kind: 'retry'; atMs: number } | { kind: 'failed' }

/**
 * What an attempt's answer means for the delivery: 2xx delivered; 410 the receiver is gone; else retry (after the
 * backoff, or the receiver's Retry-After when that is later) or give up.
 */
export function outcomeOf(
  answer: { status?: number | undefined; retryAfter?: string | undefined },
  delivery: { attempts: number; firstAttemptAt: number },
  now: number,
  random: number,
): Outcome {
  const status = answer.status
  if (status !== undefined && status >= 200 && status < 300) return { kind: 'delivered' }
  if (status === 410) return { kind: 'gone' }
  // Retry-After only ever lengthens the wait: a receiver answering `Retry-After: 0` to every attempt would otherwise
  // have it sent again at once, as fast as it answers, for the three days (an attempt logged each time).
  const wait = Math.max(retryAfterMs(answer.retryAfter, now) ?? 0, retryDelayMs(delivery.attempts, random))
  if (now + wait - delivery.firstAttemptAt > GIVE_UP_AFTER_MS) return { kind: 'failed' }
  return { kind: 'retry', atMs: now + wait }
}

/** What of a subscription decides where an event goes: its URL and the events it covers (null: all). */
export interface SubscriptionReach {
  url: string
  event_types: readonly string[] | null
  account_uids: readonly string[] | null
}

/**
 * A URL as a receiver sees it: WHATWG parsing lower-cases the scheme and host (IDN to punycode) and drops a default
 * port, and the fragment is never sent. Path and query stay: they may name different receivers on one host.
 */
export function webhookUrlKey(url: string): string {
  const parsed = new URL(url)
  parsed.hash = ''
  return parsed.href
}

const overlap = (a: readonly string[] | null, b: readonly string[] | null) =>
  a === null || b === null || a.some((item) => b.includes(item))

/**
 * Another subscription that would send some event to the same URL as `candidate` does (same URL, event kinds and
 * accounts overlapping), if any: each would POST it again, under its own webhook-id, to the same receiver.
 */
export function overlappingSubscription<S extends SubscriptionReach>(
  candidate: SubscriptionReach,
  others: readonly S[],
): S | undefined {
  const key = webhookUrlKey(candidate.url)
  return others.find(
    (other) =>
      webhookUrlKey(other.url) === key &&
      overlap(candidate.event_types, other.event_types) &&
      overlap(candidate.account_uids, other.account_uids),
  )
}

/** A subscription whose deliveries have failed without a success for this long is disabled. */
export const DISABLE_AFTER_FAILING_MS = 3 * 24 * 3_600_000

/**
 * Whether an address is one a webhook may reach by default: public unicast only. IPv6 must be global unicast
 * (2000::/3), outside the special-purpose blocks there: IETF protocol assignments 2001::/23 (Teredo 2001::/32 among
 * them), documentation 2001:db8::/32 and 3fff::/20, and 6to4 2002::/16. So loopback, unspecified, unique local
 * fc00::/7, link-local fe80::/10, the old site-local fec0::/10, multicast, NAT64 (64:ff9b::/32), IPv4-translated
 * (::ffff:0:0/96), discard-only 100::/64 and SRv6 5f00::/16 are not. IPv4: see isPublicV4; IPv4-mapped and
 * -compatible forms are read as the IPv4 address they carry.
 */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address)
  if (family === 4) return isPublicV4(address)
  if (family !== 6) return false
  const g = ipv6Groups(address)
  // IPv4-mapped (::ffff:a.b.c.d) and IPv4-compatible (::a.b.c.d, :: and ::1 among them) forms, dotted or in hex
  // ([::ffff:7f00:1] is how the URL parser writes [::ffff:127.0.0.1]): the IPv4 address they carry decides.
  if (g.slice(0, 5).every((x) => x === 0) && (g[5] === 0xffff || g[5] === 0))
    return isPublicV4(`${g[6]! >> 8}.${g[6]! & 255}.${g[7]! >> 8}.${g[7]! & 255}`)
  const first = g[0]!
  // Everything outside 2000::/3 is refused, whatever IPv4 address it may carry: NAT64 and IPv4-translated forms
  // reach the farm's network through a translator, and the rest is not routed publicly.
  if ((first & 0xe000) !== 0x2000) return false
  // Teredo 2001::/32 (inside 2001::/23) and 6to4 2002::/16 carry an IPv4 address that a relay routes to; no web
  // receiver lives in the rest of 2001::/23 (protocol anycasts, benchmarking, ORCHID) or in documentation prefixes.
  if (first === 0x2001 && g[1]! < 0x200) return false
  if (first === 0x2001 && g[1] === 0xdb8) return false
  if (first === 0x2002) return false
  if (first === 0x3fff && g[1]! < 0x1000) return false
  return true
}

/** The eight 16-bit groups of an IPv6 address (one isIP accepts), a trailing dotted IPv4 part as the last two. */
function ipv6Groups(address: string): number[] {
  let text = address.toLowerCase().replace(/%.*$/, '')
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text)
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number]
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`
  }
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((group) => parseInt(group, 16)))
  const gap = text.indexOf('::')
  if (gap < 0) return parse(text)
  const head = parse(text.slice(0, gap))
  const tail = parse(text.slice(gap + 2))
  return [...head, ...new Array<number>(8 - head.length - tail.length).fill(0), ...tail]
}

/** Public unicast IPv4: none of the IANA special-purpose blocks that are not globally reachable. */
function isPublicV4(address: string): boolean {
  const [a, b, c] = address.split('.').map(Number) as [number, number, number, number]
  if (a === 0 || a === 10 || a === 127) return false
  if (a === 169 && b === 254) return false
  if (a === 172 && b >= 16 && b <= 31) return false
  if (a === 192 && b === 168) return false
  if (a === 100 && b >= 64 && b <= 127) return false // carrier-grade NAT
  if (a === 192 && b === 0 && (c === 0 || c === 2)) return false // IETF protocol assignments, documentation
  if (a === 192 && b === 88 && c === 99) return false // 6to4 relay anycast, deprecated
  if (a === 198 && (b === 18 || b === 19)) return false // benchmarking
  if (a === 198 && b === 51 && c === 100) return false // documentation
  if (a === 203 && b === 0 && c === 113) return false // documentation
  if (a >= 224) return false // multicast, reserved 240/4 and broadcast
  return true
}

/**
 * The body of an alert on a phone or a browser: the tag's MAC, the animal's group and why the event was raised in
 * `language` (eventSummary), its times in the alert rules' `timeZone`.
 */
export function alertBody(event: { [column: string]: unknown }, language: string | null, timeZone: string): string {
  const evidence = typeof event.evidence === 'object' && event.evidence !== null ? event.evidence : undefined
  const time = new Intl.DateTimeFormat(eventLanguageOf(language), { dateStyle: 'short', timeStyle: 'short', timeZone })
  const why = eventSummary(
    { EventType: String(event.event_type), evidence: evidence as Record<string, unknown> | undefined },
    language,
    (ms) => time.format(ms),
  )
  return [event.mac, event.group_name, why].filter((part) => typeof part === 'string' && part !== '').join(' · ')
}

/**
 * The phones that hear of an event: those whose Rank is among `ranks` (the alert rules' ranks for the kind,
 * outside their quiet hours: ranksToNotify; for a critical event all its ranks, quiet hours or not, since a
 * sow in trouble at night still needs someone).
 */
export function phonesToNotify<P extends { rank: number | null }>(phones: P[], ranks: readonly number[]): P[] {
  return phones.filter((phone) => phone.rank !== null && ranks.includes(phone.rank))
}

/**
 * How a push delivery names the targets it is done with (deliveries.push_targets_done): a phone by a digest of its
 * FCM token (the outbox need not hold the token), a browser by its subscription's id.
 */
export const phoneTarget = (token: string): string =>
  `fcm:${createHash('sha256').update(token).digest('base64url').slice(0, 22)}`
export const browserTarget = (subscriptionId: string): string => `web:${subscriptionId}`

/** Where a page of a subscription's delivery log ended: the log is in order of time, then account, then event. */
export interface AttemptKey {
  attemptedAt: number
  uid: string
  eventId: number
}

/** The `cursor` of the delivery log's next page: the key of the page's last attempt, base64url JSON. */
export function attemptCursor(key: AttemptKey): string {
  return Buffer.from(JSON.stringify([key.attemptedAt, key.uid, key.eventId])).toString('base64url')
}

/** The key a cursor names, or undefined for one this service did not write. */
export function attemptKeyOf(cursor: string): AttemptKey | undefined {
  let value: unknown
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'))
  } catch {
    return undefined
  }
  if (!Array.isArray(value) || value.length !== 3) return undefined
  const [attemptedAt, uid, eventId] = value as unknown[]
  const count = (n: unknown): n is number => Number.isSafeInteger(n) && (n as number) >= 0
  if (!count(attemptedAt) || !count(eventId) || typeof uid !== 'string' || uid.length === 0 || uid.length > 128)
    return undefined
  return { attemptedAt, uid, eventId }
}
