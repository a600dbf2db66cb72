// The request's logger (src/http/request-logger.ts): its pino child is made only when something is logged
// at an enabled level, and carries the request id and the service's redaction either way.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Writable } from 'node:stream'
import pino from 'pino'
import type { FastifyBaseLogger } from 'fastify'
import { loggerOptions } from '../../src/app.ts'
import { loadConfig } from '../../src/config.ts'
import { LazyChildLogger, deferChildLoggers } from '../../src/http/request-logger.ts'
import { createTestApp, testEnv, type TestContext } from '../support/app.ts'

function capture() {
  const lines: Record<string, unknown>[] = []
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line))
      done()
    },
  })
  return { lines, stream }
}

describe('request logger', () => {
  it('makes no child for calls below the level, one child on the first call at or above it', () => {
    const { lines, stream } = capture()
    const parent = pino({ level: 'warn' }, stream)
    let children = 0
    const child = parent.child.bind(parent)
    parent.child = ((...args: Parameters<typeof parent.child>) => {
      children++
      return child(...args)
    }) as typeof parent.child
    deferChildLoggers(parent)
    const log = parent.child({ reqId: 'r-1' }, {}) as unknown as LazyChildLogger
    assert.ok(log instanceof LazyChildLogger)
    log.info('skipped')
    log.debug({ a: 1 }, 'skipped')
    assert.equal(log.made, false)
    assert.equal(log.level, 'warn')
    log.warn({ n: 1 }, 'first')
    log.error('second %s', 'call')
    assert.equal(children, 1)
    assert.deepEqual(
      lines.map((l) => [l.reqId, l.msg, l.level]),
      [
        ['r-1', 'first', 40],
        ['r-1', 'second call', 50],
      ],
    )
    assert.equal(lines[0]!.n, 1)
  })

  it('gives a pino child at once when the route sets its own level or serializers, and leaves the null logger alone', () => {
    const parent = pino({ level: 'warn' }, capture().stream)
    deferChildLoggers(parent)
    assert.ok(parent.child({ reqId: 'r-2' }) instanceof LazyChildLogger)
    const debug = parent.child({ reqId: 'r-2' }, { level: 'debug' })
    assert.ok(!(debug instanceof LazyChildLogger))
    assert.equal(debug.level, 'debug')
    assert.ok(!(parent.child({ reqId: 'r-2' }, { serializers: { a: () => 'b' } }) instanceof LazyChildLogger))
    const silent = {
      level: 'silent',
      info() {},
      error() {},
      debug() {},
      fatal() {},
      warn() {},
      trace() {},
      silent() {},
      child() {
        return silent
      },
    } as FastifyBaseLogger
    deferChildLoggers(silent)
    assert.equal(silent.child({ reqId: 'r-3' }), silent)
  })

  it('a lazy child of a lazy child is a real child, made when asked for', () => {
    const { lines, stream } = capture()
    const parent = pino({ level: 'warn' }, stream)
    deferChildLoggers(parent)
    const log = parent.child({ reqId: 'r-5' }) as unknown as LazyChildLogger
    log.child({ step: 'two' }).warn('nested')
    assert.equal(log.made, true)
    assert.deepEqual(
      lines.map((l) => [l.reqId, l.step, l.msg]),
      [['r-5', 'two', 'nested']],
    )
  })

  it('a level set on the request logger applies to it alone', () => {
    const { lines, stream } = capture()
    const parent = pino({ level: 'warn' }, stream)
    deferChildLoggers(parent)
    const log = parent.child({ reqId: 'r-4' })
    log.level = 'info'
    log.info('now logged')
    parent.info('still not')
    assert.deepEqual(
      lines.map((l) => l.msg),
      ['now logged'],
    )
  })
})

describe('request logs through the service', () => {
  let ctx: TestContext
  const { lines, stream } = capture()
  let madeWhileQuiet: boolean | undefined
  before(async () => {
    const config = loadConfig(testEnv({ LOG_LEVEL: 'warn' }))
    ctx = await createTestApp({
      logger: { ...(loggerOptions(config) as object), stream },
      extend: (api) => {
        api.get('/probe/quiet', { config: { access: 'public' } }, async (req) => {
          madeWhileQuiet = (req.log as LazyChildLogger).made
          return { ok: true }
        })
        api.get('/probe/loud', { config: { access: 'public' } }, async (req) => {
          req.log.warn({ body: { password: 'hunter2' } }, 'probe warning')
          return { ok: true }
        })
      },
    })
  })
  after(() => ctx.close())

  it('a request that logs nothing at LOG_LEVEL=warn makes no child logger', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/api/v1/probe/quiet' })
    assert.equal(res.statusCode, 200)
    assert.equal(madeWhileQuiet, false)
  })

  it('a warning carries the request id and the redaction', async () => {
    const res = await ctx.app.inject({
      method: 'GET',
      url: '/api/v1/probe/loud',
      headers: { 'x-request-id': 'probe-loud-1' },
    })
    assert.equal(res.statusCode, 200)
    const line = lines.find((l) => l.msg === 'probe warning')
    assert.ok(line, JSON.stringify(lines))
    assert.equal(line.reqId, 'probe-loud-1')
    assert.deepEqual(line.body, { password: '[redacted]' })
  })
})
