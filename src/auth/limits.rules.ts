// Pure rules of the spec's Limits section: which IP bucket a request falls in, the daily quota of a
// caller, the UTC-day window, and which limit the rate-limit headers report.
import type { Limits } from '../config.ts'
import type { Tier } from './tiers.ts'
import type { LimitClass } from '../http/route-policy.ts'

export type IpBucket = Exclude<LimitClass, 'exempt'>

/** The IP bucket of a route's limit class (route-policy.ts), or undefined when it is exempt. */
export function ipBucketOf(limit: LimitClass | undefined): IpBucket | undefined {
  return limit === 'exempt' ? undefined : (limit ?? 'ip')
}

/** Requests per window of an IP bucket; 0 = unlimited. */
export function ipLimitOf(bucket: IpBucket, limits: Limits): number {
  return bucket === 'ip' ? limits.rateLimitIpMax : limits.rateLimitTokensMax
}

/** Daily per-endpoint quota; 0 = unlimited. */
export function dailyQuotaOf(caller: { kind: 'integrator'; tier: Tier } | { kind: 'user' }, limits: Limits): number {
  if (caller.kind === 'user') return limits.quotaUser
  switch (caller.tier) {
    case 'free':
      return limits.quotaFree
    case 'starter':
      return limits.quotaStarter
    case 'pro':
      return limits.quotaPro
    case 'enterprise':
      return limits.quotaEnterprise
  }
}

const DAY_MS = 86_400_000

/** The UTC day a moment falls in, and when it ends: quotas reset at 00:00 UTC. */
export function utcDayWindow(nowMs: number): { day: string; resetAtSeconds: number; secondsLeft: number } {
  const start = Math.floor(nowMs / DAY_MS) * DAY_MS
  const end = start + DAY_MS
  return {
    day: new Date(start).toISOString().slice(0, 10),
    resetAtSeconds: end / 1000,
    secondsLeft: Math.max(1, Math.ceil((end - nowMs) / 1000)),
  }
}

export interface LimitState {
  /** Name in the RateLimit-Policy header and in the 429 message. */
  name: 'ip' | 'tokens' | 'refresh' | 'login' | 'quota'
  limit: number
  remaining: number
  /** Unix seconds when this window resets. */
  resetAt: number
  windowSeconds: number
}

/** docs/decisions.md: the headers report the window closest to its limit (fewest requests left; on a tie, the later reset). */
export function closestToLimit(states: LimitState[]): LimitState | undefined {
  let closest: LimitState | undefined
  for (const state of states) {
    if (
      !closest ||
      state.remaining < closest.remaining ||
      (state.remaining === closest.remaining && state.resetAt > closest.resetAt)
    ) {
      closest = state
    }
  }
  return closest
}

export function tierLabel(tier: Tier): string {
  return { free: 'Free', starter: 'Starter', pro: 'Pro', enterprise: 'Enterprise' }[tier]
}

export function describeWindow(seconds: number): string {
  if (seconds % 3600 === 0) return seconds === 3600 ? 'hour' : `${seconds / 3600} hours`
  if (seconds % 60 === 0) return seconds === 60 ? 'minute' : `${seconds / 60} minutes`
  return `${seconds} seconds`
}

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/
const HEXTET = /^[0-9a-f]{1,4}$/i

/** The eight 16-bit groups of an IPv6 address (zone and embedded IPv4 allowed), or undefined. */
function ipv6Groups(address: string): number[] | undefined {
  let text = address.replace(/%.*$/, '')
  const embedded = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)?.[1]
  if (embedded !== undefined) {
    if (!IPV4.test(embedded)) return undefined
    const [a, b, c, d] = embedded.split('.').map(Number) as [number, number, number, number]
    text = `${text.slice(0, -embedded.length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`
  }
  const halves = text.split('::')
  if (halves.length > 2) return undefined
  const parse = (part: string) => (part === '' ? [] : part.split(':'))
  const head = parse(halves[0]!)
  const tail = halves.length === 2 ? parse(halves[1]!) : []
  const missing = 8 - head.length - tail.length
  if (halves.length === 2 ? missing < 1 : missing !== 0) return undefined
  const groups = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...tail]
  if (!groups.every((g) => HEXTET.test(g))) return undefined
  return groups.map((g) => parseInt(g, 16))
}

/**
 * The key a client address counts under in the IP limits: an IPv4 address as it is, an IPv4-mapped IPv6
 * address (::ffff:a.b.c.d) as its IPv4 address, and an IPv6 address by its /64, the block one subscriber
 * usually holds whole (RFC 6177), so that walking the interface ids buys no new budget. Anything else as given.
 */
export function clientAddressKey(address: string): string {
  if (IPV4.test(address)) return address
  const groups = ipv6Groups(address)
  if (!groups) return address
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    return [groups[6]! >> 8, groups[6]! & 255, groups[7]! >> 8, groups[7]! & 255].join('.')
  }
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(':')}::/64`
}
