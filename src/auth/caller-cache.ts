// The caller (its principal row and whether the presented token is revoked) and account links, cached in
// the process so that an authenticated request costs no database round trip while nothing changed. Every
// change that matters arrives on the access-change feed (database triggers, db/access-changes.ts) and drops
// what it touches; ttlMs is the backstop. While the feed is not live nothing is served from the cache.
//
// A lookup that started before a change and finished after it must not store its stale answer: each change
// advances a generation, and an answer is stored only when no change arrived while it was being read.
import type { CallerSource, IntegratorPrincipal, PrincipalState, UserPrincipal } from './caller.ts'

export interface ChangeFeed {
  readonly live: boolean
  onChange(listener: (payload: string) => void): void
}

export interface CallerCacheOptions {
  ttlMs: number
  /** Entries kept at most; beyond it the oldest go first. */
  maxEntries: number
  now: () => number
}

interface Entry<T> {
  value: T
  expiresAt: number
  tags: string[]
}

/** The tags a change payload touches: the principal, the token, or the link (and both its ends' links). */
export function changeTags(payload: string): string[] | 'all' {
  let change: { integrator?: unknown; user?: unknown; jti?: unknown }
  try {
    change = JSON.parse(payload) as typeof change
  } catch {
    return 'all'
  }
  if (typeof change.jti === 'string') return [`jti:${change.jti}`]
  const integrator = typeof change.integrator === 'string' ? change.integrator : undefined
  const user = typeof change.user === 'string' ? change.user : undefined
  if (integrator !== undefined && user !== undefined) return [`link:${JSON.stringify([user, integrator])}`]
  if (integrator !== undefined) return [`integrator:${integrator}`]
  if (user !== undefined) return [`user:${user}`]
  return 'all'
}

export function cachingCallerSource(
  source: CallerSource,
  feed: ChangeFeed,
  options: CallerCacheOptions,
): CallerSource & { size(): number } {
  const entries = new Map<string, Entry<unknown>>()
  const byTag = new Map<string, Set<string>>()
  let generation = 0

  const drop = (key: string) => {
    const entry = entries.get(key)
    if (!entry) return
    entries.delete(key)
    for (const tag of entry.tags) byTag.get(tag)?.delete(key)
  }
  const clear = () => {
    entries.clear()
    byTag.clear()
  }
  feed.onChange((payload) => {
    generation++
    const tags = payload === 'reset' ? 'all' : changeTags(payload)
    if (tags === 'all') return clear()
    for (const tag of tags) {
      for (const key of [...(byTag.get(tag) ?? [])]) drop(key)
      byTag.delete(tag)
    }
  })

  async function cached<T>(
    key: string,
    tags: string[],
    load: () => Promise<T>,
    keep: (value: T) => boolean,
  ): Promise<T> {
    if (!feed.live) {
      if (entries.size > 0) clear()
      return load()
    }
    const hit = entries.get(key)
    if (hit && hit.expiresAt > options.now()) return hit.value as T
    if (hit) drop(key)
    const startedAt = generation
    const value = await load()
    if (keep(value) && generation === startedAt && feed.live) {
      if (entries.size >= options.maxEntries) {
        const oldest = entries.keys().next().value
        if (oldest !== undefined) drop(oldest)
      }
      entries.set(key, { value, expiresAt: options.now() + options.ttlMs, tags })
      for (const tag of tags) {
        let keys = byTag.get(tag)
        if (!keys) byTag.set(tag, (keys = new Set()))
        keys.add(key)
      }
    }
    return value
  }
  /**
   * A principal of `kind` and its token's revocation, kept until a change to that principal or token. An unknown
   * principal is not kept: the next request asks again (a newly created account is seen at once).
   */
  const principal =
    <P>(kind: 'integrator' | 'user', load: (uid: string, jti: string) => Promise<PrincipalState<P> | undefined>) =>
    (uid: string, jti: string) =>
      cached(
        `${kind}:${JSON.stringify([uid, jti])}`,
        [`${kind}:${uid}`, `jti:${jti}`],
        () => load(uid, jti),
        (value) => value !== undefined,
      )

  return {
    integrator: principal<IntegratorPrincipal>('integrator', (uid, jti) => source.integrator(uid, jti)),
    user: principal<UserPrincipal>('user', (uid, jti) => source.user(uid, jti)),
    // Dropped when the link changes, and when the account does (deactivated, reactivated).
    linkOf: (userUid, integratorUid) =>
      cached(
        `l:${JSON.stringify([userUid, integratorUid])}`,
        [`link:${JSON.stringify([userUid, integratorUid])}`, `user:${userUid}`],
        () => source.linkOf(userUid, integratorUid),
        () => true,
      ),
    size: () => entries.size,
  }
}
