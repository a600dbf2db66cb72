// HTTP load with autocannon, bounded in time, from the bench's own process: the service and the bare
// baselines each run in a process of their own, so the load loop never shares their event loop or CPU
// time. autocannon's histograms keep whole milliseconds; its 'response' event carries each latency
// to the microsecond, so p50 and p99 are computed here from those.
import autocannon from 'autocannon'

export interface LoadOptions {
  port: number
  path: string
  headers?: Record<string, string>
  /** Seconds. */
  duration: number
  connections: number
  /** Requests per second across all connections (a rate-limited run); unset: as fast as the server answers. */
  overallRate?: number
}

export interface LoadResult {
  /** Answered requests per second. */
  rps: number
  requests: number
  p50Ms: number
  p99Ms: number
  /** Count per status code. */
  statuses: Record<string, number>
  errors: number
  timeouts: number
}

/** The value at quantile q of sorted values (nearest rank). */
export function quantile(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) return Number.NaN
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!
}

export async function load(options: LoadOptions): Promise<LoadResult> {
  let latencies = new Float64Array(65_536)
  let count = 0
  const statuses: Record<string, number> = {}
  const started = performance.now()
  let done: (err: unknown, result: autocannon.Result) => void = () => {}
  const finished = new Promise<autocannon.Result>((resolve, reject) => {
    done = (err, result) =>
      err ? reject(err instanceof Error ? err : new Error('autocannon failed', { cause: err })) : resolve(result)
  })
  const instance = autocannon(
    {
      url: `http://127.0.0.1:${options.port}${options.path}`,
      headers: options.headers ?? {},
      duration: options.duration,
      connections: options.connections,
      ...(options.overallRate ? { overallRate: Math.max(1, Math.round(options.overallRate)) } : {}),
      timeout: 30,
    },
    (err, result) => done(err, result),
  )
  instance.on('response', (_client: unknown, statusCode: number, _bytes: number, responseTime: number) => {
    statuses[statusCode] = (statuses[statusCode] ?? 0) + 1
    if (count === latencies.length) {
      const grown = new Float64Array(latencies.length * 2)
      grown.set(latencies)
      latencies = grown
    }
    latencies[count++] = responseTime
  })
  const result = await finished
  const seconds = (performance.now() - started) / 1000
  const sorted = latencies.subarray(0, count).sort()
  return {
    rps: count / Math.max(seconds, options.duration),
    requests: count,
    p50Ms: quantile(sorted, 0.5),
    p99Ms: quantile(sorted, 0.99),
    statuses,
    errors: result.errors,
    timeouts: result.timeouts,
  }
}

/** Throws unless every answer had the expected status and none failed. */
export function expectOnly(result: LoadResult, status: number, what: string): LoadResult {
  const others = Object.entries(result.statuses).filter(([s]) => Number(s) !== status)
  if (others.length > 0 || result.errors > 0 || result.requests === 0) {
    throw new Error(
      `${what}: expected only ${status}, got ${JSON.stringify(result.statuses)} with ${result.errors} errors (${result.timeouts} timeouts)`,
    )
  }
  return result
}
