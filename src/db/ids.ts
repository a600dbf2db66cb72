// Record ids (docs/decisions.md): the creation time in milliseconds, unique within a collection even
// under concurrent creates, across processes.

/** Two creates in the same millisecond (or a clock that steps back) get the next free millisecond. */
export function nextTimeId(now: number, lastIssued: number): number {
  return Math.max(Math.trunc(now), lastIssued + 1)
}

export interface IdSource {
  next: () => number
  /** Another process took this id: never hand it (or anything before it) out again. */
  bump: (taken: number) => void
}

/** Increasing time ids for one collection in this process. */
export function createIdSource(clock: () => number): IdSource {
  let last = 0
  return {
    next: () => (last = nextTimeId(clock(), last)),
    bump: (taken) => {
      last = Math.max(last, taken)
    },
  }
}

/**
 * Runs `insert` with fresh ids until one is free. `insert` must use ON CONFLICT DO NOTHING on the id's
 * key and resolve undefined when it skipped: another process took that millisecond, so the next is tried.
 */
export async function insertWithTimeId<T>(ids: IdSource, insert: (id: number) => Promise<T | undefined>): Promise<T> {
  for (let attempt = 0; attempt < 1000; attempt++) {
    const id = ids.next()
    const row = await insert(id)
    if (row !== undefined) return row
    ids.bump(id)
  }
  throw new Error('Could not find a free time id in 1000 attempts')
}
