// Store-independent: runs in the embedded pass of npm test only (test/run.ts).
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { Counter, Histogram, Registry, type Metric } from 'prom-client'
import { DURATION_BUCKETS, RequestMetrics, bucketIndex } from '../../src/plugins/request-metrics.ts'

describe('request metrics', () => {
  it('put an observation in the first bucket it does not exceed, +Inf above them all', () => {
    assert.equal(bucketIndex(0), 0)
    assert.equal(bucketIndex(0.005), 0)
    assert.equal(bucketIndex(0.0051), 1)
    assert.equal(bucketIndex(10), DURATION_BUCKETS.length - 1)
    assert.equal(bucketIndex(10.5), DURATION_BUCKETS.length)
  })

  it("expose what prom-client's own Counter and Histogram expose for the same requests", async () => {
    const theirs = new Registry()
    const labelNames = ['method', 'route', 'status_code'] as const
    const counter = new Counter({ name: 'http_requests_total', help: 'h', labelNames, registers: [theirs] })
    const histogram = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'h',
      labelNames,
      buckets: DURATION_BUCKETS,
      registers: [theirs],
    })
    const ours = new Registry()
    const metrics = new RequestMetrics()
    ours.registerMetric(metrics.counter('http_requests_total', 'h') as unknown as Metric)
    ours.registerMetric(metrics.histogram('http_request_duration_seconds', 'h') as unknown as Metric)
    const requests: [string, string, number, number][] = [
      ['GET', '/api/v1/health', 200, 0.0004],
      ['GET', '/api/v1/health', 200, 0.005],
      ['GET', '/api/v1/health', 200, 0.3],
      ['POST', '/api/v1/health', 404, 12],
      ['GET', 'unmatched', 404, 0.01],
      ['GET', '/api/v1/users/:userId', 200, 2.5],
      ['GET', '/api/v1/users/:userId', 503, 0.07],
      ['GET', '/api/v1/health', 200, 0],
    ]
    for (const [method, route, status, seconds] of requests) {
      const labels = { method, route, status_code: String(status) }
      counter.inc(labels)
      histogram.observe(labels, seconds)
      metrics.observe(method, route, status, seconds)
    }
    const lines = async (registry: Registry) => (await registry.metrics()).split('\n').filter(Boolean).sort()
    assert.deepEqual(await lines(ours), await lines(theirs))
    ours.resetMetrics()
    assert.doesNotMatch(await ours.metrics(), /route=/)
  })
})
