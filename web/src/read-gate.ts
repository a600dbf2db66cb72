// The reads the service counts as expensive (docs/limits.md: two at once per caller by default) leave the app at
// most two at a time, so the app's own screens do not run into the 429: the Performance screen alone asks for nine
// at once (a year's KPIs, six months', the due lists, the alarms' accuracy). A 429 still gets its retry (api.ts):
// another tab, or an integrator on the same account, shares the bound.

/** The service's default bound on one caller's expensive requests in flight (EXPENSIVE_REQUESTS_PER_CALLER). */
export const EXPENSIVE_READS_AT_ONCE = 2

// Every read the service always counts as expensive (test/farm-app/read-gate.test.ts checks this against its routes).
const EXPENSIVE_PATH =
  /\/(kpis|due-lists|predictions\/accuracy|births\/statistics|litterguards\/summary|analytics)(\?|$)/

/** Whether a GET of this API path is one the service counts against the caller's bound on expensive requests. */
export function isExpensiveRead(path: string): boolean {
  if (EXPENSIVE_PATH.test(path)) return true
  const query = path.indexOf('?')
  return query >= 0 && new URLSearchParams(path.slice(query + 1)).has('cycleState')
}

/** Runs tasks at most `limit` at a time, in the order they came. */
export function createGate(limit: number): <T>(task: () => Promise<T>) => Promise<T> {
  let running = 0
  const waiting: (() => void)[] = []
  return async (task) => {
    if (running >= limit) await new Promise<void>((resolve) => waiting.push(resolve))
    else running++
    try {
      return await task()
    } finally {
      const next = waiting.shift()
      if (next) next()
      else running--
    }
  }
}
