import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { createTestApp } from '../support/app.ts'

describe('GET /metrics', () => {
  it('counts requests per route template with latency histograms', async () => {
    const ctx = await createTestApp()
    try {
      await ctx.app.inject({ method: 'GET', url: '/api/v1/health' })
      await ctx.app.inject({ method: 'GET', url: '/api/v1/health' })
      await ctx.app.inject({ method: 'GET', url: '/api/v1/unknown/abc123' })
      const res = await ctx.app.inject({ method: 'GET', url: '/metrics' })
      assert.equal(res.statusCode, 200)
      assert.match(String(res.headers['content-type']), /^text\/plain/)
      assert.match(res.body, /http_requests_total\{method="GET",route="\/api\/v1\/health",status_code="200"\} 2/)
      assert.match(res.body, /http_request_duration_seconds_bucket\{le="0.005",method="GET",route="\/api\/v1\/health",status_code="200"\}/)
      // unmatched URLs share one label so they cannot blow up cardinality
      assert.match(res.body, /route="unmatched",status_code="404"/)
      assert.doesNotMatch(res.body, /abc123/)
    } finally {
      await ctx.close()
    }
  })

  it('requires the bearer METRICS_TOKEN when one is configured', async () => {
    const ctx = await createTestApp({ env: { METRICS_TOKEN: 'scrape-me-please' } })
    try {
      const none = await ctx.app.inject({ method: 'GET', url: '/metrics' })
      assert.equal(none.statusCode, 401)
      assert.equal(none.json().error, 'Invalid token')
      const wrong = await ctx.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: 'Bearer nope' } })
      assert.equal(wrong.statusCode, 401)
      const right = await ctx.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: 'Bearer scrape-me-please' } })
      assert.equal(right.statusCode, 200)
    } finally {
      await ctx.close()
    }
  })
})
