// Work in flight per key (a caller's expensive requests, its open event streams), counted in this process: the
// count follows work that ends with its request or with the process, so it needs no expiry and no round trip,
// where a count kept in Redis would outlive a process killed mid-request.

export interface InFlightCounter {
  /** Takes one of the key's places when fewer than the bound are held; false when all are. */
  tryAcquire(key: string): boolean
  /** Gives one of the key's places back. */
  release(key: string): void
  /** The places the key holds now. */
  held(key: string): number
}

export function inFlightCounter(perKey: number): InFlightCounter {
  const counts = new Map<string, number>()
  return {
    tryAcquire(key) {
      const held = counts.get(key) ?? 0
      if (held >= perKey) return false
      counts.set(key, held + 1)
      return true
    },
    release(key) {
      const left = (counts.get(key) ?? 1) - 1
      if (left <= 0) counts.delete(key)
      else counts.set(key, left)
    },
    held: (key) => counts.get(key) ?? 0,
  }
}
