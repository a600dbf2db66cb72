// Leases on the Redis limit counters. When a counter has plenty left, one Redis call takes several points at
// once (a lease, granted by ADMIT_SCRIPT in limits.ts) and the process spends them locally on the same key's
// next requests, until they run out or the window ends. Points are taken from the shared counter before they
// are spent, so several processes together never admit more than the limit; a process that stops or drops a
// lease loses its unspent points, and with them a client may be refused a little early, never late. Near the
// limit each lease is one point, so the last requests of a window are counted exactly as without leases.
// A refusal is remembered until its window ends: a client past its limit costs no Redis call either.

/**
 * A lease takes at most 1/LEASE_SHARE of what the counter has left, at most RATE_LIMIT_LEASE_MAX points and
 * at least one (ADMIT_SCRIPT computes it, where the counter is).
 */
export const LEASE_SHARE = 100

/** A request's count against one limit: above the limit means refused. */
export interface Counted {
  consumedPoints: number
  msBeforeNext: number
}

/** What the script answered for one key: the counter after it, its time to live, and the points granted (0: refused). */
export interface Granted {
  consumed: number
  ttlMs: number
  granted: number
}

interface Lease {
  limit: number
  /** Points taken and not yet spent; 0 with `refused` once the limit is spent. */
  available: number
  /** The counter in Redis at the last grant, less the points still available here: what was spent, as far as this process knows. */
  spent: number
  expiresAt: number
  refused: boolean
}

export class LeasePool {
  readonly #leases = new Map<string, Lease>()
  readonly #maxKeys: number

  constructor({ maxKeys = 50_000 } = {}) {
    this.#maxKeys = maxKeys
  }

  get size(): number {
    return this.#leases.size
  }

  /** Forgets every lease: after a reconnect, Redis may have lost the counters the leases were taken from. */
  clear(): void {
    this.#leases.clear()
  }

  /** Whether this process can answer for the key without Redis: 'spend' a leased point, 'refuse', or 'ask' Redis. */
  peek(key: string, now: number): 'spend' | 'refuse' | 'ask' {
    const lease = this.#leases.get(key)
    if (!lease || lease.expiresAt <= now) return 'ask'
    if (lease.refused) return 'refuse'
    return lease.available > 0 ? 'spend' : 'ask'
  }

  /** Spends one leased point, or answers a remembered refusal; call after peek said 'spend' or 'refuse'. */
  spend(key: string, now: number): Counted {
    const lease = this.#leases.get(key)!
    const msBeforeNext = Math.max(0, lease.expiresAt - now)
    if (lease.refused) return { consumedPoints: lease.limit + 1, msBeforeNext }
    lease.available--
    lease.spent++
    return { consumedPoints: lease.spent, msBeforeNext }
  }

  /** Records the script's answer for a key, of which this request spends one point (when granted). */
  record(key: string, limit: number, answer: Granted, now: number): Counted {
    const expiresAt = now + answer.ttlMs
    if (answer.granted === 0) {
      this.#put(key, { limit, available: 0, spent: answer.consumed, expiresAt, refused: true }, now)
      return { consumedPoints: Math.max(answer.consumed, limit + 1), msBeforeNext: answer.ttlMs }
    }
    const lease = this.#leases.get(key)
    const stillAvailable = lease && lease.expiresAt > now && !lease.refused ? lease.available : 0
    const available = stillAvailable + answer.granted - 1
    const spent = answer.consumed - available
    this.#put(key, { limit, available, spent, expiresAt, refused: false }, now)
    return { consumedPoints: spent, msBeforeNext: answer.ttlMs }
  }

  #put(key: string, lease: Lease, now: number) {
    this.#leases.delete(key)
    this.#leases.set(key, lease)
    if (this.#leases.size <= this.#maxKeys) return
    // Over the bound: drop ended windows, then the least recently granted leases (their points are lost).
    for (const [k, l] of this.#leases) if (l.expiresAt <= now) this.#leases.delete(k)
    for (const k of this.#leases.keys()) {
      if (this.#leases.size <= this.#maxKeys) break
      this.#leases.delete(k)
    }
  }
}
