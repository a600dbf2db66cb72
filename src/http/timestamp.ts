// Every envelope carries the moment it was made as an ISO 8601 string, and Date#toISOString is a noticeable part
// of a small response's cost (docs/performance.md). Under load many responses share a millisecond, so the string
// of the last one is kept and reused.

let lastMs = Number.NaN
let lastIso = ''

/** `new Date(ms).toISOString()`, formatted once per millisecond. */
export function isoTimestamp(ms: number = Date.now()): string {
  if (ms !== lastMs) {
    lastIso = new Date(ms).toISOString()
    lastMs = ms
  }
  return lastIso
}
