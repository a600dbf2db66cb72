// Pure rules about animals and their tags, shared by the API, MQTT ingestion, the simulator and the CLI.

/** Tag MAC as the API accepts it: six hex pairs separated by colons, either case. */
export const MAC_PATTERN = '^[0-9A-Fa-f]{2}(:[0-9A-Fa-f]{2}){5}$'
const MAC = new RegExp(MAC_PATTERN)

export function isMac(value: string): boolean {
  return MAC.test(value)
}

/** The stored form of a MAC: upper case. */
export function normalizeMac(value: string): string {
  return value.toUpperCase()
}

/**
 * Record ids are the creation time in ms. Two creates in the same millisecond (or a clock that steps
 * back) get the next free millisecond instead, so ids stay unique and increasing within a process;
 * the repository retries on the rare clash with another process.
 */
export function nextTimeId(now: number, lastIssued: number): number {
  return Math.max(Math.trunc(now), lastIssued + 1)
}

export function createIdSource(clock: () => number): { next: () => number; bump: (taken: number) => void } {
  let last = 0
  return {
    next: () => (last = nextTimeId(clock(), last)),
    bump: (taken) => { last = Math.max(last, taken) },
  }
}
