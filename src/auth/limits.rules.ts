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
