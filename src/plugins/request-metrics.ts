// http_requests_total and http_request_duration_seconds, counted in plain numbers on the request path and
// written as Prometheus series only when /metrics is read. prom-client's labelled inc() and observe() hash
// their labels on every call, a visible share of a small request's cost (docs/performance.md). The
// exposition is prom-client's: these objects are metrics of its registry, with the values its own Counter and
// Histogram would give.

/** Seconds; every series also has the +Inf bucket. */
export const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

interface Series {
  labels: { method: string; route: string; status_code: string }
  count: number
  sum: number
  /** Observations per bucket, not cumulative: perBucket[i] counts those in (bucket i-1, bucket i], the last one those above all. */
  perBucket: number[]
}

/** The bucket an observation falls in: the first bound it does not exceed, or the last slot (+Inf). */
export function bucketIndex(seconds: number, bounds: readonly number[] = DURATION_BUCKETS): number {
  let i = 0
  while (i < bounds.length && seconds > bounds[i]!) i++
  return i
}

/** A value of prom-client's metric format (what a Counter's or Histogram's get() gives). */
interface MetricValue {
  labels: Record<string, string | number>
  value: number
  metricName?: string
}

export class RequestMetrics {
  // route → method → status: the route template and the method are the same string objects on every
  // request, so the lookups hash nothing new.
  private readonly byRoute = new Map<string, Map<string, Map<number, Series>>>()

  observe(method: string, route: string, statusCode: number, seconds: number): void {
    let byMethod = this.byRoute.get(route)
    if (!byMethod) this.byRoute.set(route, (byMethod = new Map<string, Map<number, Series>>()))
    let byStatus = byMethod.get(method)
    if (!byStatus) byMethod.set(method, (byStatus = new Map<number, Series>()))
    let series = byStatus.get(statusCode)
    if (!series) {
      series = {
        labels: { method, route, status_code: String(statusCode) },
        count: 0,
        sum: 0,
        perBucket: new Array<number>(DURATION_BUCKETS.length + 1).fill(0),
      }
      byStatus.set(statusCode, series)
    }
    series.count++
    series.sum += seconds
    series.perBucket[bucketIndex(seconds)]!++
  }

  private *series(): Generator<Series> {
    for (const byMethod of this.byRoute.values()) for (const byStatus of byMethod.values()) yield* byStatus.values()
  }

  reset(): void {
    this.byRoute.clear()
  }

  /** The request counter, as a metric of a prom-client registry. */
  counter(name: string, help: string) {
    return this.metric(name, help, 'counter', () =>
      [...this.series()].map((s) => ({ labels: s.labels, value: s.count })),
    )
  }

  /** The latency histogram, as a metric of a prom-client registry (cumulative buckets, le first, then _sum and _count). */
  histogram(name: string, help: string) {
    return this.metric(name, help, 'histogram', () =>
      [...this.series()].flatMap((s) => {
        let cumulative = 0
        const buckets = [...DURATION_BUCKETS, '+Inf' as const].map((le, i): MetricValue => {
          cumulative += s.perBucket[i]!
          return { labels: { le, ...s.labels }, value: cumulative, metricName: `${name}_bucket` }
        })
        return [
          ...buckets,
          { labels: s.labels, value: s.sum, metricName: `${name}_sum` },
          { labels: s.labels, value: s.count, metricName: `${name}_count` },
        ]
      }),
    )
  }

  /** What a prom-client registry asks of a metric: its description, its values (get) and reset. */
  private metric(name: string, help: string, type: 'counter' | 'histogram', values: () => MetricValue[]) {
    const description = { name, help, type, aggregator: 'sum' as const }
    return { ...description, get: async () => ({ ...description, values: values() }), reset: () => this.reset() }
  }
}
