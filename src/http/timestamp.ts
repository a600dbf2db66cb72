// Every envelope carries the moment it was made as an ISO 8601 string. Date#toISOString formats through
// V8's printf-style date formatter: ~4,000 instructions, a twentieth of all /health costs (callgrind).
// Under load many responses share a millisecond, so the string of the last one is kept and reused.

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
